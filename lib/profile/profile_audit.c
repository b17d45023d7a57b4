// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The profile's audit section: what a site accepts that audit cannot verify on its hardware,
 * by profile key (ecn.np on a driver without per-priority ECN enables, say), and "peer" for a
 * link partner nothing is heard from. `nodrop audit --accept-unverified` adds to it.
 */
#include <string.h>

#include "core/internal.h"
#include "profile.h"

/* The bit of one accepted name, 0 when it names nothing audit knows. */
uint32_t nd_profile_accept_bit(const char *name, size_t len)
{
	for (int f = 0; f < ND_F_COUNT; f++)
		if (strlen(nd_field_key((enum nd_field)f)) == len &&
		    !strncmp(nd_field_key((enum nd_field)f), name, len))
			return 1u << f;
	return len == 4 && !strncmp(name, "peer", 4) ? ND_ACCEPT_PEER : 0;
}

static int key_accept(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	const struct nd_ynode *const *items = &v;
	size_t count = 1, i;
	const char *s;
	int ret;

	(void)k;
	if (v->type == ND_Y_SEQ) {
		items = (const struct nd_ynode *const *)v->kids;
		count = v->n;
	} else if (v->type != ND_Y_SCALAR) {
		return pv_err(c, v, "expected a field or a list of fields, got a mapping; write "
			      "it like %s", c->example);
	}
	for (i = 0; i < count; i++) {
		uint32_t bit;

		ret = pv_text(c, items[i], &s);
		if (ret)
			return ret;
		bit = nd_profile_accept_bit(s, strlen(s));
		if (!bit)
			return pv_err(c, items[i], "'%.64s' is not a profile field audit checks; give "
				      "profile keys such as ecn.np, ecn.rp, ecn.dcqcn, or peer", s);
		/* what an extended profile accepts stays accepted */
		c->p->accept_unverified |= bit;
	}
	return 0;
}

const struct pkey pk_audit_keys[] = {
	{ "accept-unverified", -1, key_accept, .example = "accept-unverified: [ecn.np, ecn.rp]" },
	{ .name = NULL },
};
