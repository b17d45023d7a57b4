// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rank 0 turns every rank's results into the run report: per-flow goodput and time series,
 * per-size rows as perftest prints them (peak and average bandwidth, message rate), fairness,
 * latency, CPU cost, payload checks; then the verdict (gen_verdict.c). Also the small verdict
 * message rank 0 broadcasts, so every rank exits the same way.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static void rank_of(struct nd_gen_rank_result *const *res, uint32_t i, struct nd_stress_rank *o)
{
	if (res[i]) {
		*o = res[i]->info;
		return;
	}
	memset(o, 0, sizeof(*o));
	o->rank = i;
	o->status = -ECONNRESET;
	snprintf(o->error, sizeof(o->error), "no results: the rank went away");
}

static const struct nd_gen_flow_stats *stats_of(struct nd_gen_rank_result *const *res,
						uint32_t rank, uint32_t flow)
{
	size_t i;

	for (i = 0; res[rank] && i < res[rank]->n_flows; i++)
		if (res[rank]->flows[i].flow == flow)
			return &res[rank]->flows[i];
	return NULL;
}

static int flow_result(const struct nd_stress_job *job, const struct nd_gen_flow *f,
		       const struct nd_gen_flow_stats *st, struct nd_gen_rank_result *const *res,
		       struct nd_flow_result *fr)
{
	double span, dt = job->interval_s;
	size_t k;

	snprintf(fr->name, sizeof(fr->name), "rank %u -> rank %u%s", f->src, f->dst,
		 f->victim ? " (victim)" : "");
	snprintf(fr->src, sizeof(fr->src), "rank %u (%.40s)", f->src,
		 res[f->src] ? res[f->src]->info.host : "?");
	snprintf(fr->dst, sizeof(fr->dst), "rank %u (%.40s)", f->dst,
		 res[f->dst] ? res[f->dst]->info.host : "?");
	fr->series_dt_s = dt;
	if (!st)
		return 0;
	fr->bytes = st->bytes;
	fr->messages = st->messages;
	span = (double)(st->t_last_ns - st->t_first_ns);
	fr->gbps = span > 0 ? (double)st->bytes * 8 / span : 0;
	if (!st->n_series)
		return 0;
	fr->series_gbps = calloc(st->n_series, sizeof(double));
	if (!fr->series_gbps)
		return -ENOMEM;
	fr->n_series = st->n_series;
	for (k = 0; k < st->n_series; k++)
		fr->series_gbps[k] = (double)st->series[k] * 8 / (dt * 1e9);
	return 0;
}

/* The rank a flow's data leaves, and the one it lands in: a READ moves it to the requester. */
static uint32_t data_from(const struct nd_stress_job *job, const struct nd_gen_flow *f)
{
	return job->op == ND_OP_READ ? f->dst : f->src;
}

static uint32_t data_to(const struct nd_stress_job *job, const struct nd_gen_flow *f)
{
	return job->op == ND_OP_READ ? f->src : f->dst;
}

/*
 * A flow's ceiling: its source's sending ceiling shared by the @n_out flows that source
 * drives, or its sink's receiving ceiling shared by the @n_in flows into it, whichever is less
 * (0: a side unknown).
 */
static void ceiling(const struct nd_stress_job *job, const struct nd_gen_flow *f,
		    struct nd_gen_rank_result *const *res, const uint32_t *n_out,
		    const uint32_t *n_in, struct nd_flow_result *fr)
{
	const struct nd_stress_rank *src, *dst;
	uint32_t from = data_from(job, f), to = data_to(job, f);
	double tx, rx;

	if (!res[from] || !res[to])
		return;
	src = &res[from]->info;
	dst = &res[to]->info;
	if (!(src->ceiling_tx_gbps > 0) || !(dst->ceiling_rx_gbps > 0))
		return;
	tx = src->ceiling_tx_gbps / n_out[from];
	rx = dst->ceiling_rx_gbps / n_in[to];
	fr->ceiling_gbps = tx <= rx ? tx : rx;
	snprintf(fr->limit, sizeof(fr->limit), "rank %u %s%s%s", tx <= rx ? from : to,
		 tx <= rx ? "sending, " : "receiving, ",
		 (tx <= rx ? n_out[from] : n_in[to]) > 1 ? "shared by its flows; " : "",
		 tx <= rx ? src->limit_tx : dst->limit_rx);
}

