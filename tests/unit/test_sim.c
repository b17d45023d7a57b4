// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fabric model held to analytic results in whole runs: lossless incast at line rate and B/N
 * each, the headroom formula's value as the line between drops and none, go-back-N repairing
 * drops, InfiniBand credits (never a drop, credit wait under incast), the victim flow, the CNP
 * interval, ECMP and an idle flow's FCT. The suite's other cases: the event queue
 * (test_sim_core.c), the flow-control parts step by step (test_sim_flowctl.c), seeds, workloads
 * and pinned results (test_sim_workload.c).
 *
 * Tolerances: the payload rate of a 100G link with 1024-byte packets is 100 x 1024 / 1106 =
 * 92.59 Gb/s (RoCE: 62 bytes of headers and 20 of preamble and gap) or 100 x 1024 / 1050 =
 * 97.52 Gb/s (InfiniBand: 26 bytes). Runs are deterministic, so a tolerance is room for the
 * first round trip and for rounding, not for noise.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim.h"
#include "test_sim.h"

#define ROCE_CAP (100.0 * 1024 / (1024 + SIM_ROCE_HDR + SIM_ETH_GAP))
#define IB_CAP (100.0 * 1024 / (1024 + SIM_IB_HDR))

const char *unit_sim_shipped(const char *name, char *buf, size_t size)
{
	const char *dir = getenv("ND_SHIPPED_PROFILES");

	snprintf(buf, size, "%s/scenarios/%s", dir && *dir ? dir : "profiles", name);
	return buf;
}

/* N:1 incast on one switch, 100G links of 200 m (1 us), PFC only. */
static void incast(struct nd_scenario *s, unsigned int n)
{
	nd_scenario_init(s);
	s->topo.hosts = n + 1;
	s->wl.senders = n;
	s->duration_ps = 5 * MS;
	s->series_ps = 0;
	s->ecn.on = false;
	s->dcqcn.on = false;
}

void unit_sim_pair(struct nd_scenario *s)
{
	nd_scenario_init(s);
	s->topo.hosts = 2;
	s->wl.pattern = ND_PATTERN_PAIR;
	s->series_ps = 0;
}

void unit_sim_run(const struct nd_scenario *s, enum nd_fabric f, struct nd_run_report *r,
		  struct nd_sim_stats *st)
{
	struct nd_err e = { 0 };
	int ret = nd_sim_run(s, f, r, st, &e);

	ck_assert_msg(ret == 0, "nd_sim_run: %d %s", ret, e.msg);
}

const struct nd_port_result *unit_sim_port(const struct nd_run_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_ports; i++)
		if (!strcmp(r->ports[i].name, name))
			return &r->ports[i];
	ck_abort_msg("no port %s", name);
	return NULL;
}

static const struct nd_flow_result *flow(const struct nd_run_report *r, const char *name)
{
	size_t i;

	for (i = 0; i < r->n_flows; i++)
		if (!strcmp(r->flows[i].name, name))
			return &r->flows[i];
	ck_abort_msg("no flow %s", name);
	return NULL;
}

static void check_incast(unsigned int n, double tol)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	char name[32];
	size_t i;

	incast(&sc, n);
	unit_sim_run(&sc, ND_FABRIC_ROCE, &r, &st);
	ck_assert_uint_eq(r.drops, 0);
	ck_assert_uint_eq(r.retransmits, 0);
	/* the bottleneck runs full: 99 % of its payload rate */
	ck_assert_double_ge(r.aggregate_gbps, 0.99 * ROCE_CAP);
	ck_assert_double_le(r.aggregate_gbps, ROCE_CAP);
	ck_assert_double_ge(r.jain, 0.999);
	for (i = 0; i < n; i++) {
		/* each sender B/N within @tol, paused most of the time by PFC */
		ck_assert_double_eq_tol(r.flows[i].gbps, ROCE_CAP / n, tol * ROCE_CAP / n);
		snprintf(name, sizeof(name), "h%zu", i + 1);
		ck_assert_double_ge(unit_sim_port(&r, name)->pause_fraction, 0.5);
	}
	ck_assert_uint_eq(unit_sim_port(&r, "sw0/h0")->drops, 0);
	nd_run_report_free(&r);
}

/*
 * N:1 incast with enough headroom (the basic model's, per port): no drops, the bottleneck at
 * 99 % or more, each sender B/N within 3 % at 8:1 and 10 % at 64:1 (PFC resumes senders as
 * their PG drains, not round robin: over 5 ms 64 senders spread -1 %..+6 %), Jain >= 0.999.
 */
START_TEST(test_incast_lossless_8)
{
	check_incast(8, 0.03);
}
END_TEST

START_TEST(test_incast_lossless_64)
{
	check_incast(64, 0.10);
}
END_TEST

/*
 * Headroom against the cable: 300 m links (1.5 us), a static 64 KB threshold, 8:1 at 100G.
 * Under the basic model's value for the cable (64888 B for 1086-byte frames) PAUSE comes too
 * late and packets drop; at the value and above none do.
 */
