// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A rank's results on the wire, and back. Rank 0 decodes what every other rank sends, so the
 * decoder trusts nothing: flows must be ones the plan gives that rank to drive, series and
 * counter lists are bounded, numbers are finite and in range.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define SERIES_MAX (1u << 20)
#define CTRS_MAX 4096

static void put_info(struct nd_wbuf *w, const struct nd_stress_rank *in)
{
	nd_w_u32(w, in->rank);
	nd_w_str(w, in->host);
	nd_w_str(w, in->dev);
	nd_w_u32(w, in->port);
	nd_w_str(w, in->ifname);
	nd_w_str(w, in->addr);
	nd_w_f64(w, in->link_gbps);
	nd_w_f64(w, in->ceiling_tx_gbps);
	nd_w_f64(w, in->ceiling_rx_gbps);
	nd_w_str(w, in->limit_tx);
	nd_w_str(w, in->limit_rx);
	nd_w_str(w, in->mem);
	nd_w_str(w, in->pacing);
	nd_w_f64(w, in->cpu_s);
	nd_w_u64(w, in->bytes_tx);
	nd_w_u64(w, in->bytes_rx);
	nd_w_f64(w, in->staged_s);
	nd_w_u64(w, in->staged_bytes);
	nd_w_u32(w, (uint32_t)in->status);
	nd_w_str(w, in->error);
}

static void get_info(struct nd_rbuf *r, struct nd_stress_rank *in)
{
	int32_t status;

	in->rank = nd_r_u32(r);
	nd_r_str(r, in->host, sizeof(in->host));
	nd_r_str(r, in->dev, sizeof(in->dev));
	in->port = nd_r_u32(r);
	nd_r_str(r, in->ifname, sizeof(in->ifname));
	nd_r_str(r, in->addr, sizeof(in->addr));
	in->link_gbps = nd_r_f64(r, 0, 1e6);
	in->ceiling_tx_gbps = nd_r_f64(r, 0, 1e6);
	in->ceiling_rx_gbps = nd_r_f64(r, 0, 1e6);
	nd_r_str(r, in->limit_tx, sizeof(in->limit_tx));
	nd_r_str(r, in->limit_rx, sizeof(in->limit_rx));
	nd_r_str(r, in->mem, sizeof(in->mem));
	nd_r_str(r, in->pacing, sizeof(in->pacing));
	in->cpu_s = nd_r_f64(r, 0, 1e9);
	in->bytes_tx = nd_r_u64(r);
	in->bytes_rx = nd_r_u64(r);
	in->staged_s = nd_r_f64(r, 0, 1e9);
	in->staged_bytes = nd_r_u64(r);
	status = (int32_t)nd_r_u32(r);
	nd_r_str(r, in->error, sizeof(in->error));
	if (status > 0 || status < -4095 || in->port > 255)
		r->bad = true;
	in->status = status;
}

int nd_gen_result_encode(const struct nd_gen_rank_result *res, struct nd_wbuf *w)
{
	size_t i, k;

	put_info(w, &res->info);
	nd_w_str(w, res->boot_id);
	nd_w_u32(w, (uint32_t)res->n_flows);
	for (i = 0; i < res->n_flows; i++) {
		const struct nd_gen_flow_stats *f = &res->flows[i];

		nd_w_u32(w, f->flow);
		nd_w_u64(w, f->bytes);
		nd_w_u64(w, f->messages);
		nd_w_u64(w, f->t_first_ns);
		nd_w_u64(w, f->t_last_ns);
		nd_w_u32(w, (uint32_t)f->n_series);
		for (k = 0; k < f->n_series; k++)
			nd_w_u64(w, f->series[k]);
	}
	nd_w_u32(w, (uint32_t)res->n_checks);
	for (i = 0; i < res->n_checks; i++) {
		nd_w_u32(w, res->checks[i].flow);
		nd_w_u16(w, res->checks[i].qp);
		nd_w_u8(w, res->checks[i].sink);
		nd_w_u64(w, res->checks[i].value);
	}
	nd_w_u32(w, (uint32_t)res->n_steps);
	for (i = 0; i < res->n_steps; i++) {
		nd_w_u64(w, res->steps[i].messages);
		nd_w_u64(w, res->steps[i].bytes);
		nd_w_u64(w, res->steps[i].t_begin_ns);
		nd_w_u64(w, res->steps[i].t_end_ns);
	}
	nd_hist_encode(&res->probe, w);
	nd_hist_encode(&res->completion, w);
	nd_w_u64(w, res->validated);
	nd_w_u64(w, res->corrupt);
	nd_w_u64(w, res->misordered);
	nd_w_u64(w, res->overrun);
	nd_w_u32(w, (uint32_t)res->ctr_status);
	nd_w_str(w, res->ctr_error);
	nd_w_f64(w, res->ctr_interval_s);
	nd_w_u32(w, (uint32_t)res->ctr_total);
	nd_w_u32(w, (uint32_t)res->n_ctrs);
	for (i = 0; i < res->n_ctrs; i++) {
		nd_w_str(w, res->ctrs[i].name);
		nd_w_u32(w, (uint32_t)res->ctrs[i].prio);
		nd_w_u64(w, res->ctrs[i].delta);
		nd_w_u8(w, res->ctrs[i].status);
		nd_w_u8(w, res->ctrs[i].loss);
	}
	return w->oom ? -ENOMEM : 0;
}

