// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Step 1 of a path: what the job's stack puts on its queue pairs for one device, read the way
 * each stack reads its own variables.
 *
 * NCCL (docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html; src/transport/net_ib):
 * NCCL_IB_TC and NCCL_IB_SL default to 0 (the communicator's trafficClass where the program
 * sets one); NCCL_IB_GID_INDEX defaults to -1 since 2.21, which picks a GID by
 * NCCL_IB_ADDR_FAMILY (AF_INET) and NCCL_IB_ROCE_VERSION_NUM (2), and to 0 before. A number is
 * read with strtoll(value, NULL, 0), so "abc" reads as 0, and lands in an 8-bit verbs field,
 * so 300 goes out as 44. NCCL_IB_HCA: "^" excludes, "=" matches exactly, else a prefix, each
 * entry optionally ":PORT". NCCL_IB_DISABLE=1 or NCCL_NET other than IB: no IB transport.
 *
 * UCX (src/uct/ib/base/ib_iface.c, ib_device.c): UCX_IB_TRAFFIC_CLASS "auto" is 106 on RoCE
 * v2 and 0 otherwise; UCX_IB_SL "auto" is 0 on RoCE; UCX_IB_GID_INDEX "auto" takes the first
 * RoCE v2 IPv4, else RoCE v2 IPv6, RoCE v1 IPv4, RoCE v1 IPv6 GID. A value that is not "auto"
 * is read as sscanf("%lu"); one without a number stops UCX at start. UCX_NET_DEVICES: "all",
 * or DEV:PORT names.
 *
 * rdma_cm: the port's configfs default_roce_tos and default_roce_mode for every connection
 * whose program sets no ToS of its own; the GID is the one of the address it binds; its SL is
 * 0 untagged, and on a VLAN the egress map of the kernel's ToS-to-priority table.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"
#include "path_int.h"

void path_say(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

void path_mark(struct nd_path_step *st, enum nd_step_status s)
{
	if (s > st->status)
		st->status = s;
}

/* One variable of the job as a stack reads it. */
struct var {
	const char *name;
	const char *value;	/* NULL: unset */
	const char *origin;
};

static struct var var_get(const struct nd_job *job, const char *name)
{
	struct var v = { name, NULL, NULL };

	v.value = nd_job_get(job, name, &v.origin);
	if (v.value && !*v.value)
		v.value = NULL;		/* NCCL and UCX both treat an empty value as unset */
	return v;
}

/* How a value got here, for evidence: "NCCL_IB_TC=106 (environment)" */
static void how(char *buf, size_t size, const struct var *v, const char *dflt)
{
	if (v->value)
		snprintf(buf, size, "%s=%.40s (%.100s)", v->name, v->value, v->origin);
	else
		snprintf(buf, size, "%s unset: %s", v->name, dflt);
}

/* A bad value: step 1 breaks, naming the variable; the first one found is the one told. */
static void bad(struct nd_path_step *st, const struct var *v, const char *what, const char *fix)
{
	if (st->status == ND_STEP_BREAK)
		return;
	path_mark(st, ND_STEP_BREAK);
	SAY(st, "%s=\"%.60s\" (%.100s): %s", v->name, v->value, v->origin, what);
	FIXIT(st, "%s", fix);
}

/* NCCL's numbers: strtoll(value, NULL, 0); clean says the whole value was a number. */
static long long nccl_number(const char *s, bool *clean)
{
	char *end;
	long long n;

	errno = 0;
	n = strtoll(s, &end, 0);
	*clean = end != s && !*end && !errno;
	return errno ? -1 : n;
}

/* UCX's numbers: "auto" (-1), else sscanf("%lu"); -2 when there is no number at all. */
static long long ucx_number(const char *s, bool *clean)
{
	unsigned long n;
	int used = 0;

	*clean = true;
	if (!strcasecmp(s, "auto"))
		return -1;
	if (sscanf(s, "%lu%n", &n, &used) != 1) {
		*clean = false;
		return -2;
	}
	*clean = !s[used] && isdigit((unsigned char)s[0]);
	return (long long)n;
}

static bool gid_link_local(const struct nd_gid *g)
{
	static const uint8_t ll[8] = { 0xfe, 0x80 };

	return !memcmp(g->raw, ll, sizeof(ll));
}

static int gid_version(const struct nd_gid *g)
{
	return g->type == ND_GID_ROCE_V2 ? 2 : g->type == ND_GID_ROCE_V1 ? 1 : 0;
}

/* A GID as NCCL reads it: IPv4 family only when v4-mapped; an empty one counts as IPv6. */
static bool nccl_gid_v4(const struct nd_gid *g)
{
	return g->type != ND_GID_EMPTY && g->ipv4;
}

static bool nccl_gid_valid(const struct nd_gid *g)
{
	return g->type != ND_GID_EMPTY && !gid_link_local(g);
}

/* NCCL's choice when NCCL_IB_GID_INDEX is -1: walk the table, keep the better entry. */
static int nccl_auto_gid(const struct nd_path_in *in, bool want_v4, int want_ver)
{
	const struct nd_gid *t = in->gids;
	size_t cur = 0;

	if (!in->n_gids)
		return -1;
	for (size_t c = 1; c < in->n_gids; c++) {
		bool cv4 = nccl_gid_v4(&t[c]);

		if (cv4 != nccl_gid_v4(&t[cur]) && cv4 == want_v4)
			cur = c;
		else if (cv4 == want_v4 && nccl_gid_valid(&t[c]) &&
			 (gid_version(&t[cur]) != gid_version(&t[c]) || !nccl_gid_valid(&t[cur])) &&
			 gid_version(&t[c]) == want_ver)
			cur = c;
	}
	return (int)cur;
}

/* UCX's choice for "auto": the first GID of the best kind there is. */
static int ucx_auto_gid(const struct nd_path_in *in)
{
	static const struct {
		enum nd_gid_type type;
		bool v4;
	} order[] = {
		{ ND_GID_ROCE_V2, true }, { ND_GID_ROCE_V2, false },
		{ ND_GID_ROCE_V1, true }, { ND_GID_ROCE_V1, false },
	};

	for (size_t o = 0; o < ND_ARRAY_SIZE(order); o++)
		for (size_t i = 0; i < in->n_gids; i++)
			if (in->gids[i].type == order[o].type && in->gids[i].ipv4 == order[o].v4)
				return (int)i;
	return in->n_gids ? 0 : -1;
}

/* rdma_cm: the GID of the bound address, of the port's default RoCE mode; IPv4 first. */
static int rdma_cm_gid(const struct nd_path_in *in)
{
	enum nd_gid_type want = strstr(in->rdma->roce.mode, "v1") ? ND_GID_ROCE_V1 : ND_GID_ROCE_V2;

	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < in->n_gids; i++) {
			const struct nd_gid *g = &in->gids[i];

			if (g->type == want && g->ipv4 == !pass && !gid_link_local(g))
				return (int)i;
		}
	return -1;
}

