// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop stress: options in, the run report out (text, JSON, JUnit); libnodrop runs the job. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "report.h"
#include "runreport.h"
#include "stop.h"

enum {
	OPT_CQ_MOD = 256,
	OPT_INLINE,
	OPT_RATE,
	OPT_BURST,
	OPT_PROBES,
	OPT_WINDOW,
	OPT_LATENCY,
	OPT_PROBE_SIZE,
	OPT_PROBE_INTERVAL,
	OPT_VALIDATE,
	OPT_WATCHDOG,
	OPT_INTERVAL,
	OPT_EVENT,
	OPT_VERBS,
	OPT_SL,
	OPT_PROFILE,
	OPT_MPI,
	OPT_TIMEOUT,
	OPT_JUNIT,
	OPT_SERIES,
	OPT_QP_TIMEOUT,
	OPT_MARGIN,
	OPT_EXPECT,
	OPT_AUTH,
	OPT_KEY_FILE,
	OPT_REQUIRE_AUTH,
	OPT_AUTH_GID,
};

struct stress_args {
	bool ready;			/* defaults set */
	struct nd_stress_job job;
	struct nd_stress_local local;
	struct nd_rendezvous rv;
	bool mpi;
	const char *profile;
	const char *junit;
	unsigned int flags;		/* runreport ND_RR_* */
	double expect_pct;		/* --expect: 0 none */
};

static const struct nd_opt stress_opts[] = {
	{ "pattern", 'P', "NAME", "pair, bidir, incast, outcast, all-to-all, victim (pair)" },
	{ "op", 'o', "OP", "write, write-imm, send or read (default write)" },
	{ "size", 's', "SIZE", "bytes (65536, 64K), a sweep (64-1M) or @FILE of 'SIZE WEIGHT'" },
	{ "qps", 'q', "N", "QPs per flow (default 1)" },
	{ "tx-depth", 't', "N", "outstanding work requests per QP (default 128)" },
	{ "window", OPT_WINDOW, "MIB", "at most MIB MiB in flight per QP (default 16; 0: --tx-depth)" },
	{ "cq-mod", OPT_CQ_MOD, "N", "signal one work request in N (default 0: by size, see the man page)" },
	{ "inline", OPT_INLINE, "BYTES", "send host messages up to BYTES inline (default 0; "
	  "--latency: 220 write, 236 send)" },
	{ "duration", 'D', "SECONDS", "seconds per message size (default 5)" },
	{ "iters", 'n', "N", "messages per QP and size, instead of a duration" },
	{ "rate", OPT_RATE, "GBPS", "per-flow limit: the NIC's per-QP rate limit, else pacing" },
	{ "burst", OPT_BURST, "ON:OFF", "send in bursts: on and off times in microseconds" },
	{ "probes", OPT_PROBES, NULL, "ping-pong latency probes beside each flow" },
	{ "latency", OPT_LATENCY, NULL, "only ping-pong, --size bytes, busy polling (ib_write_lat)" },
	{ "probe-size", OPT_PROBE_SIZE, "BYTES", "probe message size (default 64)" },
	{ "probe-interval", OPT_PROBE_INTERVAL, "US", "between probes, in us (default 1000)" },
	{ "validate", OPT_VALIDATE, NULL, "check sequence and payload of every message" },
	{ "watchdog", OPT_WATCHDOG, "SECONDS", "a busy QP silent this long fails the run (10)" },
	{ "interval", OPT_INTERVAL, "SECONDS", "throughput time series resolution (default 0.1)" },
	{ "margin", OPT_MARGIN, "SECONDS", "rates leave out this much of each size's start and end" },
	{ "event", OPT_EVENT, NULL, "sleep on completion events instead of busy polling" },
	{ "dev", 'd', "DEV[:PORT]", "RDMA device and port (default: the first active one)" },
	{ "gid-index", 'x', "N", "GID index (default: a RoCE v2 GID, of --addr if given)" },
	{ "addr", 'a', "IP", "this rank's RDMA address (default: the device's IPv4 GID)" },
	{ "verbs", OPT_VERBS, NULL, "connect with plain verbs (GIDs, LIDs) instead of rdma_cm" },
	{ "tos", 'T', "TOS", "ToS byte of the traffic, DSCP << 2 (default: rdma_cm's)" },
	{ "sl", OPT_SL, "SL", "InfiniBand service level (default 0)" },
	{ "qp-timeout", OPT_QP_TIMEOUT, "N", "ACK timeout 4.096 us << N (default: rdma_cm's; 17)" },
	{ "profile", OPT_PROFILE, "FILE", "ToS (or SL) of a profile's lossless class" },
	{ "mem", 'm', "SPEC", "host, host:huge, cuda:N or cuda:BUS_ID[,dmabuf|peermem|staged]" },
	{ "coord", 'c', "HOST:PORT", "the coordinator's address" },
	{ "listen", 'l', NULL, "host the coordinator at --coord; this process is rank 0" },
	{ "ranks", 'N', "N", "processes in the job, this one included (with --listen)" },
	{ "rank", 'r', "N", "ask for this rank (default: in order of arrival)" },
	{ "token", 'k', "TOKEN", "the job's name; other tokens are refused (default nodrop)" },
	{ "auth", OPT_AUTH, "MODE", "how ranks prove they belong to the job: munge, key, none, "
	  "auto (default: key with --key-file, else munge where munged runs, else none)" },
	{ "key-file", OPT_KEY_FILE, "FILE", "the job's shared key (64 hex digits, mode 0600; "
	  "openssl rand -hex 32)" },
	{ "require-auth", OPT_REQUIRE_AUTH, NULL, "refuse to run the job unauthenticated" },
	{ "auth-gid", OPT_AUTH_GID, "GID", "MUNGE: admit ranks of this group only (besides the "
	  "job's uid)" },
	{ "mpi", OPT_MPI, NULL, "rendezvous through MPI (the default under mpirun or srun)" },
	{ "timeout", OPT_TIMEOUT, "SECONDS", "how long each rendezvous step waits (default 60)" },
	{ "junit", OPT_JUNIT, "FILE", "also write the verdict as JUnit XML" },
	{ "expect", OPT_EXPECT, "PCT", "a flow under PCT% of its datapath ceiling is a finding "
	  "(exit 1), e.g. 90%" },
	{ "series", OPT_SERIES, NULL, "text: a line per flow with its throughput series" },
	{ 0 },
};

