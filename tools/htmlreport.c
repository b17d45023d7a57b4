// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop report: stress and sim reports (their JSON) as one self-contained HTML page, plots as
 * inline SVG drawn here: nothing is fetched, so it opens from a mail attachment or a CI
 * artifact store as it is. The verdict comes first; then per report the throughput of each
 * flow over time, the latency CDFs, the ports' pause/ECN/CNP/credit-wait/drop deltas; reports
 * of several fabrics in one file (sim --compare) side by side; and for two or more runs of one
 * workload, the trend of each headline number with the regressions `nodrop compare` finds
 * marked. Every plot is an <svg class="plot"> whose data points carry class "pt".
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "cli.h"
#include "nodrop.h"
#include "report.h"
#include "svg.h"

enum { OPT_TITLE = 256 };

#define N_OF(a) (sizeof(a) / sizeof((a)[0]))
#define FLOWS_DRAWN 16		/* series lines in one plot; bars for the rest */
#define BARS_MAX 32
#define EVIDENCE_SHOWN 16

struct report_args {
	const char *out;
	const char *title;
};

static const struct nd_opt report_opts[] = {
	{ "output", 'o', "FILE", "write the HTML page to FILE (default: standard output)" },
	{ "title", OPT_TITLE, "TEXT", "the page's title (default: the run's file name)" },
	{ 0 },
};

static int report_opt(int key, const char *arg, void *data)
{
	struct report_args *a = data;

	if (key == 'o')
		a->out = arg;
	else if (key == OPT_TITLE)
		a->title = arg;
	else
		return ND_EXIT_USAGE;
	return 0;
}

/* ---- reading ------------------------------------------------------------------------- */

struct file {
	const char *path;
	struct json_object *top;	/* an object, or an array of them */
};

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* A number, 0 for anything else (nd_cmp_load() refused the file if one was not finite). */
static double dbl(struct json_object *v)
{
	double d = v && (json_object_is_type(v, json_type_double) ||
			 json_object_is_type(v, json_type_int)) ? json_object_get_double(v) : 0;

	return isfinite(d) ? d : 0;
}

static double num(struct json_object *o, const char *key)
{
	return dbl(get(o, key));
}

