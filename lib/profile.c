// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Profiles: the desired lossless state of a port, from YAML (see nodrop-profile(5)). The schema is
 * a tree of key tables; each key names its field, its parser and where the value goes. Parsing
 * touches no system state: a profile is read, checked whole and returned, or nothing is.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"
#include "profile.h"

#define LOC_FILE_MAX sizeof(((struct nd_loc *)0)->file)
/* ASCII only: a name ends up in file names and JSON, and isalnum() follows the locale */
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

struct pkey;
typedef int (*pkey_fn)(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);

/* One key of the schema: what it sets, how it is parsed, where the value goes. */
struct pkey {
	const char *name;
	int field;			/* enum nd_field, -1 for keys that are not a field */
	pkey_fn parse;
	const struct pkey *sub;		/* the keys of a nested mapping */
	const struct pnum *num;
	const struct pwords *words;
	const struct pmap *map;
	size_t off, size;		/* the value in struct nd_profile (element size for maps) */
	unsigned int slot;		/* which nd_match list */
	const char *example;
};

#define PKEYS_MAX 16		/* keys in one table, for parse_table()'s duplicate check */

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

static const struct pkey *schema(void);

static void set_field(struct pctx *c, int field, const struct nd_ynode *v)
{
	struct nd_loc *loc = &c->p->loc[field];

	c->p->set |= 1u << field;
	nd_strlcpy(loc->file, c->file, sizeof(loc->file));
	loc->line = v->line;
	loc->col = v->col;
}

static void put(void *dst, size_t size, int64_t v)
{
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	if (size == 1)
		memcpy(dst, &u8, 1);
	else if (size == 2)
		memcpy(dst, &u16, 2);
	else if (size == 4)
		memcpy(dst, &u32, 4);
	else
		memcpy(dst, &v, 8);
}

/* Sparse maps (the DSCP map) hold signed values, -1 for none; the others unsigned. */
static int64_t get(const void *src, size_t size, bool sign)
{
	uint8_t u8;
	uint32_t u32;
	int32_t s32;
	int64_t v;

	if (size == 1) {
		memcpy(&u8, src, 1);
		return u8;
	}
	if (size == 4 && sign) {
		memcpy(&s32, src, 4);
		return s32;
	}
	if (size == 4) {
		memcpy(&u32, src, 4);
		return u32;
	}
	memcpy(&v, src, 8);
	return v;
}

static int key_num(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	uint64_t val;
	int ret = pv_uint(c, v, k->num, &val);

	if (ret)
		return ret;
	put((char *)c->p + k->off, k->size, (int64_t)val);
	set_field(c, k->field, v);
	return 0;
}

static int key_word(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	int val, ret = pv_word(c, v, k->words, &val);

	if (ret)
		return ret;
	put((char *)c->p + k->off, k->size, val);
	set_field(c, k->field, v);
	return 0;
}

static int key_prios(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	uint8_t bits;
	int ret = pv_prio_list(c, v, &bits);

	if (ret)
		return ret;
	put((char *)c->p + k->off, 1, bits);
	set_field(c, k->field, v);
	return 0;
}

static int key_map(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	bool inherited = c->p->set & (1u << k->field);
	unsigned int n = (unsigned int)k->map->index->max + 1, i;
	char *base = (char *)c->p + k->off;
	int64_t vals[ND_DSCP_MAX];
	int ret;

	/* what the extended profile gave is where a mapping without `all` starts */
	for (i = 0; i < n; i++)
		vals[i] = inherited ? get(base + i * k->size, k->size, k->map->sparse) :
			  k->map->sparse ? -1 : 0;
	ret = pv_map(c, v, k->map, vals, inherited);
	if (ret)
		return ret;
	for (i = 0; i < n; i++)
		put(base + i * k->size, k->size, vals[i]);
	set_field(c, k->field, v);
	return 0;
}

