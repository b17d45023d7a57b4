// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The fabric model held to analytic results: lossless incast at line rate and B/N each, the
 * headroom formula's value as the line between drops and none, DCQCN's fast recovery and alpha
 * decay as reference/fabric-models.md states them, a 65535-quanta pause lasting 335.5 us,
 * InfiniBand credits (never a drop, credit wait under incast), the victim flow, go-back-N,
 * ECMP, RED, and determinism for a seed.
 *
 * Tolerances: the payload rate of a 100G link with 1024-byte packets is 100 x 1024 / 1106 =
 * 92.59 Gb/s (RoCE: 62 bytes of headers and 20 of preamble and gap) or 100 x 1024 / 1050 =
 * 97.52 Gb/s (InfiniBand: 26 bytes). Runs are deterministic, so a tolerance is room for the
 * first round trip and for rounding, not for noise.
 */
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim/sim.h"
#include "unit.h"

#define US 1000000ULL		/* picoseconds */
#define MS 1000000000ULL
#define ROCE_CAP (100.0 * 1024 / (1024 + SIM_ROCE_HDR + SIM_ETH_GAP))
#define IB_CAP (100.0 * 1024 / (1024 + SIM_IB_HDR))

static const char *shipped(const char *name, char *buf, size_t size)
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

static void pair(struct nd_scenario *s)
{
	nd_scenario_init(s);
	s->topo.hosts = 2;
	s->wl.pattern = ND_PATTERN_PAIR;
	s->series_ps = 0;
}

static void run(const struct nd_scenario *s, enum nd_fabric f, struct nd_run_report *r,
		struct nd_sim_stats *st)
{
	struct nd_err e = { 0 };
	int ret = nd_sim_run(s, f, r, st, &e);

	ck_assert_msg(ret == 0, "nd_sim_run: %d %s", ret, e.msg);
}

static const struct nd_port_result *port(const struct nd_run_report *r, const char *name)
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

/* ---- the event queue ---- */

/*
 * The order the queue must keep, written the slow way: everything due within the wheel's
 * 67 us by (time, push order), the rest in the far heap, and the heap only when strictly
 * earlier. The wheel's buckets, their sort and the heap beside the drain must pop exactly this.
 */
struct ref_q {
	struct { uint64_t t, seq; uint32_t ref; } near[8192];
	uint32_t n;
	uint64_t cur, seq;
	struct sim_heap far;
};

static void ref_push(struct ref_q *r, uint64_t t, uint32_t ref)
{
	if ((t >> SIM_WHEEL_SHIFT) >= r->cur + SIM_WHEEL_SLOTS) {
		ck_assert_int_eq(sim_heap_push(&r->far, t, EV_START, ref, 0), 0);
		return;
	}
	ck_assert_uint_lt(r->n, 8192);
	r->near[r->n].t = t;
	r->near[r->n].seq = r->seq++;
	r->near[r->n++].ref = ref;
}

static bool ref_pop(struct ref_q *r, uint64_t until, struct sim_ev *out)
{
	const struct sim_ev *far = sim_heap_top(&r->far);
	uint32_t i, best = 0;

	for (i = 1; i < r->n; i++)
		if (r->near[i].t < r->near[best].t ||
		    (r->near[i].t == r->near[best].t && r->near[i].seq < r->near[best].seq))
			best = i;
	if (!r->n || (far && far->t < r->near[best].t)) {
		if (!far || far->t > until)
			return false;
		sim_heap_pop(&r->far, out);
	} else {
		if (r->near[best].t > until)
			return false;
		out->t = r->near[best].t;
		out->ref = r->near[best].ref;
		r->near[best] = r->near[--r->n];
	}
	r->cur = out->t >> SIM_WHEEL_SHIFT;
	return true;
}

