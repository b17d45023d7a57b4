// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Run reports as input: what `nodrop compare` and `nodrop report` may be given. A number that is
 * not finite is refused on load with the file and the field named; huge numbers, negative
 * durations and steps, and values below a double's normal range load and draw a page at once,
 * each plot with a bounded number of ticks and no coordinate that is not a number. Check's
 * per-test timeout fails a page that does not end (one such file hung the report for minutes).
 */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cli.h"
#include "nodrop.h"
#include "svg.h"
#include "unit.h"

static char dir[] = "/tmp/nd-report-XXXXXX";
static int saved[2];

/*
 * A directory for the test's files; the tools' own output goes nowhere while it runs (the test
 * reads their files and exit codes), and comes back after, also with CK_FORK=no.
 */
static void make_dir(void)
{
	int fd = open("/dev/null", O_WRONLY), i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_ge(fd, 0);
	fflush(NULL);
	for (i = 0; i < 2; i++) {
		saved[i] = dup(i + 1);
		ck_assert_int_ge(saved[i], 0);
		ck_assert_int_eq(dup2(fd, i + 1), i + 1);
	}
	close(fd);
}

static void remove_dir(void)
{
	char cmd[64];
	int i;

	fflush(NULL);
	for (i = 0; i < 2; i++) {
		ck_assert_int_eq(dup2(saved[i], i + 1), i + 1);
		close(saved[i]);
	}

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	strcpy(dir, "/tmp/nd-report-XXXXXX");
}

/* A recorded stress report (a flow with a time series), as json-c reads it. */
static struct json_object *recorded(void)
{
	char path[512];
	struct json_object *o;

	snprintf(path, sizeof(path), "%s/compare/stress-pair-1.json", unit_fixtures());
	o = json_object_from_file(path);
	ck_assert_ptr_nonnull(o);
	return o;
}

static struct json_object *flow(struct json_object *r, size_t i)
{
	struct json_object *flows;

	ck_assert(json_object_object_get_ex(r, "flows", &flows));
	return json_object_array_get_idx(flows, i);
}

/* Number @v (its JSON text @text, which may be 1e999 or NaN) as series point @k of flow 0. */
static void set_point(struct json_object *r, size_t k, double v, const char *text)
{
	struct json_object *s;

	ck_assert(json_object_object_get_ex(flow(r, 0), "series_gbps", &s));
	ck_assert_uint_gt(json_object_array_length(s), k);
	json_object_array_put_idx(s, k, json_object_new_double_s(v, text));
}

static const struct {
	const char *text;
	double v;
} bad_numbers[] = {
	{ "1e999", INFINITY },
	{ "-1e999", -INFINITY },
	{ "NaN", NAN },
	{ "Infinity", INFINITY },
};

START_TEST(non_finite_refused)
{
	struct json_object *r = recorded();
	struct nd_cmp_run *runs;
	struct nd_err e = { 0 };
	char path[64], want[160];
	size_t n;

	make_dir();
	snprintf(path, sizeof(path), "%s/run.json", dir);
	set_point(r, 2, bad_numbers[_i].v, bad_numbers[_i].text);
	ck_assert_int_eq(json_object_to_file(path, r), 0);
	ck_assert_int_eq(nd_cmp_load(path, &runs, &n, &e), -EINVAL);
	ck_assert_ptr_null(runs);
	snprintf(want, sizeof(want), "%s: flows[0].series_gbps[2]: %s is not a finite number; ",
		 path, bad_numbers[_i].text);
	ck_assert_msg(!strncmp(e.msg, want, strlen(want)), "%s", e.msg);
	/* the tools say the same and exit 2 */
	ck_assert_int_eq(nd_cli_run(&nd_cmd_compare, 3, (char *[]){ "compare", path, path, NULL }),
			 ND_EXIT_USAGE);
	ck_assert_int_eq(nd_cli_run(&nd_cmd_report, 4, (char *[]){ "report", "-o", "/dev/null",
								     path, NULL }), ND_EXIT_USAGE);
	json_object_put(r);
	remove_dir();
}
END_TEST

