// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a seed decides: Poisson arrivals and the load they offer, flow sizes drawn from a CDF,
 * the same report for the same seed (and another for another), and every shipped scenario's
 * results pinned bit for bit.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim/sim.h"
#include "test_sim.h"

/* ---- workloads and determinism ---- */

static void poisson(struct nd_scenario *sc, uint64_t seed)
{
	struct nd_err e = { 0 };
	char path[512];
	int ret;

	nd_scenario_init(sc);
	sc->seed = seed;
	sc->topo.kind = ND_TOPO_LEAF_SPINE;
	sc->topo.leaves = 2;
	sc->topo.spines = 2;
	sc->topo.hosts_per_leaf = 4;
	sc->series_ps = 0;
	sc->duration_ps = 1 * MS;
	sc->wl.pattern = ND_PATTERN_POISSON;
	sc->wl.load = 0.5;
	ret = nd_cdf_load(unit_sim_shipped("cdf/hadoop.cdf", path, sizeof(path)), &sc->wl.cdf,
			  &sc->wl.n_cdf, &e);
	ck_assert_msg(ret == 0, "%s", e.msg);
}

static bool same_report(const struct nd_run_report *a, const struct nd_run_report *b)
{
	size_t i;

	if (a->n_flows != b->n_flows || a->n_ports != b->n_ports || a->drops != b->drops ||
	    a->aggregate_gbps != b->aggregate_gbps || a->jain != b->jain ||
	    memcmp(&a->fct, &b->fct, sizeof(a->fct)))
		return false;
	for (i = 0; i < a->n_flows; i++) {
		const struct nd_flow_result *x = &a->flows[i], *y = &b->flows[i];

		if (strcmp(x->name, y->name) || x->bytes != y->bytes || x->gbps != y->gbps ||
		    x->fct_us != y->fct_us || x->slowdown != y->slowdown ||
		    x->retransmits != y->retransmits)
			return false;
	}
	return !memcmp(a->ports, b->ports, a->n_ports * sizeof(*a->ports));
}

START_TEST(test_same_seed_same_report)
{
	struct nd_run_report a, b;
	struct nd_sim_stats sa, sb;
	struct nd_scenario sc;

	poisson(&sc, 11);
	unit_sim_run(&sc, ND_FABRIC_ROCE, &a, &sa);
	unit_sim_run(&sc, ND_FABRIC_ROCE, &b, &sb);
	ck_assert_uint_gt(a.n_flows, 50);
	ck_assert(same_report(&a, &b));
	ck_assert_uint_eq(sa.events, sb.events);
	nd_run_report_free(&b);
	sc.seed = 12;
	unit_sim_run(&sc, ND_FABRIC_ROCE, &b, &sb);
	ck_assert(!same_report(&a, &b));
	nd_run_report_free(&a);
	nd_run_report_free(&b);
	nd_scenario_free(&sc);
}
END_TEST

/* ---- results pinned bit for bit ---- */

/*
 * A change that only makes the simulator faster (the event queue, the memory layout, the
 * dispatch) must leave every report as it was, to the last bit, for the same seed. Each shipped
 * scenario on both fabrics (2 ms of it at most), by events and a fingerprint of everything the
 * report and the model's stats hold. The values were taken at f9b0f60, before the event queue's
 * inline paths, and hold after them. A change to the model itself updates them and says why.
 * The fingerprint: FNV-1a over every number, name and reason the report and the stats hold.
 */
static uint64_t pin_fnv(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;

	while (n--)
		h = (h ^ *c++) * 0x100000001b3ULL;
	return h;
}

static uint64_t pin_u(uint64_t h, uint64_t v)
{
	return pin_fnv(h, &v, sizeof(v));
}

/* A field of a struct the fingerprint takes: where it is, and whether a number or a name. */
struct pin_field {
	size_t off;
	char type;	/* 'u' uint64_t, 'd' double, 's' a string */
};

