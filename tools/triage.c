// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop triage: sample every port twice, run the rules over the deltas, print the findings. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"

#define TRIAGE_DEFAULT_S 5.0
#define TRIAGE_MIN_S 0.1
#define TRIAGE_MAX_S 3600.0

enum { OPT_PROFILE = 256, OPT_STORM };

struct triage_args {
	double seconds;
	bool seconds_given;
	const char *profile;
	double storm;		/* 0: the default */
};

static const struct nd_opt triage_opts[] = {
	{ "interval", 'd', "SECONDS", "time between the two samples (default 5; 0.1 to 3600)" },
	{ "profile", OPT_PROFILE, "FILE", "also report the lints of the ports FILE matches" },
	{ "storm-fraction", OPT_STORM, "F", "share of the interval paused that is a PFC storm "
	  "(default 0.99)" },
	{ 0 },
};

static const struct nd_comp triage_complete[] = {
	{ .opt = "profile", .kind = ND_COMP_YAML },
	{ 0 },
};

/* @arg as a number in [@min, @max]; ND_EXIT_USAGE after a message when it is not. */
static int parse_num(const char *opt, const char *arg, double min, double max, double *out)
{
	char *end;
	double v = strtod(arg, &end);

	if (end == arg || *end || !(v >= min && v <= max)) {
		fprintf(stderr, "nodrop triage: %s takes a number from %g to %g, not '%s'\n", opt,
			min, max, arg);
		return ND_EXIT_USAGE;
	}
	*out = v;
	return 0;
}

static int triage_opt(int key, const char *arg, void *data)
{
	struct triage_args *a = data;

	switch (key) {
	case 'd':
		a->seconds_given = true;
		return parse_num("--interval", arg, TRIAGE_MIN_S, TRIAGE_MAX_S, &a->seconds);
	case OPT_PROFILE:
		a->profile = arg;
		return 0;
	case OPT_STORM:
		return parse_num("--storm-fraction", arg, 0.5, 1, &a->storm);
	}
	return ND_EXIT_USAGE;
}


/* JSON null and no text for "not per priority". */
static void print_prio(const char *fmt, int prio)
{
	if (prio >= 0)
		pr_int(PR_ANY, "prio", fmt, prio);
	else
		pr_null(PR_JSON, "prio", NULL);
}