static const char *pattern_value(unsigned int i)
{
	return i < ND_SP_COUNT ? nd_stress_pattern_name(i) : NULL;
}

static const char *op_value(unsigned int i)
{
	return i < ND_OP_COUNT ? nd_op_name(i) : NULL;
}

/* --mem's words: host memory, then the first GPU registered each way --help names */
static const char *mem_value(unsigned int i)
{
	static const char *const mem[] = { "host", "host:huge", "cuda:0" };
	const unsigned int n = sizeof(mem) / sizeof(mem[0]);
	static char buf[32];
	unsigned int reg;

	if (i < n)
		return mem[i];
	reg = ND_GPU_REG_AUTO + 1 + (i - n);	/* auto, the default, is plain cuda:0 */
	if (reg >= ND_GPU_REG_COUNT)
		return NULL;
	snprintf(buf, sizeof(buf), "cuda:0,%s", nd_gpu_reg_name(reg));
	return buf;
}

static const char *auth_value(unsigned int i)
{
	return i <= ND_RV_AUTH_KEY ? nd_rv_auth_name((enum nd_rv_auth)i) : NULL;
}

static const struct nd_comp stress_complete[] = {
	{ .opt = "pattern", .value = pattern_value },
	{ .opt = "auth", .value = auth_value },
	{ .opt = "op", .value = op_value },
	{ .opt = "mem", .value = mem_value },
	{ .opt = "dev", .kind = ND_COMP_RDMADEV },
	{ .opt = "profile", .kind = ND_COMP_YAML },
	{ 0 },
};

static int bad(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "nodrop stress: --%s '%s': %s\n", opt, arg, want);
	return ND_EXIT_USAGE;
}

