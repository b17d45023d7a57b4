// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scenarios (nodrop-scenario(5)): YAML through the profile's tree (yamltree.c) and value parsers
 * (profile_value.c), against a schema of key tables like the profile's. Every error names
 * file:line:column and the key; checks across keys (sim_scenario_check.c) run once the whole
 * file is in.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim_core.h"
#include "sim_value.h"

#define SCENARIO_MAX_BYTES (256 * 1024)
#define NAME_CHARS "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-"

/* The parse of one scenario file: the profile context pv_* need, and ours. */
struct sctx {
	struct pctx c;			/* first: pv_* get &sctx.c */
	struct nd_scenario *s;
	const char *dir;		/* CDF paths resolve against it; NULL: refused */
	bool have_alpha, have_threshold;
};

struct skey;
typedef int (*skey_fn)(struct sctx *x, const struct nd_ynode *v, const struct skey *k);

/* One key: how it is parsed and where the value goes in struct nd_scenario. */
struct skey {
	const char *name;
	skey_fn parse;
	size_t off, size;
	const struct skey *sub;
	const struct pnum *num;
	const struct pwords *words;
	double lo, hi;			/* reals */
	const char *example;
};

#define SKEYS_MAX 24

static void *at(struct sctx *x, const struct skey *k)
{
	return (char *)x->s + k->off;
}

static int key_uint(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	uint64_t val;
	int ret = pv_uint(&x->c, v, k->num, &val);

	if (ret)
		return ret;
	if (k->size == sizeof(unsigned int))
		*(unsigned int *)at(x, k) = (unsigned int)val;
	else
		*(uint64_t *)at(x, k) = val;
	return 0;
}

static int key_size(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	int64_t val;
	int ret = pv_size(&x->c, v, &val);

	if (ret)
		return ret;
	if (k->size == sizeof(uint32_t))
		*(uint32_t *)at(x, k) = (uint32_t)val;
	else
		*(uint64_t *)at(x, k) = (uint64_t)val;
	return 0;
}

static int key_speed(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	return sv_speed(&x->c, v, at(x, k));
}

static int key_duration(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	return sv_duration(&x->c, v, at(x, k));
}

static int key_real(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	return sv_real(&x->c, v, k->name, k->lo, k->hi, at(x, k));
}

static int key_bool(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	return sv_bool(&x->c, v, at(x, k));
}

static int key_word(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	int w, ret = pv_word(&x->c, v, k->words, &w);

	if (!ret)
		*(int *)at(x, k) = w;
	return ret;
}

/* A link's length sets its delay: 5 ns per metre, as the headroom models count it. */
static int key_length(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	double m;
	int ret = sv_length(&x->c, v, &m);

	if (!ret)
		*(uint64_t *)at(x, k) = (uint64_t)(m * 5000 + 0.5);
	return ret;
}

/* A size, or auto (stored as @k->lo's value, the field's "compute it" marker). */
static int key_auto_size(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	if (nd_yaml_is(v, "auto")) {
		*(uint64_t *)at(x, k) = 0;
		return 0;
	}
	return key_size(x, v, k);
}

static int key_auto_duration(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	if (nd_yaml_is(v, "auto")) {
		*(uint64_t *)at(x, k) = UINT64_MAX;
		return 0;
	}
	return key_duration(x, v, k);
}

static int key_alpha(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	x->have_alpha = true;
	return key_real(x, v, k);
}

static int key_threshold(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	x->have_threshold = true;
	x->s->sw.alpha = 0;
	return key_size(x, v, k);
}

static int key_name(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	const char *s;
	size_t i;
	int ret = pv_text(&x->c, v, &s);

	(void)k;
	if (ret)
		return ret;
	if (v->len >= sizeof(x->s->name))
		return pv_err(&x->c, v, "the name is %zu characters; keep it under %zu", v->len,
			      sizeof(x->s->name));
	for (i = 0; s[i]; i++)
		if (!strchr(NAME_CHARS, s[i]))
			return pv_err(&x->c, v, "character %zu is not a letter, digit, '.', '_' "
				      "or '-'; name scenarios like incast-64", i + 1);
	nd_strlcpy(x->s->name, s, sizeof(x->s->name));
	return 0;
}

