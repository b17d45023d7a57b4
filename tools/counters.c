// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop counters: a port's counters under canonical names, once, or watched as deltas and rates,
 * or in the Prometheus text format for node_exporter's textfile collector.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "prom.h"
#include "stop.h"

#define WATCH_MAX_S 86400.0
#define COUNT_MAX 1000000000L
#define DEVS_MAX 1024

enum { OPT_PROMETHEUS = 256, OPT_MAPS };

struct counters_args {
	double watch_s;
	bool watch;
	long count;		/* 0: until interrupted */
	bool all;
	bool prometheus;
	const char *maps;
};

static const struct nd_opt counters_opts[] = {
	{ "watch", 'w', "SECONDS",
	  "sample every SECONDS (fractions allowed, 0 back to back); print deltas and rates" },
	{ "count", 'c', "COUNT", "with --watch: stop after COUNT intervals (default: until ^C)" },
	{ "all", 'a', NULL,
	  "watch: every counter, not only those that moved; --prometheus: add raw counters" },
	{ "prometheus", OPT_PROMETHEUS, NULL, "Prometheus text format for node_exporter's textfile "
	  "collector" },
	{ "maps", OPT_MAPS, "DIR", "driver map files (default: NODROP_COUNTER_MAPS, else the "
	  "built-in ones and /etc/nodrop/counters)" },
	{ 0 },
};

static int counters_opt(int key, const char *arg, void *data)
{
	struct counters_args *a = data;
	char *end;

	switch (key) {
	case 'w':
		a->watch_s = strtod(arg, &end);
		if (end == arg || *end || !(a->watch_s >= 0 && a->watch_s <= WATCH_MAX_S)) {
			fprintf(stderr, "nodrop counters: --watch takes seconds from 0 to %g, "
				"not '%s'\n", WATCH_MAX_S, arg);
			return ND_EXIT_USAGE;
		}
		a->watch = true;
		return 0;
	case 'c':
		a->count = strtol(arg, &end, 10);
		if (end == arg || *end || a->count < 1 || a->count > COUNT_MAX) {
			fprintf(stderr, "nodrop counters: --count takes a whole number from 1 "
				"to %ld, not '%s'\n", COUNT_MAX, arg);
			return ND_EXIT_USAGE;
		}
		return 0;
	case 'a':
		a->all = true;
		return 0;
	case OPT_PROMETHEUS:
		a->prometheus = true;
		return 0;
	case OPT_MAPS:
		a->maps = arg;
		return 0;
	}
	return ND_EXIT_USAGE;
}

/* ---- the ports: named, or every one but loopback in ifindex order ---- */

struct devs {
	char *name[DEVS_MAX];
	uint64_t ifindex[DEVS_MAX];
	size_t n;
};

static int add_dev(const char *name, void *data)
{
	struct devs *d = data;
	uint64_t type = 0, ifindex = 0;
	size_t i;

	/* ARPHRD_LOOPBACK */
	if (!nd_sys_read_u64(&type, "/sys/class/net/%s/type", name) && type == 772)
		return 0;
	if (d->n == DEVS_MAX)
		return -E2BIG;
	nd_sys_read_u64(&ifindex, "/sys/class/net/%s/ifindex", name);
	for (i = d->n; i > 0 && d->ifindex[i - 1] > ifindex; i--) {
		d->name[i] = d->name[i - 1];
		d->ifindex[i] = d->ifindex[i - 1];
	}
	d->name[i] = strdup(name);
	d->ifindex[i] = ifindex;
	d->n++;
	return d->name[i] ? 0 : -ENOMEM;
}

static void free_devs(struct devs *d)
{
	size_t i;

	for (i = 0; i < d->n; i++)
		free(d->name[i]);
	d->n = 0;
}

static int list_devs(int argc, char **argv, struct devs *d)
{
	int i, ret;

	if (argc > DEVS_MAX) {
		fprintf(stderr, "nodrop counters: at most %d devices\n", DEVS_MAX);
		return ND_EXIT_USAGE;
	}
	for (i = 0; i < argc; i++) {
		d->name[d->n] = strdup(argv[i]);
		if (!d->name[d->n])
			return ND_EXIT_SYSTEM;
		d->n++;
	}
	if (argc)
		return 0;
	ret = nd_sys_dir(add_dev, d, "/sys/class/net");
	if (ret) {
		fprintf(stderr, "nodrop counters: cannot list network devices in /sys/class/net: "
			"%s\n", strerror(-ret));
		return ND_EXIT_SYSTEM;
	}
	return 0;
}

