// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The flow-control and congestion parts of the fabric model, driven step by step: DCQCN's fast
 * recovery, alpha decay and ConnectX's reaction point as reference/fabric-models.md states them
 * (alone and in the loop), a 65535-quanta pause lasting 335.5 us, InfiniBand's credit rule, and
 * RED's marking between Kmin and Kmax.
 */
#include <math.h>
#include <string.h>

#include "sim/sim.h"
#include "test_sim.h"

/* ---- DCQCN ---- */

/* One CNP at alpha 1 from line rate: 50 %, then timer stages 75, 87.5, 93.75, 96.875, 98.44 %. */
START_TEST(test_dcqcn_fast_recovery)
{
	static const double want[] = { 75, 87.5, 93.75, 96.875, 98.4375 };
	struct nd_scenario s;
	struct sim_dcqcn cc;
	double line = 100e9;
	size_t k;

	nd_scenario_init(&s);
	ck_assert_uint_eq(s.dcqcn.fast_recovery, 5);
	ck_assert_double_eq(s.dcqcn.alpha, 1);
	sim_dcqcn_init(&cc, &s.dcqcn, line);
	sim_dcqcn_cnp(&cc, &s.dcqcn);
	ck_assert_double_eq_tol(cc.rc / line * 100, 50, 1e-12);
	ck_assert_double_eq(cc.rt, line);
	ck_assert_double_eq_tol(cc.alpha, 1, 1e-12);
	for (k = 0; k < 5; k++) {
		sim_dcqcn_rate_timer(&cc, &s.dcqcn);
		ck_assert_double_eq_tol(cc.rc / line * 100, want[k], 1e-9);
	}
	/* past F stages: additive increase; Rt is at line rate already, so Rc halves the gap */
	sim_dcqcn_rate_timer(&cc, &s.dcqcn);
	ck_assert_double_eq(cc.rt, line);
	ck_assert_double_eq_tol(cc.rc / line * 100, 99.21875, 1e-9);
	/* two CNPs: Rt is the cut rate, so after F stages Rt rises by R_AI per stage */
	sim_dcqcn_init(&cc, &s.dcqcn, line);
	sim_dcqcn_cnp(&cc, &s.dcqcn);
	sim_dcqcn_cnp(&cc, &s.dcqcn);
	ck_assert_double_eq_tol(cc.rt, 50e9, 1e-3);
	ck_assert_double_eq_tol(cc.rc, 25e9, 1e-3);
	for (k = 0; k < 5; k++)
		sim_dcqcn_rate_timer(&cc, &s.dcqcn);
	ck_assert_double_eq_tol(cc.rt, 50e9, 1e-3);
	sim_dcqcn_rate_timer(&cc, &s.dcqcn);
	ck_assert_double_eq_tol(cc.rt, 50e9 + 40e6, 1e-3);
	/* the byte counter is a stage counter too: B bytes give one stage; both past F: hyper */
	ck_assert(!sim_dcqcn_sent(&cc, &s.dcqcn, s.dcqcn.byte_counter - 1));
	ck_assert(sim_dcqcn_sent(&cc, &s.dcqcn, 1));
	ck_assert_uint_eq(cc.ib, 1);
}
END_TEST

/* The same, through the event loop: a CNP at 100 us, then the rate at each 55 us timer. */
START_TEST(test_dcqcn_in_the_loop)
{
	static const double want[] = { 50, 75, 87.5, 93.75, 96.875, 98.4375 };
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct sim s;
	size_t k;

	unit_sim_pair(&sc);
	sc.duration_ps = 1 * MS;
	ck_assert_int_eq(sim_setup(&s, &sc, ND_FABRIC_ROCE, &e), 0);
	sim_loop(&s, 100 * US);
	ck_assert_double_eq(s.flows[0].cc.rc, 100e9);
	sim_dcqcn_on_cnp(&s, 0);
	for (k = 0; k < 6; k++) {
		sim_loop(&s, 100 * US + k * 55 * US + 1000);
		ck_assert_double_eq_tol(s.flows[0].cc.rc / 1e9, want[k], 1e-9);
	}
	ck_assert_uint_eq(s.ports[0].cnp_handled, 1);
	sim_teardown(&s);
}
END_TEST