#define PIN(type, s, f) { offsetof(struct s, f), type }

static const struct pin_field pct_fields[] = {
	PIN('u', nd_sim_pct, count), PIN('d', nd_sim_pct, p50), PIN('d', nd_sim_pct, p95),
	PIN('d', nd_sim_pct, p99), PIN('d', nd_sim_pct, max), PIN('d', nd_sim_pct, mean),
};
static const struct pin_field flow_fields[] = {
	PIN('s', nd_flow_result, name), PIN('u', nd_flow_result, bytes),
	PIN('u', nd_flow_result, messages), PIN('d', nd_flow_result, gbps),
	PIN('d', nd_flow_result, fct_us), PIN('d', nd_flow_result, slowdown),
	PIN('u', nd_flow_result, retransmits),
};
static const struct pin_field port_fields[] = {
	PIN('s', nd_port_result, name), PIN('d', nd_port_result, pause_fraction),
	PIN('u', nd_port_result, pause_frames), PIN('u', nd_port_result, ecn_marked),
	PIN('u', nd_port_result, cnp_sent), PIN('u', nd_port_result, cnp_handled),
	PIN('d', nd_port_result, credit_wait_fraction), PIN('u', nd_port_result, drops),
};
static const struct pin_field report_fields[] = {
	PIN('d', nd_run_report, aggregate_gbps), PIN('d', nd_run_report, jain),
	PIN('u', nd_run_report, fct.count), PIN('d', nd_run_report, fct.p50_us),
	PIN('d', nd_run_report, fct.p99_us), PIN('d', nd_run_report, fct.max_us),
	PIN('d', nd_run_report, fct.mean_us), PIN('u', nd_run_report, drops),
	PIN('u', nd_run_report, retransmits),
};

/* @n structs of @size at @base, each field of @fields */
static uint64_t pin_each(uint64_t h, const void *base, size_t size, size_t n,
			 const struct pin_field *fields, size_t n_fields)
{
	const char *b;
	size_t i, k;

	for (i = 0; i < n; i++) {
		b = (const char *)base + i * size;
		for (k = 0; k < n_fields; k++) {
			const void *v = b + fields[k].off;

			if (fields[k].type == 's')
				h = pin_fnv(h, v, strlen(v) + 1);
			else
				h = pin_fnv(h, v, 8);
		}
	}
	return h;
}

#define PIN_EACH(h, base, n, fields) \
	pin_each(h, base, sizeof(*(base)), n, fields, ND_ARRAY_SIZE(fields))

static uint64_t pin_report(const struct nd_run_report *r, const struct nd_sim_stats *st)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	size_t i;

	h = pin_u(h, st->events);
	h = pin_u(h, st->flows);
	h = pin_u(h, st->flows_done);
	h = pin_u(h, st->packets);
	h = PIN_EACH(h, &st->slowdown, 1, pct_fields);
	for (i = 0; i < ND_SIM_BUCKETS; i++)
		h = PIN_EACH(h, &st->buckets[i].slowdown, 1, pct_fields);
	h = PIN_EACH(h, r, 1, report_fields);
	h = pin_u(h, (uint64_t)r->verdict);
	h = pin_fnv(h, r->reason, strlen(r->reason) + 1);
	h = PIN_EACH(h, r->flows, r->n_flows, flow_fields);
	return PIN_EACH(h, r->ports, r->n_ports, port_fields);
}