/* "2.18.3" before "2.21": NCCL took GID index 0 by default until 2.21 */
static bool nccl_before(const char *version, int major, int minor)
{
	int ma, mi;

	if (!version[0] || sscanf(version, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma < major || (ma == major && mi < minor);
}

/* NCCL_IB_HCA: [^][=]name[:port],... */
static bool nccl_hca_selects(const char *spec, const char *dev, unsigned int port)
{
	bool exclude = false, exact = false, found = false;
	char buf[512], *tok, *save;

	if (*spec == '^') {
		exclude = true;
		spec++;
	}
	if (*spec == '=') {
		exact = true;
		spec++;
	}
	nd_strlcpy(buf, spec, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok && !found; tok = strtok_r(NULL, ",", &save)) {
		char *colon = strchr(tok, ':');
		long p = -1;

		if (colon) {
			*colon = '\0';
			p = strtol(colon + 1, NULL, 10);
		}
		if ((exact ? !strcmp(dev, tok) : !strncmp(dev, tok, strlen(tok))) &&
		    (p < 0 || p == (long)port))
			found = true;
	}
	return exclude ? !found : found;
}

/* UCX_NET_DEVICES: all, or DEV:PORT names */
static bool ucx_selects(const char *spec, const char *dev, unsigned int port)
{
	char buf[512], want[96], *tok, *save;

	if (!strcmp(spec, "all"))
		return true;
	snprintf(want, sizeof(want), "%s:%u", dev, port);
	nd_strlcpy(buf, spec, sizeof(buf));
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!strcmp(tok, want) || !strcmp(tok, "all"))
			return true;
	return false;
}

/* An 8-bit verbs field from a stack's number; the break says what the wire gets instead. */
static int field8(struct nd_path_step *st, const struct var *v, long long n, bool clean,
		  const char *stack_reads, const char *range_fix)
{
	char what[200];

	if (!clean) {
		snprintf(what, sizeof(what), "not a number: %s %lld", stack_reads, n < 0 ? 0 : n);
		bad(st, v, what, range_fix);
	}
	if (n < 0 || n > 255) {
		snprintf(what, sizeof(what), "not a traffic class (0-255): the verbs field is 8 "
			 "bits, so the wire carries %lld", n & 0xff);
		bad(st, v, what, range_fix);
	}
	return (int)(n & 0xff);
}

static bool nccl_step(const struct nd_path_in *in, struct nd_path_step *st, struct job_cfg *c)
{
	const struct nd_job *job = in->job;
	const struct nd_rdma_port *rp = in->rdma;
	struct var dis = var_get(job, "NCCL_IB_DISABLE"), net = var_get(job, "NCCL_NET");
	struct var hca = var_get(job, "NCCL_IB_HCA"), tc = var_get(job, "NCCL_IB_TC");
	struct var sl = var_get(job, "NCCL_IB_SL"), gi = var_get(job, "NCCL_IB_GID_INDEX");
	struct var fam = var_get(job, "NCCL_IB_ADDR_FAMILY");
	struct var ver = var_get(job, "NCCL_IB_ROCE_VERSION_NUM");
	bool clean, want_v4 = true, old = nccl_before(job->nccl_version, 2, 21);
	long long n;
	int want_ver = 2;
	char sl_how[160];

	if (dis.value && nccl_number(dis.value, &clean) == 1) {
		SAY(st, "NCCL_IB_DISABLE=1 (%.100s): NCCL sends over sockets, not RDMA", dis.origin);
		return false;
	}
	if (net.value && strcasecmp(net.value, "IB")) {
		SAY(st, "NCCL_NET=%.40s (%.100s): NCCL's IB transport is not used", net.value,
		    net.origin);
		return false;
	}
	if (hca.value && !nccl_hca_selects(hca.value, rp->ibdev, rp->port)) {
		SAY(st, "NCCL_IB_HCA=%.60s (%.100s) leaves %s/%u out", hca.value, hca.origin,
		    rp->ibdev, rp->port);
		return false;
	}
	n = tc.value ? nccl_number(tc.value, &clean) : -1;
	if (n == -1) {
		c->tc = 0;
		how(c->tc_how, sizeof(c->tc_how), &tc, "NCCL's default traffic class 0");
	} else {
		c->tc = field8(st, &tc, n, clean, "NCCL's strtoll reads",
			       "set NCCL_IB_TC to the ToS byte of the lossless class: DSCP << 2 | "
			       "ECN, e.g. 106 (DSCP 26, ECT(0))");
		how(c->tc_how, sizeof(c->tc_how), &tc, "");
	}
	n = sl.value ? nccl_number(sl.value, &clean) : -1;
	c->sl = n < 0 ? 0 : (int)(n & 0xff);
	how(sl_how, sizeof(sl_how), &sl, "SL 0");
	if (sl.value && (!clean || n > 15))
		bad(st, &sl, "not a service level (0-15)", "set NCCL_IB_SL to 0-15 (on RoCE, the "
		    "Ethernet priority 0-7), or unset it");
	if (fam.value && strcmp(fam.value, "AF_INET") && strcmp(fam.value, "AF_INET6"))
		bad(st, &fam, "neither AF_INET nor AF_INET6: NCCL falls back to AF_INET",
		    "set NCCL_IB_ADDR_FAMILY to AF_INET or AF_INET6");
	want_v4 = !fam.value || strcmp(fam.value, "AF_INET6");
	if (ver.value) {
		n = nccl_number(ver.value, &clean);
		if (!clean || (n != 1 && n != 2))
			bad(st, &ver, "not a RoCE version (1 or 2)", "set NCCL_IB_ROCE_VERSION_NUM=2");
		want_ver = (int)n;
	}
	n = gi.value ? nccl_number(gi.value, &clean) : (old ? 0 : -1);
	if (gi.value && !clean)
		bad(st, &gi, "not a GID index: NCCL's strtoll reads it as a number anyway",
		    "set NCCL_IB_GID_INDEX to the index of the port's RoCE v2 GID, or unset it");
	if (n >= 0) {
		c->gid_index = (int)n;
		if (gi.value)
			how(c->gid_how, sizeof(c->gid_how), &gi, "");
		else
			snprintf(c->gid_how, sizeof(c->gid_how), "NCCL_IB_GID_INDEX unset: NCCL %s "
				 "takes index 0 (automatic choice came in 2.21)", job->nccl_version);
	} else {
		c->gid_index = nccl_auto_gid(in, want_v4, want_ver);
		snprintf(c->gid_how, sizeof(c->gid_how), "NCCL_IB_GID_INDEX %s: NCCL picks a "
			 "RoCE v%d %s GID", gi.value ? "-1" : "unset", want_ver,
			 want_v4 ? "IPv4" : "IPv6");
	}
	if (st->status != ND_STEP_BREAK)
		SAY(st, "NCCL%s%s on %s/%u: %s; %s", job->nccl_version[0] ? " " : "",
		    job->nccl_version, rp->ibdev, rp->port, c->tc_how, sl_how);
	return true;
}

static bool ucx_step(const struct nd_path_in *in, struct nd_path_step *st, struct job_cfg *c)
{
	const struct nd_job *job = in->job;
	const struct nd_rdma_port *rp = in->rdma;
	struct var dev = var_get(job, "UCX_NET_DEVICES"), tc = var_get(job, "UCX_IB_TRAFFIC_CLASS");
	struct var sl = var_get(job, "UCX_IB_SL"), gi = var_get(job, "UCX_IB_GID_INDEX");
	bool clean;
	long long n;
	char sl_how[160];

	if (dev.value && !ucx_selects(dev.value, rp->ibdev, rp->port)) {
		SAY(st, "UCX_NET_DEVICES=%.60s (%.100s) leaves %s:%u out", dev.value, dev.origin,
		    rp->ibdev, rp->port);
		return false;
	}
	n = tc.value ? ucx_number(tc.value, &clean) : -1;
	if (n == -2) {
		bad(st, &tc, "not a number or auto: UCX refuses its configuration and the job "
		    "does not start", "set UCX_IB_TRAFFIC_CLASS=106 (DSCP 26, ECT(0)), or auto");
		c->tc = 0;
	} else if (n == -1) {
		c->tc = -1;
	} else {
		c->tc = field8(st, &tc, n, clean, "UCX's sscanf reads",
			       "set UCX_IB_TRAFFIC_CLASS=106 (DSCP 26, ECT(0)), or auto");
	}
	how(c->tc_how, sizeof(c->tc_how), &tc, "auto");
	n = sl.value ? ucx_number(sl.value, &clean) : -1;
	c->sl = n < 0 ? 0 : (int)(n & 0xff);
	how(sl_how, sizeof(sl_how), &sl, "auto, SL 0");
	if (sl.value && (!clean || n > 15))
		bad(st, &sl, "not a service level (0-15) or auto", "set UCX_IB_SL to 0-15 (on "
		    "RoCE, the Ethernet priority 0-7), or auto");
	n = gi.value ? ucx_number(gi.value, &clean) : -1;
	if (gi.value && !clean)
		bad(st, &gi, "not a GID index or auto", "set UCX_IB_GID_INDEX to the index of the "
		    "port's RoCE v2 GID, or auto");
	if (n >= 0) {
		c->gid_index = (int)n;
		how(c->gid_how, sizeof(c->gid_how), &gi, "");
	} else {
		c->gid_index = ucx_auto_gid(in);
		snprintf(c->gid_how, sizeof(c->gid_how), "UCX_IB_GID_INDEX auto: the first RoCE "
			 "v2 IPv4 GID, else v2 IPv6, v1 IPv4, v1 IPv6");
	}
	if (st->status != ND_STEP_BREAK)
		SAY(st, "UCX on %s:%u: %s; %s", rp->ibdev, rp->port, c->tc_how, sl_how);
	return true;
}

/* The kernel's ToS-to-priority table (net/ipv4/route.c ip_tos2prio), by IPTOS_TOS(tos) >> 1 */
static int tos_to_skb_prio(int tos)
{
	static const uint8_t t[16] = { 0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4 };

	return t[(tos & 0x1e) >> 1];
}

static bool rdma_cm_step(const struct nd_path_in *in, struct nd_path_step *st,
			 struct job_cfg *c)
{
	const struct nd_rdma_port *rp = in->rdma;

	c->tc = rp->roce.tos;
	snprintf(c->tc_how, sizeof(c->tc_how), "%s %d", rp->roce.configured ?
		 "configfs default_roce_tos" : "no rdma_cm configfs group: the kernel's default ToS",
		 rp->roce.tos);
	c->gid_index = rdma_cm_gid(in);
	snprintf(c->gid_how, sizeof(c->gid_how), "rdma_cm: the GID of the bound address, of "
		 "default_roce_mode %s", rp->roce.mode[0] ? rp->roce.mode : "RoCE v2");
	c->sl = 0;
	if (c->gid_index >= 0 && in->gids[c->gid_index].vlan >= 0) {
		int8_t pcp = in->gids[c->gid_index].egress_qos[tos_to_skb_prio(c->tc)];

		c->sl = pcp < 0 ? 0 : pcp;
	}
	SAY(st, "rdma_cm on %s/%u: %s (a program that sets its own ToS, such as perftest "
	    "--tos, overrides it)", rp->ibdev, rp->port, c->tc_how);
	return true;
}

bool path_job_step(const struct nd_path_in *in, struct nd_path_step *st, struct job_cfg *cfg)
{
	static bool (*const steps[ND_STACK_COUNT])(const struct nd_path_in *,
						   struct nd_path_step *, struct job_cfg *) = {
		[ND_STACK_NCCL] = nccl_step,
		[ND_STACK_UCX] = ucx_step,
		[ND_STACK_RDMA_CM] = rdma_cm_step,
	};

	memset(cfg, 0, sizeof(*cfg));
	cfg->gid_index = -1;
	st->id = ND_STEP_JOB;
	st->status = ND_STEP_OK;
	return steps[in->stack](in, st, cfg);
}