/* No CNP for K: alpha x (1 - 1/256); after k such periods (255/256)^k. */
START_TEST(test_alpha_decay)
{
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct sim_dcqcn cc;
	struct sim s;
	int k;

	nd_scenario_init(&sc);
	sim_dcqcn_init(&cc, &sc.dcqcn, 100e9);
	for (k = 0; k < 100; k++)
		sim_dcqcn_alpha_timer(&cc, &sc.dcqcn);
	ck_assert_double_eq_tol(cc.alpha, pow(255.0 / 256, 100), 1e-12);
	ck_assert_double_eq_tol(cc.alpha, 0.676, 0.0005);
	for (; k < 256; k++)
		sim_dcqcn_alpha_timer(&cc, &sc.dcqcn);
	ck_assert_double_eq_tol(cc.alpha, 0.367, 0.0005);
	/* in the loop: a CNP (alpha stays 1), then 100 alpha timers of 55 us */
	unit_sim_pair(&sc);
	sc.duration_ps = 6 * MS;
	ck_assert_int_eq(sim_setup(&s, &sc, ND_FABRIC_ROCE, &e), 0);
	sim_loop(&s, 10 * US);
	sim_dcqcn_on_cnp(&s, 0);
	ck_assert_double_eq(s.flows[0].cc.alpha, 1);
	sim_loop(&s, 10 * US + 100 * 55 * US + 1000);
	ck_assert_double_eq_tol(s.flows[0].cc.alpha, pow(255.0 / 256, 100), 1e-12);
	sim_teardown(&s);
}
END_TEST

/*
 * Without clamping, cuts before any rise keep Rt at line rate, so the first timer stage takes Rc
 * halfway back to it; a cut after a rise clamps Rt to Rc as before. With no byte counter the
 * timer's stage alone decides: F stages of fast recovery, one additive, then hyper by R_HAI.
 */
START_TEST(test_dcqcn_no_clamp_timer_stages)
{
	struct nd_scenario s;
	struct sim_dcqcn cc;
	double line = 100e9;

	nd_scenario_init(&s);
	s.dcqcn.clamp = false;
	s.dcqcn.byte_counter = 0;
	s.dcqcn.fast_recovery = 1;
	s.dcqcn.ai_bps = 50000000;
	s.dcqcn.hai_bps = 100000000;
	sim_dcqcn_init(&cc, &s.dcqcn, line);
	sim_dcqcn_cnp(&cc, &s.dcqcn);
	sim_dcqcn_cnp(&cc, &s.dcqcn);
	sim_dcqcn_cnp(&cc, &s.dcqcn);
	ck_assert_double_eq(cc.rt, line);
	ck_assert_double_eq_tol(cc.rc, 12.5e9, 1e-3);	/* alpha stays 1: three halvings */
	sim_dcqcn_rate_timer(&cc, &s.dcqcn);	/* stage 1: fast recovery toward line rate */
	ck_assert_double_eq(cc.rt, line);
	ck_assert_double_eq_tol(cc.rc, 56.25e9, 1e-3);
	/* a cut after that rise clamps */
	sim_dcqcn_cnp(&cc, &s.dcqcn);
	ck_assert_double_eq_tol(cc.rt, 56.25e9, 1e-3);
	ck_assert_double_eq_tol(cc.rc, 28.125e9, 1e-3);
	{
		double rt = cc.rt;

		ck_assert(!sim_dcqcn_sent(&cc, &s.dcqcn, 1 << 30));	/* no byte counter */
		sim_dcqcn_rate_timer(&cc, &s.dcqcn);	/* 1: fast recovery */
		ck_assert_double_eq(cc.rt, rt);
		sim_dcqcn_rate_timer(&cc, &s.dcqcn);	/* 2: additive */
		ck_assert_double_eq_tol(cc.rt, rt + 50e6, 1e-3);
		sim_dcqcn_rate_timer(&cc, &s.dcqcn);	/* 3: hyper */
		ck_assert_double_eq_tol(cc.rt, rt + 150e6, 1e-3);
		sim_dcqcn_rate_timer(&cc, &s.dcqcn);	/* 4: hyper again, the same step */
		ck_assert_double_eq_tol(cc.rt, rt + 250e6, 1e-3);
	}
}
END_TEST

