// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The profile's ecn section: the notification and reaction point priorities, the CNP's DSCP
 * and priority (ecn.cnp), and the DCQCN parameters by their mlx5 cc_params names, with a
 * "did you mean" for the names MLNX_OFED and firmware tools use.
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "profile_int.h"

static const struct pnum num_u32 = { "value", 0, UINT32_MAX, "DCQCN parameters are 0..4294967295" };

/* MLNX_OFED and firmware tools spell DCQCN parameters differently; try their prefixes. */
static bool dcqcn_guess(const char *name, char *buf, size_t size)
{
	static const char *const tries[][2] = {
		{ "rpg_", "rp_" }, { "", "rp_" }, { "", "np_" },
	};
	size_t i, pre;

	for (i = 0; i < ND_ARRAY_SIZE(tries); i++) {
		pre = strlen(tries[i][0]);
		if (strncmp(name, tries[i][0], pre))
			continue;
		if ((size_t)snprintf(buf, size, "%s%s", tries[i][1], name + pre) < size &&
		    nd_ecn_param_known(buf))
			return true;
	}
	return false;
}

static int dcqcn_name(struct pctx *c, const struct nd_ynode *key)
{
	char desc[64], guess[ND_ECN_NAME_MAX];

	if (key->type != ND_Y_SCALAR || strlen(key->str) != key->len)
		return pv_err(c, key, "a parameter name must be a word, got %s; write it like %s",
			      nd_yaml_desc(key, desc, sizeof(desc)), c->example);
	/* one source of truth for the CNP: ecn.cnp */
	if (!strcmp(key->str, "np_cnp_dscp") || !strcmp(key->str, "np_cnp_prio"))
		return pv_err(c, key, "%s is set by ecn.cnp.%s; move it there", key->str,
			      key->str[7] == 'd' ? "dscp" : "priority");
	if (nd_ecn_param_known(key->str))
		return 0;
	if (dcqcn_guess(key->str, guess, sizeof(guess)))
		return pv_err(c, key, "unknown DCQCN parameter %s; did you mean %s?",
			      nd_yaml_desc(key, desc, sizeof(desc)), guess);
	return pv_err(c, key, "unknown DCQCN parameter %s; use the upstream mlx5 cc_params names "
		      "listed in nodrop-profile(5)", nd_yaml_desc(key, desc, sizeof(desc)));
}

static int key_dcqcn(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	struct nd_profile *p = c->p;
	uint64_t val;
	size_t i, j;
	int ret;

	ret = pv_type(c, v, ND_Y_MAP);
	for (i = 0; !ret && i + 1 < v->n; i += 2) {
		const struct nd_ynode *key = v->kids[i];

		ret = dcqcn_name(c, key);
		for (j = 0; !ret && j < i; j += 2)
			if (!strcmp(v->kids[j]->str, key->str))
				ret = pv_err(c, key, "%s is given twice (first at line %u); "
					     "give it once", key->str, v->kids[j]->line);
		if (!ret)
			ret = pv_uint(c, v->kids[i + 1], k->num, &val);
		if (ret)
			break;
		/* a mapping overrides the extended profile's parameters one by one */
		for (j = 0; j < p->n_dcqcn && strcmp(p->dcqcn[j].name, key->str); j++)
			;
		if (j == ND_ECN_PARAM_MAX)
			return pv_err(c, key, "more than %d DCQCN parameters; give each once",
				      ND_ECN_PARAM_MAX);
		if (j == p->n_dcqcn)
			p->n_dcqcn++;
		nd_strlcpy(p->dcqcn[j].name, key->str, sizeof(p->dcqcn[j].name));
		p->dcqcn[j].value = (uint32_t)val;
		nd_strlcpy(p->dcqcn_loc[j].file, c->file, sizeof(p->dcqcn_loc[j].file));
		p->dcqcn_loc[j].line = v->kids[i + 1]->line;
		p->dcqcn_loc[j].col = v->kids[i + 1]->col;
	}
	if (!ret)
		pk_set_field(c, k->field, v);
	return ret;
}

static const struct pkey cnp_keys[] = {
	{ "dscp", ND_F_CNP_DSCP, pk_num, .num = &pv_num_dscp, PK_AT(cnp_dscp),
	  .example = "dscp: 48" },
	{ "priority", ND_F_CNP_PRIO, pk_num, .num = &pv_num_prio, PK_AT(cnp_prio),
	  .example = "priority: 6" },
	{ .name = NULL },
};

const struct pkey pk_ecn_keys[] = {
	{ "np", ND_F_ECN_NP, pk_prios, PK_AT(ecn_np), .example = "np: [3]" },
	{ "rp", ND_F_ECN_RP, pk_prios, PK_AT(ecn_rp), .example = "rp: [3]" },
	{ "cnp", -1, pk_table, .sub = cnp_keys, .example = "cnp: {dscp: 48, priority: 6}" },
	{ "dcqcn", ND_F_DCQCN, key_dcqcn, .num = &num_u32,
	  .example = "dcqcn: {rp_time_reset: 300, rp_ai_rate: 5}" },
	{ .name = NULL },
};