static void print_ports(const struct nd_triage_report *r)
{
	size_t i;

	pr_open_array("ports");
	for (i = 0; i < r->n; i++) {
		const struct nd_triage_port *tp = &r->ports[i];

		pr_open_object(NULL);
		pr_string(PR_ANY, "ifname", "%s:", tp->port.link.name);
		pr_string(PR_ANY, "driver", " driver %s",
			  tp->port.link.driver[0] ? tp->port.link.driver : "unknown");
		if (tp->status) {
			pr_string(PR_ANY, "error", " not sampled: %s", tp->error);
		} else {
			pr_uint(PR_ANY, "counters", ", %" PRIu64 " counters", tp->n_counters);
			pr_uint(PR_ANY, "moved", ", %" PRIu64 " moved", tp->n_moved);
			pr_float(PR_ANY, "interval_s", " in %.2f s", tp->interval_s);
		}
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

static void print_evidence(const struct nd_finding *f)
{
	size_t i;

	pr_open_array("evidence");
	for (i = 0; i < f->n_ev; i++) {
		const struct nd_finding_ev *ev = &f->ev[i];

		pr_open_object(NULL);
		pr_string(PR_ANY, "name", "    %s", ev->name);
		print_prio("[%" PRId64 "]", ev->prio);
		pr_uint(PR_ANY, "delta", " +%" PRIu64, ev->delta);
		pr_float(PR_ANY, "rate", " (%.1f/s)", ev->rate);
		if (ev->status == ND_DELTA_OK)
			pr_string(PR_JSON, "status", NULL, nd_delta_status_name(ev->status));
		else
			pr_string(PR_ANY, "status", " %s", nd_delta_status_name(ev->status));
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

static void print_finding(const struct nd_finding *f)
{
	pr_open_object(NULL);
	pr_string(PR_ANY, "severity", "%s", nd_severity_name(f->severity));
	pr_string(PR_ANY, "id", " %s", f->id);
	pr_string(PR_ANY, "ifname", " %s", f->ifname);
	print_prio(" prio %" PRId64, f->prio);
	if (f->interval_s > 0)
		pr_float(PR_JSON, "interval_s", NULL, f->interval_s);
	pr_nl();
	pr_string(PR_ANY, "summary", "    %s\n", f->summary);
	print_evidence(f);
	pr_string(PR_ANY, "action", "    do: %s", f->action);
	if (f->loc.file[0]) {
		pr_string(PR_ANY, "file", " (%s", f->loc.file);
		pr_uint(PR_ANY, "line", ":%" PRIu64, f->loc.line);
		pr_uint(PR_ANY, "column", ":%" PRIu64 ")", f->loc.col);
	}
	pr_nl();
	pr_close_object();
}

static void print_report(const struct nd_triage_report *r)
{
	size_t i, sev[ND_SEV_ERROR + 1] = { 0 };

	pr_open_object(NULL);
	pr_float(PR_JSON, "interval_s", NULL, r->interval_s);
	print_ports(r);
	pr_open_array("findings");
	for (i = 0; i < r->n_findings; i++) {
		pr_nl();
		print_finding(&r->findings[i]);
		if ((size_t)r->findings[i].severity < sizeof(sev) / sizeof(sev[0]))
			sev[r->findings[i].severity]++;
	}
	pr_close_array();
	pr_nl();
	pr_text("%zu finding%s: %zu error, %zu warning, %zu info\n", r->n_findings,
		r->n_findings == 1 ? "" : "s", sev[ND_SEV_ERROR], sev[ND_SEV_WARN],
		sev[ND_SEV_INFO]);
	pr_close_object();
}

/* 1 for a finding at error severity, 3 when a port could not be sampled (the triage is partial). */
static int triage_exit(const struct nd_triage_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (r->ports[i].status)
			return ND_EXIT_SYSTEM;
	for (i = 0; i < r->n_findings; i++)
		if (r->findings[i].severity == ND_SEV_ERROR)
			return ND_EXIT_FINDINGS;
	return ND_EXIT_OK;
}

static int triage_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct triage_args *a = data;
	struct nd_triage_report r = { 0 };
	struct nd_profile profile;
	struct nd_triage_opts o;
	struct nd_err e = { 0 };
	struct nd_ctx *ctx = NULL;
	int ret, rc;

	nd_triage_opts_init(&o);
	if (a->storm)
		o.storm_fraction = a->storm;
	if (a->profile) {
		ret = nd_profile_load(a->profile, &profile, &e);
		if (ret) {
			fprintf(stderr, "nodrop triage: %s\n", e.msg);
			return ND_EXIT_USAGE;
		}
		o.profile = &profile;
	}
	ret = nd_ctx_new(&ctx, &e);
	if (!ret)
		ret = nd_triage_run(ctx, (const char *const *)argv, (size_t)argc,
				    a->seconds_given ? a->seconds : TRIAGE_DEFAULT_S, &o, &r, &e);
	if (ret) {
		fprintf(stderr, "nodrop triage: %s\n", e.msg);
		rc = nd_cli_exit_code(ret);
		goto out;
	}
	pr_init(cli->json, cli->pretty);
	print_report(&r);
	rc = pr_finish() ? ND_EXIT_SYSTEM : triage_exit(&r);
out:
	nd_triage_report_free(&r);
	if (a->profile)
		nd_profile_free(&profile);
	nd_ctx_free(ctx);
	return rc;
}

const struct nd_cmd nd_cmd_triage = {
	.name = "triage",
	.args = "[DEV...]",
	.summary = "Sample counters twice and report PFC storms, drops, loss and misconfiguration",
	.opts = triage_opts,
	.opt = triage_opt,
	.run = triage_run,
	.data_size = sizeof(struct triage_args),
	.complete = triage_complete,
};
