// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * DCQCN's reaction point, per flow, as reference/fabric-models.md states it:
 *   on CNP:   Rt = Rc; Rc = max(Rmin, Rc (1 - alpha/2)); alpha = (1-g) alpha + g
 *   no CNP for K:   alpha = (1-g) alpha
 *   timer T or byte counter B fires (stages iT, iB):
 *     max(iT, iB) <= F: fast recovery  Rc = (Rc + Rt)/2
 *     min(iT, iB) >  F: hyper          Rt += (min - F) R_HAI; Rc = (Rc + Rt)/2
 *     otherwise:        additive       Rt += R_AI;            Rc = (Rc + Rt)/2
 * The state changes are plain functions (the unit tests step them); the rest wires them to
 * timers. Timers run only while the flow is below line rate.
 */
#include "sim.h"

void sim_dcqcn_init(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p, double line_bps)
{
	cc->rc = cc->rt = cc->line = line_bps;
	cc->alpha = p->alpha;
	cc->it = cc->ib = 0;
	cc->bytes = 0;
	cc->cut = false;
}

void sim_dcqcn_cnp(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	double min = (double)p->min_bps;

	cc->rt = cc->rc;
	cc->rc *= 1 - cc->alpha / 2;
	if (cc->rc < min)
		cc->rc = min;
	cc->alpha = (1 - p->g) * cc->alpha + p->g;
	cc->it = cc->ib = 0;
	cc->bytes = 0;
	cc->cut = true;
}

void sim_dcqcn_alpha_timer(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	cc->alpha *= 1 - p->g;
}

static void increase(struct sim_dcqcn *cc, const struct nd_sim_dcqcn *p)
{
	unsigned int hi = cc->it > cc->ib ? cc->it : cc->ib, lo = cc->it + cc->ib - hi;

	if (hi > p->fast_recovery) {
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
	if (!cc->cut)
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
	sim_dcqcn_cnp(&f->cc, p);
	/* a CNP restarts both timers; older timer events carry a stale generation */
	f->cc.t_gen++;
	f->cc.k_gen++;
	sim_push(s, s->now + p->timer_ps, EV_RATE_TIMER, fi, f->cc.t_gen);
	sim_push(s, s->now + p->alpha_timer_ps, EV_ALPHA_TIMER, fi, f->cc.k_gen);
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