static int key_dscp_map(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	char desc[64];
	int d;

	if (v->type != ND_Y_SCALAR)
		return key_map(c, v, k);
	if (!nd_yaml_is(v, "dscp>>3"))
		return pv_err(c, v, "%s is not a named map; use dscp>>3 (DSCP d to priority d>>3) "
			      "or a mapping like {26: 3, 48: 6}",
			      nd_yaml_desc(v, desc, sizeof(desc)));
	for (d = 0; d < ND_DSCP_MAX; d++)
		c->p->dscp2prio[d] = d >> 3;
	set_field(c, k->field, v);
	return 0;
}

static int key_roce_mode(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	int mode, ret = pv_word(c, v, k->words, &mode);

	if (ret)
		return ret;
	/* as configfs spells it */
	nd_strlcpy(c->p->roce_mode, mode == 1 ? "IB/RoCE v1" : "RoCE v2", sizeof(c->p->roce_mode));
	set_field(c, k->field, v);
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
	return 0;	/* followed before the other keys: see apply_buf() */
}

static int key_table(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);

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

static void match_free(struct nd_match *m)
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

static int key_ports(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	int ret = pv_type(c, v, ND_Y_MAP);

	if (ret)
		return ret;
	/* a profile's ports replace, never add to, those of the profile it extends */
	match_free(&c->p->match);
	return key_table(c, v, k);
}

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
		set_field(c, k->field, v);
	return ret;
}

/* "did you mean": a near key in the same mapping, else the same key elsewhere in the schema. */
static bool find_path(const struct pkey *table, const char *prefix, const char *name, char *buf,
		      size_t size)
{
	char path[128];
	size_t i;

	for (i = 0; table[i].name; i++) {
		snprintf(path, sizeof(path), "%s%s%s", prefix, *prefix ? "." : "", table[i].name);
		if (!strcmp(table[i].name, name)) {
			nd_strlcpy(buf, path, size);
			return true;
		}
		if (table[i].sub && find_path(table[i].sub, path, name, buf, size))
			return true;
	}
	return false;
}

static int unknown_key(struct pctx *c, const struct nd_ynode *key, const struct pkey *table,
		       const char *parent)
{
	unsigned int best = 99, d, i;
	char list[256], guess[128];
	size_t len = 0;

	for (i = 0; table[i].name; i++) {
		d = strcasecmp(key->str, table[i].name) ? pv_distance(key->str, table[i].name) : 0;
		if (d < best && d <= (strlen(table[i].name) > 4 ? 2u : 1u)) {
			best = d;
			snprintf(guess, sizeof(guess), "%s%s%s", parent, *parent ? "." : "",
				 table[i].name);
		}
	}
	if (best != 99 || find_path(schema(), "", key->str, guess, sizeof(guess)))
		return pv_err(c, key, "unknown key; did you mean %s?", guess);
	list[0] = '\0';
	for (i = 0; table[i].name && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					!i ? "" : table[i + 1].name ? ", " : " or ", table[i].name);
	return pv_err(c, key, "unknown key; %s takes %s", *parent ? parent : "a profile", list);
}

static int parse_table(struct pctx *c, const struct nd_ynode *v, const struct pkey *table)
{
	const struct nd_ynode *seen[PKEYS_MAX] = { NULL };
	const char *parent = c->path, *parent_ex = c->example;
	char path[128], shown[40], desc[64];
	size_t i, k;
	int ret;

	ret = pv_type(c, v, ND_Y_MAP);
	for (k = 0; !ret && k + 1 < v->n; k += 2) {
		const struct nd_ynode *key = v->kids[k];

		if (key->type != ND_Y_SCALAR || !key->len || strlen(key->str) != key->len)
			return pv_err(c, key, "keys must be words, got %s; write it like %s",
				      nd_yaml_desc(key, desc, sizeof(desc)), c->example);
		for (i = 0; table[i].name && !nd_yaml_is(key, table[i].name); i++)
			;
		snprintf(path, sizeof(path), "%s%s%s", parent, *parent ? "." : "",
			 nd_yaml_shown(key->str, key->len, shown, sizeof(shown)));
		c->path = path;
		if (!table[i].name) {
			ret = unknown_key(c, key, table, parent);
		} else if (seen[i]) {
			ret = pv_err(c, key, "duplicate key (first at line %u); give each key once",
				     seen[i]->line);
		} else {
			seen[i] = key;
			c->example = table[i].example;
			ret = table[i].parse(c, v->kids[k + 1], &table[i]);
		}
		c->path = parent;
		c->example = parent_ex;
	}
	return ret;
}