static const char *str(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static size_t alen(struct json_object *a)
{
	return a && json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* Element @i of @a; NULL past the end or when @a is no array (json-c asserts on those). */
static struct json_object *at(struct json_object *a, size_t i)
{
	return i < alen(a) ? json_object_array_get_idx(a, i) : NULL;
}

/* The reports of a file: one, or each of an array. */
static size_t n_reports(const struct file *f)
{
	return json_object_is_type(f->top, json_type_array) ? alen(f->top) : 1;
}

static struct json_object *report_of(const struct file *f, size_t i)
{
	return json_object_is_type(f->top, json_type_array) ? at(f->top, i) : f->top;
}

/* ---- sections ------------------------------------------------------------------------ */

static const char *verdict_class(const char *v)
{
	if (!strcmp(v, "lossless"))
		return "ok";
	if (!strcmp(v, "lossy") || !strcmp(v, "failed"))
		return "bad";
	return "none";
}

static const char *fabric_name(struct json_object *r)
{
	return !strcmp(str(r, "fabric"), "ib") ? "InfiniBand" : "RoCE";
}

/* A sim judges nothing (its verdict is "none"): the box says it is a model, and its result. */
static void model_headline(FILE *o, struct json_object *r)
{
	struct json_object *sim = get(r, "sim"), *fct = get(r, "fct");

	fprintf(o, "<div class=\"headline\">A simulated %s fabric, not a measured one: <b>%.3f "
		"Gb/s</b> aggregate over %.0f flows", fabric_name(r), num(r, "aggregate_gbps"),
		get(sim, "flows") ? num(sim, "flows") : (double)alen(get(r, "flows")));
	if (num(fct, "count") > 0)
		fprintf(o, ", flow completion p99 %.1f us", num(fct, "p99_us"));
	if (*str(sim, "scenario"))
		svg_tag_text(o, " (scenario ", str(sim, "scenario"), ")");
	fputs(".</div>", o);
}

static void verdict_box(FILE *o, struct json_object *r, const char *label)
{
	struct json_object *ev = get(r, "evidence");
	bool model = !strcmp(str(r, "kind"), "sim");
	size_t i;

	fprintf(o, "<div class=\"verdict %s\"><span class=\"v\">", model ? "model" :
		verdict_class(str(r, "verdict")));
	nd_xml_escape(o, model ? "modelled" : str(r, "verdict"));
	fputs("</span> ", o);
	nd_xml_escape(o, label);
	if (model)
		model_headline(o, r);
	svg_tag_text(o, "<div class=\"reason\">", str(r, "reason"), "</div>");
	if (alen(ev)) {
		fputs("<table class=\"ev\"><tr><th>where</th><th>counter</th><th>prio</th>"
		      "<th>delta</th></tr>", o);
		for (i = 0; i < alen(ev) && i < EVIDENCE_SHOWN; i++) {
			struct json_object *x = at(ev, i);

			svg_tag_text(o, "<tr><td>", str(x, "where"), "</td>");
			svg_tag_text(o, "<td>", str(x, "what"), "</td>");
			fprintf(o, "<td>%.0f</td><td>%.0f</td></tr>", num(x, "prio"),
				num(x, "delta"));
		}
		fputs("</table>", o);
		if (alen(ev) > EVIDENCE_SHOWN)
			fprintf(o, "<div class=\"note\">%zu more counters moved (the JSON has them "
				"all).</div>", alen(ev) - EVIDENCE_SHOWN);
	}
	fputs("</div>\n", o);
}

static void summary(FILE *o, struct json_object *r)
{
	struct json_object *lat = get(r, "latency");

	fprintf(o, "<p class=\"sum\">%s %s %s, %.3f s: aggregate %.3f Gb/s, Jain %.4f, drops %.0f, "
		"retransmits %.0f", str(r, "kind"), str(r, "fabric"), str(r, "pattern"),
		num(r, "duration_s"), num(r, "aggregate_gbps"), num(r, "jain"), num(r, "drops"),
		num(r, "retransmits"));
	if (num(lat, "count") > 0)
		fprintf(o, ", probe latency p50 %.1f us p99 %.1f us", num(lat, "p50_us"),
			num(lat, "p99_us"));
	if (get(r, "cpu_s_per_gb"))
		fprintf(o, ", CPU %.3f s per GB", num(r, "cpu_s_per_gb"));
	fputs("</p>\n", o);
}

static int by_gbps(const void *a, const void *b)
{
	double x = num(*(struct json_object *const *)a, "gbps");
	double y = num(*(struct json_object *const *)b, "gbps");

	return (x < y) - (x > y);
}

/* Throughput of each flow over time; flows without a time series as bars, fastest first. */
static void flows_plot(FILE *o, struct json_object *r)
{
	struct json_object *flows = get(r, "flows"), **v;
	size_t n = alen(flows), i, k, m = 0;
	struct svg_legend lg = { 0 };
	struct svg_axes a = { .legend = &lg };
	double *x, *y;

	for (i = 0; i < n; i++)
		m = alen(get(at(flows, i), "series_gbps")) > m ?
		    alen(get(at(flows, i), "series_gbps")) : m;
	if (!n)
		return;
	if (m) {
		x = calloc(m, sizeof(*x));
		y = calloc(m, sizeof(*y));
		if (!x || !y)
			goto out;
		for (i = 0; i < n && i < FLOWS_DRAWN; i++) {
			struct json_object *s = get(at(flows, i), "series_gbps");
			double dt = num(at(flows, i), "series_dt_s");

			for (k = 0; k < alen(s); k++)
				a.y1 = svg_max(a.y1, dbl(at(s, k)));
			a.x1 = svg_max(a.x1, dt * (double)alen(s));
			if (alen(s))
				svg_legend_add(&lg, i, str(at(flows, i), "name"));
		}
		a.y1 *= 1.08;
		svg_open(o, "Throughput per flow over time", "seconds", "Gb/s", &a);
		for (i = 0; i < n && i < FLOWS_DRAWN; i++) {
			struct json_object *f = at(flows, i), *s = get(f, "series_gbps");
			double dt = num(f, "series_dt_s");

			for (k = 0; k < alen(s); k++) {
				x[k] = dt * (double)(k + 1);
				y[k] = dbl(at(s, k));
			}
			if (!alen(s))
				continue;
			svg_series(o, &a, x, y, alen(s), i, str(f, "name"));
		}
		svg_close(o);
		if (n > FLOWS_DRAWN)
			fprintf(o, "<p class=\"note\">%zu more flows not drawn.</p>", n - FLOWS_DRAWN);
out:
		free(x);
		free(y);
		return;
	}
	v = calloc(n, sizeof(*v));
	if (!v)
		return;
	for (i = 0; i < n; i++)
		v[i] = at(flows, i);
	qsort(v, n, sizeof(*v), by_gbps);
	k = n < BARS_MAX ? n : BARS_MAX;
	a.x0 = 0;
	a.x1 = (double)k;
	a.nox = true;
	a.legend = NULL;
	a.y1 = num(v[0], "gbps") * 1.08;
	svg_open(o, "Throughput per flow (no time series: fastest first)", "flow", "Gb/s", &a);
	for (i = 0; i < k; i++) {
		double g = num(v[i], "gbps"), bw = (SVG_W - SVG_ML - SVG_MR) / (double)k;

		svg_bar(o, &a, SVG_ML + bw * (double)i + 1, bw > 3 ? bw - 2 : 1, g, 0);
		nd_xml_escape(o, str(v[i], "name"));
		fprintf(o, ": %.6g Gb/s</title></rect>", g);
	}
	svg_close(o);
	if (n > k)
		fprintf(o, "<p class=\"note\">%zu slower flows not drawn.</p>", n - k);
	free(v);
}

/* The CDFs of the distributions this report has: probe latency, completion latency, FCT. */
static void cdf_plot(FILE *o, struct json_object *r)
{
	static const char *const keys[] = { "latency", "completion", "fct" };
	static const char *const names[] = { "probe latency", "completion latency",
					     "flow completion time" };
	double x[ND_DIST_CDF_POINTS], y[ND_DIST_CDF_POINTS];
	struct svg_legend lg = { 0 };
	struct svg_axes a = { .x0 = INFINITY, .y1 = 1, .logx = true, .legend = &lg };
	size_t i, k;

	for (i = 0; i < N_OF(keys); i++) {
		struct json_object *c = get(get(r, keys[i]), "cdf");
		bool drawn = false;

		for (k = 0; k < alen(c); k++) {
			double us = dbl(at(at(c, k), 1));

			if (us > 0) {
				a.x0 = svg_min(a.x0, us);
				a.x1 = svg_max(a.x1, us);
				drawn = true;
			}
		}
		if (drawn)
			svg_legend_add(&lg, i, names[i]);
	}
	if (!isfinite(a.x0))
		return;
	a.x0 = svg_decade(a.x0, false);
	a.x1 = svg_decade(a.x1 * 1.0001, true);
	svg_open(o, "Latency CDF", "microseconds (log)", "fraction", &a);
	for (i = 0; i < N_OF(keys); i++) {
		struct json_object *c = get(get(r, keys[i]), "cdf");
		size_t n = 0;

		for (k = 0; k < alen(c) && n < ND_DIST_CDF_POINTS; k++) {
			x[n] = dbl(at(at(c, k), 1));
			y[n] = dbl(at(at(c, k), 0));
			n += x[n] > 0;
		}
		if (!n)
			continue;
		svg_series(o, &a, x, y, n, i, names[i]);
	}
	svg_close(o);
}

static const struct {
	const char *key, *name;
} port_keys[] = {
	{ "pause_frames", "pause frames" },
	{ "ecn_marked", "ECN marked" },
	{ "cnp_sent", "CNP sent" },
	{ "cnp_handled", "CNP handled" },
	{ "drops", "drops" },
};

static const struct {
	const char *key, *name;
} share_keys[] = {
	{ "pause_fraction", "paused" },
	{ "credit_wait_fraction", "waiting for credits" },
};

/* Grouped bars, a group per port: @keys of each, on a linear axis from 0. */
static void port_bars(FILE *o, const char *title, const char *ylabel,
		      struct json_object *const *ports, size_t n, const char *const *keys,
		      const char *const *names, size_t g, double scale)
{
	struct svg_legend lg = { 0 };
	struct svg_axes a = { .x1 = (double)n, .nox = true, .legend = &lg };
	double gw, bw;
	size_t i, k;

	for (k = 0; k < g; k++)
		svg_legend_add(&lg, k, names[k]);
	for (i = 0; i < n; i++)
		for (k = 0; k < g; k++)
			a.y1 = svg_max(a.y1, scale * num(ports[i], keys[k]));
	a.y1 *= 1.08;
	svg_open(o, title, "port", ylabel, &a);
	gw = (SVG_W - SVG_ML - SVG_MR) / (double)n;
	bw = (gw - 4) / (double)g;
	for (i = 0; i < n; i++) {
		for (k = 0; k < g; k++) {
			double v = scale * num(ports[i], keys[k]);

			svg_bar(o, &a, SVG_ML + gw * (double)i + 2 + bw * (double)k, bw, v, k);
			nd_xml_escape(o, str(ports[i], "name"));
			fprintf(o, " %s: %.6g</title></rect>", names[k], v);
		}
		if (n <= 16) {
			fprintf(o, "<text class=\"xl\" x=\"%.1f\" y=\"%d\">", SVG_ML + gw * (double)i +
				gw / 2, svg_base(&a) + 16);
			nd_xml_escape(o, str(ports[i], "name"));
			fputs("</text>", o);
		}
	}
	svg_close(o);
}

/*
 * The ports whose pause, ECN, CNP, drop counters or pause and credit-wait shares moved: the
 * counts as grouped bars, the shares of the run as another plot, each only with something to
 * show; then the table.
 */
static void ports_plot(FILE *o, struct json_object *r)
{
	const char *ck[N_OF(port_keys)], *cn[N_OF(port_keys)], *sk[N_OF(share_keys)],
		*sn[N_OF(share_keys)];
	struct json_object *ports = get(r, "ports"), *shown[BARS_MAX];
	size_t n = 0, i, k, g = N_OF(port_keys);
	bool counts = false, shares = false;

	for (k = 0; k < g; k++) {
		ck[k] = port_keys[k].key;
		cn[k] = port_keys[k].name;
	}
	for (k = 0; k < N_OF(share_keys); k++) {
		sk[k] = share_keys[k].key;
		sn[k] = share_keys[k].name;
	}
	for (i = 0; i < alen(ports) && n < BARS_MAX; i++) {
		struct json_object *p = at(ports, i);
		bool c = false, s = false;

		for (k = 0; k < g; k++)
			c |= num(p, port_keys[k].key) > 0;
		for (k = 0; k < N_OF(share_keys); k++)
			s |= num(p, share_keys[k].key) > 0;
		if (c || s)
			shown[n++] = p;
		counts |= c;
		shares |= s;
	}
	if (!n) {
		fprintf(o, "<p class=\"note\">No port's pause, ECN, CNP, credit-wait or drop "
			"counter moved (%zu ports).</p>\n", alen(ports));
		return;
	}
	if (counts)
		port_bars(o, "Per-port congestion signals (deltas over the run)", "count", shown,
			  n, ck, cn, g, 1);
	if (shares)
		port_bars(o, "Share of the run paused or waiting for credits", "% of the run",
			  shown, n, sk, sn, N_OF(share_keys), 100);
	fputs("<table class=\"ports\"><tr><th>port</th><th>paused %</th><th>credit wait %</th>",
	      o);
	for (k = 0; k < g; k++)
		fprintf(o, "<th>%s</th>", port_keys[k].name);
	fputs("</tr>", o);
	for (i = 0; i < n; i++) {
		svg_tag_text(o, "<tr><td>", str(shown[i], "name"), "</td>");
		fprintf(o, "<td>%.2f</td><td>%.2f</td>", 100 * num(shown[i], "pause_fraction"),
			100 * num(shown[i], "credit_wait_fraction"));
		for (k = 0; k < g; k++)
			fprintf(o, "<td>%.0f</td>", num(shown[i], port_keys[k].key));
		fputs("</tr>", o);
	}
	fputs("</table>\n", o);
}

static void one_report(FILE *o, struct json_object *r)
{
	fprintf(o, "<section class=\"report\"><h3>%s %s</h3>\n", fabric_name(r),
		str(r, "pattern"));
	summary(o, r);
	flows_plot(o, r);
	cdf_plot(o, r);
	ports_plot(o, r);
	fputs("</section>\n", o);
}

/* ---- history ------------------------------------------------------------------------- */

/* Headline numbers drawn as trends (compare's names), in this order. */
static const char *const trend_names[] = {
	"aggregate_gbps", "latency p99_us", "completion p99_us", "fct p99_us", "jain",
	"cpu_s_per_gb", "drops", "retransmits", "verdict",
};

#define HISTORY_BASE 5		/* each run against the median of up to this many before it */

static const struct nd_cmp_row *row_of(const struct nd_cmp_result *res, const char *name)
{
	size_t i;

	for (i = 0; i < res->n; i++)
		if (!strcmp(res->rows[i].name, name))
			return &res->rows[i];
	return NULL;
}

static const struct nd_cmp_metric *metric_of(const struct nd_cmp_run *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->m[i].name, name))
			return &r->m[i];
	return NULL;
}

