// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The profile's ports section and what it is for: the glob lists (names, drivers, pci, rdma)
 * a profile matches ports by, parsed into struct nd_match, and matching a port against them.
 */
#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "profile_int.h"

static char **match_list(struct nd_match *m, unsigned int slot, size_t **n)
{
	switch (slot) {
	case 0:
		*n = &m->n_names;
		return m->names;
	case 1:
		*n = &m->n_drivers;
		return m->drivers;
	case 2:
		*n = &m->n_pci;
		return m->pci;
	default:
		*n = &m->n_rdma;
		return m->rdma;
	}
}

void pk_match_free(struct nd_match *m)
{
	unsigned int slot;
	size_t *n, i;
	char **list;

	for (slot = 0; slot < 4; slot++) {
		list = match_list(m, slot, &n);
		for (i = 0; i < *n; i++)
			free(list[i]);
	}
	memset(m, 0, sizeof(*m));
}

static int key_globs(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	const struct nd_ynode *const *items = &v;
	size_t count = 1, i, *n;
	const char *s;
	char **list;
	int ret;

	if (v->type == ND_Y_SEQ) {
		items = (const struct nd_ynode *const *)v->kids;
		count = v->n;
		if (!count)
			return pv_err(c, v, "an empty list matches no port; give a pattern or drop "
				      "the key");
		if (count > ND_MATCH_MAX)
			return pv_err(c, v, "%zu patterns; give at most %d (globs can cover more)",
				      count, ND_MATCH_MAX);
	} else if (v->type != ND_Y_SCALAR) {
		return pv_err(c, v, "expected a pattern or a list of patterns, got a mapping; "
			      "write it like %s", c->example);
	}
	list = match_list(&c->p->match, k->slot, &n);
	for (i = 0; i < count; i++) {
		ret = pv_text(c, items[i], &s);
		if (ret)
			return ret;
		if (items[i]->len > 255)
			return pv_err(c, items[i], "a pattern of %zu characters; keep it under 256",
				      items[i]->len);
		list[*n] = strdup(s);
		if (!list[*n])
			return nd_err_set(c->e, -ENOMEM, "%s: out of memory", c->file);
		(*n)++;
	}
	return 0;
}

int pk_ports(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	int ret = pv_type(c, v, ND_Y_MAP);

	if (ret)
		return ret;
	/* a profile's ports replace, never add to, those of the profile it extends */
	pk_match_free(&c->p->match);
	return pk_table(c, v, k);
}

const struct pkey pk_port_keys[] = {
	{ "names", -1, key_globs, .slot = 0, .example = "names: [eth2, \"ens1f*\"]" },
	{ "drivers", -1, key_globs, .slot = 1, .example = "drivers: [mlx5_core]" },
	{ "pci", -1, key_globs, .slot = 2, .example = "pci: [\"0000:3b:00.*\"]" },
	{ "rdma", -1, key_globs, .slot = 3, .example = "rdma: [\"mlx5_*\"]" },
	{ .name = NULL },
};

static bool any_match(char *const *pats, size_t n, const char *s)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fnmatch(pats[i], s, 0) == 0)
			return true;
	return false;
}

bool nd_profile_matches(const struct nd_profile *p, const struct nd_port *port)
{
	const struct nd_match *m = &p->match;
	size_t i;

	if (m->n_names && !any_match(m->names, m->n_names, port->link.name))
		return false;
	if (m->n_drivers && !any_match(m->drivers, m->n_drivers, port->link.driver))
		return false;
	if (m->n_pci && !any_match(m->pci, m->n_pci, port->link.bus_info))
		return false;
	if (!m->n_rdma)
		return true;
	for (i = 0; i < port->n_rdma && i < ND_RDMA_PER_NETDEV; i++)
		if (any_match(m->rdma, m->n_rdma, port->rdma[i].ibdev))
			return true;
	return false;
}
