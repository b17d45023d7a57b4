// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCQCN's reaction point, per flow, as reference/fabric-models.md states it:
 *   on CNP:   Rt = Rc; Rc = max(Rmin, Rc (1 - alpha/2)); alpha = (1-g) alpha + g
 *   no CNP for K:   alpha = (1-g) alpha
 *   timer T or byte counter B fires (stages iT, iB):
 *     max(iT, iB) <= F: fast recovery  Rc = (Rc + Rt)/2
 *     min(iT, iB) >  F: hyper          Rt += (min - F) R_HAI; Rc = (Rc + Rt)/2
 *     otherwise:        additive       Rt += R_AI;            Rc = (Rc + Rt)/2
 * With no byte counter (B = 0) the timer's stage alone decides: F + 1 additive, then hyper by
 * R_HAI a stage. Without clamping (clamp-target-rate: false) a cut before any rise since the
 * last cut leaves Rt where it was, so a burst of CNPs does not drag the target down with Rc.
 *
 * ConnectX's reaction point (rate-reduce-period above 0), as the NIC's cc_params describe it
 * and the HPCC simulator's Mellanox model implements it: a CNP only notes itself; from the
 * first CNP on, a check every rate-reduce-period cuts once if any CNP came since the last
 * check, and alpha moves once every alpha-timer: (1-g) alpha + g if a CNP came in that period,
 * (1-g) alpha if not. Alpha starts at its initial value on the first CNP, which cuts nothing
 * by itself. Alpha's idle periods are applied when next read, so no event ticks for them.
 *
 * The state changes are plain functions (the unit tests step them); the rest wires them to
 * timers. Timers run only while the flow is below line rate.
 */
#include "sim_core.h"

void sim_dcqcn_init(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, double line_bps)
{
	cc->rc = cc->rt = cc->line = line_bps;
	cc->alpha = p->alpha;
	cc->it = cc->ib = 0;
	cc->bytes = 0;
	cc->cut = false;
	cc->seen = cc->cnp_alpha = cc->cnp_cut = cc->tick_pending = false;
	cc->anchor = cc->alpha_k = 0;
}

/* the cut itself, in both reaction points */
static void cut(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	double min = (double)p->min_bps;

	if (p->clamp || cc->it || cc->ib)
		cc->rt = cc->rc;
	cc->rc *= 1 - cc->alpha / 2;
	if (cc->rc < min)
		cc->rc = min;
	cc->it = cc->ib = 0;
	cc->bytes = 0;
	cc->cut = true;
}

void sim_dcqcn_cnp(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	cut(cc, p);
	cc->alpha = (1 - p->g) * cc->alpha + p->g;
}

/* x^n by squaring: n idle alpha periods at once */
static double pow_n(double x, uint64_t n)
{
	double r = 1;

	for (; n; n >>= 1, x *= x)
		if (n & 1)
			r *= x;
	return r;
}

/* ConnectX: apply the alpha periods that ended by @now; the first of them saw the noted CNP */
static void alpha_catch_up(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, uint64_t now)
{
	uint64_t k = (now - cc->anchor) / p->alpha_timer_ps, n;

	if (k <= cc->alpha_k)
		return;
	n = k - cc->alpha_k;
	if (cc->cnp_alpha) {
		cc->alpha = (1 - p->g) * cc->alpha + p->g;
		cc->cnp_alpha = false;
		n--;
	}
	cc->alpha *= pow_n(1 - p->g, n);
	cc->alpha_k = k;
}

bool sim_dcqcn_note(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, uint64_t now)
{
	if (!cc->seen) {
		cc->seen = true;
		cc->anchor = now;
		cc->alpha_k = 0;
		cc->alpha = p->alpha;
		cc->cnp_alpha = false;
	} else {
		alpha_catch_up(cc, p, now);
		cc->cnp_alpha = true;
	}
	cc->cnp_cut = true;
	if (cc->tick_pending)
		return false;
	cc->tick_pending = true;
	return true;
}

bool sim_dcqcn_check(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, uint64_t now)
{
	cc->tick_pending = false;
	if (!cc->cnp_cut)
		return false;
	alpha_catch_up(cc, p, now);
	cut(cc, p);
	cc->cnp_cut = false;
	return true;
}

void sim_dcqcn_alpha_timer(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	cc->alpha *= 1 - p->g;
}

