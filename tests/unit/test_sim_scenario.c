// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Scenario files (the shipped ones, every error with file:line:column), flow-size CDF files, and
 * run reports: Jain's index, percentiles, and the printer's text and JSON shape; DCQCN taken
 * from a NIC's own parameters.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "nodrop.h"
#include "print.h"
#include "runreport.h"
#include "unit.h"

static const char *shipped_dir(void)
{
	const char *dir = getenv("ND_SHIPPED_PROFILES");

	return dir && *dir ? dir : "profiles";
}

static int parse(const char *yaml, struct nd_scenario *s, struct nd_err *e)
{
	return nd_scenario_parse(yaml, strlen(yaml), "t.yaml", NULL, s, e);
}

/* @yaml fails with exactly @msg, and leaves nothing allocated behind. */
static void fails(const char *yaml, const char *msg)
{
	struct nd_scenario s;
	struct nd_err e = { 0 };
	int ret = parse(yaml, &s, &e);

	ck_assert_msg(ret == -EINVAL, "%s: returned %d (%s)", yaml, ret, e.msg);
	ck_assert_str_eq(e.msg, msg);
	ck_assert_ptr_null(s.wl.cdf);
}

static int yaml_file(const struct dirent *de)
{
	size_t len = strlen(de->d_name);

	return len > 5 && !strcmp(de->d_name + len - 5, ".yaml");
}

START_TEST(test_shipped_scenarios)
{
	struct dirent **list;
	struct nd_scenario s;
	struct nd_err e = { 0 };
	char dir[512], path[1024];
	int n, i, ret;

	snprintf(dir, sizeof(dir), "%s/scenarios", shipped_dir());
	n = scandir(dir, &list, yaml_file, alphasort);
	ck_assert_int_ge(n, 5);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
		ret = nd_scenario_load(path, &s, &e);
		ck_assert_msg(ret == 0, "%s: %s", path, e.msg);
		ck_assert_int_eq(nd_scenario_check(&s, &e), 0);
		ck_assert_uint_eq(strncmp(s.name, list[i]->d_name, strlen(s.name)), 0);
		nd_scenario_free(&s);
		free(list[i]);
	}
	free(list);
}
END_TEST

START_TEST(test_shipped_values)
{
	struct nd_scenario s;
	struct nd_err e = { 0 };
	char path[512];

	snprintf(path, sizeof(path), "%s/scenarios/incast-8.yaml", shipped_dir());
	ck_assert_int_eq(nd_scenario_load(path, &s, &e), 0);
	ck_assert_str_eq(s.name, "incast-8");
	ck_assert_uint_eq(s.topo.hosts, 9);
	ck_assert_uint_eq(s.topo.host.speed_bps, 100000000000ULL);
	ck_assert_uint_eq(s.topo.host.delay_ps, 1000000);	/* 200 m */
	ck_assert_double_eq(s.sw.alpha, 0.125);
	ck_assert_uint_eq(s.sw.headroom, 0);			/* auto */
	ck_assert_double_eq(s.ecn.pmax, 0.01);
	ck_assert_uint_eq(s.ecn.kmin, 5 * 1024);
	ck_assert_double_eq(s.dcqcn.g, 1.0 / 256);
	ck_assert_uint_eq(s.dcqcn.timer_ps, 55000000);
	ck_assert_uint_eq(s.dcqcn.ai_bps, 40000000);
	ck_assert_uint_eq(s.wl.senders, 8);
	nd_scenario_free(&s);
	snprintf(path, sizeof(path), "%s/scenarios/websearch-30.yaml", shipped_dir());
	ck_assert_int_eq(nd_scenario_load(path, &s, &e), 0);
	ck_assert_int_eq(s.wl.pattern, ND_PATTERN_POISSON);
	ck_assert_double_eq(s.wl.load, 0.3);
	ck_assert_uint_eq(s.wl.n_cdf, 12);
	ck_assert_ptr_nonnull(strstr(s.wl.cdf_file, "cdf/websearch.cdf"));
	nd_scenario_free(&s);
}
END_TEST