START_TEST(test_headroom_line)
{
	static const double scale[] = { 0.5, 0.9, 1.0, 1.5 };
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct nd_headroom h;
	size_t k;

	ck_assert_int_eq(nd_headroom_required(100000, 300, 1024 + SIM_ROCE_HDR, ND_HDRM_BASIC, &h,
					      &e), 0);
	ck_assert_uint_eq(h.size, 64888);
	for (k = 0; k < sizeof(scale) / sizeof(scale[0]); k++) {
		incast(&sc, 8);
		sc.duration_ps = 2 * MS;
		sc.topo.host.delay_ps = 300 * 5000;
		sc.sw.alpha = 0;
		sc.sw.threshold = 64 * 1024;
		sc.sw.headroom = (uint64_t)(scale[k] * (double)h.size);
		unit_sim_run(&sc, ND_FABRIC_ROCE, &r, &st);
		if (scale[k] < 1)
			ck_assert_msg(r.drops > 0, "headroom x %.1f: no drops", scale[k]);
		else
			ck_assert_msg(r.drops == 0, "headroom x %.1f: %llu drops", scale[k],
				      (unsigned long long)r.drops);
		nd_run_report_free(&r);
	}
}
END_TEST

/* Drops are repaired: go-back-N resends from the gap and every finite flow completes. */
START_TEST(test_go_back_n)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	size_t i;

	incast(&sc, 8);
	sc.duration_ps = 5 * MS;
	sc.topo.host.delay_ps = 300 * 5000;
	sc.sw.alpha = 0;
	sc.sw.threshold = 64 * 1024;
	sc.sw.headroom = 32 * 1024;
	sc.wl.size = 256 * 1024;
	sc.rto_ps = 1 * MS;	/* a lost tail has no later packet to NAK it */
	unit_sim_run(&sc, ND_FABRIC_ROCE, &r, &st);
	ck_assert_uint_gt(r.drops, 0);
	ck_assert_uint_gt(r.retransmits, 0);
	ck_assert_uint_eq(st.flows_done, 8);
	for (i = 0; i < r.n_flows; i++) {
		ck_assert_uint_eq(r.flows[i].bytes, 256 * 1024);
		ck_assert_double_gt(r.flows[i].fct_us, 0);
	}
	ck_assert_uint_eq(r.fct.count, 8);
	nd_run_report_free(&r);
}
END_TEST

/* InfiniBand under 8:1 incast: never a drop, the bottleneck full, senders wait for credits. */
START_TEST(test_ib_incast)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	char name[32];
	size_t i;

	incast(&sc, 8);
	unit_sim_run(&sc, ND_FABRIC_IB, &r, &st);
	ck_assert_uint_eq(r.drops, 0);
	ck_assert_uint_eq(r.retransmits, 0);
	ck_assert_double_ge(r.aggregate_gbps, 0.99 * IB_CAP);
	for (i = 0; i < 8; i++) {
		ck_assert_double_eq_tol(r.flows[i].gbps, IB_CAP / 8, 0.03 * IB_CAP / 8);
		snprintf(name, sizeof(name), "h%zu", i + 1);
		ck_assert_double_ge(unit_sim_port(&r, name)->credit_wait_fraction, 0.5);
		ck_assert_double_eq(unit_sim_port(&r, name)->pause_fraction, 0);
	}
	/* the receiver's own link is never short of credit: it is the bottleneck */
	ck_assert_double_eq(unit_sim_port(&r, "sw0/h0")->credit_wait_fraction, 0);
	nd_run_report_free(&r);
}
END_TEST

/* ---- the victim ---- */

/*
 * The shipped leaf-spine victim: h0 -> h15 shares leaf0's uplinks with the 7:1 incast to h8.
 * With PFC alone the pause spreads back to h0 and the victim gets under a third of its link;
 * with DCQCN it gets twice that and over 60 %.
 */
START_TEST(test_victim)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	double pfc_only, dcqcn;
	char path[512];
	int ret;

	unit_sim_shipped("victim-leaf-spine.yaml", path, sizeof(path));
	ret = nd_scenario_load(path, &sc, &e);
	ck_assert_msg(ret == 0, "%s", e.msg);
	ck_assert(sc.dcqcn.on && sc.ecn.on && sc.pfc.on);
	unit_sim_run(&sc, ND_FABRIC_ROCE, &r, &st);
	dcqcn = flow(&r, "h0->h15")->gbps;
	ck_assert_uint_eq(r.drops, 0);
	nd_run_report_free(&r);
	sc.dcqcn.on = sc.ecn.on = false;
	unit_sim_run(&sc, ND_FABRIC_ROCE, &r, &st);
	pfc_only = flow(&r, "h0->h15")->gbps;
	ck_assert_double_gt(unit_sim_port(&r, "h0")->pause_fraction, 0.3);
	ck_assert_uint_eq(r.drops, 0);
	nd_run_report_free(&r);
	ck_assert_msg(pfc_only < ROCE_CAP / 3, "PFC only: victim %.1f Gb/s", pfc_only);
	ck_assert_msg(dcqcn > 2 * pfc_only && dcqcn > 0.6 * ROCE_CAP,
		      "DCQCN: victim %.1f Gb/s against %.1f with PFC only", dcqcn, pfc_only);
	nd_scenario_free(&sc);
}
END_TEST