static int key_table(struct pctx *c, const struct nd_ynode *v, const struct pkey *k)
{
	return parse_table(c, v, k->sub);
}

/* ---- the schema ---- */

#define AT(f) .off = offsetof(struct nd_profile, f), .size = sizeof(((struct nd_profile *)0)->f)
#define AT_EACH(f) .off = offsetof(struct nd_profile, f), \
	.size = sizeof(((struct nd_profile *)0)->f[0])

static const struct pnum num_mtu = {
	"MTU", 68, 65535, "use 68..65535 bytes, 9000 for jumbo frames"
};
static const struct pnum num_cable = { "cable length", 0, 65535, "give metres, 0..65535" };
static const struct pnum num_tos = {
	"ToS", 0, 255, "the ToS byte is 0..255 (DSCP 26 with ECT(0) is 106)"
};
static const struct pnum num_u32 = { "value", 0, UINT32_MAX, "DCQCN parameters are 0..4294967295" };

static const struct pwords dcbx_words = { "DCBX mode", (const struct pword[]) {
	{ "host", DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE },
	{ "lld-managed", DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE },
	{ NULL, 0 } } };
static const struct pwords trust_words = { "trust mode", (const struct pword[]) {
	{ "pcp", ND_TRUST_PCP }, { "dscp", ND_TRUST_DSCP }, { NULL, 0 } } };
static const struct pwords mode_words = { "RoCE mode", (const struct pword[]) {
	{ "v1", 1 }, { "v2", 2 }, { NULL, 0 } } };

static const struct pmap map_dscp = { &pv_num_dscp, "DSCPs", true, pv_dscp_prio };
static const struct pmap map_prio_tc = { &pv_num_prio, "priorities", false, pv_tc };
static const struct pmap map_tsa = { &pv_num_tc, "TCs", false, pv_tsa };
static const struct pmap map_bw = { &pv_num_tc, "TCs", false, pv_percent };
static const struct pmap map_prio_buf = { &pv_num_prio, "priorities", false, pv_buffer };
static const struct pmap map_buf_size = { &pv_num_buffer, "buffers", false, pv_size };
static const struct pmap map_rate = { &pv_num_tc, "TCs", false, pv_rate };

static const struct pkey port_keys[] = {
	{ "names", -1, key_globs, .slot = 0, .example = "names: [eth2, \"ens1f*\"]" },
	{ "drivers", -1, key_globs, .slot = 1, .example = "drivers: [mlx5_core]" },
	{ "pci", -1, key_globs, .slot = 2, .example = "pci: [\"0000:3b:00.*\"]" },
	{ "rdma", -1, key_globs, .slot = 3, .example = "rdma: [\"mlx5_*\"]" },
	{ .name = NULL },
};

static const struct pkey pfc_keys[] = {
	{ "priorities", ND_F_PFC_EN, key_prios, AT(pfc_en), .example = "priorities: [3]" },
	{ "cable-length", ND_F_PFC_DELAY, key_num, .num = &num_cable, AT(pfc_delay),
	  .example = "cable-length: 30" },
	{ .name = NULL },
};

static const struct pkey ets_keys[] = {
	{ "prio-tc", ND_F_ETS_PRIO_TC, key_map, .map = &map_prio_tc, AT_EACH(prio_tc),
	  .example = "prio-tc: {all: 0, 3: 3}" },
	{ "tsa", ND_F_ETS_TSA, key_map, .map = &map_tsa, AT_EACH(tc_tsa),
	  .example = "tsa: {all: strict, 0: ets, 3: ets}" },
	{ "bandwidth", ND_F_ETS_BW, key_map, .map = &map_bw, AT_EACH(tc_bw),
	  .example = "bandwidth: {all: 0, 0: 50, 3: 50}" },
	{ .name = NULL },
};