/* The flows @rank drives in the plan: the only ones it may report. */
static bool drives(const struct nd_gen_plan *plan, const struct nd_stress_job *job,
		   uint32_t flow, uint32_t rank)
{
	return flow < plan->n_flows && nd_gen_flow_active(&plan->flows[flow], job->op) == rank;
}

static void get_flows(struct nd_rbuf *r, const struct nd_gen_plan *plan,
		      const struct nd_stress_job *job, uint32_t rank,
		      struct nd_gen_rank_result *res)
{
	size_t n = nd_r_count(r, plan->n_flows, 36), i, k;

	res->flows = calloc(n ? n : 1, sizeof(*res->flows));
	if (!res->flows) {
		r->bad = true;
		return;
	}
	for (i = 0; i < n && !r->bad; i++) {
		struct nd_gen_flow_stats *f = &res->flows[i];

		res->n_flows = i + 1;
		f->flow = nd_r_u32(r);
		f->bytes = nd_r_u64(r);
		f->messages = nd_r_u64(r);
		f->t_first_ns = nd_r_u64(r);
		f->t_last_ns = nd_r_u64(r);
		f->n_series = nd_r_count(r, SERIES_MAX, 8);
		if (!drives(plan, job, f->flow, rank) || f->t_first_ns > f->t_last_ns)
			r->bad = true;
		for (k = 0; k < i && !r->bad; k++)
			if (res->flows[k].flow == f->flow)
				r->bad = true;
		if (r->bad || !f->n_series)
			continue;
		f->series = calloc(f->n_series, sizeof(*f->series));
		if (!f->series) {
			r->bad = true;
			continue;
		}
		for (k = 0; k < f->n_series; k++)
			f->series[k] = nd_r_u64(r);
	}
}

static void get_checks(struct nd_rbuf *r, const struct nd_gen_plan *plan,
		       const struct nd_stress_job *job, struct nd_gen_rank_result *res)
{
	size_t n = nd_r_count(r, plan->n_flows * (size_t)job->qps, 15), i;

	res->checks = calloc(n ? n : 1, sizeof(*res->checks));
	if (!res->checks) {
		r->bad = true;
		return;
	}
	for (i = 0; i < n && !r->bad; i++) {
		res->checks[i].flow = nd_r_u32(r);
		res->checks[i].qp = nd_r_u16(r);
		res->checks[i].sink = nd_r_u8(r) != 0;
		res->checks[i].value = nd_r_u64(r);
		if (res->checks[i].flow >= plan->n_flows || res->checks[i].qp >= job->qps)
			r->bad = true;
		res->n_checks = i + 1;
	}
}

static void get_ctrs(struct nd_rbuf *r, struct nd_gen_rank_result *res)
{
	size_t n, i;

	res->ctr_status = (int32_t)nd_r_u32(r);
	nd_r_str(r, res->ctr_error, sizeof(res->ctr_error));
	res->ctr_interval_s = nd_r_f64(r, 0, 1e9);
	res->ctr_total = nd_r_u32(r);
	n = nd_r_count(r, CTRS_MAX, 14);
	if (res->ctr_status > 0 || res->ctr_status < -4095 || res->ctr_total > 1000000)
		r->bad = true;
	res->ctrs = calloc(n ? n : 1, sizeof(*res->ctrs));
	if (!res->ctrs) {
		r->bad = true;
		return;
	}
	for (i = 0; i < n && !r->bad; i++) {
		struct nd_gen_ctr *c = &res->ctrs[i];

		nd_r_str(r, c->name, sizeof(c->name));
		c->prio = (int32_t)nd_r_u32(r);
		c->delta = nd_r_u64(r);
		c->status = nd_r_u8(r);
		c->loss = nd_r_u8(r) != 0;
		if (c->prio < -1 || c->prio >= ND_PRIO_MAX || c->status > ND_DELTA_GONE)
			r->bad = true;
		res->n_ctrs = i + 1;
	}
}