static int key_cdf(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	struct nd_scenario *s = x->s;
	char path[sizeof(s->wl.cdf_file)];
	struct nd_err e = { 0 };
	const char *f;
	int ret, n;

	(void)k;
	ret = pv_text(&x->c, v, &f);
	if (ret)
		return ret;
	if (!x->dir)
		return pv_err(&x->c, v, "this scenario was not read from a file, so %s cannot be "
			      "found; load the scenario from its file", f);
	if (f[0] == '/' || !x->dir[0])
		n = snprintf(path, sizeof(path), "%s", f);
	else
		n = snprintf(path, sizeof(path), "%s/%s", x->dir, f);
	if (n < 0 || (size_t)n >= sizeof(path))
		return pv_err(&x->c, v, "the path is over %zu characters", sizeof(path) - 1);
	free(s->wl.cdf);
	s->wl.cdf = NULL;
	s->wl.n_cdf = 0;
	ret = nd_cdf_load(path, &s->wl.cdf, &s->wl.n_cdf, &e);
	if (ret)
		return nd_err_set(x->c.e, ret, "%s:%u:%u: %s: %s", x->c.file, v->line, v->col,
				  x->c.path, e.msg);
	nd_strlcpy(s->wl.cdf_file, path, sizeof(s->wl.cdf_file));
	return 0;
}

static int parse_table(struct sctx *x, const struct nd_ynode *v, const struct skey *table);

static int key_table(struct sctx *x, const struct nd_ynode *v, const struct skey *k)
{
	return parse_table(x, v, k->sub);
}

static int unknown_key(struct sctx *x, const struct nd_ynode *key, const struct skey *table,
		       const char *parent)
{
	unsigned int best = 99, d, i;
	char list[320], guess[128];
	size_t len = 0;

	for (i = 0; table[i].name; i++) {
		d = pv_distance(key->str, table[i].name);
		if (d < best && d <= (strlen(table[i].name) > 4 ? 2u : 1u)) {
			best = d;
			snprintf(guess, sizeof(guess), "%s%s%s", parent, *parent ? "." : "",
				 table[i].name);
		}
	}
	if (best != 99)
		return pv_err(&x->c, key, "unknown key; did you mean %s?", guess);
	list[0] = '\0';
	for (i = 0; table[i].name && len < sizeof(list); i++)
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
					!i ? "" : table[i + 1].name ? ", " : " or ", table[i].name);
	return pv_err(&x->c, key, "unknown key; %s takes %s", *parent ? parent : "a scenario",
		      list);
}

static int parse_table(struct sctx *x, const struct nd_ynode *v, const struct skey *table)
{
	const struct nd_ynode *seen[SKEYS_MAX] = { NULL };
	const char *parent = x->c.path, *parent_ex = x->c.example;
	char path[128], shown[40], desc[64];
	size_t i, k;
	int ret;

	ret = pv_type(&x->c, v, ND_Y_MAP);
	for (k = 0; !ret && k + 1 < v->n; k += 2) {
		const struct nd_ynode *key = v->kids[k];

		if (key->type != ND_Y_SCALAR || !key->len || strlen(key->str) != key->len)
			return pv_err(&x->c, key, "keys must be words, got %s; write it like %s",
				      nd_yaml_desc(key, desc, sizeof(desc)), x->c.example);
		for (i = 0; table[i].name && !nd_yaml_is(key, table[i].name); i++)
			;
		snprintf(path, sizeof(path), "%s%s%s", parent, *parent ? "." : "",
			 nd_yaml_shown(key->str, key->len, shown, sizeof(shown)));
		x->c.path = path;
		if (!table[i].name) {
			ret = unknown_key(x, key, table, parent);
		} else if (seen[i]) {
			ret = pv_err(&x->c, key, "duplicate key (first at line %u); give each key "
				     "once", seen[i]->line);
		} else {
			seen[i] = key;
			x->c.example = table[i].example;
			ret = table[i].parse(x, v->kids[k + 1], &table[i]);
		}
		x->c.path = parent;
		x->c.example = parent_ex;
	}
	return ret;
}

/* ---- the schema ---- */

#define AT(f) .off = offsetof(struct nd_scenario, f), \
	.size = sizeof(((struct nd_scenario *)0)->f)