struct hist {
	const struct nd_cmp_run *const *runs;
	size_t n;
	struct nd_cmp_result *res;	/* run i against the runs before it; [0] empty */
	size_t worse;
};

static void hist_free(struct hist *h)
{
	size_t i;

	for (i = 0; h->res && i < h->n; i++)
		nd_cmp_result_free(&h->res[i]);
	free(h->res);
	h->res = NULL;
}

/* Each run against the median of up to HISTORY_BASE runs before it, compare's limits. */
static int hist_compute(struct hist *h)
{
	struct nd_cmp_limits lim;
	struct nd_err e = { 0 };
	size_t i;
	int ret = 0;

	h->res = calloc(h->n ? h->n : 1, sizeof(*h->res));
	if (!h->res)
		return -ENOMEM;
	nd_cmp_limits_init(&lim);
	for (i = 1; i < h->n && !ret; i++) {
		size_t from = i > HISTORY_BASE ? i - HISTORY_BASE : 0;

		ret = nd_cmp_compare(h->runs + from, i - from, h->runs[i], &lim, &h->res[i], &e);
		h->worse += h->res[i].n_worse;
	}
	return ret;
}

static void worse_list(FILE *o, const struct nd_cmp_result *res)
{
	size_t k;

	for (k = 0; k < res->n; k++) {
		if (!res->rows[k].worse)
			continue;
		nd_xml_escape(o, res->rows[k].name);
		if (res->rows[k].base)
			fprintf(o, " %+.1f %%", res->rows[k].change_pct);
		else
			fprintf(o, " %.6g (was 0)", res->rows[k].run);
		fputs("; ", o);
	}
}