/* Ways a report can hold numbers no run gives, each still a report that loads. */
static void edit(struct json_object *r, int how)
{
	struct json_object *lat, *cdf, *pt;
	size_t i;

	switch (how) {
	case 0:		/* the largest doubles, both signs, in one plot */
		set_point(r, 0, DBL_MAX, "1.7976931348623157e308");
		set_point(r, 1, -DBL_MAX, "-1.7976931348623157e308");
		break;
	case 1:		/* a plot whose values all sit at 1e300, a hair apart */
		for (i = 0; i < 4; i++)
			set_point(r, i, 1e300 + (double)i * 1e285, "1e300");
		break;
	case 2:		/* a negative duration and time step */
		json_object_object_add(r, "duration_s", json_object_new_double(-5));
		json_object_object_add(flow(r, 0), "series_dt_s", json_object_new_double(-1e-4));
		break;
	case 3:		/* a time step that makes the axis overflow */
		json_object_object_add(flow(r, 0), "series_dt_s", json_object_new_double(1e307));
		break;
	case 4:		/* a latency CDF from a denormal to the largest double */
		lat = json_object_new_object();
		cdf = json_object_new_array();
		for (i = 0; i < 3; i++) {
			pt = json_object_new_array();
			json_object_array_add(pt, json_object_new_double(0.3 * (double)(i + 1)));
			json_object_array_add(pt, json_object_new_double(i == 0 ? 4.9e-324 : i == 1 ?
									 1 : DBL_MAX));
			json_object_array_add(cdf, pt);
		}
		json_object_object_add(lat, "count", json_object_new_int(3));
		json_object_object_add(lat, "p50_us", json_object_new_double(1));
		json_object_object_add(lat, "p99_us", json_object_new_double(DBL_MAX));
		json_object_object_add(lat, "p999_us", json_object_new_double(DBL_MAX));
		json_object_object_add(lat, "cdf", cdf);
		json_object_object_add(r, "latency", lat);
		break;
	case 5:		/* a throughput far beyond any link, and a negative one */
		json_object_object_add(r, "aggregate_gbps", json_object_new_double(-1e308));
		json_object_object_add(flow(r, 0), "gbps", json_object_new_double(1e308));
		break;
	}
}

/* No "nan" or "inf" in a plot of @page, and no plot with more than 16 labels on an axis. */
static void page_is_finite(const char *page)
{
	const char *p, *end;
	size_t yl, xl;

	for (p = strstr(page, "<svg"); p; p = strstr(end, "<svg")) {
		end = strstr(p, "</svg>");
		ck_assert_ptr_nonnull(end);
		for (yl = 0, xl = 0; p < end; p++) {
			yl += !strncmp(p, "class=\"yl\"", 10);
			xl += !strncmp(p, "class=\"xl\"", 10);
			ck_assert_msg(strncmp(p, "nan", 3) && strncmp(p, "inf", 3), "%.60s", p);
		}
		ck_assert_uint_le(yl, 16);
		ck_assert_uint_le(xl, 32);	/* x labels of ticks, or of up to 32 bars */
	}
}

START_TEST(extreme_numbers_drawn)
{
	struct json_object *r = recorded();
	char base[64], run[64], out[64], *page;
	struct nd_cmp_run *runs;
	struct nd_err e = { 0 };
	size_t n;

	make_dir();
	snprintf(base, sizeof(base), "%s/base.json", dir);
	snprintf(run, sizeof(run), "%s/run.json", dir);
	snprintf(out, sizeof(out), "%s/page.html", dir);
	ck_assert_int_eq(json_object_to_file(base, r), 0);
	edit(r, _i);
	ck_assert_int_eq(json_object_to_file(run, r), 0);
	ck_assert_msg(!nd_cmp_load(run, &runs, &n, &e), "%s", e.msg);
	nd_cmp_runs_free(runs, n);
	ck_assert_int_eq(nd_cli_run(&nd_cmd_report, 5, (char *[]){ "report", "-o", out, base,
								     run, NULL }), ND_EXIT_OK);
	page = unit_read_file(out);
	page_is_finite(page);
	free(page);
	/* the other way round: the edited run as the baseline's history */
	ck_assert_int_eq(nd_cli_run(&nd_cmd_report, 5, (char *[]){ "report", "-o", out, run,
								     base, NULL }), ND_EXIT_OK);
	page = unit_read_file(out);
	page_is_finite(page);
	free(page);
	ck_assert_int_le(nd_cli_run(&nd_cmd_compare, 3, (char *[]){ "compare", base, run, NULL }),
			 ND_EXIT_FINDINGS);
	json_object_put(r);
	remove_dir();
}
END_TEST