static const struct pnum num_seed = { "seed", 0, UINT64_MAX, "a seed is 0..2^64-1" };
static const struct pnum num_mtu = {
	"MTU", 64, 4096, "the RDMA path MTU is 256, 512, 1024, 2048 or 4096 bytes of payload"
};
static const struct pnum num_prio = { "priority", 0, 7, "priorities are 0..7" };
static const struct pnum num_ack = { "ACK interval", 1, 1024, "acknowledge every 1..1024" };
static const struct pnum num_hosts = {
	"host count", 2, ND_SIM_HOSTS_MAX, "a fabric has 2..4096 hosts"
};
static const struct pnum num_tier = { "switch count", 1, 256, "give 1..256 switches" };
static const struct pnum num_hpl = { "host count", 1, 512, "give 1..512 hosts per leaf" };
static const struct pnum num_quanta = {
	"pause quanta", 1, 65535, "a PAUSE frame holds 1..65535 quanta"
};
static const struct pnum num_fr = { "stage count", 0, 100, "give 0..100 stages" };
static const struct pnum num_host = {
	"host", 0, ND_SIM_HOSTS_MAX - 1, "hosts are numbered from 0"
};
static const struct pnum num_senders = {
	"sender count", 1, ND_SIM_HOSTS_MAX - 1, "give 1..4095 senders"
};
static const struct pnum num_flows = {
	"flow count", 1, ND_SIM_FLOWS_MAX, "give 1..1000000 flows"
};

static const struct pwords fabric_words = { "fabric", (const struct pword[]) {
	{ "roce", ND_FABRIC_ROCE }, { "ib", ND_FABRIC_IB }, { "infiniband", ND_FABRIC_IB },
	{ NULL, 0 } } };
static const struct pwords topo_words = { "topology", (const struct pword[]) {
	{ "single-switch", ND_TOPO_SINGLE }, { "leaf-spine", ND_TOPO_LEAF_SPINE },
	{ NULL, 0 } } };
static const struct pwords pattern_words = { "pattern", (const struct pword[]) {
	{ "pair", ND_PATTERN_PAIR }, { "incast", ND_PATTERN_INCAST },
	{ "victim", ND_PATTERN_VICTIM }, { "all-to-all", ND_PATTERN_ALL_TO_ALL },
	{ "poisson", ND_PATTERN_POISSON }, { NULL, 0 } } };

static const struct skey host_link_keys[] = {
	{ "speed", key_speed, AT(topo.host.speed_bps), .example = "speed: 100G" },
	{ "delay", key_duration, AT(topo.host.delay_ps), .example = "delay: 1us" },
	{ "length", key_length, AT(topo.host.delay_ps), .example = "length: 40m" },
	{ .name = NULL },
};

static const struct skey fabric_link_keys[] = {
	{ "speed", key_speed, AT(topo.fabric.speed_bps), .example = "speed: 400G" },
	{ "delay", key_duration, AT(topo.fabric.delay_ps), .example = "delay: 1us" },
	{ "length", key_length, AT(topo.fabric.delay_ps), .example = "length: 100m" },
	{ .name = NULL },
};

static const struct skey link_keys[] = {
	{ "host", key_table, .sub = host_link_keys, .example = "host: {speed: 100G, delay: 1us}" },
	{ "fabric", key_table, .sub = fabric_link_keys,
	  .example = "fabric: {speed: 400G, length: 100m}" },
	{ .name = NULL },
};

static const struct skey topo_keys[] = {
	{ "kind", key_word, AT(topo.kind), .words = &topo_words, .example = "kind: leaf-spine" },
	{ "hosts", key_uint, AT(topo.hosts), .num = &num_hosts, .example = "hosts: 9" },
	{ "leaves", key_uint, AT(topo.leaves), .num = &num_tier, .example = "leaves: 2" },
	{ "spines", key_uint, AT(topo.spines), .num = &num_tier, .example = "spines: 2" },
	{ "hosts-per-leaf", key_uint, AT(topo.hosts_per_leaf), .num = &num_hpl,
	  .example = "hosts-per-leaf: 8" },
	{ .name = NULL },
};

static const struct skey switch_keys[] = {
	{ "buffer", key_size, AT(sw.buffer), .example = "buffer: 32M" },
	{ "alpha", key_alpha, AT(sw.alpha), .lo = 1.0 / 1024, .hi = 64,
	  .example = "alpha: 1/8" },
	{ "threshold", key_threshold, AT(sw.threshold), .example = "threshold: 256K" },
	{ "headroom", key_auto_size, AT(sw.headroom), .example = "headroom: auto" },
	{ "xon-offset", key_size, AT(sw.xon_offset), .example = "xon-offset: 2K" },
	{ .name = NULL },
};

static const struct skey pfc_keys[] = {
	{ "enabled", key_bool, AT(pfc.on), .example = "enabled: true" },
	{ "quanta", key_uint, AT(pfc.quanta), .num = &num_quanta, .example = "quanta: 65535" },
	{ "response", key_auto_duration, AT(pfc.response_ps), .example = "response: auto" },
	{ .name = NULL },
};