/* At the top, beside the verdict: is the last run worse than the runs before it? */
static void hist_banner(FILE *o, const struct hist *h)
{
	const struct nd_cmp_result *last = &h->res[h->n - 1];

	fprintf(o, "<div class=\"verdict %s\"><span class=\"v\">%s</span> against the median of "
		"the %zu runs before it: ", last->n_worse ? "bad" : "ok",
		last->n_worse ? "regression" : "no regression",
		h->n - 1 < HISTORY_BASE ? h->n - 1 : (size_t)HISTORY_BASE);
	if (last->n_worse)
		worse_list(o, last);
	else
		fputs("no number got worse past its limit", o);
	fputs("</div>\n", o);
}

/* The trend of each headline number, a red ring where a run is worse than those before it. */
static int history(FILE *o, const struct hist *h)
{
	double *x = calloc(h->n, sizeof(*x)), *y = calloc(h->n, sizeof(*y));
	size_t i, t, m;

	if (!x || !y) {
		free(x);
		free(y);
		return -ENOMEM;
	}
	fprintf(o, "<section class=\"history\"><h2>History: %zu runs of this workload</h2>\n"
		"<p>Each run against the median of up to %d runs before it, with nodrop compare's "
		"default limits: %zu numbers got worse (red rings).</p>\n<div class=\"cols\">",
		h->n, HISTORY_BASE, h->worse);
	for (t = 0; t < N_OF(trend_names); t++) {
		struct svg_axes a = { .x0 = 1, .x1 = (double)h->n, .intx = true };

		for (i = 0, m = 0; i < h->n; i++) {
			const struct nd_cmp_metric *v = metric_of(h->runs[i], trend_names[t]);

			if (!v)
				continue;
			x[m] = (double)(i + 1);
			y[m++] = v->value;
			a.y1 = svg_max(a.y1, v->value);
		}
		if (m < 2)
			continue;
		a.y1 = a.y1 > 0 ? a.y1 * 1.1 : 1;
		svg_open(o, trend_names[t], "run", trend_names[t], &a);
		svg_series(o, &a, x, y, m, 0, trend_names[t]);
		for (i = 1; i < h->n; i++) {
			const struct nd_cmp_row *w = row_of(&h->res[i], trend_names[t]);

			if (!w || !w->worse || !w->in_run)
				continue;
			fprintf(o, "<circle class=\"regression\" r=\"7\" cx=\"%.1f\" cy=\"%.1f\">"
				"<title>run %zu: %.6g against %.6g (%+.1f %%)</title></circle>",
				svg_x(&a, (double)(i + 1)), svg_y(&a, w->run), i + 1, w->run, w->base,
				w->change_pct);
		}
		svg_close(o);
	}
	fputs("</div><table class=\"runs\"><tr><th>run</th><th>file</th><th>verdict</th>"
	      "<th>worse than the runs before</th></tr>", o);
	for (i = 0; i < h->n; i++) {
		fprintf(o, "<tr><td>%zu</td>", i + 1);
		svg_tag_text(o, "<td>", h->runs[i]->file, "</td>");
		svg_tag_text(o, "<td>", strcmp(h->runs[i]->kind, "sim") ? h->runs[i]->verdict :
			     "modelled", "</td><td>");
		worse_list(o, &h->res[i]);
		fputs("</td></tr>", o);
	}
	fputs("</table></section>\n", o);
	free(x);
	free(y);
	return 0;
}