/* The axes themselves: any ends, however wrong, give a bounded, finite plot. */
START_TEST(axes_bounded)
{
	static const double ends[] = { 0, -0.0, 1, -1, 1e-320, 1e300, -1e300, DBL_MAX, -DBL_MAX,
				       1e300 + 1e285, INFINITY, -INFINITY, NAN };
	size_t n = sizeof(ends) / sizeof(ends[0]), i, k, len;
	struct svg_axes a;
	char *buf;
	FILE *f;

	for (i = 0; i < n * n * 2; i++) {
		memset(&a, 0, sizeof(a));
		a.x0 = a.y0 = ends[i % n];
		a.x1 = a.y1 = ends[(i / n) % n];
		a.logx = i >= n * n;
		f = open_memstream(&buf, &len);
		ck_assert_ptr_nonnull(f);
		svg_open(f, "t", "x", "y", &a);
		svg_series(f, &a, ends, ends, n - 4, 0, "s");	/* the finite ones */
		svg_close(f);
		fclose(f);
		ck_assert_msg(a.x1 > a.x0 && a.y1 > a.y0 && isfinite(a.x1 - a.x0) &&
			      isfinite(a.y1 - a.y0), "case %zu", i);
		page_is_finite(buf);
		for (k = 0; k < n; k++)
			ck_assert(fabs(svg_x(&a, ends[k])) <= 2 * SVG_W &&
				  fabs(svg_y(&a, ends[k])) <= 2 * SVG_H);
		free(buf);
	}
}
END_TEST

/* ---- the legend: never over a bar, nor over the plot area --------------------------- */

/* Attribute @name of the tag at @tag as a number; NAN when the tag has none. */
static double attr(const char *tag, const char *name)
{
	const char *end = strchr(tag, '>'), *p;
	char key[16];

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(tag, key);
	return p && end && p < end ? strtod(p + strlen(key), NULL) : NAN;
}

struct box {
	double x, y, w, h;
};

static struct box box_of(const char *tag)
{
	struct box b = { attr(tag, "x"), attr(tag, "y"), attr(tag, "width"), attr(tag, "height") };

	ck_assert_msg(isfinite(b.x) && isfinite(b.y) && b.w >= 0 && b.h >= 0, "%.120s", tag);
	return b;
}