static int flows(const struct nd_stress_job *job, const struct nd_gen_plan *plan,
		 struct nd_gen_rank_result *const *res, struct nd_run_report *rep)
{
	double *g, bits = 0, t_max = 0;
	uint32_t *n_out, *n_in;
	size_t i, n = 0;
	int ret = 0;

	rep->flows = calloc(plan->n_flows, sizeof(*rep->flows));
	g = calloc(plan->n_flows ? plan->n_flows : 1, sizeof(*g));
	/* flows per sending and per receiving rank, counted once: all-to-all has n^2 flows */
	n_out = calloc(2 * (size_t)plan->nranks + 2, sizeof(*n_out));
	if (!rep->flows || !g || !n_out) {
		free(g);
		free(n_out);
		return -ENOMEM;
	}
	n_in = n_out + plan->nranks + 1;
	for (i = 0; i < plan->n_flows; i++) {
		n_out[data_from(job, &plan->flows[i])]++;
		n_in[data_to(job, &plan->flows[i])]++;
	}
	rep->n_flows = plan->n_flows;
	for (i = 0; i < plan->n_flows && !ret; i++) {
		const struct nd_gen_flow *f = &plan->flows[i];
		const struct nd_gen_flow_stats *st = stats_of(res, nd_gen_flow_active(f, job->op),
							      f->id);

		ret = flow_result(job, f, st, res, &rep->flows[i]);
		ceiling(job, f, res, n_out, n_in, &rep->flows[i]);
		bits += (double)rep->flows[i].bytes * 8;
		if (st && (double)st->t_last_ns > t_max)
			t_max = (double)st->t_last_ns;
		/* fairness among the flows that share the bottleneck: not the victim */
		if (!f->victim)
			g[n++] = rep->flows[i].gbps;
	}
	rep->jain = nd_jain(g, n);
	rep->aggregate_gbps = t_max > 0 ? bits / t_max : 0;
	free(g);
	free(n_out);
	return ret;
}

/* Aggregate throughput per interval (all flows), for the peaks. */
static double *aggregate_series(const struct nd_run_report *rep, size_t *n)
{
	double *agg;
	size_t i, k;

	*n = 0;
	for (i = 0; i < rep->n_flows; i++)
		if (rep->flows[i].n_series > *n)
			*n = rep->flows[i].n_series;
	agg = calloc(*n ? *n : 1, sizeof(*agg));
	for (i = 0; agg && i < rep->n_flows; i++)
		for (k = 0; k < rep->flows[i].n_series; k++)
			agg[k] += rep->flows[i].series_gbps[k];
	return agg;
}

/*
 * Gigabits done by time @t (ns) of a step whose intervals are @kb..@ke-1: the line through
 * the points (the end of an interval that saw completions, the bytes done by then), from
 * nothing when the first interval begins; flat after the last such point. Bytes are known
 * when a signalled completion reports them, and a soft device can report a whole window at
 * once (one emulated CPU, 4 QPs at 64 KiB: 32 MiB every 0.55 s and nothing between); the line
 * between such bursts is the work done while they were outstanding.
 */
static double done_by(const double *agg, size_t kb, size_t ke, double dt, double t)
{
	double t0 = (double)kb * dt, c0 = 0, c = 0, tk;
	size_t k;

	for (k = kb; k < ke; k++) {
		if (!(agg[k] > 0))
			continue;
		tk = (double)(k + 1) * dt;
		c += agg[k] * dt / 1e9;
		if (tk >= t)
			return c0 + (c - c0) * (t - t0) / (tk - t0);
		t0 = tk;
		c0 = c;
	}
	return c0;
}

/*
 * With --margin, as perftest measures: the step's rate between its first and last margin
 * seconds, so start-up and wind-down do not count, read off done_by() at the two edges (not
 * the intervals inside them: those would hold 5 or 6 of the bursts above, 55 or 66 MiB/s for
 * one rate, by where the edges fell).
 */