static const struct skey ecn_keys[] = {
	{ "enabled", key_bool, AT(ecn.on), .example = "enabled: true" },
	{ "kmin", key_size, AT(ecn.kmin), .example = "kmin: 5K" },
	{ "kmax", key_size, AT(ecn.kmax), .example = "kmax: 200K" },
	{ "pmax", key_real, AT(ecn.pmax), .lo = 0, .hi = 1, .example = "pmax: 1%" },
	{ .name = NULL },
};

static const struct skey dcqcn_keys[] = {
	{ "enabled", key_bool, AT(dcqcn.on), .example = "enabled: true" },
	{ "g", key_real, AT(dcqcn.g), .lo = 1.0 / 65536, .hi = 1, .example = "g: 1/256" },
	{ "alpha", key_real, AT(dcqcn.alpha), .lo = 0, .hi = 1, .example = "alpha: 1" },
	{ "timer", key_duration, AT(dcqcn.timer_ps), .example = "timer: 55us" },
	{ "alpha-timer", key_duration, AT(dcqcn.alpha_timer_ps), .example = "alpha-timer: 55us" },
	{ "cnp-interval", key_duration, AT(dcqcn.cnp_interval_ps),
	  .example = "cnp-interval: 50us" },
	{ "byte-counter", key_size, AT(dcqcn.byte_counter), .example = "byte-counter: 10M" },
	{ "fast-recovery", key_uint, AT(dcqcn.fast_recovery), .num = &num_fr,
	  .example = "fast-recovery: 5" },
	{ "ai", key_speed, AT(dcqcn.ai_bps), .example = "ai: 40M" },
	{ "hai", key_speed, AT(dcqcn.hai_bps), .example = "hai: 400M" },
	{ "min-rate", key_speed, AT(dcqcn.min_bps), .example = "min-rate: 100M" },
	{ "rate-reduce-period", key_duration, AT(dcqcn.reduce_period_ps),
	  .example = "rate-reduce-period: 4us" },
	{ "clamp-target-rate", key_bool, AT(dcqcn.clamp), .example = "clamp-target-rate: false" },
	{ .name = NULL },
};

static const struct skey ib_keys[] = {
	{ "vl-buffer", key_size, AT(ib.vl_buffer), .example = "vl-buffer: 64K" },
	{ .name = NULL },
};

static const struct skey victim_keys[] = {
	{ "src", key_uint, AT(wl.victim_src), .num = &num_host, .example = "src: 1" },
	{ "dst", key_uint, AT(wl.victim_dst), .num = &num_host, .example = "dst: 9" },
	{ .name = NULL },
};

static const struct skey workload_keys[] = {
	{ "pattern", key_word, AT(wl.pattern), .words = &pattern_words,
	  .example = "pattern: incast" },
	{ "senders", key_uint, AT(wl.senders), .num = &num_senders, .example = "senders: 8" },
	{ "first-sender", key_uint, AT(wl.first_sender), .num = &num_host,
	  .example = "first-sender: 1" },
	{ "receiver", key_uint, AT(wl.receiver), .num = &num_host, .example = "receiver: 0" },
	{ "pairs", key_uint, AT(wl.pairs), .num = &num_senders, .example = "pairs: 1" },
	{ "size", key_size, AT(wl.size), .example = "size: 1M" },
	{ "victim", key_table, .sub = victim_keys, .example = "victim: {src: 1, dst: 9}" },
	{ "load", key_real, AT(wl.load), .lo = 0.001, .hi = 1, .example = "load: 30%" },
	{ "cdf", key_cdf, .example = "cdf: cdf/websearch.cdf" },
	{ "jitter", key_duration, AT(wl.jitter_ps), .example = "jitter: 1us" },
	{ "max-flows", key_uint, AT(wl.max_flows), .num = &num_flows,
	  .example = "max-flows: 100000" },
	{ .name = NULL },
};