static const struct pkey buffer_keys[] = {
	{ "prio-buffer", ND_F_BUF_PRIO, key_map, .map = &map_prio_buf, AT_EACH(prio2buffer),
	  .example = "prio-buffer: {all: 0, 3: 1}" },
	{ "size", ND_F_BUF_SIZE, key_map, .map = &map_buf_size, AT_EACH(buffer_size),
	  .example = "size: {all: 0, 0: 128K, 1: 96K}" },
	{ .name = NULL },
};

static const struct pkey cnp_keys[] = {
	{ "dscp", ND_F_CNP_DSCP, key_num, .num = &pv_num_dscp, AT(cnp_dscp),
	  .example = "dscp: 48" },
	{ "priority", ND_F_CNP_PRIO, key_num, .num = &pv_num_prio, AT(cnp_prio),
	  .example = "priority: 6" },
	{ .name = NULL },
};

static const struct pkey ecn_keys[] = {
	{ "np", ND_F_ECN_NP, key_prios, AT(ecn_np), .example = "np: [3]" },
	{ "rp", ND_F_ECN_RP, key_prios, AT(ecn_rp), .example = "rp: [3]" },
	{ "cnp", -1, key_table, .sub = cnp_keys, .example = "cnp: {dscp: 48, priority: 6}" },
	{ "dcqcn", ND_F_DCQCN, key_dcqcn, .num = &num_u32,
	  .example = "dcqcn: {rp_time_reset: 300, rp_ai_rate: 5}" },
	{ .name = NULL },
};

static const struct pkey roce_keys[] = {
	{ "tos", ND_F_ROCE_TOS, key_num, .num = &num_tos, AT(roce_tos), .example = "tos: 106" },
	{ "mode", ND_F_ROCE_MODE, key_roce_mode, .words = &mode_words, .example = "mode: v2" },
	{ .name = NULL },
};

static const struct pkey top_keys[] = {
	{ "name", -1, key_name, .example = "name: roce-lossless" },
	{ "extends", -1, key_extends, .example = "extends: base.yaml" },
	{ "ports", -1, key_ports, .sub = port_keys, .example = "ports: {drivers: [mlx5_core]}" },
	{ "mtu", ND_F_MTU, key_num, .num = &num_mtu, AT(mtu), .example = "mtu: 9000" },
	{ "dcbx", ND_F_DCBX, key_word, .words = &dcbx_words, AT(dcbx), .example = "dcbx: host" },
	{ "trust", ND_F_TRUST, key_word, .words = &trust_words, AT(trust),
	  .example = "trust: dscp" },
	{ "dscp-map", ND_F_DSCP_MAP, key_dscp_map, .map = &map_dscp, AT_EACH(dscp2prio),
	  .example = "dscp-map: {26: 3, 48: 6}" },
	{ "pfc", -1, key_table, .sub = pfc_keys,
	  .example = "pfc: {priorities: [3], cable-length: 30}" },
	{ "ets", -1, key_table, .sub = ets_keys,
	  .example = "ets: {prio-tc: {all: 0, 3: 3}}" },
	{ "buffer", -1, key_table, .sub = buffer_keys,
	  .example = "buffer: {prio-buffer: {all: 0, 3: 1}}" },
	{ "maxrate", ND_F_MAXRATE, key_map, .map = &map_rate, AT_EACH(maxrate),
	  .example = "maxrate: {all: unlimited, 6: 25Gbit}" },
	{ "ecn", -1, key_table, .sub = ecn_keys, .example = "ecn: {np: [3], rp: [3]}" },
	{ "roce", -1, key_table, .sub = roce_keys, .example = "roce: {tos: 106, mode: v2}" },
	{ .name = NULL },
};

