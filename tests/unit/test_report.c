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
	tcase_add_test(tc, compare_many_flows);
	suite_add_tcase(s, tc);
	return s;
}