START_TEST(test_event_queue_reference)
{
	struct sim_evq *q = malloc(sizeof(*q));
	struct ref_q *r = calloc(1, sizeof(*r));
	uint64_t now = 0, t, until;
	struct sim_ev a, b;
	struct sim_rng rng;
	uint32_t i, k, burst, ref = 0;
	bool got;

	ck_assert_ptr_nonnull(q);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(sim_evq_init(q), 0);
	ck_assert_int_eq(sim_heap_init(&r->far, 16), 0);
	sim_rng_seed(&rng, (uint64_t)_i + 1);
	for (i = 0; i < 4000; i++) {
		/* bursts into one bucket (the radix sort), single events, ties, the far heap */
		burst = sim_rng_next(&rng) % 8 ? 1 : 1 + (uint32_t)(sim_rng_next(&rng) % 60);
		for (k = 0; k < burst; k++) {
			switch (sim_rng_next(&rng) % 5) {
			case 0:
				t = now + sim_rng_next(&rng) % 4096;
				break;
			case 1:
				t = now + sim_rng_next(&rng) % 64;
				break;
			case 2:
				t = now + sim_rng_next(&rng) % (80 * US);
				break;
			case 3:
				t = (now | 4095) + 1 + sim_rng_next(&rng) % 3 * 4096;
				break;
			default:
				t = now;
				break;
			}
			if (sim_rng_next(&rng) % 16 == 0)
				t = now + 67 * US + sim_rng_next(&rng) % (2 * US);
			ck_assert_int_eq(sim_evq_push(q, t, EV_START, ref, 0), 0);
			ref_push(r, t, ref++);
		}
		/* as many pops as pushes, on average: the queue stays a few hundred deep */
		k = (uint32_t)(sim_rng_next(&rng) % (2 * burst + 2));
		while (k--) {
			until = sim_rng_next(&rng) % 4 ? UINT64_MAX : now + sim_rng_next(&rng) % 8192;
			got = sim_evq_pop(q, until, &a);
			ck_assert_int_eq(got, ref_pop(r, until, &b));
			if (!got)
				break;
			ck_assert_msg(a.t == b.t && a.ref == b.ref,
				      "seed %d pop: %llu/%u, the reference %llu/%u", _i + 1,
				      (unsigned long long)a.t, a.ref, (unsigned long long)b.t, b.ref);
			now = a.t;
		}
	}
	while (ref_pop(r, UINT64_MAX, &b)) {
		ck_assert(sim_evq_pop(q, UINT64_MAX, &a));
		ck_assert(a.t == b.t && a.ref == b.ref);
	}
	ck_assert(!sim_evq_pop(q, UINT64_MAX, &a));
	sim_heap_free(&r->far);
	sim_evq_free(q);
	free(r);
	free(q);
}
END_TEST

START_TEST(test_event_order)
{
	struct sim_evq *q = malloc(sizeof(*q));
	struct sim_rng rng;
	struct sim_ev ev;
	uint64_t now = 0, t, last_t = 0;
	uint32_t i, pushed = 0, popped = 0, last_ref = 0;

	ck_assert_ptr_nonnull(q);
	ck_assert_int_eq(sim_evq_init(q), 0);
	sim_rng_seed(&rng, 7);
	/* near (same bucket, ties), far (the heap) and everything between, pushed as time goes */
	for (i = 0; i < 20000; i++) {
		switch (sim_rng_next(&rng) % 4) {
		case 0:
			t = now + sim_rng_next(&rng) % 2048;
			break;
		case 1:
			t = now + sim_rng_next(&rng) % (20 * US);
			break;
		case 2:
			t = now + sim_rng_next(&rng) % (3 * MS);
			break;
		default:
			t = now;
			break;
		}
		ck_assert_int_eq(sim_evq_push(q, t, EV_START, pushed++, 0), 0);
		if (sim_rng_next(&rng) % 2 && sim_evq_pop(q, UINT64_MAX, &ev)) {
			ck_assert_uint_ge(ev.t, last_t);
			/*
			 * equal times come out in push order; a tie with an event that waited in
			 * the far heap need not (sim_core.h), and this seed's 3 ms pushes meet none
			 */
			if (ev.t == last_t && popped)
				ck_assert_uint_gt(ev.ref, last_ref);
			last_t = now = ev.t;
			last_ref = ev.ref;
			popped++;
		}
	}
	while (sim_evq_pop(q, UINT64_MAX, &ev)) {
		ck_assert_uint_ge(ev.t, last_t);
		last_t = ev.t;
		popped++;
	}
	ck_assert_uint_eq(popped, pushed);
	/* nothing is taken before its time: the loop stops at a run's end this way */
	ck_assert_int_eq(sim_evq_push(q, last_t + 100, EV_START, 1, 0), 0);
	ck_assert_int_eq(sim_evq_push(q, last_t + 200 * US, EV_START, 2, 0), 0);
	ck_assert(!sim_evq_pop(q, last_t + 99, &ev));
	ck_assert(sim_evq_pop(q, last_t + 100, &ev));
	ck_assert_uint_eq(ev.ref, 1);
	ck_assert(!sim_evq_pop(q, last_t + 200 * US - 1, &ev));
	ck_assert(sim_evq_pop(q, UINT64_MAX, &ev));
	ck_assert_uint_eq(ev.ref, 2);
	sim_evq_free(q);
	free(q);
}
END_TEST

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

	pair(&sc);
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
	pair(&sc);
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

	pair(&sc);
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

	pair(&sc);
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
	ck_assert_double_eq_tol(port(&r, "h0")->pause_fraction, 335.5392 / 1000, 1e-9);
	ck_assert_uint_eq(port(&r, "h0")->pause_frames, 1);
	nd_run_report_free(&r);
	sim_teardown(&s);
}
END_TEST