static int parse_u64(const char *opt, const char *arg, uint64_t min, uint64_t max, uint64_t *v)
{
	char want[64], *end;

	errno = 0;
	*v = strtoull(arg, &end, 10);
	if (arg[0] < '0' || arg[0] > '9' || *end || errno || *v < min || *v > max) {
		snprintf(want, sizeof(want), "give a whole number %" PRIu64 "..%" PRIu64, min, max);
		return bad(opt, arg, want);
	}
	return 0;
}

static int parse_u32(const char *opt, const char *arg, uint32_t min, uint32_t max, uint32_t *v)
{
	uint64_t x;
	int ret = parse_u64(opt, arg, min, max, &x);

	*v = (uint32_t)x;
	return ret;
}

static int parse_int(const char *opt, const char *arg, int max, int *v)
{
	uint32_t x;
	int ret = parse_u32(opt, arg, 0, (uint32_t)max, &x);

	*v = (int)x;
	return ret;
}

static int parse_secs(const char *opt, const char *arg, double min, double max, double *v)
{
	char want[64], *end;

	errno = 0;
	*v = strtod(arg, &end);
	if (end == arg || *end || errno || !isfinite(*v) || *v < min || *v > max) {
		snprintf(want, sizeof(want), "give a number %g..%g", min, max);
		return bad(opt, arg, want);
	}
	return 0;
}

/* "90%" or "90": per cent of the ceiling, above 0 and at most 100 */
static int parse_pct(const char *arg, double *v)
{
	char *end;

	*v = strtod(arg, &end);
	if (end == arg || (*end && strcmp(end, "%")) || !(*v > 0 && *v <= 100))
		return bad("expect", arg, "give a percentage above 0 and at most 100, e.g. 90%");
	return 0;
}

static int parse_burst(struct stress_args *a, const char *arg)
{
	unsigned int on, off;
	int n = 0;

	if (sscanf(arg, "%u:%u%n", &on, &off, &n) != 2 || arg[n] || !on || !off)
		return bad("burst", arg,
			   "give ON:OFF in microseconds, both above 0 (e.g. 100:900)");
	a->job.burst_on_us = on;
	a->job.burst_off_us = off;
	return 0;
}

static int parse_dev(struct stress_args *a, const char *arg)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	if (!n || n >= sizeof(a->local.dev))
		return bad("dev", arg, "give DEV or DEV:PORT");
	memcpy(a->local.dev, arg, n);
	a->local.dev[n] = '\0';
	return colon ? parse_u32("dev", colon + 1, 1, 255, &a->local.port) : 0;
}

/* Copy a string option into a fixed field, refusing what does not fit. */
static int copy_opt(const char *opt, const char *arg, char *dst, size_t len)
{
	if (!*arg || strlen(arg) >= len)
		return bad(opt, arg, "empty or too long");
	memcpy(dst, arg, strlen(arg) + 1);
	return 0;
}

static int named(const char *opt, const char *arg, int ret, const char *want)
{
	return ret ? bad(opt, arg, want) : 0;
}

static int traffic_opt(struct stress_args *a, int key, const char *arg)
{
	struct nd_stress_job *j = &a->job;
	struct nd_err e = { 0 };

	switch (key) {
	case 'P':
		return named("pattern", arg, nd_stress_pattern_parse(arg, &j->pattern),
			     "give pair, bidir, incast, outcast, all-to-all or victim");
	case 'o':
		return named("op", arg, nd_op_parse(arg, &j->op),
			     "give write, write-imm, send or read");
	case 's':
		return nd_sizes_parse(arg, &j->sizes, &e) ? bad("size", arg, e.msg) : 0;
	case 'q':
		return parse_u32("qps", arg, 1, 1024, &j->qps);
	case 't':
		return parse_u32("tx-depth", arg, 1, 16384, &j->tx_depth);
	case OPT_CQ_MOD:
		return parse_u32("cq-mod", arg, 0, 16384, &j->cq_mod);
	case OPT_WINDOW:
		return parse_u32("window", arg, 0, 65536, &j->window_mib);
	case 'D':
		return parse_secs("duration", arg, 0.001, 604800, &j->duration_s);
	case 'n':
		return parse_u64("iters", arg, 1, 1000000000000ull, &j->iters);
	case OPT_RATE:
		return parse_secs("rate", arg, 0.001, 10000, &j->rate_gbps);
	case OPT_BURST:
		return parse_burst(a, arg);
	case OPT_PROBES:
		j->probes = true;
		return 0;
	case OPT_LATENCY:
		j->latency = true;
		return 0;
	case OPT_PROBE_SIZE:
		return parse_u32("probe-size", arg, 1, 65536, &j->probe_size);
	case OPT_PROBE_INTERVAL:
		return parse_u32("probe-interval", arg, 1, 60000000, &j->probe_interval_us);
	case OPT_VALIDATE:
		j->validate = true;
		return 0;
	case OPT_WATCHDOG:
		return parse_secs("watchdog", arg, 0.1, 86400, &j->watchdog_s);
	case OPT_INTERVAL:
		return parse_secs("interval", arg, 0.001, 86400, &j->interval_s);
	case OPT_MARGIN:
		return parse_secs("margin", arg, 0, 86400, &j->margin_s);
	case OPT_VERBS:
		j->connect = ND_CONN_VERBS;
		return 0;
	case 'T':
		return parse_int("tos", arg, 255, &j->tos);
	case OPT_SL:
		return parse_int("sl", arg, 15, &j->sl);
	case OPT_QP_TIMEOUT:
		return parse_int("qp-timeout", arg, 31, &j->qp_timeout);
	}
	return -1;
}