/* One sample per port; on failure none is kept and the exit code returned. */
static int sample_all(struct nd_sampler *s, const struct devs *d, struct nd_sample *smp)
{
	struct nd_err e = { 0 };
	int ret;

	ret = nd_sample_ports(s, (const char *const *)d->name, d->n, smp, &e);
	if (!ret)
		return 0;
	fprintf(stderr, "nodrop counters: %s\n", e.msg);
	/* no such port, or a broken map its driver needs: the user's to fix */
	return nd_cli_exit_code(ret == -ENODEV || ret == -EINVAL ? ret : -EIO);
}

static void free_samples(struct nd_sample *smp, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		nd_sample_free(&smp[i]);
}

/* ---- text and JSON ---- */

static void print_port(const struct nd_sample *smp)
{
	pr_string(PR_ANY, "ifname", "%s:", smp->ifname);
	pr_string(PR_ANY, "driver", " driver %s", smp->driver[0] ? smp->driver : "unknown");
	if (smp->ibdev[0]) {
		pr_open_object("rdma");
		pr_string(PR_ANY, "ibdev", " rdma %s", smp->ibdev);
		pr_uint(PR_ANY, "port", "/%" PRIu64, smp->ibport);
		pr_string(PR_ANY, "via", " (%s)", smp->rdma_netlink ? "netlink" : "sysfs");
		pr_close_object();
	} else {
		pr_null(PR_JSON, "rdma", NULL);
	}
}

static void print_prio(int prio)
{
	if (prio >= 0) {
		pr_int(PR_ANY, "prio", " %4" PRId64, prio);
	} else {
		pr_null(PR_JSON, "prio", NULL);
		pr_text("    -");
	}
}

static void print_counter(const struct nd_counter *c)
{
	pr_open_object(NULL);
	pr_string(PR_ANY, "name", "    %-34s", c->name);
	print_prio(c->prio);
	pr_string(PR_ANY, "source", "  %-7s", nd_ctr_source_name(c->source));
	pr_uint(PR_ANY, "value", " %20" PRIu64, c->value);
	pr_bool(PR_JSON, "mapped", NULL, c->mapped);
	pr_string(PR_JSON, "raw", NULL, c->raw);
	if (!c->mapped)
		pr_text("  raw");
	pr_close_object();
	pr_nl();
}

/* The values: the one-shot output, and the baseline of a watch. */
static int print_values(const struct nd_sample *smp, size_t n)
{
	size_t i, j;

	pr_open_array(NULL);
	for (i = 0; i < n; i++) {
		pr_open_object(NULL);
		print_port(&smp[i]);
		pr_nl();
		pr_text("    %-34s %4s  %-7s %20s\n", "counter", "prio", "source", "value");
		pr_open_array("counters");
		for (j = 0; j < smp[i].n; j++)
			print_counter(&smp[i].c[j]);
		pr_close_array();
		pr_close_object();
	}
	pr_close_array();
	return pr_finish();
}

static bool moved(const struct nd_delta *d)
{
	return d->delta || d->status != ND_DELTA_OK;
}

static void print_delta(const struct nd_delta *d)
{
	bool counts = d->status == ND_DELTA_OK || d->status == ND_DELTA_WRAPPED ||
		      d->status == ND_DELTA_SATURATED;

	pr_open_object(NULL);
	pr_string(PR_ANY, "name", "    %-34s", d->name);
	print_prio(d->prio);
	pr_string(PR_ANY, "source", "  %-7s", nd_ctr_source_name(d->source));
	pr_bool(PR_JSON, "mapped", NULL, d->mapped);
	pr_uint(PR_JSON, "delta", NULL, d->delta);
	pr_float(PR_JSON, "rate", NULL, d->rate);
	if (counts) {
		char plus[24];

		snprintf(plus, sizeof(plus), "+%" PRIu64, d->delta);
		pr_text(" %20s %12.1f/s", plus, d->rate);
	} else {
		pr_text(" %20s %14s", nd_delta_status_name(d->status), "");
	}
	pr_uint(PR_ANY, "value", "  (%" PRIu64 ")", d->value);
	pr_string(PR_JSON, "status", NULL, nd_delta_status_name(d->status));
	if (counts && d->status != ND_DELTA_OK)
		pr_text(" %s", nd_delta_status_name(d->status));
	if (!d->mapped)
		pr_text(" raw");
	pr_close_object();
	pr_nl();
}