/*
 * ConnectX's reaction point (rate-reduce-period 4 us, alpha-timer 1 us): the first CNP cuts
 * nothing and sets alpha to its initial value; the check 4 us later cuts once however many CNPs
 * came; alpha moved once per 1-us period, up only in periods that saw a CNP.
 */
START_TEST(test_dcqcn_connectx)
{
	struct nd_scenario s;
	struct sim_dcqcn cc;
	const double line = 100e9, g = 1.0 / 256;
	double a;
	int i;

	nd_scenario_init(&s);
	s.dcqcn.reduce_period_ps = 4 * US;
	s.dcqcn.alpha_timer_ps = 1 * US;
	sim_dcqcn_init(&cc, &s.dcqcn, line);
	ck_assert(sim_dcqcn_note(&cc, &s.dcqcn, 10 * US));	/* schedule a check */
	ck_assert_double_eq(cc.rc, line);
	ck_assert_double_eq(cc.alpha, 1);
	for (i = 0; i < 10; i++)		/* more CNPs in the first period: one check */
		ck_assert(!sim_dcqcn_note(&cc, &s.dcqcn, 10 * US + 100 * 1000 + i));
	ck_assert(sim_dcqcn_check(&cc, &s.dcqcn, 14 * US));
	/* periods ending at 11, 12, 13, 14 us: the first saw CNPs, the other three none */
	a = ((1 - g) * 1 + g) * pow(1 - g, 3);
	ck_assert_double_eq_tol(cc.alpha, a, 1e-15);
	ck_assert_double_eq_tol(cc.rc, line * (1 - a / 2), 1);
	ck_assert(cc.cut);
	/* no CNP since: the next check cuts nothing */
	ck_assert(!sim_dcqcn_check(&cc, &s.dcqcn, 18 * US));
	/* 1000 quiet periods later a CNP: alpha decayed in one step, not 1000 events */
	ck_assert(sim_dcqcn_note(&cc, &s.dcqcn, 1014 * US + 500 * 1000));
	ck_assert_double_eq_tol(cc.alpha, a * pow(1 - g, 1000), 1e-12);
	sim_dcqcn_init(&cc, &s.dcqcn, line);
	ck_assert(!sim_dcqcn_check(&cc, &s.dcqcn, 4 * US));	/* no CNP ever: nothing */
	ck_assert_double_eq(cc.rc, line);
}
END_TEST

/* In the loop: one CNP cuts at the next check on the 4-us grid from it, not before. */
START_TEST(test_dcqcn_connectx_in_the_loop)
{
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct sim s;

	unit_sim_pair(&sc);
	sc.dcqcn.reduce_period_ps = 4 * US;
	sc.dcqcn.alpha_timer_ps = 1 * US;
	sc.duration_ps = 1 * MS;
	ck_assert_int_eq(sim_setup(&s, &sc, ND_FABRIC_ROCE, &e), 0);
	sim_loop(&s, 100 * US);
	sim_dcqcn_on_cnp(&s, 0);
	sim_loop(&s, 104 * US - 1);
	ck_assert_double_eq(s.flows[0].cc.rc, 100e9);
	sim_loop(&s, 104 * US + 1);
	ck_assert_double_lt(s.flows[0].cc.rc, 51e9);
	ck_assert_double_gt(s.flows[0].cc.rc, 50e9);
	/* then the timer's fast recovery, 55 us after the cut */
	sim_loop(&s, 159 * US + 1);
	ck_assert_double_gt(s.flows[0].cc.rc, 75e9);
	sim_teardown(&s);
}
END_TEST

/* ---- PFC ---- */