_Static_assert(ND_ARRAY_SIZE(top_keys) <= PKEYS_MAX + 1, "PKEYS_MAX too small");

static const struct pkey *schema(void)
{
	return top_keys;
}

/* ---- files and extends ---- */

/* Read a whole regular file of at most ND_PROFILE_MAX_BYTES; @why says what went wrong. */
static int slurp(const char *path, char **out, size_t *len, struct stat *st, char *why,
		 size_t size)
{
	ssize_t n;
	size_t got = 0;
	char *buf;
	int fd, ret;

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, size, "cannot open: %s", strerror(-ret));
		return ret;
	}
	if (fstat(fd, st) < 0) {
		ret = -errno;
		snprintf(why, size, "cannot read: %s", strerror(-ret));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, size, "is not a regular file");
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	if (st->st_size > ND_PROFILE_MAX_BYTES) {
		snprintf(why, size, "is %lld bytes, over the %d-byte limit for a profile",
			 (long long)st->st_size, ND_PROFILE_MAX_BYTES);
		close(fd);
		return -E2BIG;
	}
	/* one byte more than allowed, to notice a file that grew since fstat() */
	buf = malloc(ND_PROFILE_MAX_BYTES + 1);
	if (!buf) {
		close(fd);
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	do {
		n = read(fd, buf + got, ND_PROFILE_MAX_BYTES + 1 - got);
		if (n > 0)
			got += (size_t)n;
	} while ((n > 0 && got <= ND_PROFILE_MAX_BYTES) || (n < 0 && errno == EINTR));
	ret = n < 0 ? -errno : got > ND_PROFILE_MAX_BYTES ? -E2BIG : 0;
	close(fd);
	if (ret) {
		free(buf);
		if (ret == -E2BIG)
			snprintf(why, size, "is over the %d-byte limit for a profile",
				 ND_PROFILE_MAX_BYTES);
		else
			snprintf(why, size, "cannot read: %s", strerror(-ret));
		return ret;
	}
	*out = buf;
	*len = got;
	return 0;
}

/* What to do about a file that slurp() refused. */
static const char *file_fix(int code, bool extended)
{
	switch (code) {
	case -ENOENT:
		return extended ? "extends paths are relative to the extending file's directory" :
		       "check the path";
	case -EACCES:
	case -EPERM:
		return "check the file's permissions";
	case -E2BIG:
		return "a profile is a few kilobytes of YAML";
	case -EISDIR:
	case -EINVAL:
		return "give a profile's .yaml file";
	default:
		return "check the file";
	}
}

/* The directory of @path, for what it extends: "" means the current one. */
static void dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		buf[0] = '\0';
	else if (slash == path)
		nd_strlcpy(buf, "/", size);
	else
		snprintf(buf, size, "%.*s", (int)(slash - path), path);
}

static int apply_buf(struct pctx *c, const char *buf, size_t len);

static int cycle(struct pctx *c, const struct nd_ynode *v, const char *path)
{
	const struct pctx *chain[ND_PROFILE_MAX_DEPTH + 1], *a;
	char list[ND_ERR_MSG_MAX];
	size_t n = 0, len = 0;

	for (a = c; a && n < ND_ARRAY_SIZE(chain); a = a->child)
		chain[n++] = a;
	list[0] = '\0';
	while (n-- && len < sizeof(list))
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s -> ", chain[n]->file);
	return pv_err(c, v, "%s is already in the chain (%s%s); remove the cycle", path, list,
		      path);
}