static int print_deltas(const struct nd_sample *a, const struct nd_sample *b, size_t n,
			bool all)
{
	struct nd_err e = { 0 };
	struct nd_delta *d;
	size_t i, j, nd;
	int ret = 0;

	pr_open_array(NULL);
	for (i = 0; i < n && !ret; i++) {
		ret = nd_sample_diff(&a[i], &b[i], &d, &nd, &e);
		if (ret) {
			fprintf(stderr, "nodrop counters: %s\n", e.msg);
			break;
		}
		pr_open_object(NULL);
		print_port(&b[i]);
		pr_float(PR_ANY, "interval_s", ": %.2f s", (double)(b[i].t_ns - a[i].t_ns) / 1e9);
		pr_nl();
		pr_open_array("counters");
		for (j = 0; j < nd; j++)
			if (all || moved(&d[j]))
				print_delta(&d[j]);
		pr_close_array();
		pr_close_object();
		free(d);
	}
	pr_close_array();
	if (pr_finish())
		ret = -EIO;
	return ret;
}

/*
 * --prometheus: each port's PFC priorities (a mask, -1 where DCB could not be read), so an alert
 * can tell drops on a lossless priority from drops on a lossy one. A port without DCB simply has
 * none; any other failure is said on stderr (the timer's journal) and the counters still go out.
 */
static int port_pfc(const struct nd_port *p)
{
	if (!p->dcb_status && (p->dcb.have & ND_DCB_HAVE_PFC))
		return p->dcb.pfc.pfc_en;
	if (p->dcb_status && p->dcb_status != -EOPNOTSUPP)
		fprintf(stderr, "nodrop counters: %s: PFC state not read: %s\n", p->link.name,
			p->dcb_error);
	return -1;
}

static int *read_pfc(const struct devs *d)
{
	int *pfc = malloc((d->n ? d->n : 1) * sizeof(*pfc));
	struct nd_ctx *ctx = NULL;
	struct nd_port *p = NULL;
	struct nd_err e = { 0 };
	size_t i, cnt;

	/* (no port: nothing to read; nd_ports_read would read every port for none) */
	if (!pfc || !d->n)
		return pfc;
	for (i = 0; i < d->n; i++)
		pfc[i] = -1;
	if (nd_ctx_new(&ctx, &e)) {
		fprintf(stderr, "nodrop counters: PFC state not read: %s\n", e.msg);
		return pfc;
	}
	/* all ports in one read (one link dump); port by port only when one of them is gone */
	if (!nd_ports_read(ctx, (const char *const *)d->name, d->n, &p, &cnt, &e)) {
		for (i = 0; i < d->n && i < cnt; i++)
			pfc[i] = port_pfc(&p[i]);
		nd_ports_free(p, cnt);
	} else {
		for (i = 0; i < d->n; i++) {
			const char *name = d->name[i];
			int ret = nd_ports_read(ctx, &name, 1, &p, &cnt, &e);

			/* -ENODEV: gone since it was sampled, or a name only a fixture tree holds */
			if (ret) {
				if (ret != -ENODEV)
					fprintf(stderr, "nodrop counters: %s: PFC state not read: "
						"%s\n", name, e.msg);
				continue;
			}
			pfc[i] = port_pfc(p);
			nd_ports_free(p, cnt);
		}
	}
	nd_ctx_free(ctx);
	return pfc;
}

/* ---- watch ---- */