/* The command's scratch starts zeroed: the defaults go in before the first option. */
static void defaults(struct stress_args *a)
{
	if (a->ready)
		return;
	nd_stress_job_init(&a->job);
	nd_stress_local_init(&a->local);
	nd_rendezvous_init(&a->rv);
	a->ready = true;
}

static int stress_opt(int key, const char *arg, void *data)
{
	struct stress_args *a = data;
	struct nd_err e = { 0 };
	int ret;

	defaults(a);
	ret = traffic_opt(a, key, arg);
	if (ret >= 0)
		return ret;
	switch (key) {
	case OPT_INLINE:
		return parse_u32("inline", arg, 0, 4096, &a->local.inline_max);
	case OPT_EVENT:
		a->local.event = true;
		return 0;
	case 'd':
		return parse_dev(a, arg);
	case 'x':
		return parse_int("gid-index", arg, 255, &a->local.gid_index);
	case 'a':
		return copy_opt("addr", arg, a->local.addr, sizeof(a->local.addr));
	case OPT_PROFILE:
		a->profile = arg;
		return 0;
	case 'm':
		return nd_mem_spec_parse(arg, &a->local.mem, &e) ? bad("mem", arg, e.msg) : 0;
	case 'c':
		return copy_opt("coord", arg, a->rv.coord, sizeof(a->rv.coord));
	case 'l':
		a->rv.serve = true;
		return 0;
	case 'N':
		return parse_u32("ranks", arg, 2, 4096, &a->rv.nranks);
	case 'r':
		return parse_int("rank", arg, 4095, &a->rv.rank);
	case 'k':
		return copy_opt("token", arg, a->rv.token, sizeof(a->rv.token));
	case OPT_AUTH:
		for (int i = ND_RV_AUTH_AUTO; i <= ND_RV_AUTH_KEY; i++)
			if (!strcmp(arg, nd_rv_auth_name((enum nd_rv_auth)i))) {
				a->rv.auth = (enum nd_rv_auth)i;
				return 0;
			}
		return bad("auth", arg, "give munge, key, none or auto");
	case OPT_KEY_FILE:
		return copy_opt("key-file", arg, a->rv.key_file, sizeof(a->rv.key_file));
	case OPT_REQUIRE_AUTH:
		a->rv.require_auth = true;
		return 0;
	case OPT_AUTH_GID: {
		int gid;
		int rc = parse_int("auth-gid", arg, 2147483647, &gid);

		a->rv.auth_gid = gid;
		return rc;
	}
	case OPT_MPI:
		a->mpi = true;
		return 0;
	case OPT_TIMEOUT:
		return parse_secs("timeout", arg, 1, 86400, &a->rv.timeout_s);
	case OPT_JUNIT:
		a->junit = arg;
		return 0;
	case OPT_EXPECT:
		return parse_pct(arg, &a->expect_pct);
	case OPT_SERIES:
		a->flags |= ND_RR_FLOWS;
		return 0;
	}
	return ND_EXIT_USAGE;
}