START_TEST(test_inline_values)
{
	static const char yaml[] =
		"name: t1\n"
		"fabric: ib\n"
		"duration: 1.5ms\n"
		"topology: {kind: leaf-spine, leaves: 3, spines: 2, hosts-per-leaf: 4}\n"
		"links:\n"
		"  host: {speed: 25Gbit, delay: 500ns}\n"
		"  fabric: {speed: 100G, length: 10m}\n"
		"switch: {buffer: 16M, threshold: 128K, headroom: 96K, xon-offset: 4K}\n"
		"pfc: {enabled: off, response: 1us}\n"
		"ecn: {pmax: 20%, kmin: 100K, kmax: 400K}\n"
		"dcqcn: {g: 0.0625, fast-recovery: 1, hai: 1G, min-rate: 10M}\n"
		"infiniband: {vl-buffer: 32K}\n"
		"workload: {pattern: victim, senders: 3, first-sender: 1, receiver: 4,\n"
		"           victim: {src: 0, dst: 11}, jitter: 2us}\n";
	struct nd_scenario s;
	struct nd_err e = { 0 };

	ck_assert_msg(parse(yaml, &s, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(s.name, "t1");
	ck_assert_int_eq(s.fabric, ND_FABRIC_IB);
	ck_assert_uint_eq(s.duration_ps, 1500000000ULL);
	ck_assert_int_eq(s.topo.kind, ND_TOPO_LEAF_SPINE);
	ck_assert_uint_eq(s.topo.host.speed_bps, 25000000000ULL);
	ck_assert_uint_eq(s.topo.host.delay_ps, 500000);
	ck_assert_uint_eq(s.topo.fabric.delay_ps, 50000);
	ck_assert_double_eq(s.sw.alpha, 0);
	ck_assert_uint_eq(s.sw.threshold, 128 * 1024);
	ck_assert_uint_eq(s.sw.headroom, 96 * 1024);
	ck_assert(!s.pfc.on);
	ck_assert_uint_eq(s.pfc.response_ps, 1000000);
	ck_assert_double_eq(s.ecn.pmax, 0.2);
	ck_assert_double_eq(s.dcqcn.g, 0.0625);
	ck_assert_uint_eq(s.dcqcn.hai_bps, 1000000000ULL);
	ck_assert_uint_eq(s.ib.vl_buffer, 32 * 1024);
	ck_assert_uint_eq(s.wl.victim_dst, 11);
	ck_assert_uint_eq(s.wl.jitter_ps, 2000000);
	nd_scenario_free(&s);
}
END_TEST

START_TEST(test_errors)
{
	fails("links:\n  host: {speed: 100X}\n",
	      "t.yaml:2:17: links.host.speed: \"100X\" is not a link speed; write it like 100G, "
	      "25Gbit or 800M (decimal bits per second, 1M..1600G)");
	fails("workload:\n  patern: incast\n",
	      "t.yaml:2:3: workload.patern: unknown key; did you mean workload.pattern?");
	fails("seed: 1\nseed: 2\n",
	      "t.yaml:2:1: seed: duplicate key (first at line 1); give each key once");
	fails("mtu: 9000\n",
	      "t.yaml:1:6: mtu: MTU 9000 is out of range 64..4096; the RDMA path MTU is 256, 512, "
	      "1024, 2048 or 4096 bytes of payload");
	fails("workload:\n  receiver: 20\n",
	      "t.yaml: workload.receiver: host 20 does not exist; the topology has hosts 0..8");
	fails("workload: {pattern: victim}\n",
	      "t.yaml: workload.victim: give the victim flow's src and dst hosts");
	fails("workload: {pattern: poisson}\n",
	      "t.yaml: workload.cdf: a poisson workload needs a flow-size CDF file");
	fails("workload: {pattern: poisson, cdf: x.cdf}\n",
	      "t.yaml:1:35: workload.cdf: this scenario was not read from a file, so x.cdf cannot "
	      "be found; load the scenario from its file");
	fails("switch: {alpha: 1/8, threshold: 64K}\n",
	      "t.yaml:1:1: switch: give alpha or threshold, not both");
	fails("switch: {alpha: 1/0}\n",
	      "t.yaml:1:17: switch.alpha: 1/0 is not a number; write it like 0.125, 1/8 or 12.5%");
	fails("ecn: {pmax: 150%}\n", "t.yaml:1:13: ecn.pmax: pmax 150% is out of range 0..1");
	fails("pfc: {enabled: maybe}\n",
	      "t.yaml:1:16: pfc.enabled: \"maybe\" is not a boolean; use true, false, on, off, yes "
	      "or no");
	fails("topology: {kind: torus}\n",
	      "t.yaml:1:18: topology.kind: \"torus\" is not a topology; use single-switch or "
	      "leaf-spine");
	fails("frobnicate: 1\n",
	      "t.yaml:1:1: frobnicate: unknown key; a scenario takes name, seed, fabric, duration, "
	      "mtu, priority, ack-every, rto, series, topology, links, switch, pfc, ecn, dcqcn, "
	      "infiniband or workload");
	fails("", "t.yaml:1:1: empty scenario; give at least a workload (see nodrop-scenario(5))");
	fails("- a\n", "t.yaml:1:1: a scenario is a mapping of keys, got a list; start with a key "
	      "like duration: 10ms");
	fails("links: {host: {speed: 100G}\n",
	      "t.yaml:2:1: invalid YAML: did not find expected ',' or '}' (while parsing a flow "
	      "mapping at 1:8); fix the YAML syntax here (indentation, brackets, quotes)");
}
END_TEST

/* The buffer check needs the links: it runs in nd_sim_run(), not the parser. */
START_TEST(test_buffer_too_small)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario s;
	struct nd_err e = { 0 };

	nd_scenario_init(&s);
	s.sw.buffer = 256 * 1024;
	ck_assert_int_eq(nd_sim_run(&s, ND_FABRIC_ROCE, &r, &st, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "switch.buffer: 262144 bytes cannot hold the "
				     "headroom"));
	ck_assert_ptr_null(r.flows);
	/* InfiniBand reserves no headroom: the same scenario runs */
	s.duration_ps = 10000000;
	ck_assert_int_eq(nd_sim_run(&s, ND_FABRIC_IB, &r, &st, &e), 0);
	nd_run_report_free(&r);
}
END_TEST

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/nd-cdf-XXXXXX");
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (int)strlen(text));
	close(fd);
	return path;
}