/* Sleep until @start + @k intervals: the schedule does not drift with the sampling time. */
static void sleep_until(const struct timespec *start, double interval, long k)
{
	double at = (double)start->tv_sec + (double)start->tv_nsec / 1e9 + interval * (double)k;
	struct timespec t;

	t.tv_sec = (time_t)at;
	t.tv_nsec = (long)((at - (double)t.tv_sec) * 1e9);
	if (t.tv_nsec >= 1000000000L) {
		t.tv_sec++;
		t.tv_nsec -= 1000000000L;
	}
	while (!nd_stop && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
		;
}

static int watch(struct nd_sampler *s, const struct devs *d, struct nd_sample *prev,
		 const struct nd_cli *cli, const struct counters_args *a)
{
	struct nd_sample *next = calloc(d->n, sizeof(*next));
	struct timespec start;
	long k;
	int rc = ND_EXIT_OK;

	if (!next)
		return ND_EXIT_SYSTEM;
	/* the sleep between samples ends at once on ^C */
	nd_catch_stop();
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (k = 1; !a->count || k <= a->count; k++) {
		sleep_until(&start, a->watch_s, k);
		if (nd_stop)
			break;
		rc = sample_all(s, d, next);
		/* a port that vanishes during a watch is the system's doing, not bad usage */
		if (rc) {
			rc = ND_EXIT_SYSTEM;
			break;
		}
		pr_init(cli->json, cli->pretty);
		if (print_deltas(prev, next, d->n, a->all))
			rc = ND_EXIT_SYSTEM;
		free_samples(prev, d->n);
		memcpy(prev, next, d->n * sizeof(*next));
		memset(next, 0, d->n * sizeof(*next));
		if (rc)
			break;
	}
	free(next);
	return rc;
}

static int check_args(const struct nd_cli *cli, const struct counters_args *a)
{
	const char *bad = NULL;

	if (a->count && !a->watch)
		bad = "--count needs --watch";
	else if (a->prometheus && a->watch)
		bad = "--prometheus prints one sample; it does not go with --watch";
	else if (a->prometheus && cli->json)
		bad = "--prometheus and --json are two output formats; choose one";
	if (!bad)
		return 0;
	fprintf(stderr, "nodrop counters: %s; 'nodrop counters --help'\n", bad);
	return ND_EXIT_USAGE;
}

static int counters_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct counters_args *a = data;
	struct nd_sampler *s = NULL;
	struct nd_sample *smp = NULL;
	struct devs d;
	struct nd_err e = { 0 };
	int rc, ret;

	/* the arrays are written before they are read: zeroing 16 KiB costs a one-shot 4 faults */
	d.n = 0;
	rc = check_args(cli, a);
	if (!rc)
		rc = list_devs(argc, argv, &d);
	if (rc)
		goto out;
	ret = nd_sampler_new(&s, a->maps, &e);
	if (ret) {
		fprintf(stderr, "nodrop counters: %s\n", e.msg);
		rc = ret == -EINVAL || ret == -ENOENT ? ND_EXIT_USAGE : ND_EXIT_SYSTEM;
		goto out;
	}
	smp = calloc(d.n ? d.n : 1, sizeof(*smp));
	rc = smp ? sample_all(s, &d, smp) : ND_EXIT_SYSTEM;
	if (rc) {
		free(smp);
		smp = NULL;
		goto out;
	}
	if (a->prometheus) {
		int *pfc = read_pfc(&d);
		struct timespec now;

		clock_gettime(CLOCK_REALTIME, &now);
		rc = pfc && !nd_prom_print(stdout, smp, d.n, pfc, a->all,
					   now.tv_sec + now.tv_nsec / 1e9) ? ND_EXIT_OK :
									     ND_EXIT_SYSTEM;
		free(pfc);
	} else {
		pr_init(cli->json, cli->pretty);
		rc = print_values(smp, d.n) ? ND_EXIT_SYSTEM : ND_EXIT_OK;
		if (!rc && a->watch)
			rc = watch(s, &d, smp, cli, a);
	}
out:
	if (smp)
		free_samples(smp, d.n);
	free(smp);
	nd_sampler_free(s);
	free_devs(&d);
	return rc;
}

const struct nd_cmd nd_cmd_counters = {
	.name = "counters",
	.args = "[DEV...]",
	.summary = "Show port counters under canonical names: PFC, pause, drops, ECN/CNP, RDMA "
		   "transport, IB errors; watch deltas and rates; Prometheus output",
	.opts = counters_opts,
	.opt = counters_opt,
	.run = counters_run,
	.data_size = sizeof(struct counters_args),
};