static void within_margins(const struct nd_stress_job *job, const double *agg, size_t n_agg,
			   uint64_t b, uint64_t end, struct nd_stress_step *st)
{
	double dt = job->interval_s * 1e9, m = job->margin_s * 1e9, w0, w1;
	size_t kb, ke;

	if (!(m > 0) || (double)end - (double)b <= 2 * m || !st->bytes)
		return;
	kb = (size_t)((double)b / dt + 0.999999);
	ke = (size_t)((double)end / dt);
	if (ke > n_agg)
		ke = n_agg;
	w0 = (double)b + m > (double)kb * dt ? (double)b + m : (double)kb * dt;
	w1 = (double)end - m < (double)ke * dt ? (double)end - m : (double)ke * dt;
	if (ke <= kb || w1 <= w0)
		return;
	st->avg_gbps = (done_by(agg, kb, ke, dt, w1) - done_by(agg, kb, ke, dt, w0)) /
		       ((w1 - w0) / 1e9);
	/* the messages in the window: the step's average size at the window's rate */
	st->mpps = st->avg_gbps * 1e9 / 8 / ((double)st->bytes / (double)st->messages) / 1e6;
	st->seconds = (w1 - w0) / 1e9;
}

static int steps(const struct nd_stress_job *job, struct nd_gen_rank_result *const *res,
		 uint32_t nranks, struct nd_stress_result *r)
{
	size_t n = job->sizes.kind == ND_SIZES_SWEEP ? job->sizes.n : 1, s, k, n_agg;
	double *agg = aggregate_series(r->report, &n_agg), dt = job->interval_s * 1e9;
	uint64_t t0 = UINT64_MAX, t1 = 0;
	uint32_t i;

	r->steps = calloc(n, sizeof(*r->steps));
	if (!r->steps || !agg) {
		free(agg);
		return -ENOMEM;
	}
	r->n_steps = n;
	for (s = 0; s < n; s++) {
		struct nd_stress_step *st = &r->steps[s];
		uint64_t b = UINT64_MAX, end = 0;

		st->size = job->sizes.kind == ND_SIZES_DIST ? 0 : job->sizes.size[s];
		for (i = 0; i < nranks; i++) {
			const struct nd_gen_step_stats *x = res[i] ? &res[i]->steps[s] : NULL;

			if (!x || !x->t_begin_ns)
				continue;
			st->messages += x->messages;
			st->bytes += x->bytes;
			b = x->t_begin_ns < b ? x->t_begin_ns : b;
			end = x->t_end_ns > end ? x->t_end_ns : end;
		}
		if (end <= b || b == UINT64_MAX)
			continue;
		st->seconds = (double)(end - b) / 1e9;
		st->avg_gbps = (double)st->bytes * 8 / (double)(end - b);
		st->mpps = (double)st->messages / st->seconds / 1e6;
		within_margins(job, agg, n_agg, b, end, st);
		for (k = (size_t)(b / dt); k < n_agg && (double)k * dt < (double)end; k++)
			st->peak_gbps = agg[k] > st->peak_gbps ? agg[k] : st->peak_gbps;
		if (st->peak_gbps < st->avg_gbps)
			st->peak_gbps = st->avg_gbps;	/* shorter than one interval */
		t0 = b < t0 ? b : t0;
		t1 = end > t1 ? end : t1;
	}
	r->report->duration_s = t1 > t0 ? (double)(t1 - t0) / 1e9 : 0;
	free(agg);
	return 0;
}

/* How many of the messages @src saw complete its sink's end (in @res) lacks. */
static uint64_t short_of(const struct nd_gen_rank_result *res, const struct nd_gen_qp_check *src)
{
	size_t b;

	for (b = 0; res && b < res->n_checks; b++) {
		const struct nd_gen_qp_check *dst = &res->checks[b];

		if (dst->sink && dst->flow == src->flow && dst->qp == src->qp)
			return dst->value < src->value ? src->value - dst->value : 0;
	}
	return 0;
}

/* Writes a data source saw complete that never reached its receiver. */
static uint64_t missing(struct nd_gen_rank_result *const *res, uint32_t nranks)
{
	uint64_t m = 0;
	uint32_t i, j;
	size_t a;

	for (i = 0; i < nranks; i++) {
		for (a = 0; res[i] && a < res[i]->n_checks; a++) {
			const struct nd_gen_qp_check *src = &res[i]->checks[a];

			if (src->sink)
				continue;
			for (j = 0; j < nranks; j++)
				m += short_of(res[j], src);
		}
	}
	return m;
}

static int sums(struct nd_gen_rank_result *const *res, uint32_t nranks,
		struct nd_stress_result *r)
{
	struct nd_hist probe = { 0 }, completion = { 0 };
	double cpu = 0, bytes = 0;
	uint32_t i;
	int ret = 0;