/* A PAUSE of 65535 quanta at 100G holds a port for 335.5392 us, and then it sends again. */
START_TEST(test_pause_65535_quanta)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	struct sim s;
	uint64_t rx;

	unit_sim_pair(&sc);
	sc.duration_ps = 1 * MS;
	ck_assert_int_eq(sim_setup(&s, &sc, ND_FABRIC_ROCE, &e), 0);
	sim_push(&s, 10 * US, EV_PFC, 0, 65535);
	/* what was on the wire at 10 us has landed 3 us later; nothing more until the end */
	sim_loop(&s, 13 * US);
	ck_assert(s.ports[0].paused);
	rx = s.flows[0].rx_pkts;
	ck_assert_uint_gt(rx, 0);
	sim_loop(&s, 10 * US + 335539200 - 1);
	ck_assert(s.ports[0].paused);
	ck_assert_uint_eq(s.flows[0].rx_pkts, rx);
	sim_loop(&s, 10 * US + 335539200);
	ck_assert(!s.ports[0].paused);
	ck_assert_uint_eq(s.ports[0].paused_ps, 335539200);
	sim_loop(&s, 350 * US);
	ck_assert_uint_gt(s.flows[0].rx_pkts, rx);
	sim_loop(&s, s.end);
	sim_finish(&s);
	ck_assert_int_eq(sim_report(&s, &r, &st, &e), 0);
	ck_assert_double_eq_tol(unit_sim_port(&r, "h0")->pause_fraction, 335.5392 / 1000, 1e-9);
	ck_assert_uint_eq(unit_sim_port(&r, "h0")->pause_frames, 1);
	nd_run_report_free(&r);
	sim_teardown(&s);
}
END_TEST

/* ---- InfiniBand ---- */

START_TEST(test_ib_credit_rule)
{
	ck_assert_uint_eq(sim_ib_blocks(1), 1);
	ck_assert_uint_eq(sim_ib_blocks(64), 1);
	ck_assert_uint_eq(sim_ib_blocks(65), 2);
	ck_assert_uint_eq(sim_ib_blocks(1024 + SIM_IB_HDR), 17);
	ck_assert(sim_ib_can_send(1024, 0, 17));
	ck_assert(sim_ib_can_send(1024, 1007, 17));
	ck_assert(!sim_ib_can_send(1024, 1008, 17));
	/* 12-bit counters wrap: FCCL 10 after FCTBS 4090 is 16 blocks of credit */
	ck_assert(sim_ib_can_send(10, 4090, 16));
	ck_assert(!sim_ib_can_send(10, 4090, 17));
}
END_TEST

/* ---- ECN, ECMP, FCT ---- */

START_TEST(test_red_marking)
{
	struct nd_scenario sc;
	struct sim s;
	unsigned int i, marked = 0;

	nd_scenario_init(&sc);
	memset(&s, 0, sizeof(s));
	s.sc = &sc;
	sim_rng_seed(&s.rng_ecn, 3);
	for (i = 0; i < 1000; i++) {
		ck_assert(!sim_ecn_mark(&s, sc.ecn.kmin));
		ck_assert(sim_ecn_mark(&s, sc.ecn.kmax + 1));
	}
	/* halfway between Kmin and Kmax: Pmax / 2 = 0.5 % */
	for (i = 0; i < 200000; i++)
		marked += sim_ecn_mark(&s, (sc.ecn.kmin + sc.ecn.kmax) / 2);
	ck_assert_double_eq_tol(marked / 200000.0, 0.005, 0.0005);
}
END_TEST

TCase *tcase_sim_flowctl(void)
{
	TCase *tc = tcase_create("flowctl");

	tcase_add_test(tc, test_dcqcn_fast_recovery);
	tcase_add_test(tc, test_dcqcn_in_the_loop);
	tcase_add_test(tc, test_dcqcn_no_clamp_timer_stages);
	tcase_add_test(tc, test_dcqcn_connectx);
	tcase_add_test(tc, test_dcqcn_connectx_in_the_loop);
	tcase_add_test(tc, test_alpha_decay);
	tcase_add_test(tc, test_pause_65535_quanta);
	tcase_add_test(tc, test_ib_credit_rule);
	tcase_add_test(tc, test_red_marking);
	return tc;
}