static void increase(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	unsigned int hi = cc->it > cc->ib ? cc->it : cc->ib, lo = cc->it + cc->ib - hi;

	if (!p->byte_counter) {
		if (cc->it > p->fast_recovery + 1)
			cc->rt += (double)p->hai_bps;
		else if (cc->it > p->fast_recovery)
			cc->rt += (double)p->ai_bps;
	} else if (hi > p->fast_recovery) {
		if (lo > p->fast_recovery)
			cc->rt += (double)(lo - p->fast_recovery) * (double)p->hai_bps;
		else
			cc->rt += (double)p->ai_bps;
	}
	if (cc->rt > cc->line)
		cc->rt = cc->line;
	cc->rc = (cc->rc + cc->rt) / 2;
	/* the halving only approaches line rate: call a part per million close enough */
	if (cc->rt >= cc->line && cc->line - cc->rc < cc->line * 1e-6) {
		cc->rc = cc->line;
		cc->cut = false;
	}
}

void sim_dcqcn_rate_timer(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	cc->it++;
	increase(cc, p);
}

bool sim_dcqcn_sent(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, uint64_t bytes)
{
	if (!cc->cut || !p->byte_counter)
		return false;
	cc->bytes += bytes;
	if (cc->bytes < p->byte_counter)
		return false;
	cc->bytes -= p->byte_counter;
	cc->ib++;
	increase(cc, p);
	return true;
}

/* ---- the event wiring ---- */

void sim_dcqcn_on_cnp(struct sim *s, uint32_t fi)
{
	const struct nd_sim_dcqcn *p = &s->sc->dcqcn;
	struct sim_flow *f = &s->flows[fi];

	s->ports[s->hosts[f->src].port].cnp_handled++;
	if (!p->on || f->done)
		return;
	if (p->reduce_period_ps) {
		/* checks on the grid from the first CNP on; none pending while no CNP comes */
		if (sim_dcqcn_note(&f->cc, p, s->now))
			sim_push(s, f->cc.anchor + ((s->now - f->cc.anchor) / p->reduce_period_ps + 1) *
				 p->reduce_period_ps, EV_RATE_CHECK, fi, 0);
		return;
	}
	sim_dcqcn_cnp(&f->cc, p);
	/* a CNP restarts both timers; older timer events carry a stale generation */
	f->cc.t_gen++;
	f->cc.k_gen++;
	sim_push(s, s->now + p->timer_ps, EV_RATE_TIMER, fi, f->cc.t_gen);
	sim_push(s, s->now + p->alpha_timer_ps, EV_ALPHA_TIMER, fi, f->cc.k_gen);
}

void sim_on_rate_check(struct sim *s, uint32_t fi)
{
	const struct nd_sim_dcqcn *p = &s->sc->dcqcn;
	struct sim_flow *f = &s->flows[fi];

	if (f->done || !sim_dcqcn_check(&f->cc, p, s->now))
		return;
	/* a cut restarts the rise; the next check waits for the next CNP to be due */
	f->cc.t_gen++;
	sim_push(s, s->now + p->timer_ps, EV_RATE_TIMER, fi, f->cc.t_gen);
	f->cc.tick_pending = true;
	sim_push(s, s->now + p->reduce_period_ps, EV_RATE_CHECK, fi, 0);
}

void sim_on_rate_timer(struct sim *s, uint32_t fi, uint16_t gen)
{
	const struct nd_sim_dcqcn *p = &s->sc->dcqcn;
	struct sim_flow *f = &s->flows[fi];

	if (gen != f->cc.t_gen || f->done || !f->cc.cut)
		return;
	sim_dcqcn_rate_timer(&f->cc, p);
	if (f->cc.cut)
		sim_push(s, s->now + p->timer_ps, EV_RATE_TIMER, fi, gen);
}

void sim_on_alpha_timer(struct sim *s, uint32_t fi, uint16_t gen)
{
	const struct nd_sim_dcqcn *p = &s->sc->dcqcn;
	struct sim_flow *f = &s->flows[fi];

	if (gen != f->cc.k_gen || f->done)
		return;
	sim_dcqcn_alpha_timer(&f->cc, p);
	/* below 1e-6 the next cut is within a part per million of none: stop ticking */
	if (f->cc.alpha > 1e-6)
		sim_push(s, s->now + p->alpha_timer_ps, EV_ALPHA_TIMER, fi, gen);
}