	r->ranks = calloc(nranks, sizeof(*r->ranks));
	if (!r->ranks)
		return -ENOMEM;
	r->n_ranks = nranks;
	for (i = 0; i < nranks; i++) {
		rank_of(res, i, &r->ranks[i]);
		if (!res[i])
			continue;
		cpu += res[i]->info.cpu_s;
		r->validated += res[i]->validated;
		r->corrupt += res[i]->corrupt;
		r->misordered += res[i]->misordered;
		r->overrun += res[i]->overrun;
		ret |= nd_hist_merge(&probe, &res[i]->probe);
		ret |= nd_hist_merge(&completion, &res[i]->completion);
	}
	for (i = 0; i < r->report->n_flows; i++)
		bytes += (double)r->report->flows[i].bytes;
	r->cpu_s_per_gb = bytes > 0 ? cpu / (bytes / 1e9) : 0;
	r->missing = missing(res, nranks);
	nd_hist_dist(&probe, &r->report->latency);
	nd_hist_dist(&completion, r->completion);
	nd_hist_free(&probe);
	nd_hist_free(&completion);
	return ret ? -ENOMEM : 0;
}

int nd_gen_report(const struct nd_stress_job *job, const struct nd_gen_plan *plan,
		  struct nd_gen_rank_result *const *res, uint32_t nranks,
		  struct nd_stress_result *r, struct nd_err *e)
{
	struct nd_run_report *rep = r->report;
	int ret;

	snprintf(rep->kind, sizeof(rep->kind), "stress");
	snprintf(rep->pattern, sizeof(rep->pattern), "%s", nd_stress_pattern_name(job->pattern));
	ret = flows(job, plan, res, rep);
	if (!ret)
		ret = steps(job, res, nranks, r);
	if (!ret)
		ret = sums(res, nranks, r);
	if (!ret)
		ret = nd_gen_verdict(job, res, nranks, r);
	r->gathered = true;
	return ret ? nd_err_set(e, ret, "out of memory building the report") : 0;
}

int nd_gen_result_alloc(struct nd_stress_result *r)
{
	memset(r, 0, sizeof(*r));
	r->report = calloc(1, sizeof(*r->report));
	r->completion = calloc(1, sizeof(*r->completion));
	if (!r->report || !r->completion) {
		free(r->report);
		free(r->completion);
		r->report = NULL;
		r->completion = NULL;
		return -ENOMEM;
	}
	return 0;
}

void nd_gen_verdict_encode(const struct nd_stress_result *r, struct nd_wbuf *w)
{
	nd_w_u8(w, (uint8_t)r->report->verdict);
	nd_w_str(w, r->report->reason);
}

int nd_gen_verdict_decode(struct nd_rbuf *rd, struct nd_stress_result *r)
{
	uint8_t v = nd_r_u8(rd);

	nd_r_str(rd, r->report->reason, sizeof(r->report->reason));
	if (v > ND_VERDICT_FAILED || rd->left)
		rd->bad = true;
	if (rd->bad) {
		r->report->reason[0] = '\0';
		return -EPROTO;
	}
	r->report->verdict = (enum nd_verdict)v;
	return 0;
}

void nd_stress_result_free(struct nd_stress_result *r)
{
	if (r->report) {
		nd_run_report_free(r->report);
		free(r->report);
	}
	free(r->completion);
	free(r->steps);
	free(r->ranks);
	free(r->sampled);
	memset(r, 0, sizeof(*r));
}

size_t nd_stress_slow(const struct nd_stress_result *r, double pct, char *why, size_t len)
{
	const struct nd_flow_result *worst = NULL;
	size_t i, n = 0;

	if (why && len)
		why[0] = '\0';
	for (i = 0; r->report && i < r->report->n_flows; i++) {
		const struct nd_flow_result *f = &r->report->flows[i];

		if (!(f->ceiling_gbps > 0) || f->gbps * 100 >= pct * f->ceiling_gbps)
			continue;
		n++;
		if (!worst || f->gbps / f->ceiling_gbps < worst->gbps / worst->ceiling_gbps)
			worst = f;
	}
	if (worst && why)
		snprintf(why, len, "%zu flow%s below %g%% of the datapath ceiling; slowest %s: "
			 "%.3f of %.3f Gb/s (%.1f%%), bound by %s", n, n == 1 ? "" : "s", pct,
			 worst->name, worst->gbps, worst->ceiling_gbps,
			 100 * worst->gbps / worst->ceiling_gbps, worst->limit);
	return n;
}