static int extend(struct pctx *c, const struct nd_ynode *v)
{
	char path[LOC_FILE_MAX], dir[LOC_FILE_MAX], why[256];
	struct pctx parent;
	const struct pctx *a;
	struct stat st;
	const char *s;
	size_t len;
	char *buf;
	int ret, n;

	ret = pv_text(c, v, &s);
	if (ret)
		return ret;
	if (!c->dir)
		return pv_err(c, v, "this profile was not read from a file, so %s cannot be found; "
			      "load the profile from its file", s);
	if (c->depth >= ND_PROFILE_MAX_DEPTH)
		return pv_err(c, v, "more than %d levels of extends; flatten the chain",
			      ND_PROFILE_MAX_DEPTH);
	if (s[0] == '/' || !c->dir[0])
		n = snprintf(path, sizeof(path), "%s", s);
	else
		n = snprintf(path, sizeof(path), "%s/%s", c->dir, s);
	if (n < 0 || (size_t)n >= sizeof(path))
		return pv_err(c, v, "the path is over %zu characters; move the profiles closer",
			      sizeof(path) - 1);
	ret = slurp(path, &buf, &len, &st, why, sizeof(why));
	if (ret)
		return nd_err_set(c->e, ret, "%s:%u:%u: extends: %s: %s; %s", c->file, v->line,
				  v->col, path, why, file_fix(ret, true));
	for (a = c; a; a = a->child) {
		if (a->have_ino && a->dev == st.st_dev && a->ino == st.st_ino) {
			free(buf);
			return cycle(c, v, path);
		}
	}
	dir_of(path, dir, sizeof(dir));
	parent = (struct pctx){
		.file = path, .dir = dir, .child = c, .depth = c->depth + 1, .have_ino = true,
		.dev = st.st_dev, .ino = st.st_ino, .p = c->p, .e = c->e, .path = "",
	};
	ret = apply_buf(&parent, buf, len);
	free(buf);
	return ret;
}

/* Parse one file of the chain into c->p: what it extends first, then its own keys over that. */
static int apply_buf(struct pctx *c, const char *buf, size_t len)
{
	const struct nd_ynode *ext = NULL;
	struct nd_ynode *root;
	char desc[64];
	size_t i;
	int ret;

	ret = nd_yaml_load(buf ? buf : "", buf ? len : 0, c->file, &root, c->e);
	if (ret)
		return ret;
	c->path = "";
	c->example = "mtu: 9000";
	if (!root || (root->type == ND_Y_SCALAR && root->plain && !root->len) ||
	    (root->type == ND_Y_MAP && !root->n))
		ret = nd_err_set(c->e, -EINVAL, "%s:1:1: empty profile; give at least one key, "
				 "like mtu: 9000 (see nodrop-profile(5))", c->file);
	else if (root->type != ND_Y_MAP)
		ret = pv_err(c, root, "a profile is a mapping of keys, got %s; start with a key "
			     "like mtu: 9000", nd_yaml_desc(root, desc, sizeof(desc)));
	for (i = 0; !ret && !ext && i + 1 < root->n; i += 2)
		if (nd_yaml_is(root->kids[i], "extends"))
			ext = root->kids[i + 1];
	if (ext) {
		c->path = "extends";
		c->example = "extends: base.yaml";
		ret = extend(c, ext);
		c->path = "";
		c->example = "mtu: 9000";
	}
	if (!ret)
		ret = parse_table(c, root, top_keys);
	nd_yaml_free(root);
	return ret;
}

/* ---- the whole profile ---- */

/* Checks across keys, once the whole chain is in: values may come from different files. */
static int validate(struct pctx *c)
{
	const struct nd_profile *p = c->p;
	char tcs[32] = "", from[300] = "";
	enum nd_field at, other;
	unsigned int sum = 0, tc;
	size_t len = 0;

	if (!(p->set & (1u << ND_F_ETS_TSA)) || !(p->set & (1u << ND_F_ETS_BW)))
		return 0;
	for (tc = 0; tc < ND_PRIO_MAX; tc++) {
		if (p->tc_tsa[tc] != IEEE_8021QAZ_TSA_ETS)
			continue;
		sum += p->tc_bw[tc];
		len += (size_t)snprintf(tcs + len, sizeof(tcs) - len, "%s%u", len ? "," : "", tc);
	}
	if (!len || sum == 100)
		return 0;
	/*
	 * The two halves may come from different files of the chain: point at the one the top
	 * file gave (what was just edited) and name the other.
	 */
	at = ND_F_ETS_BW;
	other = ND_F_ETS_TSA;
	if (!strcmp(p->loc[other].file, c->file) && strcmp(p->loc[at].file, c->file)) {
		at = ND_F_ETS_TSA;
		other = ND_F_ETS_BW;
	}
	if (strcmp(p->loc[at].file, p->loc[other].file))
		snprintf(from, sizeof(from), " (%s from %s:%u:%u)", nd_field_key(other),
			 p->loc[other].file, p->loc[other].line, p->loc[other].col);
	c->path = nd_field_key(at);
	return pv_err_at(c, &p->loc[at], "the TCs with tsa ets (%s) get %u%% in all%s; their "
			 "bandwidth must sum to 100", tcs, sum, from);
}

