// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The profile schema's top: the table of top-level keys (key name -> parser, field, where the
 * value goes), the parsers of the keys only the top level has (name, extends, dscp-map), and
 * the dotted key each field is written as. The sections' tables are their own files':
 * profile_ports.c, profile_dcb.c, profile_ecn.c, profile_roce.c.
 */
#include <stddef.h>
#include <string.h>

#include "core/internal.h"
#include "profile_int.h"

/* ASCII only: a name ends up in file names and JSON, and isalnum() follows the locale */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

static const char *const field_keys[ND_F_COUNT] = {
	[ND_F_MTU] = "mtu",
	[ND_F_DCBX] = "dcbx",
	[ND_F_TRUST] = "trust",
	[ND_F_DSCP_MAP] = "dscp-map",
	[ND_F_PFC_EN] = "pfc.priorities",
	[ND_F_PFC_DELAY] = "pfc.cable-length",
	[ND_F_ETS_PRIO_TC] = "ets.prio-tc",
	[ND_F_ETS_TSA] = "ets.tsa",
	[ND_F_ETS_BW] = "ets.bandwidth",
	[ND_F_BUF_PRIO] = "buffer.prio-buffer",
	[ND_F_BUF_SIZE] = "buffer.size",
	[ND_F_MAXRATE] = "maxrate",
	[ND_F_ECN_NP] = "ecn.np",
	[ND_F_ECN_RP] = "ecn.rp",
	[ND_F_CNP_DSCP] = "ecn.cnp.dscp",
	[ND_F_CNP_PRIO] = "ecn.cnp.priority",
	[ND_F_DCQCN] = "ecn.dcqcn",
	[ND_F_ROCE_TOS] = "roce.tos",
	[ND_F_ROCE_MODE] = "roce.mode",
};

const char *nd_field_key(enum nd_field field)
{
	if ((unsigned int)field < ND_F_COUNT && field_keys[field])
		return field_keys[field];
	return "unknown";
}

static int key_dscp_map(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	char desc[64];
	int d;

	if (v->type != ND_Y_SCALAR)
		return pk_map(c, v, k);
	if (!nd_yaml_is(v, "dscp>>3"))
		return pv_err(c, v, "%s is not a named map; use dscp>>3 (DSCP d to priority d>>3) "
			      "or a mapping like {26: 3, 48: 6}",
			      nd_yaml_desc(v, desc, sizeof(desc)));
	for (d = 0; d < ND_DSCP_MAX; d++)
		c->p->dscp2prio[d] = d >> 3;
	pk_set_field(c, k->field, v);
	return 0;
}

static int key_name(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	const char *s;
	size_t i;
	int ret;

	(void)k;
	ret = pv_text(c, v, &s);
	if (ret)
		return ret;
	if (v->len >= sizeof(c->p->name))
		return pv_err(c, v, "the name is %zu characters; keep it under %zu", v->len,
			      sizeof(c->p->name));
	for (i = 0; s[i]; i++)
		if (!strchr(NAME_CHARS, s[i]))
			return pv_err(c, v, "character %zu is not a letter, digit, '.', '_' or "
				      "'-'; name profiles like roce-lossless", i + 1);
	/* a profile is named by its own file, not by what it extends */
	if (c->depth == 0)
		nd_strlcpy(c->p->name, s, sizeof(c->p->name));
	c->named = true;
	return 0;
}

static int key_extends(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	(void)c;
	(void)v;
	(void)k;
	return 0;	/* followed before the other keys: see apply_buf() in profile.c */
}

/*
 * The audit section: what a site accepts that audit cannot verify on its hardware, by profile
 * key (ecn.np on a driver without per-priority ECN enables, say), and "peer" for a link partner
 * nothing is heard from. `nodrop audit --accept-unverified` adds to it. Here, beside the field
 * keys it names.
 */
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

static const struct pnum num_mtu = {
	"MTU", 68, 65535, "use 68..65535 bytes, 9000 for jumbo frames"
};
static const struct pwords dcbx_words = { "DCBX mode", (const struct pword[]) {
	{ "host", DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE },
	{ "lld-managed", DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE },
	{ NULL, 0 } } };
static const struct pwords trust_words = { "trust mode", (const struct pword[]) {
	{ "pcp", ND_TRUST_PCP }, { "dscp", ND_TRUST_DSCP }, { NULL, 0 } } };
static const struct pmap map_dscp = { &pv_num_dscp, "DSCPs", true, pv_dscp_prio };
static const struct pmap map_rate = { &pv_num_tc, "TCs", false, pv_rate };

const struct pkey pk_top_keys[] = {
	{ "name", -1, key_name, .example = "name: roce-lossless" },
	{ "extends", -1, key_extends, .example = "extends: base.yaml" },
	{ "ports", -1, pk_ports, .sub = pk_port_keys, .example = "ports: {drivers: [mlx5_core]}" },
	{ "mtu", ND_F_MTU, pk_num, .num = &num_mtu, PK_AT(mtu), .example = "mtu: 9000" },
	{ "dcbx", ND_F_DCBX, pk_word, .words = &dcbx_words, PK_AT(dcbx), .example = "dcbx: host" },
	{ "trust", ND_F_TRUST, pk_word, .words = &trust_words, PK_AT(trust),
	  .example = "trust: dscp" },
	{ "dscp-map", ND_F_DSCP_MAP, key_dscp_map, .map = &map_dscp, PK_AT_EACH(dscp2prio),
	  .example = "dscp-map: {26: 3, 48: 6}" },
	{ "pfc", -1, pk_table, .sub = pk_pfc_keys,
	  .example = "pfc: {priorities: [3], cable-length: 30}" },
	{ "ets", -1, pk_table, .sub = pk_ets_keys,
	  .example = "ets: {prio-tc: {all: 0, 3: 3}}" },
	{ "buffer", -1, pk_table, .sub = pk_buffer_keys,
	  .example = "buffer: {prio-buffer: {all: 0, 3: 1}}" },
	{ "maxrate", ND_F_MAXRATE, pk_map, .map = &map_rate, PK_AT_EACH(maxrate),
	  .example = "maxrate: {all: unlimited, 6: 25Gbit}" },
	{ "ecn", -1, pk_table, .sub = pk_ecn_keys, .example = "ecn: {np: [3], rp: [3]}" },
	{ "roce", -1, pk_table, .sub = pk_roce_keys, .example = "roce: {tos: 106, mode: v2}" },
	{ "audit", -1, pk_table, .sub = pk_audit_keys,
	  .example = "audit: {accept-unverified: [ecn.np, ecn.rp]}" },
	{ .name = NULL },
};

_Static_assert(ND_ARRAY_SIZE(pk_top_keys) <= PKEYS_MAX + 1, "PKEYS_MAX too small");