/* ---- page ---------------------------------------------------------------------------- */

static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:24px;color:#222;max-width:1400px}"
	"h1{font-size:20px}h2{font-size:17px;margin-top:28px}h3{font-size:15px}"
	".verdict{padding:10px 14px;border-radius:6px;margin:8px 0;border:1px solid #ccc}"
	".verdict .v{font-weight:bold;text-transform:uppercase}"
	".ok{background:#e6f4ea}.bad{background:#fce8e6}.none{background:#f1f3f4}"
	".model{background:#e8f0fe}"
	".reason{margin-top:4px}table{border-collapse:collapse;margin:6px 0;font-size:12px}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:right}"
	"td:first-child,th:first-child{text-align:left}"
	".cols{display:flex;flex-wrap:wrap;gap:0 24px}.cols>section{flex:1 1 660px}"
	"svg.plot{background:#fff}svg .frame{fill:none;stroke:#999}"
	"svg .grid{stroke:#eee}svg .line{fill:none;stroke-width:1.5}"
	"svg text{font:11px sans-serif;fill:#444}svg .t{font-size:13px;font-weight:bold}"
	"svg .yl{text-anchor:end}svg .xl{text-anchor:middle}svg .ax{text-anchor:middle}"
	"svg .lgbox{fill:none}"
	"svg .regression{fill:none;stroke:#d62728;stroke-width:2.5}"
	".note,.sum{color:#555}figure{margin:8px 0}";

