// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ECN: RED on a switch's egress queue, decided as a packet leaves (so the mark reflects the
 * queue it actually waited in), and the notification point at the receiving NIC, which turns
 * marks into at most one CNP per flow per interval N (the NIC sends it).
 */
#include "sim_core.h"

bool sim_ecn_mark(struct sim *s, uint64_t q)
{
	const struct nd_sim_ecn *ecn = &s->sc->ecn;
	double p;

	if (q <= ecn->kmin)
		return false;
	if (q > ecn->kmax)
		return true;
	p = ecn->pmax * (double)(q - ecn->kmin) / (double)(ecn->kmax - ecn->kmin);
	return sim_rng_unit(&s->rng_ecn) < p;
}

bool sim_np_on_ce(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	if (f->cnp_ever && s->now - f->last_cnp < s->sc->dcqcn.cnp_interval_ps)
		return false;
	f->cnp_ever = true;
	f->last_cnp = s->now;
	s->ports[s->hosts[f->dst].port].cnp_sent++;
	return true;
}