static const struct skey top_keys[] = {
	{ "name", key_name, .example = "name: incast-64" },
	{ "seed", key_uint, AT(seed), .num = &num_seed, .example = "seed: 1" },
	{ "fabric", key_word, AT(fabric), .words = &fabric_words, .example = "fabric: roce" },
	{ "duration", key_duration, AT(duration_ps), .example = "duration: 10ms" },
	{ "mtu", key_uint, AT(mtu), .num = &num_mtu, .example = "mtu: 1024" },
	{ "priority", key_uint, AT(priority), .num = &num_prio, .example = "priority: 3" },
	{ "ack-every", key_uint, AT(ack_every), .num = &num_ack, .example = "ack-every: 16" },
	{ "rto", key_duration, AT(rto_ps), .example = "rto: 1ms" },
	{ "series", key_duration, AT(series_ps), .example = "series: 100us" },
	{ "topology", key_table, .sub = topo_keys, .example = "topology: {kind: single-switch}" },
	{ "links", key_table, .sub = link_keys, .example = "links: {host: {speed: 100G}}" },
	{ "switch", key_table, .sub = switch_keys, .example = "switch: {buffer: 32M}" },
	{ "pfc", key_table, .sub = pfc_keys, .example = "pfc: {enabled: true}" },
	{ "ecn", key_table, .sub = ecn_keys, .example = "ecn: {kmin: 5K, kmax: 200K}" },
	{ "dcqcn", key_table, .sub = dcqcn_keys, .example = "dcqcn: {enabled: true}" },
	{ "infiniband", key_table, .sub = ib_keys, .example = "infiniband: {vl-buffer: 64K}" },
	{ "workload", key_table, .sub = workload_keys, .example = "workload: {pattern: incast}" },
	{ .name = NULL },
};

_Static_assert(sizeof(top_keys) / sizeof(top_keys[0]) <= SKEYS_MAX + 1, "SKEYS_MAX too small");
_Static_assert(sizeof(enum nd_fabric) == sizeof(int), "key_word stores an int");

/* ---- files ---- */

static int finish(struct sctx *x, const struct nd_ynode *root)
{
	struct nd_err e = { 0 };
	int ret;

	if (x->have_alpha && x->have_threshold)
		return pv_err(&x->c, root, "switch: give alpha or threshold, not both");
	ret = nd_scenario_check(x->s, &e);
	if (ret)
		return nd_err_set(x->c.e, ret, "%s: %s", x->c.file, e.msg);
	return 0;
}

static int parse_buf(struct sctx *x, const char *buf, size_t len)
{
	struct nd_ynode *root;
	char desc[64];
	int ret;

	if (len > SCENARIO_MAX_BYTES)
		return nd_err_set(x->c.e, -E2BIG, "%s: is %zu bytes, over the %d-byte limit for a "
				  "scenario", x->c.file, len, SCENARIO_MAX_BYTES);
	ret = nd_yaml_load(buf, len, x->c.file, &root, x->c.e);
	if (ret)
		return ret;
	x->c.path = "";
	x->c.example = "duration: 10ms";
	if (!root || (root->type == ND_Y_SCALAR && root->plain && !root->len) ||
	    (root->type == ND_Y_MAP && !root->n))
		ret = nd_err_set(x->c.e, -EINVAL, "%s:1:1: empty scenario; give at least a "
				 "workload (see nodrop-scenario(5))", x->c.file);
	else if (root->type != ND_Y_MAP)
		ret = pv_err(&x->c, root, "a scenario is a mapping of keys, got %s; start with a "
			     "key like duration: 10ms", nd_yaml_desc(root, desc, sizeof(desc)));
	if (!ret)
		ret = parse_table(x, root, top_keys);
	if (!ret)
		ret = finish(x, root);
	nd_yaml_free(root);
	return ret;
}

int nd_scenario_parse(const char *buf, size_t len, const char *name, const char *dir,
		      struct nd_scenario *s, struct nd_err *e)
{
	struct sctx x = { .s = s, .dir = dir };
	int ret;

	nd_scenario_init(s);
	x.c.file = name ? name : "<scenario>";
	x.c.e = e;
	if (strlen(x.c.file) >= sizeof(s->file))
		return nd_err_set(e, -ENAMETOOLONG, "%.64s...: the name is over %zu characters",
				  x.c.file, sizeof(s->file) - 1);
	nd_path_stem(x.c.file, s->name, sizeof(s->name));
	nd_strlcpy(s->file, x.c.file, sizeof(s->file));
	ret = parse_buf(&x, buf ? buf : "", buf ? len : 0);
	if (ret)
		nd_scenario_free(s);
	return ret;
}

int nd_scenario_load(const char *path, struct nd_scenario *s, struct nd_err *e)
{
	char dir[sizeof(s->file)], *buf;
	size_t len;
	int ret;

	nd_scenario_init(s);
	if (strlen(path) >= sizeof(dir))
		return nd_err_set(e, -ENAMETOOLONG, "%.64s...: the path is over %zu characters",
				  path, sizeof(dir) - 1);
	ret = sim_slurp(path, SCENARIO_MAX_BYTES, &buf, &len, e);
	if (ret)
		return ret;
	nd_path_dir(path, dir, sizeof(dir));
	ret = nd_scenario_parse(buf, len, path, dir, s, e);
	free(buf);
	return ret;
}