static const struct {
	const char *file;
	enum nd_fabric fabric;
	uint64_t events, print;
} pinned[] = {
	{ "incast-8.yaml", ND_FABRIC_ROCE, 32780, 0xe7390115c76496f9ULL },
	{ "incast-8.yaml", ND_FABRIC_IB, 125809, 0x83a79672830ce34dULL },
	{ "incast-64.yaml", ND_FABRIC_ROCE, 151376, 0x9707bf505d8e92a4ULL },
	{ "incast-64.yaml", ND_FABRIC_IB, 132553, 0x648292b3df52d24bULL },
	{ "victim-leaf-spine.yaml", ND_FABRIC_ROCE, 126446, 0x47b4c5cbb0c2d38eULL },
	{ "victim-leaf-spine.yaml", ND_FABRIC_IB, 342532, 0xc0dde20b98885553ULL },
	{ "websearch-30.yaml", ND_FABRIC_ROCE, 1050231, 0xd2385e63b8151cbaULL },
	{ "websearch-30.yaml", ND_FABRIC_IB, 1350233, 0x5e0a2b6cbf03ca52ULL },
	{ "websearch-50.yaml", ND_FABRIC_ROCE, 1871952, 0xc8b56c910d4ecbd1ULL },
	{ "websearch-50.yaml", ND_FABRIC_IB, 2276046, 0xeedd91fb470daa2dULL },
};

START_TEST(test_pinned_results)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	char path[512];
	uint64_t print;
	int ret;

	ret = nd_scenario_load(unit_sim_shipped(pinned[_i].file, path, sizeof(path)), &sc, &e);
	ck_assert_msg(ret == 0, "%s", e.msg);
	if (sc.duration_ps > 2 * MS)
		sc.duration_ps = 2 * MS;
	unit_sim_run(&sc, pinned[_i].fabric, &r, &st);
	print = pin_report(&r, &st);
	ck_assert_msg(st.events == pinned[_i].events && print == pinned[_i].print,
		      "%s on %s: %llu events, fingerprint 0x%016llx; pinned: %llu, 0x%016llx",
		      pinned[_i].file, nd_fabric_name(pinned[_i].fabric),
		      (unsigned long long)st.events, (unsigned long long)print,
		      (unsigned long long)pinned[_i].events, (unsigned long long)pinned[_i].print);
	nd_run_report_free(&r);
	nd_scenario_free(&sc);
}
END_TEST

/* Different seeds, different arrivals; the same seed, the same ones (for both fabrics). */
START_TEST(test_seed_arrivals)
{
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct sim a, b;
	uint32_t i, differ = 0;

	poisson(&sc, 1);
	ck_assert_int_eq(sim_setup(&a, &sc, ND_FABRIC_ROCE, &e), 0);
	ck_assert_int_eq(sim_setup(&b, &sc, ND_FABRIC_IB, &e), 0);
	ck_assert_uint_eq(a.n_flows, b.n_flows);
	for (i = 0; i < a.n_flows; i++) {
		ck_assert_uint_eq(a.flows[i].start, b.flows[i].start);
		ck_assert_uint_eq(a.flows[i].size, b.flows[i].size);
		ck_assert_uint_eq(a.flows[i].dst, b.flows[i].dst);
	}
	sim_teardown(&b);
	sc.seed = 2;
	ck_assert_int_eq(sim_setup(&b, &sc, ND_FABRIC_ROCE, &e), 0);
	for (i = 0; i < a.n_flows && i < b.n_flows; i++)
		differ += a.flows[i].start != b.flows[i].start;
	ck_assert_uint_gt(differ, a.n_flows / 2);
	sim_teardown(&a);
	sim_teardown(&b);
	nd_scenario_free(&sc);
}
END_TEST

/* Poisson arrivals offer the load asked for: bytes per host / (time x link) = 0.5 +- 10 %. */
START_TEST(test_poisson_load)
{
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct sim s;
	double bytes = 0, mean, offered;
	uint32_t i;

	poisson(&sc, 5);
	sc.duration_ps = 20 * MS;
	ck_assert_int_eq(sim_setup(&s, &sc, ND_FABRIC_ROCE, &e), 0);
	for (i = 0; i < s.n_flows; i++) {
		ck_assert_uint_lt(s.flows[i].start, sc.duration_ps);
		ck_assert_uint_ne(s.flows[i].src, s.flows[i].dst);
		bytes += (double)s.flows[i].size;
	}
	mean = bytes / s.n_flows;
	offered = bytes * 8 / (8 * 100e9 * 0.020);
	ck_assert_double_eq_tol(mean, nd_cdf_mean(sc.wl.cdf, sc.wl.n_cdf), 0.1 * 120420);
	ck_assert_double_eq_tol(offered, 0.5, 0.05);
	sim_teardown(&s);
	nd_scenario_free(&sc);
}
END_TEST