static void check_incast(unsigned int n, double tol)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	char name[32];
	size_t i;

	incast(&sc, n);
	run(&sc, ND_FABRIC_ROCE, &r, &st);
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
		ck_assert_double_ge(port(&r, name)->pause_fraction, 0.5);
	}
	ck_assert_uint_eq(port(&r, "sw0/h0")->drops, 0);
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
		run(&sc, ND_FABRIC_ROCE, &r, &st);
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
	run(&sc, ND_FABRIC_ROCE, &r, &st);
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

/* InfiniBand under 8:1 incast: never a drop, the bottleneck full, senders wait for credits. */
START_TEST(test_ib_incast)
{
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	char name[32];
	size_t i;

	incast(&sc, 8);
	run(&sc, ND_FABRIC_IB, &r, &st);
	ck_assert_uint_eq(r.drops, 0);
	ck_assert_uint_eq(r.retransmits, 0);
	ck_assert_double_ge(r.aggregate_gbps, 0.99 * IB_CAP);
	for (i = 0; i < 8; i++) {
		ck_assert_double_eq_tol(r.flows[i].gbps, IB_CAP / 8, 0.03 * IB_CAP / 8);
		snprintf(name, sizeof(name), "h%zu", i + 1);
		ck_assert_double_ge(port(&r, name)->credit_wait_fraction, 0.5);
		ck_assert_double_eq(port(&r, name)->pause_fraction, 0);
	}
	/* the receiver's own link is never short of credit: it is the bottleneck */
	ck_assert_double_eq(port(&r, "sw0/h0")->credit_wait_fraction, 0);
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

	ret = nd_scenario_load(shipped("victim-leaf-spine.yaml", path, sizeof(path)), &sc, &e);
	ck_assert_msg(ret == 0, "%s", e.msg);
	ck_assert(sc.dcqcn.on && sc.ecn.on && sc.pfc.on);
	run(&sc, ND_FABRIC_ROCE, &r, &st);
	dcqcn = flow(&r, "h0->h15")->gbps;
	ck_assert_uint_eq(r.drops, 0);
	nd_run_report_free(&r);
	sc.dcqcn.on = sc.ecn.on = false;
	run(&sc, ND_FABRIC_ROCE, &r, &st);
	pfc_only = flow(&r, "h0->h15")->gbps;
	ck_assert_double_gt(port(&r, "h0")->pause_fraction, 0.3);
	ck_assert_uint_eq(r.drops, 0);
	nd_run_report_free(&r);
	ck_assert_msg(pfc_only < ROCE_CAP / 3, "PFC only: victim %.1f Gb/s", pfc_only);
	ck_assert_msg(dcqcn > 2 * pfc_only && dcqcn > 0.6 * ROCE_CAP,
		      "DCQCN: victim %.1f Gb/s against %.1f with PFC only", dcqcn, pfc_only);
	nd_scenario_free(&sc);
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
	run(&sc, ND_FABRIC_ROCE, &r, &st);
	sent = port(&r, "h0")->cnp_sent;
	ck_assert_uint_gt(sent, 8);
	ck_assert_uint_le(sent, 8 * (5 * MS / (50 * US) + 1));
	for (h = 1; h <= 8; h++) {
		snprintf(name, sizeof(name), "h%d", h);
		handled += port(&r, name)->cnp_handled;
	}
	/* every CNP reaches its sender, but for those still on the wire at the end */
	ck_assert_uint_le(handled, sent);
	ck_assert_uint_ge(handled + 8, sent);
	ck_assert_uint_gt(port(&r, "sw0/h0")->ecn_marked, 0);
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

	pair(&sc);
	sc.wl.size = 1 << 20;
	sc.duration_ps = 1 * MS;
	run(&sc, ND_FABRIC_ROCE, &r, &st);
	ck_assert_uint_eq(st.flows_done, 1);
	ck_assert_double_ge(r.flows[0].slowdown, 1);
	ck_assert_double_le(r.flows[0].slowdown, 1.01);
	/* 1 MiB at 92.59 Gb/s is 90.6 us, plus a round trip of 4 us and change */
	ck_assert_double_eq_tol(r.flows[0].fct_us, 90.6 + 4.2, 1.0);
	ck_assert_double_eq_tol(st.slowdown.p50, r.flows[0].slowdown, 1e-12);
	nd_run_report_free(&r);
}
END_TEST

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
	ret = nd_cdf_load(shipped("cdf/hadoop.cdf", path, sizeof(path)), &sc->wl.cdf,
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
	run(&sc, ND_FABRIC_ROCE, &a, &sa);
	run(&sc, ND_FABRIC_ROCE, &b, &sb);
	ck_assert_uint_gt(a.n_flows, 50);
	ck_assert(same_report(&a, &b));
	ck_assert_uint_eq(sa.events, sb.events);
	nd_run_report_free(&b);
	sc.seed = 12;
	run(&sc, ND_FABRIC_ROCE, &b, &sb);
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

	ret = nd_scenario_load(shipped(pinned[_i].file, path, sizeof(path)), &sc, &e);
	ck_assert_msg(ret == 0, "%s", e.msg);
	if (sc.duration_ps > 2 * MS)
		sc.duration_ps = 2 * MS;
	run(&sc, pinned[_i].fabric, &r, &st);
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

	ck_assert_int_eq(nd_cdf_load(shipped("cdf/websearch.cdf", path, sizeof(path)), &pts, &n,
				     &e), 0);
	ck_assert_uint_eq(n, 12);
	ck_assert_double_eq_tol(nd_cdf_mean(pts, n), 1711250, 1e-6);
	ck_assert_double_eq_tol(sim_cdf_sample(pts, n, 0.15), 10000, 1e-6);
	ck_assert_double_eq_tol(sim_cdf_sample(pts, n, 0.535), 80000 + 120000.0 / 7 * 0.5, 1e-6);
	sim_rng_seed(&rng, 9);
	for (i = 0; i < 400000; i++)
		sum += sim_cdf_sample(pts, n, sim_rng_unit(&rng));
	ck_assert_double_eq_tol(sum / 400000, 1711250, 0.02 * 1711250);
	free(pts);
	ck_assert_int_eq(nd_cdf_load(shipped("cdf/hadoop.cdf", path, sizeof(path)), &pts, &n,
				     &e), 0);
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

Suite *suite_sim(void)
{
	Suite *s = suite_create("sim");
	TCase *core = tcase_create("mechanisms"), *model = tcase_create("model");

	tcase_add_test(core, test_event_order);
	tcase_add_loop_test(core, test_event_queue_reference, 0, 12);
	tcase_add_test(core, test_dcqcn_fast_recovery);
	tcase_add_test(core, test_dcqcn_in_the_loop);
	tcase_add_test(core, test_dcqcn_no_clamp_timer_stages);
	tcase_add_test(core, test_dcqcn_connectx);
	tcase_add_test(core, test_dcqcn_connectx_in_the_loop);
	tcase_add_test(core, test_alpha_decay);
	tcase_add_test(core, test_pause_65535_quanta);
	tcase_add_test(core, test_ib_credit_rule);
	tcase_add_test(core, test_red_marking);
	tcase_add_test(core, test_cdf_sampling);
	tcase_add_test(core, test_cdf_sample_bounds);
	tcase_add_test(core, test_seed_arrivals);
	tcase_add_test(core, test_poisson_load);
	suite_add_tcase(s, core);
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
	tcase_add_test(model, test_same_seed_same_report);
	tcase_add_loop_test(model, test_pinned_results, 0, (int)ND_ARRAY_SIZE(pinned));
	suite_add_tcase(s, model);
	return s;
}
