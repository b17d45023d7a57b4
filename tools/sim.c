// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop sim: run a scenario through the fabric model, one flow control or several compared. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "runreport.h"

enum {
	OPT_FLOWS = 256,
	OPT_ALL_PORTS,
	OPT_DCQCN_FROM,
};

struct sim_args {
	enum nd_fabric fabrics[ND_FABRIC_COUNT];
	size_t n_fabrics;
	uint64_t seed;
	bool have_seed;
	unsigned int flags;
	const char *dcqcn_from;		/* a port whose NIC's DCQCN parameters the run takes */
};

/* What each run printed beside its report. */
struct sim_run {
	struct nd_run_report report;
	struct nd_sim_stats stats;
	double wall_s;
	const char *scenario;		/* its name: compare tells runs of other scenarios apart */
};

static const struct nd_opt sim_opts[] = {
	{ "compare", 'c', "FABRICS", "run each of these flow controls on the workload: roce,ib" },
	{ "seed", 's', "N", "seed for arrivals and marking (default: the scenario's)" },
	{ "flows", OPT_FLOWS, NULL, "text: a line per flow" },
	{ "all-ports", OPT_ALL_PORTS, NULL, "text: every port, also those with nothing to show" },
	{ "dcqcn-from", OPT_DCQCN_FROM, "DEV", "DCQCN parameters from this port's NIC, as audit "
	  "reads them" },
	{ 0 },
};

static const char *fabric_value(unsigned int i)
{
	return i < ND_FABRIC_COUNT ? nd_fabric_name(i) : NULL;
}

static const struct nd_comp sim_complete[] = {
	{ .opt = "compare", .value = fabric_value, .list = true },
	{ 0 },
};

static int parse_fabrics(struct sim_args *a, const char *arg)
{
	char buf[64], *tok, *save = NULL;
	size_t i;
	int f;

	if (strlen(arg) >= sizeof(buf))
		goto bad;
	strcpy(buf, arg);
	a->n_fabrics = 0;
	for (tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		for (f = 0; f < ND_FABRIC_COUNT && strcmp(tok, nd_fabric_name(f)); f++)
			;
		if (f == ND_FABRIC_COUNT)
			goto bad;
		for (i = 0; i < a->n_fabrics; i++)
			if (a->fabrics[i] == (enum nd_fabric)f)
				goto bad;
		a->fabrics[a->n_fabrics++] = f;
	}
	if (a->n_fabrics)
		return 0;
bad:
	fprintf(stderr, "nodrop sim: --compare '%s': give roce, ib or roce,ib, each once\n", arg);
	return ND_EXIT_USAGE;
}

static int sim_opt(int key, const char *arg, void *data)
{
	struct sim_args *a = data;
	char *end;

	switch (key) {
	case 'c':
		return parse_fabrics(a, arg);
	case 's':
		if (arg[0] < '0' || arg[0] > '9')
			goto bad_seed;
		errno = 0;
		a->seed = strtoull(arg, &end, 10);
		if (*end || errno)
			goto bad_seed;
		a->have_seed = true;
		return 0;
	case OPT_FLOWS:
		a->flags |= ND_RR_FLOWS;
		return 0;
	case OPT_ALL_PORTS:
		a->flags |= ND_RR_ALL_PORTS;
		return 0;
	case OPT_DCQCN_FROM:
		a->dcqcn_from = arg;
		return 0;
	}
	return ND_EXIT_USAGE;
bad_seed:
	fprintf(stderr, "nodrop sim: --seed '%s': give a whole number 0..2^64-1\n", arg);
	return ND_EXIT_USAGE;
}

static void print_pct(const char *key, const char *label, const struct nd_sim_pct *p)
{
	pr_open_object(key);
	pr_text("%s", label);
	pr_uint(PR_ANY, "count", " %" PRIu64 " flows", p->count);
	pr_float(PR_ANY, "p50", ", p50 %.2f", p->p50);
	pr_float(PR_ANY, "p95", ", p95 %.2f", p->p95);
	pr_float(PR_ANY, "p99", ", p99 %.2f", p->p99);
	pr_float(PR_ANY, "max", ", max %.2f", p->max);
	pr_float(PR_ANY, "mean", ", mean %.2f\n", p->mean);
	pr_close_object();
}

/* The model's own numbers, inside each report's object. */
static void print_stats(size_t i, void *data)
{
	const struct sim_run *run = &((const struct sim_run *)data)[i];
	const struct nd_sim_stats *st = &run->stats;
	char label[64];
	size_t b;

	pr_open_object("sim");
	pr_string(PR_TEXT, NULL, "  %s model:", run->report.fabric);
	pr_string(PR_JSON, "scenario", NULL, run->scenario);
	pr_uint(PR_ANY, "events", " %" PRIu64 " events", st->events);
	pr_float(PR_TEXT, NULL, " in %.4f s", run->wall_s);
	pr_float(PR_TEXT, NULL, " (%.1f M events/s)", run->wall_s > 0 ?
		 (double)st->events / run->wall_s / 1e6 : 0);
	pr_uint(PR_ANY, "seed", ", seed %" PRIu64, st->seed);
	pr_uint(PR_ANY, "packets", ", %" PRIu64 " data packets", st->packets);
	pr_uint(PR_ANY, "flows", ", %" PRIu64 " flows", st->flows);
	pr_uint(PR_ANY, "flows_done", ", %" PRIu64 " completed\n", st->flows_done);
	if (st->slowdown.count || pr_is_json())
		print_pct("slowdown", "  slowdown:", &st->slowdown);
	pr_open_array("buckets");
	for (b = 0; b < ND_SIM_BUCKETS; b++) {
		if (!st->buckets[b].slowdown.count && !pr_is_json())
			continue;
		pr_open_object(NULL);
		pr_uint(PR_JSON, "lo", NULL, st->buckets[b].lo);
		pr_uint(PR_JSON, "hi", NULL, st->buckets[b].hi);
		if (st->buckets[b].hi)
			snprintf(label, sizeof(label), "    %" PRIu64 "..%" PRIu64 " B:",
				 st->buckets[b].lo, st->buckets[b].hi);
		else
			snprintf(label, sizeof(label), "    %" PRIu64 " B and up:",
				 st->buckets[b].lo);
		print_pct("slowdown", label, &st->buckets[b].slowdown);
		pr_close_object();
	}
	pr_close_array();
	pr_close_object();
}