int nd_gen_result_decode(struct nd_rbuf *r, const struct nd_gen_plan *plan,
			 const struct nd_stress_job *job, uint32_t rank,
			 struct nd_gen_rank_result *res)
{
	size_t n_steps = job->sizes.kind == ND_SIZES_SWEEP ? job->sizes.n : 1, i;

	memset(res, 0, sizeof(*res));
	get_info(r, &res->info);
	nd_r_str(r, res->boot_id, sizeof(res->boot_id));
	if (res->info.rank != rank)
		r->bad = true;
	if (!r->bad)
		get_flows(r, plan, job, rank, res);
	if (!r->bad)
		get_checks(r, plan, job, res);
	res->n_steps = nd_r_count(r, ND_SIZES_MAX, 32);
	if (res->n_steps != n_steps)
		r->bad = true;
	res->steps = r->bad ? NULL : calloc(n_steps, sizeof(*res->steps));
	for (i = 0; res->steps && i < n_steps; i++) {
		res->steps[i].messages = nd_r_u64(r);
		res->steps[i].bytes = nd_r_u64(r);
		res->steps[i].t_begin_ns = nd_r_u64(r);
		res->steps[i].t_end_ns = nd_r_u64(r);
	}
	if (!r->bad && (nd_hist_decode(r, &res->probe) || nd_hist_decode(r, &res->completion)))
		r->bad = true;
	res->validated = nd_r_u64(r);
	res->corrupt = nd_r_u64(r);
	res->misordered = nd_r_u64(r);
	res->overrun = nd_r_u64(r);
	if (!r->bad)
		get_ctrs(r, res);
	if (r->bad || r->left || !res->steps) {
		nd_gen_result_free(res);
		return -EPROTO;
	}
	return 0;
}

void nd_gen_result_free(struct nd_gen_rank_result *res)
{
	size_t i;

	for (i = 0; res->flows && i < res->n_flows; i++)
		free(res->flows[i].series);
	free(res->flows);
	free(res->checks);
	free(res->steps);
	free(res->ctrs);
	nd_hist_free(&res->probe);
	nd_hist_free(&res->completion);
	memset(res, 0, sizeof(*res));
}

/* The fastest Ethernet or InfiniBand port there is (1.6 Tb/s): no rank's port is faster. */
#define PORT_GBPS_MAX 1600.0

int nd_gen_result_plausible(const struct nd_gen_rank_result *res, const struct nd_stress_job *job,
			    const struct nd_gen_rank_info *announced, char *why, size_t len)
{
	size_t n_steps = job->sizes.kind == ND_SIZES_SWEEP ? job->sizes.n : 1;
	double gbps = res->info.link_gbps > 0 ? res->info.link_gbps : PORT_GBPS_MAX;
	uint32_t biggest = 0;
	uint64_t total = 0;
	double secs, most;

	if (strcmp(res->info.dev, announced->dev) || res->info.port != announced->port) {
		snprintf(why, len, "it reports port %.63s/%u, and announced %.63s/%u", res->info.dev,
			 res->info.port, announced->dev, announced->port);
		return -EPROTO;
	}
	if (gbps > PORT_GBPS_MAX) {
		snprintf(why, len, "it claims a %.0f Gb/s port (none is faster than %.0f)", gbps,
			 PORT_GBPS_MAX);
		return -EPROTO;
	}
	for (size_t i = 0; i < job->sizes.n; i++)
		biggest = job->sizes.size[i] > biggest ? job->sizes.size[i] : biggest;
	/* what the port could carry in the run's time (each step's duration, and its ramp) */
	secs = job->duration_s > 0 ? (double)n_steps * (job->duration_s + 5) : 0;
	most = gbps / 8 * 1e9 * secs * 1.05;
	for (size_t i = 0; i < res->n_flows; i++) {
		const struct nd_gen_flow_stats *f = &res->flows[i];

		total += f->bytes;
		/* a run of iterations: each QP sends its count of the largest message, no more */
		if (job->iters && f->messages > job->iters * job->qps * n_steps) {
			snprintf(why, len, "flow %u reports %llu messages; the job sends at most %llu",
				 f->flow, (unsigned long long)f->messages,
				 (unsigned long long)(job->iters * job->qps * n_steps));
			return -EPROTO;
		}
		if (biggest && f->bytes > f->messages * (uint64_t)biggest) {
			snprintf(why, len, "flow %u reports %llu bytes in %llu messages of at most %u",
				 f->flow, (unsigned long long)f->bytes,
				 (unsigned long long)f->messages, biggest);
			return -EPROTO;
		}
	}
	if (secs > 0 && (double)total > most) {
		snprintf(why, len, "it reports %.3g bytes; its %.0f Gb/s port carries at most %.3g "
			 "in the run's %.0f s", (double)total, gbps, most, secs);
		return -EPROTO;
	}
	return 0;
}

