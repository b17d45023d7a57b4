// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A finished run as a struct nd_run_report, field for field what `nodrop stress` measures:
 * per-flow goodput, FCT and slowdown, fairness, and per port what its counters would say (pause
 * time and frames, ECN marks, CNPs, credit wait, drops). The model's own numbers (events,
 * slowdown percentiles per flow-size bucket) go to struct nd_sim_stats.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim_core.h"

#define EVIDENCE_MAX 16

/* the run report's evidence entry, by its member rather than its tag */
typedef __typeof__(((struct nd_run_report *)0)->evidence[0]) evidence_t;

static const uint64_t bucket_edges[ND_SIM_BUCKETS] = { 0, 10000, 100000, 1000000, 10000000 };

static double ps_to_s(uint64_t ps)
{
	return (double)ps / SIM_PS_PER_S;
}

double sim_ideal_fct_ps(const struct sim *s, const struct sim_flow *f)
{
	const struct nd_sim_topo *t = &s->sc->topo;
	const struct nd_sim_link *hops[4];
	unsigned int n = 0, i, ctrl = SIM_CTRL_PAYLOAD + s->hdr, hpl = t->hosts_per_leaf;
	double base = 0, line = (double)t->host.speed_bps, wire;

	hops[n++] = &t->host;
	if (t->kind == ND_TOPO_LEAF_SPINE && f->src / hpl != f->dst / hpl) {
		hops[n++] = &t->fabric;
		hops[n++] = &t->fabric;
	}
	hops[n++] = &t->host;
	/* a full packet there and an ACK back, store and forward at every hop */
	for (i = 0; i < n; i++)
		base += 2.0 * (double)hops[i]->delay_ps +
			(double)(s->data_bytes + ctrl + 2 * s->gap) * 8 * SIM_PS_PER_S /
			(double)hops[i]->speed_bps;
	wire = (double)f->size + (double)f->npkts * (s->hdr + s->gap);
	return base + wire * 8 * SIM_PS_PER_S / line;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double nearest_rank(const double *v, size_t n, double q)
{
	size_t k = (size_t)(q * (double)n);

	if ((double)k < q * (double)n)
		k++;
	return v[k ? k - 1 : 0];
}

static void pct_of(double *v, size_t n, struct nd_sim_pct *out)
{
	double sum = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	out->count = n;
	out->p50 = nearest_rank(v, n, 0.50);
	out->p95 = nearest_rank(v, n, 0.95);
	out->p99 = nearest_rank(v, n, 0.99);
	out->max = v[n - 1];
	out->mean = sum / (double)n;
}

static int flow_result(struct sim *s, uint32_t fi, struct nd_flow_result *r)
{
	const struct sim_flow *f = &s->flows[fi];
	uint64_t until = f->rx_done ? f->rx_done_at : s->end;
	size_t k;

	if (s->sc->wl.pattern == ND_PATTERN_POISSON)
		snprintf(r->name, sizeof(r->name), "#%u h%u->h%u", fi, f->src, f->dst);
	else
		snprintf(r->name, sizeof(r->name), "h%u->h%u", f->src, f->dst);
	snprintf(r->src, sizeof(r->src), "h%u", f->src);
	snprintf(r->dst, sizeof(r->dst), "h%u", f->dst);
	r->start_s = ps_to_s(f->start);
	r->size = f->size;
	sim_flow_path(s, fi, r->path, sizeof(r->path));
	r->bytes = f->rx_bytes;
	r->messages = f->rx_pkts;
	r->retransmits = f->retransmits;
	if (until > f->start)
		r->gbps = (double)f->rx_bytes * 8 / ps_to_s(until - f->start) / 1e9;
	if (f->done) {
		r->fct_us = (double)(f->done_at - f->start) / 1e6;
		r->slowdown = (double)(f->done_at - f->start) / sim_ideal_fct_ps(s, f);
		if (r->slowdown < 1)
			r->slowdown = 1;
	}
	if (!s->n_series)
		return 0;
	r->series_gbps = calloc(s->n_series, sizeof(*r->series_gbps));
	if (!r->series_gbps)
		return -ENOMEM;
	r->n_series = s->n_series;
	r->series_dt_s = ps_to_s(s->sc->series_ps);
	for (k = 0; k < s->n_series; k++) {
		uint64_t from = k * s->sc->series_ps, to = from + s->sc->series_ps;

		if (to > s->end)
			to = s->end;
		r->series_gbps[k] = s->series[(size_t)fi * s->n_series + k] * 8 /
				    ps_to_s(to - from) / 1e9;
	}
	return 0;
}

static void port_result(struct sim *s, uint32_t pi, struct nd_port_result *r)
{
	const struct sim_port *port = &s->ports[pi];
	double run = (double)s->end;

	sim_port_name(s, pi, r->name, sizeof(r->name));
	r->pause_fraction = run ? (double)port->paused_ps / run : 0;
	r->pause_frames = port->pause_rx;
	r->ecn_marked = port->ecn_marked;
	r->cnp_sent = port->cnp_sent;
	r->cnp_handled = port->cnp_handled;
	r->credit_wait_fraction = run ? (double)port->wait_ps / run : 0;
	r->drops = port->drops;
	if (port->sw)
		sim_qdepth_result(s, pi, &r->queue_p50, &r->queue_p99, &r->queue_max);
}

static void add_evidence(struct nd_run_report *r, const char *where, const char *what,
			 uint64_t delta, int prio)
{
	size_t i = r->n_evidence;

	if (!delta)
		return;
	/* keep the largest EVIDENCE_MAX: replace the smallest once full */
	if (i == EVIDENCE_MAX) {
		size_t k, min = 0;

		for (k = 1; k < EVIDENCE_MAX; k++)
			if (r->evidence[k].delta < r->evidence[min].delta)
				min = k;
		if (r->evidence[min].delta >= delta)
			return;
		i = min;
	} else {
		r->n_evidence++;
	}
	nd_strlcpy(r->evidence[i].where, where, sizeof(r->evidence[i].where));
	nd_strlcpy(r->evidence[i].what, what, sizeof(r->evidence[i].what));
	r->evidence[i].prio = prio;
	r->evidence[i].delta = delta;
}

static int cmp_evidence(const void *a, const void *b)
{
	const evidence_t *x = a, *y = b;

	return (x->delta < y->delta) - (x->delta > y->delta);
}

static void summarise(struct sim *s, struct nd_run_report *r)
{
	double max_pause = 0, max_wait = 0;
	unsigned int paused = 0, waited = 0, prio = s->sc->priority;
	uint32_t i;

	for (i = 0; i < r->n_ports; i++) {
		const struct nd_port_result *p = &r->ports[i];

		add_evidence(r, p->name, "drops", p->drops, (int)prio);
		add_evidence(r, p->name, "pfc_tx_frames", s->ports[i].pause_tx, (int)prio);
		add_evidence(r, p->name, "port_xmit_wait_ns", s->ports[i].wait_ps / SIM_PS_PER_NS,
			     (int)prio);
		paused += p->pause_fraction > 0;
		waited += p->credit_wait_fraction > 0;
		if (p->pause_fraction > max_pause)
			max_pause = p->pause_fraction;
		if (p->credit_wait_fraction > max_wait)
			max_wait = p->credit_wait_fraction;
	}
	qsort(r->evidence, r->n_evidence, sizeof(*r->evidence), cmp_evidence);
	r->verdict = ND_VERDICT_NONE;
	if (s->fabric == ND_FABRIC_IB)
		snprintf(r->reason, sizeof(r->reason), "modelled InfiniBand: %llu drops; %u of %zu "
			 "ports waited for credits (up to %.1f %% of the run)",
			 (unsigned long long)r->drops, waited, r->n_ports, 100 * max_wait);
	else
		snprintf(r->reason, sizeof(r->reason), "modelled RoCE: %llu drops, %llu "
			 "retransmits; PFC paused %u of %zu ports (up to %.1f %% of the run)",
			 (unsigned long long)r->drops, (unsigned long long)r->retransmits, paused,
			 r->n_ports, 100 * max_pause);
}

static int alloc_report(struct sim *s, struct nd_run_report *r)
{
	r->flows = calloc(s->n_flows ? s->n_flows : 1, sizeof(*r->flows));
	r->ports = calloc(s->n_ports, sizeof(*r->ports));
	r->evidence = calloc(EVIDENCE_MAX, sizeof(*r->evidence));
	return r->flows && r->ports && r->evidence ? 0 : -ENOMEM;
}

static int distributions(struct sim *s, struct nd_run_report *r, struct nd_sim_stats *st)
{
	double *fct = malloc((s->n_flows + 1) * sizeof(*fct));
	double *sd = malloc((s->n_flows + 1) * sizeof(*sd));
	double *gbps = malloc((s->n_flows + 1) * sizeof(*gbps));
	size_t n_done = 0, n_started = 0, b, k;
	uint32_t i;

	if (!fct || !sd || !gbps) {
		free(fct);
		free(sd);
		free(gbps);
		return -ENOMEM;
	}
	for (i = 0; i < s->n_flows; i++) {
		if (s->flows[i].start < s->end)
			gbps[n_started++] = r->flows[i].gbps;
		if (!s->flows[i].done)
			continue;
		fct[n_done] = r->flows[i].fct_us;
		sd[n_done++] = r->flows[i].slowdown;
	}
	r->jain = nd_jain(gbps, n_started);
	nd_dist_of(fct, n_done, &r->fct);
	pct_of(sd, n_done, &st->slowdown);
	for (b = 0; b < ND_SIM_BUCKETS; b++) {
		st->buckets[b].lo = bucket_edges[b];
		st->buckets[b].hi = b + 1 < ND_SIM_BUCKETS ? bucket_edges[b + 1] : 0;
		for (i = 0, k = 0; i < s->n_flows; i++) {
			const struct sim_flow *f = &s->flows[i];

			if (f->done && f->size >= st->buckets[b].lo &&
			    (!st->buckets[b].hi || f->size < st->buckets[b].hi))
				sd[k++] = r->flows[i].slowdown;
		}
		pct_of(sd, k, &st->buckets[b].slowdown);
	}
	st->flows_done = n_done;
	free(fct);
	free(sd);
	free(gbps);
	return 0;
}

int sim_report(struct sim *s, struct nd_run_report *r, struct nd_sim_stats *st,
	       struct nd_err *e)
{
	uint64_t total = 0;
	uint32_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(st, 0, sizeof(*st));
	ret = alloc_report(s, r);
	nd_strlcpy(r->kind, "sim", sizeof(r->kind));
	nd_strlcpy(r->fabric, nd_fabric_name(s->fabric), sizeof(r->fabric));
	nd_strlcpy(r->pattern, nd_pattern_name(s->sc->wl.pattern), sizeof(r->pattern));
	r->duration_s = ps_to_s(s->end);
	for (i = 0; !ret && i < s->n_flows; i++) {
		ret = flow_result(s, i, &r->flows[i]);
		r->n_flows++;
		total += s->flows[i].rx_bytes;
	}
	for (i = 0; !ret && i < s->n_ports; i++)
		port_result(s, i, &r->ports[r->n_ports++]);
	if (!ret)
		ret = distributions(s, r, st);
	if (ret) {
		nd_run_report_free(r);
		return nd_err_set(e, ret, "out of memory for the report of %u flows", s->n_flows);
	}
	r->aggregate_gbps = r->duration_s > 0 ? (double)total * 8 / r->duration_s / 1e9 : 0;
	r->drops = s->drops;
	r->retransmits = s->retransmits;
	summarise(s, r);
	st->seed = s->sc->seed;
	st->events = s->events;
	st->flows = s->n_flows;
	st->packets = s->packets;
	return 0;
}