/* ToS (RoCE) and SL (InfiniBand) from a profile's lossless class, unless given. */
static int apply_profile(struct stress_args *a)
{
	struct nd_profile p;
	struct nd_err e = { 0 };
	int tos, prio, ret;

	ret = nd_profile_load(a->profile, &p, &e);
	if (!ret)
		ret = nd_stress_tos_from_profile(&p, &tos, &prio, &e);
	if (!ret) {
		if (a->job.tos < 0)
			a->job.tos = tos;
		if (a->job.sl < 0 && prio >= 0)
			a->job.sl = prio;
	}
	nd_profile_free(&p);
	if (ret)
		fprintf(stderr, "nodrop stress: %s\n", e.msg);
	return ret ? ND_EXIT_USAGE : 0;
}

/* The coordinator's log: each peer it refused, and an unauthenticated job said loudly. */
static void coord_log(void *arg, const char *line)
{
	(void)arg;
	fprintf(stderr, "nodrop stress: coordinator: %s\n", line);
}

static int check_rendezvous(struct stress_args *a)
{
	/* MPI's launcher decides who is in the job */
	if (a->mpi || (!a->rv.coord[0] && nd_stress_mpi_launched())) {
		a->rv.kind = ND_RV_MPI;
		return 0;
	}
	a->rv.log = coord_log;
	if (!a->rv.coord[0]) {
		fprintf(stderr, "nodrop stress: give --coord HOST:PORT (and --listen --ranks N on "
			"rank 0), or launch under mpirun with --mpi\n");
		return ND_EXIT_USAGE;
	}
	if (a->rv.serve && !a->rv.nranks) {
		fprintf(stderr, "nodrop stress: --listen needs --ranks N (the processes of the "
			"job, this one included)\n");
		return ND_EXIT_USAGE;
	}
	return 0;
}

/* ---- output ---- */