static void cdf_fails(const char *text, const char *msg_after_path)
{
	struct nd_cdf_point *pts = (void *)1;
	struct nd_err e = { 0 };
	char *path = write_tmp(text), want[512];
	size_t n = 7;

	ck_assert_int_lt(nd_cdf_load(path, &pts, &n, &e), 0);
	snprintf(want, sizeof(want), "%s%s", path, msg_after_path);
	ck_assert_str_eq(e.msg, want);
	ck_assert_ptr_null(pts);
	ck_assert_uint_eq(n, 0);
	unlink(path);
	free(path);
}

START_TEST(test_cdf_files)
{
	struct nd_cdf_point *pts;
	struct nd_err e = { 0 };
	char *path;
	size_t n;

	path = write_tmp("# sizes\n0 0\n\n100 50  \n300 100\n");
	ck_assert_int_eq(nd_cdf_load(path, &pts, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_double_eq(pts[1].bytes, 100);
	ck_assert_double_eq(nd_cdf_mean(pts, n), (50 * 50 + 200 * 50) / 100.0);
	free(pts);
	unlink(path);
	free(path);
	cdf_fails("0 0\n100 50\n", ": a CDF starts at 0 % and ends at 100 %");
	cdf_fails("0 0\n100 50\n90 100\n", ":3: sizes and percentages must both rise from one "
		  "line to the next");
	cdf_fails("0 0\n100 fifty\n", ":2: expected \"BYTES PERCENT\"");
	cdf_fails("0 0\n100 150\n", ":2: sizes are 0 or 1..1e12 bytes and percentages 0..100");
	cdf_fails("0 0\n", ": a CDF needs 2 points or more");
	ck_assert_int_eq(nd_cdf_load("/nonexistent/x.cdf", &pts, &n, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/x.cdf: cannot open"));
}
END_TEST

/* What a CDF may not hold, each refused with its line; the arrival gap divides by the mean. */
START_TEST(test_cdf_refused)
{
	static const char *const bad[] = {
		"0 0\n1e999 100\n", "0 0\nnan 100\n", "0 0\ninf 100\n", "0 0\n1e13 100\n",
		"0 0\n100 nan\n", "0 0\n100 1e999\n", "0 0\n100 -inf\n", "0 0\n100 -1\n",
		/* under a byte: the mean of "0 0, 4.9e-324 100" is 0 */
		"0 0\n4.9e-324 100\n", "0 0\n0.5 100\n", "0 0\n1e-300 100\n",
	};
	const char *msg = ":2: sizes are 0 or 1..1e12 bytes and percentages 0..100";
	const char *rise = ": sizes and percentages must both rise from one line to the next";
	char *text, want[128];
	size_t i, len;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cdf_fails(bad[i], msg);
	cdf_fails("-1 0\n100 100\n", ":1: sizes are 0 or 1..1e12 bytes and percentages 0..100");
	snprintf(want, sizeof(want), ":3%s", rise);
	cdf_fails("0 0\n\n0 50\n100 100\n", want);
	snprintf(want, sizeof(want), ":4%s", rise);
	cdf_fails("0 0\n100 60\n# down\n200 50\n300 100\n", want);
	/* 1001 points, and a file over 64 KiB (100000 lines) */
	text = malloc(200001);
	ck_assert_ptr_nonnull(text);
	for (i = 0, len = 0; i <= 1000; i++)
		len += (size_t)sprintf(text + len, "%zu %g\n", i, i / 10.0);
	cdf_fails(text, ":1001: over 1000 points");
	memset(text, '\n', 100000);
	memcpy(text + 100000 - 12, "0 0\n100 100\n", 12);
	text[100000] = '\0';
	cdf_fails(text, ": not a regular file of at most 65536 bytes");
	free(text);
}
END_TEST

/* A CDF found relative to the scenario file, and one that is not there. */
START_TEST(test_cdf_relative)
{
	char dir[] = "/tmp/nd-scn-XXXXXX", path[256], cdf[256];
	struct nd_scenario s;
	struct nd_err e = { 0 };
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cdf, sizeof(cdf), "%s/sizes.cdf", dir);
	f = fopen(cdf, "w");
	fputs("0 0\n1000 100\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/p.yaml", dir);
	f = fopen(path, "w");
	fputs("workload:\n  pattern: poisson\n  cdf: sizes.cdf\n", f);
	fclose(f);
	ck_assert_msg(nd_scenario_load(path, &s, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(s.wl.n_cdf, 2);
	ck_assert_str_eq(s.name, "p");
	nd_scenario_free(&s);
	f = fopen(path, "w");
	fputs("workload:\n  pattern: poisson\n  cdf: missing.cdf\n", f);
	fclose(f);
	ck_assert_int_eq(nd_scenario_load(path, &s, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "p.yaml:3:8: workload.cdf: "));
	ck_assert_ptr_nonnull(strstr(e.msg, "missing.cdf: cannot open"));
	unlink(path);
	unlink(cdf);
	rmdir(dir);
	ck_assert_int_eq(nd_scenario_load("/nonexistent/s.yaml", &s, &e), -ENOENT);
}
END_TEST

/* ---- run reports ---- */

START_TEST(test_jain_and_percentiles)
{
	double equal[] = { 1, 1, 1, 1 }, one[] = { 1, 0, 0, 0 }, three[] = { 1, 2, 3 }, v[100];
	struct nd_dist d;
	int i;

	ck_assert_double_eq_tol(nd_jain(equal, 4), 1, 1e-12);
	ck_assert_double_eq_tol(nd_jain(one, 4), 0.25, 1e-12);
	ck_assert_double_eq_tol(nd_jain(three, 3), 36.0 / 42, 1e-12);
	ck_assert_double_eq(nd_jain(NULL, 0), 1);
	ck_assert_double_eq(nd_jain(one + 1, 3), 1);
	for (i = 0; i < 100; i++)
		v[i] = (i * 37) % 100 + 1;	/* 1..100, shuffled */
	nd_dist_of(v, 100, &d);
	ck_assert_uint_eq(d.count, 100);
	ck_assert_double_eq(d.p50_us, 50);
	ck_assert_double_eq(d.p99_us, 99);
	ck_assert_double_eq(d.p999_us, 100);
	ck_assert_double_eq(d.max_us, 100);
	ck_assert_double_eq(d.mean_us, 50.5);
	nd_dist_of(v, 0, &d);
	ck_assert_uint_eq(d.count, 0);
	ck_assert_double_eq(d.max_us, 0);
	ck_assert_str_eq(nd_verdict_name(ND_VERDICT_LOSSLESS), "lossless");
	ck_assert_str_eq(nd_verdict_name(ND_VERDICT_NONE), "none");
	ck_assert_str_eq(nd_verdict_name(99), "unknown");
	ck_assert_str_eq(nd_fabric_name(ND_FABRIC_IB), "ib");
	ck_assert_str_eq(nd_pattern_name(ND_PATTERN_ALL_TO_ALL), "all-to-all");
}
END_TEST

/* Run the printer with stdout sent to a file; return what it wrote. */
static char *capture(const struct nd_run_report *const *r, size_t n, bool json)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	char *out;
	long len;

	ck_assert_ptr_nonnull(tmp);
	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	pr_init(json, false);
	if (n == 1)
		nd_print_run_report(NULL, r[0], ND_RR_FLOWS, NULL, 0, NULL);
	else
		nd_print_run_compare(r, n, 0, NULL, NULL);
	ck_assert_int_eq(pr_finish(), 0);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = ftell(tmp);
	out = calloc(1, (size_t)len + 1);
	rewind(tmp);
	ck_assert_int_eq(fread(out, 1, (size_t)len, tmp), len);
	fclose(tmp);
	return out;
}

static struct json_object *member(struct json_object *o, const char *key, json_type type)
{
	struct json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no %s", key);
	ck_assert_msg(json_object_is_type(v, type), "%s has the wrong type", key);
	return v;
}

START_TEST(test_report_printer)
{
	const struct nd_run_report *both[2];
	struct nd_run_report r[2];
	struct nd_sim_stats st;
	struct nd_scenario s;
	struct nd_err e = { 0 };
	struct json_object *o, *f, *p;
	char *out;

	nd_scenario_init(&s);
	s.duration_ps = 200000000;	/* 200 us */
	s.series_ps = 50000000;
	ck_assert_int_eq(nd_sim_run(&s, ND_FABRIC_ROCE, &r[0], &st, &e), 0);
	ck_assert_int_eq(nd_sim_run(&s, ND_FABRIC_IB, &r[1], &st, &e), 0);
	both[0] = &r[0];
	both[1] = &r[1];
	out = capture(both, 1, true);
	o = json_tokener_parse(out);
	ck_assert_msg(o != NULL, "not JSON: %s", out);
	ck_assert_str_eq(json_object_get_string(member(o, "kind", json_type_string)), "sim");
	ck_assert_str_eq(json_object_get_string(member(o, "fabric", json_type_string)), "roce");
	member(o, "aggregate_gbps", json_type_double);
	member(o, "jain", json_type_double);
	member(member(o, "fct", json_type_object), "p99_us", json_type_double);
	ck_assert_int_eq(json_object_array_length(member(o, "flows", json_type_array)), 8);
	f = json_object_array_get_idx(member(o, "flows", json_type_array), 0);
	ck_assert_str_eq(json_object_get_string(member(f, "name", json_type_string)), "h1->h0");
	member(f, "gbps", json_type_double);
	ck_assert_int_eq(json_object_array_length(member(f, "series_gbps", json_type_array)), 4);
	ck_assert_int_eq(json_object_array_length(member(o, "ports", json_type_array)), 18);
	p = json_object_array_get_idx(member(o, "ports", json_type_array), 0);
	ck_assert_str_eq(json_object_get_string(member(p, "name", json_type_string)), "h0");
	member(p, "pause_fraction", json_type_double);
	member(p, "credit_wait_fraction", json_type_double);
	member(p, "cnp_sent", json_type_int);
	member(o, "evidence", json_type_array);
	json_object_put(o);
	free(out);
	out = capture(both, 2, true);
	o = json_tokener_parse(out);
	ck_assert(o && json_object_is_type(o, json_type_array));
	ck_assert_int_eq(json_object_array_length(o), 2);
	f = json_object_array_get_idx(o, 1);
	ck_assert_str_eq(json_object_get_string(member(f, "fabric", json_type_string)), "ib");
	json_object_put(o);
	free(out);
	out = capture(both, 2, false);
	ck_assert_ptr_nonnull(strstr(out, "roce"));
	ck_assert_ptr_nonnull(strstr(out, "\naggregate-gbps "));
	ck_assert_ptr_nonnull(strstr(out, "\ncredit-wait-max-% "));
	free(out);
	out = capture(both, 1, false);
	ck_assert_ptr_nonnull(strstr(out, "sim roce incast, 0.200 ms: 8 flows\n"));
	ck_assert_ptr_nonnull(strstr(out, "  h1->h0 "));
	free(out);
	nd_run_report_free(&r[0]);
	nd_run_report_free(&r[1]);
	nd_run_report_free(&r[1]);	/* twice is harmless */
}
END_TEST

/* A NIC's ecn/ sysfs as MLNX_OFED shows it (the ecn-ofed fixture: ConnectX's shipped values). */
static void read_fixture_nic(struct nd_ecn *ecn)
{
	struct nd_err e = { 0 };

	unit_use_fixture("ecn-ofed");
	ck_assert_int_eq(nd_ecn_read("eth2", "0000:3b:00.0", ecn, &e), 0);
	unit_no_root();
}

static void set_nic_param(struct nd_ecn *ecn, const char *name, uint32_t v)
{
	size_t i;

	for (i = 0; i < ecn->n_params && strcmp(ecn->params[i].name, name); i++)
		;
	ck_assert_msg(i < ecn->n_params, "%s not on the fixture", name);
	ecn->params[i].value = v;
}

START_TEST(test_dcqcn_from_nic)
{
	struct nd_scenario s;
	struct nd_ecn ecn;
	struct nd_err e = { 0 };
	char note[256];

	read_fixture_nic(&ecn);
	nd_scenario_init(&s);
	ck_assert_uint_eq(s.priority, 3);	/* enabled at both points on the fixture */
	s.dcqcn.on = false;
	ck_assert_int_eq(nd_scenario_dcqcn_from_nic(&s, &ecn, "eth2", note, sizeof(note), &e), 0);
	ck_assert(s.dcqcn.on);
	ck_assert_uint_eq(s.dcqcn.timer_ps, 300000000ull);		/* rpg_time_reset 300 us */
	ck_assert_uint_eq(s.dcqcn.byte_counter, 32767 * 64);		/* 64-byte units */
	ck_assert_uint_eq(s.dcqcn.fast_recovery, 1);			/* rpg_threshold */
	ck_assert_uint_eq(s.dcqcn.ai_bps, 5000000);
	ck_assert_uint_eq(s.dcqcn.hai_bps, 50000000);
	ck_assert_uint_eq(s.dcqcn.min_bps, 1000000);
	ck_assert_double_eq_tol(s.dcqcn.g, 5.0 / 1024, 1e-12);		/* dce_tcp_g 1019 */
	ck_assert_double_eq_tol(s.dcqcn.alpha, 1023.0 / 1024, 1e-12);
	ck_assert_uint_eq(s.dcqcn.alpha_timer_ps, 1000000);		/* dce_tcp_rtt 1 us */
	ck_assert_uint_eq(s.dcqcn.reduce_period_ps, 4000000);
	ck_assert(!s.dcqcn.clamp);
	ck_assert_uint_eq(s.dcqcn.cnp_interval_ps, 4000000);
	/* every parameter it has no place for holds its neutral value on the fixture */
	ck_assert_str_eq(note, "");

	/* what the model leaves out is said; a priority without DCQCN runs without it */
	set_nic_param(&ecn, "rp_clamp_tgt_rate", 1);
	set_nic_param(&ecn, "rp_rate_to_set_on_first_cnp", 40000);
	ecn.np_en &= (uint8_t)~(1u << 3);
	ck_assert_int_eq(nd_scenario_dcqcn_from_nic(&s, &ecn, "eth2", note, sizeof(note), &e), 0);
	ck_assert(s.dcqcn.clamp);
	ck_assert(!s.dcqcn.on);
	ck_assert_str_eq(note, "rp_rate_to_set_on_first_cnp 40000 is not modelled (the first CNP "
			 "sets no rate of its own); DCQCN is off on priority 3 of this NIC (no "
			 "notification point): the run has no rate control");
}
END_TEST

START_TEST(test_dcqcn_from_nic_refused)
{
	struct nd_scenario s, before;
	struct nd_ecn ecn;
	struct nd_err e = { 0 };
	char note[256];

	nd_scenario_init(&s);
	memset(&ecn, 0, sizeof(ecn));
	ecn.backend = ND_ECN_NONE;
	snprintf(ecn.note, sizeof(ecn.note), "no MLNX_OFED ecn sysfs, no mlx5 debugfs cc_params");
	ck_assert_int_eq(nd_scenario_dcqcn_from_nic(&s, &ecn, "eth0", note, sizeof(note), &e),
			 -ENOENT);
	ck_assert_str_eq(e.msg, "eth0: no DCQCN parameters to read: no MLNX_OFED ecn sysfs, no "
			 "mlx5 debugfs cc_params");

	/* a value that makes no scenario leaves the scenario as it was */
	read_fixture_nic(&ecn);
	set_nic_param(&ecn, "rp_time_reset", 0);
	memcpy(&before, &s, sizeof(s));
	ck_assert_int_eq(nd_scenario_dcqcn_from_nic(&s, &ecn, "eth2", note, sizeof(note), &e),
			 -EINVAL);
	ck_assert_msg(strstr(e.msg, "eth2: its DCQCN parameters make no scenario: ") == e.msg &&
		      strstr(e.msg, "timer"), "%s", e.msg);
	ck_assert_mem_eq(&s, &before, sizeof(s));
}
END_TEST

Suite *suite_sim_scenario(void)
{
	Suite *s = suite_create("sim_scenario");
	TCase *tc = tcase_create("files");

	tcase_add_test(tc, test_shipped_scenarios);
	tcase_add_test(tc, test_shipped_values);
	tcase_add_test(tc, test_inline_values);
	tcase_add_test(tc, test_errors);
	tcase_add_test(tc, test_buffer_too_small);
	tcase_add_test(tc, test_cdf_files);
	tcase_add_test(tc, test_cdf_refused);
	tcase_add_test(tc, test_cdf_relative);
	tcase_add_test(tc, test_jain_and_percentiles);
	tcase_add_test(tc, test_report_printer);
	tcase_add_test(tc, test_dcqcn_from_nic);
	tcase_add_test(tc, test_dcqcn_from_nic_refused);
	suite_add_tcase(s, tc);
	return s;
}