/* At most one CNP per flow per N (50 us) at the notification point. */
START_TEST(test_cnp_interval)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	uint64_t sent, handled = 0;
	char name[32];
	int h;

	incast(&sc, 8);
	sc.ecn.on = sc.dcqcn.on = true;
	unit_sim_run(&sc, ND_FABRIC_ROCE, &r, &st);
	sent = unit_sim_port(&r, "h0")->cnp_sent;
	ck_assert_uint_gt(sent, 8);
	ck_assert_uint_le(sent, 8 * (5 * MS / (50 * US) + 1));
	for (h = 1; h <= 8; h++) {
		snprintf(name, sizeof(name), "h%d", h);
		handled += unit_sim_port(&r, name)->cnp_handled;
	}
	/* every CNP reaches its sender, but for those still on the wire at the end */
	ck_assert_uint_le(handled, sent);
	ck_assert_uint_ge(handled + 8, sent);
	ck_assert_uint_gt(unit_sim_port(&r, "sw0/h0")->ecn_marked, 0);
	nd_run_report_free(&r);
}
END_TEST

/* All-to-all across two leaves: ECMP uses both spines, nothing drops, every flow completes. */
START_TEST(test_leaf_spine_ecmp)
{
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct sim s;
	uint32_t i, n_up = 0;

	nd_scenario_init(&sc);
	sc.topo.kind = ND_TOPO_LEAF_SPINE;
	sc.topo.leaves = 2;
	sc.topo.spines = 2;
	sc.topo.hosts_per_leaf = 4;
	sc.wl.pattern = ND_PATTERN_ALL_TO_ALL;
	sc.wl.size = 128 * 1024;
	sc.duration_ps = 2 * MS;
	ck_assert_int_eq(sim_setup(&s, &sc, ND_FABRIC_ROCE, &e), 0);
	ck_assert_uint_eq(s.n_flows, 8 * 7);
	sim_loop(&s, s.end);
	ck_assert_uint_eq(s.drops, 0);
	for (i = 0; i < s.n_flows; i++)
		ck_assert_msg(s.flows[i].done, "flow %u did not complete", i);
	/* the leaves' uplinks: ports 4 and 5 of each leaf */
	for (i = 0; i < 2; i++) {
		const struct sim_node *leaf = &s.nodes[8 + i];

		n_up += s.ports[leaf->port0 + 4].tx_bytes > 0;
		n_up += s.ports[leaf->port0 + 5].tx_bytes > 0;
	}
	ck_assert_uint_eq(n_up, 4);
	sim_teardown(&s);
}
END_TEST

/* One flow on an idle fabric takes its ideal time: slowdown 1 (within 1 %). */
START_TEST(test_idle_slowdown)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;

	unit_sim_pair(&sc);
	sc.wl.size = 1 << 20;
	sc.duration_ps = 1 * MS;
	unit_sim_run(&sc, ND_FABRIC_ROCE, &r, &st);
	ck_assert_uint_eq(st.flows_done, 1);
	ck_assert_double_ge(r.flows[0].slowdown, 1);
	ck_assert_double_le(r.flows[0].slowdown, 1.01);
	/* 1 MiB at 92.59 Gb/s is 90.6 us, plus a round trip of 4 us and change */
	ck_assert_double_eq_tol(r.flows[0].fct_us, 90.6 + 4.2, 1.0);
	ck_assert_double_eq_tol(st.slowdown.p50, r.flows[0].slowdown, 1e-12);
	nd_run_report_free(&r);
}
END_TEST

Suite *suite_sim(void)
{
	Suite *s = suite_create("sim");
	TCase *model = tcase_create("model");

	suite_add_tcase(s, tcase_sim_core());
	suite_add_tcase(s, tcase_sim_flowctl());
	suite_add_tcase(s, tcase_sim_workload());
	/* whole runs, under ASan: give them time */
	tcase_set_timeout(model, 120);
	tcase_add_test(model, test_incast_lossless_8);
	tcase_add_test(model, test_incast_lossless_64);
	tcase_add_test(model, test_headroom_line);
	tcase_add_test(model, test_go_back_n);
	tcase_add_test(model, test_ib_incast);
	tcase_add_test(model, test_victim);
	tcase_add_test(model, test_cnp_interval);
	tcase_add_test(model, test_leaf_spine_ecmp);
	tcase_add_test(model, test_idle_slowdown);
	suite_add_tcase(s, model);
	suite_add_tcase(s, tcase_sim_determinism());
	return s;
}