static void print_steps(const struct nd_stress_result *r)
{
	size_t i;

	pr_text("  %-10s %-14s %-19s %-21s %s\n", "#bytes", "#iterations", "BW peak[MiB/sec]",
		"BW average[MiB/sec]", "MsgRate[Mpps]");
	pr_open_array("steps");
	for (i = 0; i < r->n_steps; i++) {
		const struct nd_stress_step *s = &r->steps[i];

		pr_open_object(NULL);
		if (s->size)
			pr_uint(PR_ANY, "size", "  %-10" PRIu64, s->size);
		else
			pr_text("  %-10s", "dist");
		pr_uint(PR_ANY, "messages", " %-14" PRIu64, s->messages);
		pr_uint(PR_JSON, "bytes", NULL, s->bytes);
		pr_float(PR_JSON, "seconds", NULL, s->seconds);
		pr_float(PR_ANY, "peak_mib_s", " %-19.2f", s->peak_gbps * 1e9 / 8 / 1048576);
		pr_float(PR_ANY, "avg_mib_s", " %-21.2f", s->avg_gbps * 1e9 / 8 / 1048576);
		pr_float(PR_ANY, "mpps", " %.6f", s->mpps);
		pr_float(PR_JSON, "peak_gbps", NULL, s->peak_gbps);
		pr_float(PR_JSON, "avg_gbps", NULL, s->avg_gbps);
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

static void print_sampled(const struct nd_stress_result *r)
{
	size_t i;

	pr_open_array("counters");
	for (i = 0; i < r->n_sampled; i++) {
		const struct nd_stress_port *p = &r->sampled[i];

		pr_open_object(NULL);
		pr_string(PR_ANY, "where", "  counters %s:", p->where);
		if (p->status) {
			pr_string(PR_ANY, "error", " not sampled: %s\n", p->error);
			pr_close_object();
			continue;
		}
		pr_float(PR_ANY, "interval_s", " %.2f s apart", p->interval_s);
		pr_uint(PR_ANY, "sampled", ", %" PRIu64 " counters", p->n_counters);
		pr_uint(PR_ANY, "loss_counters", ", %" PRIu64 " loss indicators", p->n_loss);
		pr_uint(PR_ANY, "loss_moved", " (%" PRIu64 " moved)", p->n_loss_moved);
		pr_uint(PR_ANY, "rdma_tx_packets", ", rdma packets tx +%" PRIu64, p->tx_packets);
		pr_uint(PR_ANY, "rdma_rx_packets", " rx +%" PRIu64 "\n", p->rx_packets);
		pr_close_object();
	}
	pr_close_array();
}

static void print_ranks(const struct nd_stress_result *r)
{
	size_t i;

	pr_open_array("ranks");
	for (i = 0; i < r->n_ranks; i++) {
		const struct nd_stress_rank *k = &r->ranks[i];

		pr_open_object(NULL);
		pr_uint(PR_ANY, "rank", "  rank %" PRIu64, k->rank);
		pr_string(PR_ANY, "host", " %s", k->host);
		pr_string(PR_ANY, "dev", " %s", k->dev);
		pr_uint(PR_ANY, "port", "/%" PRIu64, k->port);
		pr_string(PR_ANY, "ifname", " (%s", k->ifname);
		pr_string(PR_ANY, "addr", " %s)", k->addr);
		pr_float(PR_JSON, "link_gbps", NULL, k->link_gbps);
		pr_float(PR_ANY, "ceiling_tx_gbps", " ceiling %.2f", k->ceiling_tx_gbps);
		pr_float(PR_ANY, "ceiling_rx_gbps", "/%.2f Gb/s", k->ceiling_rx_gbps);
		pr_string(PR_JSON, "limit_tx", NULL, k->limit_tx);
		pr_string(PR_JSON, "limit_rx", NULL, k->limit_rx);
		pr_string(PR_ANY, "mem", " mem %s", k->mem);
		pr_string(PR_ANY, "pacing", ", pacing %s", k->pacing);
		pr_float(PR_ANY, "cpu_s", ", cpu %.2f s", k->cpu_s);
		pr_uint(PR_ANY, "bytes_tx", ", tx %" PRIu64, k->bytes_tx);
		pr_uint(PR_ANY, "bytes_rx", " rx %" PRIu64 " bytes", k->bytes_rx);
		if (k->staged_bytes) {
			pr_float(PR_ANY, "staged_s", ", staged copies %.3f s", k->staged_s);
			pr_uint(PR_ANY, "staged_bytes", " for %" PRIu64 " bytes", k->staged_bytes);
		}
		if (k->status)
			pr_string(PR_ANY, "error", "\n    failed: %s", k->error);
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

struct extra {
	const struct nd_stress_result *r;
	const struct nd_stress_job *job;
	double expect_pct;
};

/* Text: the flows against their datapath ceilings, lowest and highest (JSON has each). */
static void print_ceilings(const struct nd_run_report *rep)
{
	const struct nd_flow_result *lo = NULL;
	double hi = 0, pct;
	size_t i;

	for (i = 0; i < rep->n_flows; i++) {
		const struct nd_flow_result *f = &rep->flows[i];

		if (!(f->ceiling_gbps > 0))
			continue;
		pct = 100 * f->gbps / f->ceiling_gbps;
		if (!lo || pct < 100 * lo->gbps / lo->ceiling_gbps)
			lo = f;
		if (pct > hi)
			hi = pct;
	}
	if (!lo)
		pr_text("  datapath ceiling: unknown (no rate for a port: nodrop model says why)\n");
	else
		pr_text("  datapath ceiling: flows at %.1f-%.1f %% of it; the lowest, %s, is bound "
			"by %s\n", 100 * lo->gbps / lo->ceiling_gbps, hi, lo->name, lo->limit);
}

/* --expect: the finding (text and JSON), and how many flows fell short */
static size_t print_expect(const struct nd_stress_result *r, double pct)
{
	char why[768];
	size_t n = nd_stress_slow(r, pct, why, sizeof(why));

	pr_open_object("expect");
	pr_float(PR_JSON, "pct", NULL, pct);
	pr_uint(PR_JSON, "slow_flows", NULL, n);
	if (n)
		pr_string(PR_ANY, "finding", "  finding: SLOW: %s\n", why);
	else
		pr_null(PR_JSON, "finding", NULL);
	pr_close_object();
	return n;
}

/*
 * The traffic options of the run (JSON only), so that `nodrop compare` can tell runs of other
 * options apart: the option names without "--" ("burst (on)" as "burst-on"), then the sizes.
 */
static void print_options(const struct nd_stress_job *job)
{
	static const char *const kinds[] = { "fixed", "sweep", "distribution" };
	const char *opt;
	char key[32], *q;
	double v;
	size_t i;

	pr_open_object("options");
	for (i = 0; (opt = nd_stress_job_option(job, i, &v)); i++) {
		snprintf(key, sizeof(key), "%s", opt + 2);
		q = strstr(key, " (");
		if (q) {
			*q = '-';
			memmove(q + 1, q + 2, strlen(q + 2) + 1);
			key[strlen(key) - 1] = '\0';
		}
		if (!strcmp(key, "pattern"))
			pr_string(PR_JSON, key, NULL, nd_stress_pattern_name(job->pattern));
		else if (!strcmp(key, "op"))
			pr_string(PR_JSON, key, NULL, nd_op_name(job->op));
		else
			pr_float(PR_JSON, key, NULL, v);
	}
	pr_string(PR_JSON, "sizes_kind", NULL, kinds[job->sizes.kind]);
	pr_open_array("sizes");
	for (i = 0; i < job->sizes.n; i++)
		pr_uint(PR_JSON, NULL, NULL, job->sizes.size[i]);
	pr_close_array();
	if (job->sizes.kind == ND_SIZES_DIST) {
		pr_open_array("size_weights");
		for (i = 0; i < job->sizes.n; i++)
			pr_float(PR_JSON, NULL, NULL, job->sizes.weight[i]);
		pr_close_array();
	}
	pr_close_object();
}

/* What stress measures beyond the shared report, inside its object. */
static void print_extra(size_t i, void *data)
{
	const struct extra *x = data;
	const struct nd_stress_result *r = x->r;

	(void)i;
	print_options(x->job);
	print_steps(r);
	pr_uint(PR_ANY, "nranks", "  %" PRIu64 " ranks", r->nranks);
	pr_string(PR_ANY, "connect", ", %s", r->connect);
	if (r->tos >= 0)
		pr_int(PR_ANY, "tos", ", ToS %" PRId64, r->tos);
	else
		pr_null(PR_ANY, "tos", ", ToS default");
	pr_float(PR_ANY, "cpu_s_per_gb", ", cpu %.3f s per GB\n", r->cpu_s_per_gb);
	nd_print_dist("completion", "completion latency", r->completion);
	pr_open_object("validation");
	pr_uint(PR_ANY, "validated", "  validation: %" PRIu64 " checked", r->validated);
	pr_uint(PR_ANY, "corrupt", ", %" PRIu64 " corrupt", r->corrupt);
	pr_uint(PR_ANY, "misordered", ", %" PRIu64 " out of order", r->misordered);
	pr_uint(PR_ANY, "missing", ", %" PRIu64 " missing", r->missing);
	pr_uint(PR_ANY, "overrun", ", %" PRIu64 " overwritten before checked\n", r->overrun);
	pr_close_object();
	print_sampled(r);
	print_ranks(r);
	print_ceilings(r->report);
	if (x->expect_pct > 0)
		print_expect(r, x->expect_pct);
}

/* A rank other than 0 knows only the verdict rank 0 sent. */
static void print_short(const struct nd_stress_result *r)
{
	pr_open_object(NULL);
	pr_uint(PR_ANY, "rank", "rank %" PRIu64, r->rank);
	pr_uint(PR_ANY, "nranks", " of %" PRIu64, r->nranks);
	pr_string(PR_ANY, "verdict", ": verdict %s", nd_verdict_name(r->report->verdict));
	pr_string(PR_ANY, "reason", ": %s\n", r->report->reason);
	pr_close_object();
}

/* One test case for the verdict, one per flow (its throughput), one per sampled port. */
static int write_junit(const char *path, const struct nd_stress_result *r)
{
	const struct nd_run_report *rep = r->report;
	FILE *f = fopen(path, "w");
	size_t i;

	if (!f)
		return -errno;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuite name=\"nodrop-stress\" "
		"tests=\"%zu\" failures=\"%d\" time=\"%.3f\">\n", 1 + rep->n_flows + r->n_sampled,
		rep->verdict != ND_VERDICT_LOSSLESS, rep->duration_s);
	fprintf(f, "  <testcase classname=\"stress.%s\" name=\"verdict\">\n", rep->pattern);
	if (rep->verdict != ND_VERDICT_LOSSLESS) {
		fprintf(f, "    <failure message=\"%s: ", nd_verdict_name(rep->verdict));
		nd_xml_escape(f, rep->reason);
		fputs("\">", f);
		for (i = 0; i < rep->n_evidence; i++) {
			const struct nd_evidence *v = &rep->evidence[i];

			fprintf(f, "%s%s %s prio %d +%" PRIu64, i ? "\n" : "", v->where, v->what,
				v->prio, v->delta);
		}
		fputs("</failure>\n", f);
	}
	fputs("  </testcase>\n", f);
	for (i = 0; i < rep->n_flows; i++) {
		fputs("  <testcase classname=\"stress.flow\" name=\"", f);
		nd_xml_escape(f, rep->flows[i].name);
		fprintf(f, "\"><system-out>%.3f Gb/s, %" PRIu64 " bytes</system-out></testcase>\n",
			rep->flows[i].gbps, rep->flows[i].bytes);
	}
	for (i = 0; i < r->n_sampled; i++) {
		fputs("  <testcase classname=\"stress.counters\" name=\"", f);
		nd_xml_escape(f, r->sampled[i].where);
		fprintf(f, "\"><system-out>%zu loss indicators, %zu moved</system-out>"
			"</testcase>\n", r->sampled[i].n_loss, r->sampled[i].n_loss_moved);
	}
	fputs("</testsuite>\n", f);
	return fclose(f) ? -errno : 0;
}

static int run_exit(int ret, const struct nd_stress_result *r)
{
	if (ret == -EINVAL || ret == -ECONNREFUSED)
		return ND_EXIT_USAGE;
	if (ret)
		return ND_EXIT_SYSTEM;
	return r->report->verdict == ND_VERDICT_LOSSLESS ? ND_EXIT_OK : ND_EXIT_FINDINGS;
}

static int stress_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct stress_args *a = data;
	struct nd_stress_result r;
	struct nd_err e = { 0 };
	int ret, rc;

	defaults(a);
	if (argc) {
		fprintf(stderr, "nodrop stress: unexpected argument '%s'\n", argv[0]);
		return ND_EXIT_USAGE;
	}
	rc = a->profile ? apply_profile(a) : 0;
	if (!rc)
		rc = check_rendezvous(a);
	if (rc)
		return rc;
	nd_catch_stop();
	a->local.stop = (const volatile int *)&nd_stop;
	ret = nd_stress_run(&a->job, &a->local, &a->rv, &r, &e);
	if (ret) {
		fprintf(stderr, "nodrop stress: %s\n", e.msg);
		return run_exit(ret, NULL);
	}
	pr_init(cli->json, cli->pretty);
	if (r.gathered)
		nd_print_run_report(NULL, r.report, a->flags, print_extra, 0,
				    &(struct extra){ &r, &a->job, a->expect_pct });
	else
		print_short(&r);
	pr_finish();
	rc = run_exit(0, &r);
	/* lossless but slow: a finding too (a rank without the whole report cannot judge) */
	if (!rc && a->expect_pct > 0 && r.gathered && nd_stress_slow(&r, a->expect_pct, NULL, 0))
		rc = ND_EXIT_FINDINGS;
	if (a->junit && (ret = write_junit(a->junit, &r))) {
		fprintf(stderr, "nodrop stress: cannot write %s: %s\n", a->junit, strerror(-ret));
		rc = ND_EXIT_SYSTEM;
	}
	nd_stress_result_free(&r);
	return rc;
}

const struct nd_cmd nd_cmd_stress = {
	.name = "stress",
	.args = "",
	.summary = "Drive RDMA traffic (host or GPU memory) and judge whether the fabric stayed "
		   "lossless",
	.opts = stress_opts,
	.opt = stress_opt,
	.run = stress_run,
	.data_size = sizeof(struct stress_args),
	.complete = stress_complete,
};
