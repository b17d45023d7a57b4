// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Run reports as text and JSON: one print call per field. A comparison is a table with a column
 * per run (text) or an array of whole reports (JSON), so a simulated and a measured run line up
 * field by field.
 */
#include <inttypes.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "print.h"
#include "runreport.h"

void nd_print_dist(const char *key, const char *label, const struct nd_dist *d)
{
	pr_open_object(key);
	pr_text("  %s:", label);
	pr_uint(PR_ANY, "count", " %" PRIu64, d->count);
	pr_float(PR_ANY, "p50_us", ", p50 %.1f us", d->p50_us);
	pr_float(PR_ANY, "p99_us", ", p99 %.1f us", d->p99_us);
	pr_float(PR_ANY, "p999_us", ", p99.9 %.1f us", d->p999_us);
	pr_float(PR_ANY, "max_us", ", max %.1f us", d->max_us);
	pr_float(PR_ANY, "mean_us", ", mean %.1f us", d->mean_us);
	pr_nl();
	if (d->count) {
		size_t i;

		/* [fraction, us] pairs: what a plot of the CDF needs */
		pr_open_array("cdf");
		for (i = 0; i < ND_DIST_CDF_POINTS; i++) {
			pr_open_array(NULL);
			pr_float(PR_JSON, NULL, NULL, nd_dist_cdf_fraction(i));
			pr_float(PR_JSON, NULL, NULL, d->cdf_us[i]);
			pr_close_array();
		}
		pr_close_array();
	}
	pr_close_object();
}

static void print_series(const struct nd_flow_result *f)
{
	size_t k;

	pr_float(PR_JSON, "series_dt_s", NULL, f->series_dt_s);
	pr_open_array("series_gbps");
	for (k = 0; k < f->n_series; k++)
		pr_float(PR_JSON, NULL, NULL, f->series_gbps[k]);
	pr_close_array();
}