/* Whether @a and @b share some area (touching edges do not). */
static bool overlap(struct box a, struct box b)
{
	return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

/*
 * Every plot of @page: its legend box (class lgbox) holds its swatches and shares no area with
 * the plot's frame nor with any bar; every bar is inside the frame. Returns the plots with a
 * legend.
 */
static size_t legends_clear(const char *page, unsigned int seed)
{
	const char *p, *end, *q;
	size_t legends = 0;

	for (p = strstr(page, "<svg class=\"plot\""); p; p = strstr(end, "<svg class=\"plot\"")) {
		struct box frame, lg = { 0 }, b;
		bool has_lg;

		end = strstr(p, "</svg>");
		ck_assert_ptr_nonnull(end);
		q = strstr(p, "<rect class=\"frame\"");
		ck_assert(q && q < end);
		frame = box_of(q);
		q = strstr(p, "<rect class=\"lgbox\"");
		has_lg = q && q < end;
		if (has_lg) {
			lg = box_of(q);
			legends++;
			ck_assert_msg(!overlap(lg, frame), "seed %u: legend over the plot area", seed);
			for (q = strstr(p, "<rect class=\"sw\""); q && q < end;
			     q = strstr(q + 1, "<rect class=\"sw\"")) {
				b = box_of(q);
				ck_assert_msg(b.x >= lg.x && b.y >= lg.y && b.x + b.w <= lg.x + lg.w &&
					      b.y + b.h <= lg.y + lg.h, "seed %u: a swatch outside "
					      "the legend: %.120s", seed, q);
			}
		}
		for (q = strstr(p, "<rect class=\"pt bar\""); q && q < end;
		     q = strstr(q + 1, "<rect class=\"pt bar\"")) {
			b = box_of(q);
			ck_assert_msg(!has_lg || !overlap(lg, b), "seed %u: legend (%g,%g %gx%g) "
				      "over a bar: %.160s", seed, lg.x, lg.y, lg.w, lg.h, q);
			ck_assert_msg(b.y >= frame.y - 0.05 && b.y + b.h <= frame.y + frame.h + 0.05,
				      "seed %u: a bar out of the frame: %.160s", seed, q);
		}
	}
	return legends;
}

/* A value for a port's counter: mostly nothing, sometimes a lot, now and then absurd. */
static double rand_count(unsigned int *seed)
{
	switch (rand_r(seed) % 8) {
	case 0: case 1: case 2:
		return 0;
	case 3:
		return 1e300;
	case 4:
		return (double)(rand_r(seed) % 10);
	default:
		return (double)rand_r(seed) * (double)(1 + rand_r(seed) % 1000);
	}
}

static const char *const count_keys[] = { "pause_frames", "ecn_marked", "cnp_sent",
					  "cnp_handled", "drops" };

/*
 * Seeded random ports (1..40 of them, counters from nothing to 1e300, shares of the run) and
 * flows with names from 1 to 90 characters, some repeated: on every page the legends stay out
 * of the plot area and off every bar, each bar plot has one, and the per-port plots are drawn.
 */
START_TEST(legend_clear_of_bars)
{
	unsigned int seed = 1000 + (unsigned int)_i, s0 = seed;
	struct json_object *r = recorded(), *ports = json_object_new_array(), *flows, *p;
	size_t n = 1 + (size_t)rand_r(&seed) % 40, nf = 1 + (size_t)rand_r(&seed) % 20, i, k;
	char run[64], out[64], name[96], *page;

	make_dir();
	for (i = 0; i < n; i++) {
		p = json_object_new_object();
		snprintf(name, sizeof(name), "host%zu/eth0", i);
		json_object_object_add(p, "name", json_object_new_string(name));
		for (k = 0; k < sizeof(count_keys) / sizeof(count_keys[0]); k++)
			json_object_object_add(p, count_keys[k],
					       json_object_new_double(rand_count(&seed)));
		json_object_object_add(p, "pause_fraction", json_object_new_double(
			rand_r(&seed) % 3 ? 0 : (double)(rand_r(&seed) % 1001) / 1000));
		json_object_object_add(p, "credit_wait_fraction", json_object_new_double(
			rand_r(&seed) % 3 ? 0 : (double)(rand_r(&seed) % 1001) / 1000));
		json_object_array_add(ports, p);
	}
	/* at least one counter moved, so the per-port plots are drawn */
	json_object_object_add(json_object_array_get_idx(ports, 0), "drops",
			       json_object_new_double(1 + rand_count(&seed)));
	json_object_object_add(r, "ports", ports);
	ck_assert(json_object_object_get_ex(r, "flows", &flows));
	for (i = 1; i < nf; i++) {
		p = NULL;
		ck_assert_int_eq(json_object_deep_copy(json_object_array_get_idx(flows, 0), &p,
						       NULL), 0);
		json_object_array_add(flows, p);
	}
	for (i = 0; i < nf; i++) {
		size_t len = 1 + (size_t)rand_r(&seed) % 90;

		for (k = 0; k < len; k++)
			name[k] = (char)('a' + rand_r(&seed) % 26);
		name[len] = 0;
		json_object_object_add(json_object_array_get_idx(flows, i), "name",
				       json_object_new_string(name));
	}
	snprintf(run, sizeof(run), "%s/run.json", dir);
	snprintf(out, sizeof(out), "%s/page.html", dir);
	ck_assert_int_eq(json_object_to_file(run, r), 0);
	ck_assert_int_eq(nd_cli_run(&nd_cmd_report, 4, (char *[]){ "report", "-o", out, run,
								     NULL }), ND_EXIT_OK);
	page = unit_read_file(out);
	ck_assert_msg(strstr(page, "Per-port congestion signals"), "seed %u: no port plot", s0);
	/* the flows over time, the per-port counts, the shares when any moved */
	ck_assert_uint_ge(legends_clear(page, s0), 2);
	free(page);
	json_object_put(r);
	remove_dir();
}
END_TEST

/*
 * A sim report has a number per flow, and up to a million flows: comparing two must not look
 * each name up in the other one by one. 50000 flows each took minutes under ASan that way
 * (past Check's 4 s); sorted, well under a second. The rows are those the one-by-one way gave:
 * the run's in order, then each name only the baseline has once, its loss counters left out.
 */
START_TEST(compare_many_flows)
{
	enum { N = 50000 };
	struct nd_cmp_run run = { .n = N }, base = { .n = N + 2 };
	const struct nd_cmp_run *bases[] = { &base };
	struct nd_cmp_limits lim;
	struct nd_cmp_result res;
	struct nd_err e = { 0 };
	size_t i;

	run.m = calloc(run.n, sizeof(*run.m));
	base.m = calloc(base.n, sizeof(*base.m));
	ck_assert(run.m && base.m);
	/* the run has flows 0..N-1, the baseline N/2..3N/2-1 at twice the rate */
	for (i = 0; i < N; i++) {
		snprintf(run.m[i].name, sizeof(run.m[i].name), "flow %zu gbps", i);
		run.m[i].value = (double)i;
		snprintf(base.m[i].name, sizeof(base.m[i].name), "flow %zu gbps", i + N / 2);
		base.m[i].value = 2.0 * (double)(i + N / 2);
	}
	/* a name twice, and a loss counter only the baseline has: no row of their own */
	snprintf(base.m[N].name, sizeof(base.m[N].name), "flow %d gbps", N);
	snprintf(base.m[N + 1].name, sizeof(base.m[N + 1].name), "drops");
	base.m[N + 1].cls = ND_CMP_LOSS;
	nd_cmp_limits_init(&lim);
	ck_assert_int_eq(nd_cmp_compare(bases, 1, &run, &lim, &res, &e), 0);
	ck_assert_uint_eq(res.n, N + N / 2);
	/* one assertion per row would cost more than the comparison: Check logs each */
	for (i = 0; i < res.n; i++) {
		const struct nd_cmp_row *w = &res.rows[i];
		char want[32];

		snprintf(want, sizeof(want), "flow %zu gbps", i);
		if (strcmp(w->name, want) || w->in_run != (i < N) ||
		    w->run != (i < N ? (double)i : 0) || w->n_base != (i >= N / 2) ||
		    w->base != (i >= N / 2 ? 2.0 * (double)i : 0))
			ck_abort_msg("row %zu: %s, run %g, %zu baseline runs, median %g", i,
				     w->name, w->run, w->n_base, w->base);
	}
	/* flows N/2..N-1 doubled in the baseline: half the run is worse */
	ck_assert_uint_eq(res.n_worse, N / 2);
	nd_cmp_result_free(&res);
	free(run.m);
	free(base.m);
}
END_TEST

Suite *suite_report(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_loop_test(tc, non_finite_refused, 0,
			    (int)(sizeof(bad_numbers) / sizeof(bad_numbers[0])));
	tcase_add_loop_test(tc, extreme_numbers_drawn, 0, 6);
	tcase_add_test(tc, axes_bounded);
	tcase_add_loop_test(tc, legend_clear_of_bars, 0, 16);
	tcase_add_test(tc, compare_many_flows);
	suite_add_tcase(s, tc);
	return s;
}
