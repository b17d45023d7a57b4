// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Workloads: the flows of a pattern (as `nodrop stress` drives them: pair, incast, victim,
 * all-to-all), or Poisson arrivals per host with sizes from a flow-size CDF, the way published
 * simulators load a fabric: mean gap = mean size x 8 / (link rate x load), destination uniform
 * among the other hosts. All flows are drawn before the run from the workload's own random
 * stream, so marking decisions never shift the arrivals and a seed fixes them.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim_core.h"

#define SEED_WORKLOAD 0x776f726bULL	/* "work" */
#define SERIES_MAX (1u << 24)		/* samples in all: 128 MiB of doubles */

struct flows {
	struct sim *s;
	struct sim_rng rng;
	uint32_t cap;
};

static int add_flow(struct flows *w, uint32_t src, uint32_t dst, uint64_t size, uint64_t start)
{
	struct sim *s = w->s;
	struct sim_flow *f;
	uint32_t cap;

	if (s->n_flows == ND_SIM_FLOWS_MAX)
		return -E2BIG;
	if (s->n_flows == w->cap) {
		cap = w->cap ? 2 * w->cap : 64;
		f = realloc(s->flows, (size_t)cap * sizeof(*f));
		if (!f)
			return -ENOMEM;
		s->flows = f;
		w->cap = cap;
	}
	f = &s->flows[s->n_flows];
	memset(f, 0, sizeof(*f));
	f->src = src;
	f->dst = dst;
	f->size = size;
	f->npkts = size ? (uint32_t)((size + s->sc->mtu - 1) / s->sc->mtu) : 0;
	f->start = start;
	f->hash = (uint32_t)sim_mix64(s->sc->seed ^ ((uint64_t)s->n_flows << 20));
	f->next_active = f->prev_active = SIM_NONE;
	s->n_flows++;
	return 0;
}

static uint64_t jitter(struct flows *w)
{
	uint64_t j = w->s->sc->wl.jitter_ps;

	return j ? sim_rng_next(&w->rng) % j : 0;
}

/* Incast senders: @senders hosts from @first_sender up, skipping the receiver. */
static int incast(struct flows *w, const struct nd_sim_workload *wl)
{
	uint32_t h, sent = 0;
	int ret = 0;

	for (h = wl->first_sender; !ret && sent < wl->senders; h++) {
		if (h == wl->receiver)
			continue;
		ret = add_flow(w, h, wl->receiver, wl->size, jitter(w));
		sent++;
	}
	return ret;
}

static int poisson(struct flows *w, const struct nd_sim_workload *wl)
{
	struct sim *s = w->s;
	double mean = nd_cdf_mean(wl->cdf, wl->n_cdf), gap_ps, t, size;
	uint32_t h, dst;
	int ret = 0;

	gap_ps = mean * 8 / ((double)s->sc->topo.host.speed_bps * wl->load) * SIM_PS_PER_S;
	for (h = 0; h < s->n_hosts && !ret; h++) {
		for (t = 0;;) {
			/* exponential gaps: -ln(1 - u) x mean; 1 - u is never 0 */
			t += -nd_log(1 - sim_rng_unit(&w->rng)) * gap_ps;
			if (t >= (double)s->end)
				break;
			/* a cap that left the last hosts idle would skew the load: refuse */
			if (s->n_flows == wl->max_flows)
				return -ERANGE;
			size = sim_cdf_sample(wl->cdf, wl->n_cdf, sim_rng_unit(&w->rng));
			dst = (uint32_t)(sim_rng_next(&w->rng) % (s->n_hosts - 1));
			dst += dst >= h;
			size = size < 1 ? 1 : size + 0.5;
			ret = add_flow(w, h, dst, (uint64_t)size, (uint64_t)t);
			if (ret)
				break;
		}
	}
	return ret;
}

static int pattern(struct flows *w)
{
	const struct nd_sim_workload *wl = &w->s->sc->wl;
	uint32_t i, j, n = w->s->n_hosts;
	int ret = 0;

	switch (wl->pattern) {
	case ND_PATTERN_PAIR:
		for (i = 0; !ret && i < wl->pairs; i++)
			ret = add_flow(w, 2 * i, 2 * i + 1, wl->size, jitter(w));
		return ret;
	case ND_PATTERN_INCAST:
		return incast(w, wl);
	case ND_PATTERN_VICTIM:
		ret = incast(w, wl);
		return ret ? ret : add_flow(w, wl->victim_src, wl->victim_dst, wl->size, jitter(w));
	case ND_PATTERN_ALL_TO_ALL:
		for (i = 0; !ret && i < n; i++)
			for (j = 0; !ret && j < n; j++)
				if (i != j)
					ret = add_flow(w, i, j, wl->size, jitter(w));
		return ret;
	case ND_PATTERN_POISSON:
		return poisson(w, wl);
	default:
		return -EINVAL;
	}
}

int sim_workload_build(struct sim *s, struct nd_err *e)
{
	struct flows w = { .s = s };
	uint32_t i;
	int ret;

	sim_rng_seed(&w.rng, sim_mix64(s->sc->seed ^ SEED_WORKLOAD));
	ret = pattern(&w);
	if (ret == -E2BIG)
		return nd_err_set(e, ret, "workload: over %d flows; shorten the run or lower the "
				  "load", ND_SIM_FLOWS_MAX);
	if (ret == -ERANGE)
		return nd_err_set(e, -EINVAL, "workload.max-flows: the arrivals need more than %u "
				  "flows; raise max-flows, lower the load or shorten the run",
				  s->sc->wl.max_flows);
	if (ret)
		return nd_err_set(e, ret, "workload: out of memory for %u flows", s->n_flows);
	for (i = 0; i < s->n_flows; i++) {
		sim_dcqcn_init(&s->flows[i].cc, &s->sc->dcqcn,
			       (double)s->ports[s->hosts[s->flows[i].src].port].speed_bps);
		if (s->flows[i].start <= s->end)
			sim_push(s, s->flows[i].start, EV_START, i, 0);
	}
	if (s->sc->series_ps && s->n_flows) {
		s->n_series = (size_t)((s->end + s->sc->series_ps - 1) / s->sc->series_ps);
		if ((uint64_t)s->n_flows * s->n_series > SERIES_MAX)
			return nd_err_set(e, -EINVAL, "series: %u flows x %zu samples is over %u; "
					  "give a longer interval or series: 0", s->n_flows,
					  s->n_series, SERIES_MAX);
		s->series = calloc((size_t)s->n_flows * s->n_series, sizeof(*s->series));
		if (!s->series)
			return nd_err_set(e, -ENOMEM, "out of memory for %u flows x %zu samples",
					  s->n_flows, s->n_series);
	}
	return s->err ? nd_err_set(e, s->err, "out of memory for the event queue") : 0;
}