static void print_flows(const struct nd_run_report *r, unsigned int flags)
{
	bool text = flags & ND_RR_FLOWS, ceil = false;
	size_t i;

	for (i = 0; i < r->n_flows; i++)
		ceil |= r->flows[i].ceiling_gbps > 0;
	pr_open_array("flows");
	if (text)
		pr_text("  %-24s %14s %9s %11s %9s %11s%s\n", "flow", "bytes", "gbps", "fct-us",
			"slowdown", "retransmits", ceil ? "  of-ceiling" : "");
	for (i = 0; i < r->n_flows; i++) {
		const struct nd_flow_result *f = &r->flows[i];

		if (!text && !pr_is_json())
			continue;
		pr_open_object(NULL);
		pr_string(PR_ANY, "name", "  %-24s", f->name);
		pr_string(PR_JSON, "src", NULL, f->src);
		pr_string(PR_JSON, "dst", NULL, f->dst);
		pr_float(PR_JSON, "start_s", NULL, f->start_s);
		if (f->path[0])
			pr_string(PR_JSON, "path", NULL, f->path);
		pr_uint(PR_ANY, "bytes", " %14" PRIu64, f->bytes);
		pr_uint(PR_JSON, "messages", NULL, f->messages);
		pr_uint(PR_JSON, "size", NULL, f->size);
		pr_float(PR_ANY, "gbps", " %9.3f", f->gbps);
		pr_float(PR_ANY, "fct_us", " %11.1f", f->fct_us);
		pr_float(PR_ANY, "slowdown", " %9.2f", f->slowdown);
		pr_uint(PR_ANY, "retransmits", " %11" PRIu64, f->retransmits);
		pr_float(PR_JSON, "ceiling_gbps", NULL, f->ceiling_gbps);
		if (f->ceiling_gbps > 0) {
			pr_float(PR_ANY, "ceiling_pct", " %10.1f %%",
				 100 * f->gbps / f->ceiling_gbps);
			pr_string(PR_JSON, "limit", NULL, f->limit);
		} else {
			pr_null(PR_JSON, "ceiling_pct", ceil ? "          -" : "");
		}
		print_series(f);
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

static bool has_signal(const struct nd_port_result *p)
{
	return p->pause_fraction > 0 || p->pause_frames || p->ecn_marked || p->cnp_sent ||
	       p->cnp_handled || p->credit_wait_fraction > 0 || p->drops;
}

static void print_ports(const struct nd_run_report *r, unsigned int flags)
{
	bool all = flags & ND_RR_ALL_PORTS, sim = !strcmp(r->kind, "sim");
	size_t i, shown = 0;

	for (i = 0; i < r->n_ports; i++)
		shown += all || has_signal(&r->ports[i]);
	pr_text("  ports with pause, ECN, CNP, credit wait or drops: %zu of %zu\n", shown,
		r->n_ports);
	if (shown)
		pr_text("    %-20s %7s %12s %11s %9s %11s %12s %7s\n", "port", "pause%",
			"pause-frames", "ecn-marked", "cnp-sent", "cnp-handled", "credit-wait%",
			"drops");
	pr_open_array("ports");
	for (i = 0; i < r->n_ports; i++) {
		const struct nd_port_result *p = &r->ports[i];

		if (!pr_is_json() && !all && !has_signal(p))
			continue;
		pr_open_object(NULL);
		pr_string(PR_ANY, "name", "    %-20s", p->name);
		pr_float(PR_JSON, "pause_fraction", NULL, p->pause_fraction);
		pr_float(PR_TEXT, NULL, " %7.2f", 100 * p->pause_fraction);
		pr_uint(PR_ANY, "pause_frames", " %12" PRIu64, p->pause_frames);
		pr_uint(PR_ANY, "ecn_marked", " %11" PRIu64, p->ecn_marked);
		pr_uint(PR_ANY, "cnp_sent", " %9" PRIu64, p->cnp_sent);
		pr_uint(PR_ANY, "cnp_handled", " %11" PRIu64, p->cnp_handled);
		pr_float(PR_JSON, "credit_wait_fraction", NULL, p->credit_wait_fraction);
		pr_float(PR_TEXT, NULL, " %12.2f", 100 * p->credit_wait_fraction);
		pr_uint(PR_ANY, "drops", " %7" PRIu64, p->drops);
		if (sim) {
			pr_uint(PR_JSON, "queue_p50_bytes", NULL, p->queue_p50);
			pr_uint(PR_JSON, "queue_p99_bytes", NULL, p->queue_p99);
			pr_uint(PR_JSON, "queue_max_bytes", NULL, p->queue_max);
		}
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

static void print_evidence(const struct nd_run_report *r)
{
	size_t i;

	if (r->n_evidence)
		pr_text("  evidence:\n");
	pr_open_array("evidence");
	for (i = 0; i < r->n_evidence; i++) {
		pr_open_object(NULL);
		pr_string(PR_ANY, "where", "    %s", r->evidence[i].where);
		pr_string(PR_ANY, "what", " %s", r->evidence[i].what);
		pr_int(PR_ANY, "prio", " prio %" PRId64, r->evidence[i].prio);
		pr_uint(PR_ANY, "delta", ": %" PRIu64 "\n", r->evidence[i].delta);
		pr_close_object();
	}
	pr_close_array();
}

/* The slowest and fastest flow, for the summary line. */
static void flow_range(const struct nd_run_report *r, double *lo, double *hi)
{
	size_t i;

	*lo = *hi = 0;
	for (i = 0; i < r->n_flows; i++) {
		if (!i || r->flows[i].gbps < *lo)
			*lo = r->flows[i].gbps;
		if (!i || r->flows[i].gbps > *hi)
			*hi = r->flows[i].gbps;
	}
}

void nd_print_run_report(const char *key, const struct nd_run_report *r, unsigned int flags,
			 nd_rr_extra_fn extra, size_t i, void *data)
{
	double lo, hi;

	flow_range(r, &lo, &hi);
	pr_open_object(key);
	pr_string(PR_ANY, "kind", "%s", r->kind);
	pr_string(PR_ANY, "fabric", " %s", r->fabric);
	pr_string(PR_ANY, "pattern", " %s", r->pattern);
	pr_float(PR_JSON, "duration_s", NULL, r->duration_s);
	pr_float(PR_TEXT, NULL, ", %.3f ms", r->duration_s * 1e3);
	pr_uint(PR_TEXT, NULL, ": %" PRIu64 " flows\n", r->n_flows);
	pr_float(PR_ANY, "aggregate_gbps", "  aggregate %.2f Gb/s", r->aggregate_gbps);
	pr_float(PR_ANY, "jain", ", jain %.4f", r->jain);
	pr_float(PR_TEXT, NULL, ", per flow %.3f", lo);
	pr_float(PR_TEXT, NULL, "..%.3f Gb/s\n", hi);
	if (r->fct.count || pr_is_json())
		nd_print_dist("fct", "fct", &r->fct);
	if (r->latency.count || pr_is_json())
		nd_print_dist("latency", "latency", &r->latency);
	pr_uint(PR_ANY, "drops", "  drops %" PRIu64, r->drops);
	pr_uint(PR_ANY, "retransmits", ", retransmits %" PRIu64 "\n", r->retransmits);
	pr_string(PR_ANY, "verdict", "  verdict %s", nd_verdict_name(r->verdict));
	pr_string(PR_ANY, "reason", ": %s\n", r->reason);
	print_ports(r, flags);
	print_evidence(r);
	print_flows(r, flags);
	if (extra)
		extra(i, data);
	pr_close_object();
}

/* ---- side by side ---- */

struct row {
	const char *label;
	const char *fmt;		/* one column */
	double (*get)(const struct nd_run_report *r);
};

static double sum_ports(const struct nd_run_report *r, size_t off, bool count, bool max)
{
	double v = 0, x;
	size_t i;

	for (i = 0; i < r->n_ports; i++) {
		const char *p = (const char *)&r->ports[i] + off;

		if (off == offsetof(struct nd_port_result, pause_fraction) ||
		    off == offsetof(struct nd_port_result, credit_wait_fraction))
			x = *(const double *)p;
		else
			x = (double)*(const uint64_t *)p;
		if (count)
			v += x > 0;
		else if (max)
			v = x > v ? x : v;
		else
			v += x;
	}
	return v;
}

/* A row over the ports: a sum, a count of ports where it is non-zero, or the largest (%). */
#define PORT_ROW(name, field, count, max, scale)					\
static double name(const struct nd_run_report *r)					\
{											\
	return scale * sum_ports(r, offsetof(struct nd_port_result, field), count, max);	\
}
#define PORT_SUM(name, field) PORT_ROW(name, field, false, false, 1)
#define PORT_COUNT(name, field) PORT_ROW(name, field, true, false, 1)
#define PORT_MAX_PCT(name, field) PORT_ROW(name, field, false, true, 100)

PORT_COUNT(paused_ports, pause_fraction)
PORT_MAX_PCT(pause_max, pause_fraction)
PORT_SUM(pause_frames, pause_frames)
PORT_SUM(ecn_marked, ecn_marked)
PORT_SUM(cnp_sent, cnp_sent)
PORT_COUNT(wait_ports, credit_wait_fraction)
PORT_MAX_PCT(wait_max, credit_wait_fraction)

static double aggregate(const struct nd_run_report *r)
{
	return r->aggregate_gbps;
}
static double jain(const struct nd_run_report *r)
{
	return r->jain;
}
static double fct_p50(const struct nd_run_report *r)
{
	return r->fct.count ? r->fct.p50_us : NAN;	/* no flow completed: not 0 */
}
static double fct_p99(const struct nd_run_report *r)
{
	return r->fct.count ? r->fct.p99_us : NAN;	/* no flow completed: not 0 */
}
static double fct_max(const struct nd_run_report *r)
{
	return r->fct.count ? r->fct.max_us : NAN;	/* no flow completed: not 0 */
}
static double drops(const struct nd_run_report *r)
{
	return (double)r->drops;
}
static double retransmits(const struct nd_run_report *r)
{
	return (double)r->retransmits;
}

static double flow_min(const struct nd_run_report *r)
{
	double lo, hi;

	flow_range(r, &lo, &hi);
	return lo;
}

static double flow_max(const struct nd_run_report *r)
{
	double lo, hi;

	flow_range(r, &lo, &hi);
	return hi;
}

static const struct row rows[] = {
	{ "aggregate-gbps", " %14.2f", aggregate },
	{ "jain", " %14.4f", jain },
	{ "flow-gbps-min", " %14.3f", flow_min },
	{ "flow-gbps-max", " %14.3f", flow_max },
	{ "fct-p50-us", " %14.1f", fct_p50 },
	{ "fct-p99-us", " %14.1f", fct_p99 },
	{ "fct-max-us", " %14.1f", fct_max },
	{ "drops", " %14.0f", drops },
	{ "retransmits", " %14.0f", retransmits },
	{ "ports-paused", " %14.0f", paused_ports },
	{ "pause-max-%", " %14.2f", pause_max },
	{ "pause-frames", " %14.0f", pause_frames },
	{ "ecn-marked", " %14.0f", ecn_marked },
	{ "cnp-sent", " %14.0f", cnp_sent },
	{ "ports-credit-wait", " %14.0f", wait_ports },
	{ "credit-wait-max-%", " %14.2f", wait_max },
};

void nd_print_run_compare(const struct nd_run_report *const *r, size_t n, unsigned int flags,
			  nd_rr_extra_fn extra, void *data)
{
	size_t i, k;

	if (pr_is_json()) {
		pr_open_array(NULL);
		for (i = 0; i < n; i++)
			nd_print_run_report(NULL, r[i], flags, extra, i, data);
		pr_close_array();
		return;
	}
	pr_text("%-20s", n ? r[0]->pattern : "");
	for (i = 0; i < n; i++)
		pr_text(" %14s", r[i]->fabric);
	pr_nl();
	for (k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
		pr_text("%-20s", rows[k].label);
		for (i = 0; i < n; i++) {
			double v = rows[k].get(r[i]);

			if (isnan(v))
				pr_text(" %14s", "-");
			else
				pr_float(PR_TEXT, NULL, rows[k].fmt, v);
		}
		pr_nl();
	}
	for (i = 0; i < n; i++)
		pr_text("%s: %s\n", r[i]->fabric, r[i]->reason);
	for (i = 0; extra && i < n; i++)
		extra(i, data);
}