static int page(FILE *o, const struct file *files, size_t n_files, const char *title,
		const struct hist *h)
{
	const struct file *last = &files[n_files - 1];
	char when[64];
	time_t now = time(NULL);
	size_t i;
	int ret = 0;

	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", gmtime(&now));
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">", o);
	svg_tag_text(o, "<title>", title, "</title>");
	fprintf(o, "<style>%s</style></head><body>\n", style);
	svg_tag_text(o, "<h1>nodrop: ", title, "</h1>\n");
	fprintf(o, "<p class=\"note\">Written by nodrop report on %s from %zu file%s.</p>\n", when,
		n_files, n_files == 1 ? "" : "s");
	/* the verdict first: of the last run, of each fabric it holds */
	for (i = 0; i < n_reports(last); i++) {
		char label[600];

		snprintf(label, sizeof(label), "%s%s%s %s %s", last->path,
			 n_reports(last) > 1 ? ": " : "", n_reports(last) > 1 ?
			 str(report_of(last, i), "fabric") : "", str(report_of(last, i), "kind"),
			 str(report_of(last, i), "pattern"));
		verdict_box(o, report_of(last, i), label);
	}
	if (h->n >= 2)
		hist_banner(o, h);
	fputs("<div class=\"cols\">\n", o);
	for (i = 0; i < n_reports(last); i++)
		one_report(o, report_of(last, i));
	fputs("</div>\n", o);
	if (h->n >= 2)
		ret = history(o, h);
	fputs("</body></html>\n", o);
	return ret;
}