static double seconds_since(const struct timespec *a)
{
	struct timespec b;

	clock_gettime(CLOCK_MONOTONIC, &b);
	return (double)(b.tv_sec - a->tv_sec) + (double)(b.tv_nsec - a->tv_nsec) / 1e9;
}

/* The scenario's DCQCN from @dev's NIC; what the model leaves out said on stderr. */
static int dcqcn_from(struct nd_scenario *sc, const char *dev)
{
	const struct nd_sim_dcqcn *d = &sc->dcqcn;
	struct nd_ctx *ctx = NULL;
	struct nd_port *ports = NULL;
	struct nd_err e = { 0 };
	size_t n = 0;
	char note[512];
	int ret;

	ret = nd_ctx_new(&ctx, &e);
	if (!ret)
		ret = nd_ports_read(ctx, &dev, 1, &ports, &n, &e);
	if (!ret)
		ret = nd_scenario_dcqcn_from_nic(sc, &ports[0].ecn, dev, note, sizeof(note), &e);
	if (ret) {
		fprintf(stderr, "nodrop sim: --dcqcn-from: %s\n", e.msg);
		goto out;
	}
	fprintf(stderr, "nodrop sim: DCQCN from %s (%s): %s, timer %.0f us, byte-counter %" PRIu64
		", fast-recovery %u, ai %.0f Mb/s, hai %.0f Mb/s, min-rate %.0f Mb/s, g %.5f, "
		"alpha %.5f, alpha-timer %.0f us, rate-reduce-period %.0f us, clamp-target-rate %s, "
		"cnp-interval %.0f us\n", dev, nd_ecn_backend_name(ports[0].ecn.backend),
		d->on ? "on" : "off", d->timer_ps / 1e6, d->byte_counter, d->fast_recovery,
		d->ai_bps / 1e6, d->hai_bps / 1e6, d->min_bps / 1e6, d->g, d->alpha,
		d->alpha_timer_ps / 1e6, d->reduce_period_ps / 1e6, d->clamp ? "true" : "false",
		d->cnp_interval_ps / 1e6);
	if (note[0])
		fprintf(stderr, "nodrop sim: %s: %s\n", dev, note);
out:
	nd_ports_free(ports, n);
	nd_ctx_free(ctx);
	return ret;
}

static int sim_cmd_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct sim_args *a = data;
	const struct nd_run_report *reports[ND_FABRIC_COUNT];
	struct sim_run runs[ND_FABRIC_COUNT];
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct timespec t0;
	size_t i, n = 0;
	int ret = 0, rc;

	if (argc != 1) {
		fprintf(stderr, "nodrop sim: give one SCENARIO.yaml (see nodrop-scenario(5))\n");
		return ND_EXIT_USAGE;
	}
	ret = nd_scenario_load(argv[0], &sc, &e);
	if (ret) {
		fprintf(stderr, "nodrop sim: %s\n", e.msg);
		return nd_cli_exit_code(ret == -E2BIG || ret == -ENAMETOOLONG ? -EINVAL : ret);
	}
	if (a->have_seed)
		sc.seed = a->seed;
	if (!a->n_fabrics)
		a->fabrics[a->n_fabrics++] = sc.fabric;
	memset(runs, 0, sizeof(runs));
	if (a->dcqcn_from) {
		ret = dcqcn_from(&sc, a->dcqcn_from);
		if (ret) {
			rc = nd_cli_exit_code(ret);
			goto out;
		}
	}
	for (i = 0; !ret && i < a->n_fabrics; i++) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ret = nd_sim_run(&sc, a->fabrics[i], &runs[i].report, &runs[i].stats, &e);
		runs[i].wall_s = seconds_since(&t0);
		runs[i].scenario = sc.name;
		reports[i] = &runs[i].report;
		n += !ret;
	}
	if (ret) {
		fprintf(stderr, "nodrop sim: %s: %s\n", sc.file, e.msg);
		rc = nd_cli_exit_code(ret);
		goto out;
	}
	pr_init(cli->json, cli->pretty);
	if (n == 1)
		nd_print_run_report(NULL, reports[0], a->flags, print_stats, 0, runs);
	else
		nd_print_run_compare(reports, n, a->flags, print_stats, runs);
	rc = pr_finish() ? ND_EXIT_SYSTEM : ND_EXIT_OK;
out:
	for (i = 0; i < a->n_fabrics; i++)
		nd_run_report_free(&runs[i].report);
	nd_scenario_free(&sc);
	return rc;
}

const struct nd_cmd nd_cmd_sim = {
	.name = "sim",
	.args = "SCENARIO.yaml",
	.summary = "Simulate a fabric scenario: RoCE (PFC, ECN/DCQCN, go-back-N) or InfiniBand "
		   "(credits), side by side with --compare",
	.opts = sim_opts,
	.opt = sim_opt,
	.run = sim_cmd_run,
	.data_size = sizeof(struct sim_args),
	.complete = sim_complete,
};