static void profile_init(struct nd_profile *p)
{
	int d;

	memset(p, 0, sizeof(*p));
	for (d = 0; d < ND_DSCP_MAX; d++)
		p->dscp2prio[d] = -1;
}

/* The top file: its name (or its file name without .yaml) and the checks across keys. */
static int finish(struct pctx *c)
{
	struct nd_profile *p = c->p;
	const char *base = strrchr(c->file, '/');
	size_t len;

	base = base ? base + 1 : c->file;
	if (!c->named) {
		len = strlen(base);
		if (len > 5 && !strcmp(base + len - 5, ".yaml"))
			len -= 5;
		else if (len > 4 && !strcmp(base + len - 4, ".yml"))
			len -= 4;
		snprintf(p->name, sizeof(p->name), "%.*s", (int)len, base);
	}
	nd_strlcpy(p->origin.file, c->file, sizeof(p->origin.file));
	return validate(c);
}

int nd_profile_parse(const char *buf, size_t len, const char *name, const char *dir,
		     struct nd_profile *p, struct nd_err *e)
{
	struct pctx c = { .file = name ? name : "<profile>", .dir = dir, .p = p, .e = e };
	int ret;

	profile_init(p);
	if (strlen(c.file) >= LOC_FILE_MAX)
		ret = nd_err_set(e, -ENAMETOOLONG, "%.64s...: the name is over %zu characters; "
				 "use a shorter one", c.file, LOC_FILE_MAX - 1);
	else if (len > ND_PROFILE_MAX_BYTES)
		ret = nd_err_set(e, -E2BIG, "%s: is %zu bytes, over the %d-byte limit for a "
				 "profile; a profile is a few kilobytes of YAML", c.file, len,
				 ND_PROFILE_MAX_BYTES);
	else
		ret = apply_buf(&c, buf, len);
	if (!ret)
		ret = finish(&c);
	if (ret)
		nd_profile_free(p);
	return ret;
}

int nd_profile_load(const char *path, struct nd_profile *p, struct nd_err *e)
{
	struct pctx c = { .file = path, .p = p, .e = e };
	char dir[LOC_FILE_MAX], why[256];
	struct stat st;
	size_t len;
	char *buf;
	int ret;

	profile_init(p);
	if (strlen(path) >= LOC_FILE_MAX) {
		ret = nd_err_set(e, -ENAMETOOLONG, "%.64s...: the path is over %zu characters; "
				 "move the profile closer", path, LOC_FILE_MAX - 1);
		nd_profile_free(p);
		return ret;
	}
	ret = slurp(path, &buf, &len, &st, why, sizeof(why));
	if (ret) {
		nd_err_set(e, ret, "%s: %s; %s", path, why, file_fix(ret, false));
		nd_profile_free(p);
		return ret;
	}
	dir_of(path, dir, sizeof(dir));
	c.dir = dir;
	c.have_ino = true;
	c.dev = st.st_dev;
	c.ino = st.st_ino;
	ret = apply_buf(&c, buf, len);
	free(buf);
	if (!ret)
		ret = finish(&c);
	if (ret)
		nd_profile_free(p);
	return ret;
}

void nd_profile_free(struct nd_profile *p)
{
	if (!p)
		return;
	match_free(&p->match);
	memset(p, 0, sizeof(*p));
}

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