/* The file's JSON tree, for drawing: nd_cmp_load() read and checked the report before. */
static int load(struct file *f, struct nd_err *e)
{
	f->top = json_object_from_file(f->path);
	if (!f->top)
		return nd_err_set(e, -EINVAL, "%s: %s", f->path, json_util_get_last_err());
	return 0;
}

static int report_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct report_args *a = data;
	const struct nd_cmp_run **hist = NULL;
	struct nd_cmp_run **runs = NULL;
	struct file *files = NULL;
	size_t *counts = NULL, n_hist = 0, i;
	struct nd_err e = { 0 };
	struct hist h = { 0 };
	FILE *o = stdout;
	char why[400];
	int rc = ND_EXIT_OK, ret = 0;

	(void)cli;
	if (argc < 1) {
		fprintf(stderr, "nodrop report: give one or more RUN.json (the last is the run "
			"shown; earlier runs of its workload make the history); 'nodrop report "
			"--help'\n");
		return ND_EXIT_USAGE;
	}
	files = calloc((size_t)argc, sizeof(*files));
	runs = calloc((size_t)argc, sizeof(*runs));
	counts = calloc((size_t)argc, sizeof(*counts));
	hist = calloc((size_t)argc, sizeof(*hist));
	if (!files || !runs || !counts || !hist) {
		rc = ND_EXIT_SYSTEM;
		goto out;
	}
	for (i = 0; i < (size_t)argc && !ret; i++) {
		files[i].path = argv[i];
		ret = nd_cmp_load(argv[i], &runs[i], &counts[i], &e);
		if (!ret)
			ret = load(&files[i], &e);
	}
	if (ret) {
		fprintf(stderr, "nodrop report: %s\n", e.msg);
		rc = ret == -ENOMEM ? ND_EXIT_SYSTEM : ND_EXIT_USAGE;
		goto out;
	}
	/* the history: single reports of the last run's workload, in the order given */
	for (i = 0; counts[argc - 1] == 1 && i < (size_t)argc; i++) {
		if (counts[i] != 1 || nd_cmp_differs(&runs[i][0], &runs[argc - 1][0], why,
						     sizeof(why))) {
			if (i + 1 < (size_t)argc)
				fprintf(stderr, "nodrop report: %s is left out of the history: %s\n",
					argv[i], counts[i] != 1 ? "a file of several reports" : why);
			continue;
		}
		hist[n_hist++] = &runs[i][0];
	}
	h.runs = hist;
	h.n = n_hist;
	ret = hist_compute(&h);
	if (ret) {
		fprintf(stderr, "nodrop report: out of memory\n");
		rc = ND_EXIT_SYSTEM;
		goto out;
	}
	if (a->out && !(o = fopen(a->out, "w"))) {
		fprintf(stderr, "nodrop report: cannot write %s: %s\n", a->out, strerror(errno));
		rc = ND_EXIT_SYSTEM;
		goto out;
	}
	ret = page(o, files, (size_t)argc, a->title ? a->title : argv[argc - 1], &h);
	if ((o != stdout ? fclose(o) : fflush(o)) || ret) {
		fprintf(stderr, "nodrop report: cannot write %s: %s\n", a->out ? a->out : "output",
			strerror(ret ? -ret : errno));
		rc = ND_EXIT_SYSTEM;
	}
out:
	hist_free(&h);
	for (i = 0; files && i < (size_t)argc; i++)
		json_object_put(files[i].top);
	for (i = 0; runs && i < (size_t)argc; i++)
		nd_cmp_runs_free(runs[i], counts[i]);
	free(files);
	free(runs);
	free(counts);
	free(hist);
	return rc;
}

const struct nd_cmd nd_cmd_report = {
	.name = "report",
	.args = "RUN.json...",
	.summary = "Write stress and sim reports as one self-contained HTML page: the verdict, "
		   "throughput over time, latency CDFs, port counters, and the trend of a history",
	.opts = report_opts,
	.opt = report_opt,
	.run = report_run,
	.data_size = sizeof(struct report_args),
};
