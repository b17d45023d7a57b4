// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage's counter family: counters that went backwards without wrapping, whose rules stayed
 * silent this interval. It reads every delta, so it names no counter of its own.
 */
#include "triage.h"

/*
 * counter-reset, info: counters that went backwards without wrapping (driver reload, a clear):
 * they have no delta this interval, and the rules that need them stayed silent.
 */
static void check_reset(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	struct nd_finding *f = NULL;
	size_t i, k = 0;

	for (i = 0; i < c->n; i++) {
		if (c->d[i].status != ND_DELTA_RESET)
			continue;
		if (!f)
			f = nd_tri_add(c, r, r->severity, -1);
		if (!f)
			return;
		nd_tri_add_ev(f, &c->d[i]);
		k++;
	}
	if (!f)
		return;
	SUMMARY(f, "%zu counter%s went backwards without wrapping (driver reload or a clear): no "
		"delta for %s this interval, so the rules that read %s stayed silent", k,
		k == 1 ? "" : "s", k == 1 ? "it" : "them", k == 1 ? "it" : "them");
	ACTION(f, "run nodrop triage again; if it repeats, find what resets them (dmesg for a "
	       "driver reload, perfquery -R or a monitoring agent clearing counters)");
}

static const struct nd_tri_rule rules[] = {
	{ "counter-reset", ND_SEV_INFO, check_reset },
};

const struct nd_tri_family nd_tri_reset = {
	.name = "counters",
	.rules = rules,
	.n_rules = ND_ARRAY_SIZE(rules),
};