/* The CDF's mean by the trapezoid rule, and sampling by percentile reproduces it. */
START_TEST(test_cdf_sampling)
{
	struct nd_cdf_point *pts;
	struct nd_err e = { 0 };
	struct sim_rng rng;
	char path[512];
	double sum = 0;
	size_t n;
	int i;

	unit_sim_shipped("cdf/websearch.cdf", path, sizeof(path));
	ck_assert_int_eq(nd_cdf_load(path, &pts, &n, &e), 0);
	ck_assert_uint_eq(n, 12);
	ck_assert_double_eq_tol(nd_cdf_mean(pts, n), 1711250, 1e-6);
	ck_assert_double_eq_tol(sim_cdf_sample(pts, n, 0.15), 10000, 1e-6);
	ck_assert_double_eq_tol(sim_cdf_sample(pts, n, 0.535), 80000 + 120000.0 / 7 * 0.5, 1e-6);
	sim_rng_seed(&rng, 9);
	for (i = 0; i < 400000; i++)
		sum += sim_cdf_sample(pts, n, sim_rng_unit(&rng));
	ck_assert_double_eq_tol(sum / 400000, 1711250, 0.02 * 1711250);
	free(pts);
	unit_sim_shipped("cdf/hadoop.cdf", path, sizeof(path));
	ck_assert_int_eq(nd_cdf_load(path, &pts, &n, &e), 0);
	ck_assert_double_eq_tol(nd_cdf_mean(pts, n), 120420.75, 1e-6);
	free(pts);
}
END_TEST

/*
 * A draw at a point's percentage is no larger than that point's size: b - a rounds, so a + (b -
 * a) x 1 came out an ulp above 123456.7 at u = 0.5, and above the last size at u = 1.
 */
START_TEST(test_cdf_sample_bounds)
{
	static const struct nd_cdf_point mid[] = { { 1000.1, 0 }, { 123456.7, 50 },
						   { 200000, 100 } };
	static const struct nd_cdf_point top[] = { { 0, 0 }, { 1000.004, 97 }, { 30000000, 100 } };
	static const double u[] = { 0, 0x1p-53, 0.5, 1 - 0x1p-53, 1 };
	size_t i;

	ck_assert_double_le(sim_cdf_sample(mid, 3, 0.5), 123456.7);
	ck_assert_double_le(sim_cdf_sample(top, 3, 1), 30000000);
	for (i = 0; i < ND_ARRAY_SIZE(u); i++) {
		ck_assert_double_ge(sim_cdf_sample(mid, 3, u[i]), 1000.1);
		ck_assert_double_le(sim_cdf_sample(mid, 3, u[i]), 200000);
		ck_assert_double_ge(sim_cdf_sample(top, 3, u[i]), 0);
		ck_assert_double_le(sim_cdf_sample(top, 3, u[i]), 30000000);
	}
}
END_TEST

TCase *tcase_sim_workload(void)
{
	TCase *tc = tcase_create("workload");

	tcase_add_test(tc, test_cdf_sampling);
	tcase_add_test(tc, test_cdf_sample_bounds);
	tcase_add_test(tc, test_seed_arrivals);
	tcase_add_test(tc, test_poisson_load);
	return tc;
}

/* Whole runs, under ASan: give them time. */
TCase *tcase_sim_determinism(void)
{
	TCase *tc = tcase_create("determinism");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_same_seed_same_report);
	tcase_add_loop_test(tc, test_pinned_results, 0, (int)ND_ARRAY_SIZE(pinned));
	return tc;
}
