// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * One rank of a stress job, start to end: rendezvous, device and memory, QPs, exchange and
 * connect, counters before, start barrier, traffic, end barrier, counters after, results to
 * rank 0, verdict back. A rank that fails on the way keeps taking part in every collective step
 * (it says why instead of sending endpoints or results), so the others hear the reason at the
 * next step and nobody waits for a rank that gave up.
 *
 * The stress module (lib/stress/): this file runs a rank; gen_*.c are the traffic generator
 * (options, plan, wire codec, QPs, memory providers behind struct nd_mem_ops, the engine,
 * results, verdict) and coord_*.c the rendezvous between ranks (TCP, or an MPI plugin).
 * gen.h holds the parts without a device (shared with the unit tests), gen_rt.h the runtime's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>

#include "gen_rt.h"

struct run {
	const struct nd_stress_job *job;
	const struct nd_stress_local *local;
	struct nd_rv_conn *rv;
	struct nd_gen_plan plan;
	struct nd_dev dev;
	struct nd_mem mem;
	struct nd_engine en;
	struct nd_gen_rank_result res;
	struct nd_gen_rank_info *infos;
	struct nd_gen_ctr_state ctr;
	int status;			/* this rank's first failure */
	struct nd_err err;
	double cpu_s;
};

static void fail(struct run *run, int ret, const struct nd_err *e)
{
	if (run->status || !ret)
		return;
	run->status = ret;
	run->err = *e;
	run->rv->ops->abort(run->rv, e->msg);
}

static double cpu_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
	       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
}

/* Device, memory, QPs: everything this rank builds alone. */
static int setup(struct run *run, struct nd_gen_rank_info *info, struct nd_err *e)
{
	struct nd_engine *en = &run->en;
	size_t bytes;
	int ret;

	en->job = run->job;
	en->local = run->local;
	en->plan = &run->plan;
	en->rank = run->rv->rank;
	en->dev = &run->dev;
	en->mem = &run->mem;
	en->rv = run->rv;
	en->res = &run->res;
	ret = nd_dev_open(&run->dev, run->local, run->job->connect, e);
	if (!ret)
		ret = nd_ep_layout(en, &bytes, e);
	if (!ret)
		ret = nd_mem_open(&run->mem, &run->local->mem, bytes, e);
	if (!ret)
		ret = nd_engine_init(en, e);
	if (!ret)
		ret = nd_ep_create(en, info, e);
	if (!ret)
		ret = nd_ep_fill(en, e);
	return ret;
}

/* Everyone's endpoints (or why a rank has none). */
static int exchange(struct run *run, const struct nd_gen_rank_info *mine, struct nd_err *e)
{
	struct nd_wbuf w = { 0 };
	struct nd_blobs all = { 0 };
	char why[ND_ERR_MSG_MAX];
	uint32_t i, n = run->rv->nranks;
	int ret;

	nd_w_u8(&w, !run->status);
	if (run->status)
		nd_w_str(&w, run->err.msg);
	else
		nd_gen_info_encode(mine, &w);
	ret = w.oom ? nd_err_set(e, -ENOMEM, "out of memory") :
	      run->rv->ops->allgather(run->rv, w.p, w.len, &all, e);
	nd_wbuf_free(&w);
	if (ret)
		return ret;
	run->infos = calloc(n, sizeof(*run->infos));
	if (!run->infos)
		ret = nd_err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n && !ret; i++) {
		struct nd_rbuf r = { all.v[i].p, all.v[i].len, false };

		if (!all.v[i].present) {
			ret = nd_err_set(e, -ECONNRESET, "rank %u went away before connecting", i);
		} else if (!nd_r_u8(&r)) {
			nd_r_str(&r, why, sizeof(why));
			ret = nd_err_set(e, -ECONNABORTED, "rank %u could not set up: %s", i,
					 r.bad ? "(no reason given)" : why);
		} else if (nd_gen_info_decode(&r, &run->plan, run->job, i, &run->infos[i])) {
			ret = nd_err_set(e, -EPROTO, "rank %u published endpoints that do not fit "
					 "the job", i);
		}
	}
	nd_blobs_free(&all);
	return ret;
}

/* A barrier outside the engine: before the start, or for a rank that runs no traffic. */
static int barrier(struct run *run, struct nd_err *e)
{
	uint64_t until = nd_gen_now_ns() + (uint64_t)(run->rv->timeout_s * 1e9);
	struct timespec ts = { 0, 200000 };
	bool done = false;
	int ret;

	ret = run->rv->ops->barrier_start(run->rv, e);
	while (!ret && !done) {
		ret = run->rv->ops->barrier_test(run->rv, &done, e);
		if (!ret && !done && nd_gen_now_ns() > until)
			ret = nd_err_set(e, -ETIMEDOUT, "the other ranks did not reach the barrier "
					 "within %.0f s", run->rv->timeout_s);
		if (!ret && !done)
			nanosleep(&ts, NULL);
	}
	return ret;
}

static int connect_all(struct run *run, struct nd_err *e)
{
	int ret;

	if (run->job->connect == ND_CONN_CM)
		ret = nd_ep_connect_cm(&run->en, run->infos, e);
	else
		ret = nd_ep_connect_verbs(&run->en, run->infos, e);
	if (ret)
		return ret;
	run->en.hw_rate = run->job->rate_gbps > 0 && nd_ep_rate_limit(&run->en);
	return 0;
}

/* From connected QPs to the end barrier, with the counters sampled around it. */
static void traffic(struct run *run)
{
	struct nd_err e = { 0 };
	double cpu;
	int ret;

	/* a failure to sample is kept in run->ctr and reported with the results */
	if (!run->status)
		nd_gen_ctr_before(&run->ctr, run->dev.ifname, run->local->counter_maps);
	ret = barrier(run, &e);
	fail(run, ret, &e);
	if (run->status) {
		/* no traffic from here, but the end barrier is everyone's: keep in step */
		run->res.ctr_status = -ENODATA;
		ret = barrier(run, &e);
		fail(run, ret, &e);
		return;
	}
	cpu = cpu_now();
	ret = nd_engine_run(&run->en, &e);
	run->cpu_s = cpu_now() - cpu;
	if (ret && !run->status) {
		run->status = ret;
		run->err = e;
	}
	nd_gen_ctr_after(&run->ctr, run->dev.ifname, &run->res);
	nd_engine_final_check(&run->en);
	nd_engine_results(&run->en);
}

/* Does this rank post any flow's work requests (so pacing applies to it)? */
static bool drives(const struct run *run)
{
	size_t i;

	for (i = 0; i < run->plan.n_flows; i++)
		if (nd_gen_flow_active(&run->plan.flows[i], run->job->op) == run->rv->rank)
			return true;
	return false;
}

static void fill_info(struct run *run)
{
	struct nd_stress_rank *in = &run->res.info;
	const struct nd_stress_job *job = run->job;

	in->rank = run->rv->rank;
	if (gethostname(in->host, sizeof(in->host) - 1))
		snprintf(in->host, sizeof(in->host), "unknown");
	if (nd_sys_read(run->res.boot_id, sizeof(run->res.boot_id),
			"/proc/sys/kernel/random/boot_id") < 0)
		nd_strlcpy(run->res.boot_id, in->host, sizeof(run->res.boot_id));
	nd_strlcpy(in->dev, run->dev.name, sizeof(in->dev));
	in->port = run->dev.port;
	nd_strlcpy(in->ifname, run->dev.ifname, sizeof(in->ifname));
	nd_strlcpy(in->addr, run->dev.addr, sizeof(in->addr));
	in->link_gbps = nd_gen_link_gbps(&run->dev.pattr);
	nd_gen_model(job, &run->dev, &run->mem, in->link_gbps, in);
	nd_strlcpy(in->mem, run->mem.desc[0] ? run->mem.desc : "-", sizeof(in->mem));
	snprintf(in->pacing, sizeof(in->pacing), "%s", !(job->rate_gbps > 0) ? "none" :
		 run->en.hw_rate ? "hardware" : drives(run) ? "software" : "-");
	in->cpu_s = run->cpu_s;
	in->staged_s = (double)run->mem.staged_ns / 1e9;
	in->staged_bytes = run->mem.staged_bytes;
	in->status = run->status;
	nd_strlcpy(in->error, run->status ? run->err.msg : "", sizeof(in->error));
}

/*
 * A result that cannot be true (more than its port carries, another port than it announced)
 * is refused: the rank counts as failed, naming why, and none of its numbers are believed.
 */
static void refuse_implausible(struct run *run, struct nd_gen_rank_result *res, uint32_t rank)
{
	char why[ND_ERR_MSG_MAX - 64];

	if (!nd_gen_result_plausible(res, run->job, &run->infos[rank], why, sizeof(why)))
		return;
	res->info.status = -EPROTO;
	snprintf(res->info.error, sizeof(res->info.error), "rank 0 refused its results: %s",
		 why);
	res->info.bytes_tx = res->info.bytes_rx = 0;
	for (size_t i = 0; i < res->n_flows; i++) {
		res->flows[i].bytes = res->flows[i].messages = 0;
		memset(res->flows[i].series, 0, res->flows[i].n_series * sizeof(uint64_t));
	}
	for (size_t i = 0; i < res->n_steps; i++)
		res->steps[i].bytes = res->steps[i].messages = 0;
	res->n_ctrs = 0;
	res->ctr_status = -EPROTO;
	snprintf(res->ctr_error, sizeof(res->ctr_error), "refused with its results");
}

/* Rank 0: everyone's results into the report. */
static int judge(struct run *run, struct nd_blobs *all, struct nd_stress_result *r,
		 struct nd_err *e)
{
	uint32_t i, n = run->rv->nranks;
	struct nd_gen_rank_result *dec = calloc(n, sizeof(*dec)), **res = calloc(n, sizeof(*res));
	int ret;

	if (!dec || !res) {
		free(dec);
		free(res);
		return nd_err_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < n; i++) {
		struct nd_rbuf rd = { all->v[i].p, all->v[i].len, false };

		/* a rank whose results do not decode counts as one that sent none */
		if (all->v[i].present &&
		    !nd_gen_result_decode(&rd, &run->plan, run->job, i, &dec[i]))
			res[i] = &dec[i];
		if (res[i] && run->infos && run->infos[i].dev[0])
			refuse_implausible(run, &dec[i], i);
	}
	ret = nd_gen_report(run->job, &run->plan, res, n, r, e);
	snprintf(r->report->fabric, sizeof(r->report->fabric), "%s", run->dev.ib ? "ib" : "roce");
	for (i = 0; i < n; i++)
		nd_gen_result_free(&dec[i]);
	free(dec);
	free(res);
	return ret;
}

/* Results to rank 0, its verdict to everyone. */
static int conclude(struct run *run, struct nd_stress_result *r, struct nd_err *e)
{
	struct nd_blobs all = { 0 }, verdict = { 0 };
	struct nd_wbuf w = { 0 };
	struct nd_rbuf rd;
	int ret;

	fill_info(run);
	nd_gen_result_encode(&run->res, &w);
	ret = w.oom ? nd_err_set(e, -ENOMEM, "out of memory") :
	      run->rv->ops->gather(run->rv, w.p, w.len, &all, e);
	w.len = 0;
	if (!ret && run->rv->rank == 0) {
		ret = judge(run, &all, r, e);
		nd_gen_verdict_encode(r, &w);
	}
	nd_blobs_free(&all);
	if (!ret)
		ret = run->rv->ops->bcast(run->rv, w.p, w.len, &verdict, e);
	nd_wbuf_free(&w);
	if (!ret) {
		rd = (struct nd_rbuf){ verdict.v[0].p, verdict.v[0].len, false };
		if (nd_gen_verdict_decode(&rd, r))
			ret = nd_err_set(e, -EPROTO, "rank 0's verdict did not decode");
	}
	nd_blobs_free(&verdict);
	return ret;
}

static void teardown(struct run *run)
{
	size_t i;

	nd_ep_destroy(&run->en);
	nd_engine_free(&run->en);
	nd_mem_close(&run->mem);
	nd_dev_close(&run->dev);
	nd_gen_ctr_free(&run->ctr);
	nd_gen_result_free(&run->res);
	for (i = 0; run->infos && i < run->rv->nranks; i++)
		nd_gen_info_free(&run->infos[i]);
	free(run->infos);
	nd_gen_plan_free(&run->plan);
}

/* MPI ranks start from the same command line, mostly: say so when they did not. */
static int same_job(struct run *run, struct nd_err *e)
{
	struct nd_wbuf w = { 0 };
	struct nd_blobs all = { 0 };
	struct nd_stress_job other;
	char what[200];
	int ret;

	nd_gen_job_encode(run->job, &w);
	ret = run->rv->ops->allgather(run->rv, w.p, w.len, &all, e);
	nd_wbuf_free(&w);
	if (!ret) {
		struct nd_rbuf r = { all.v[0].p, all.v[0].len, false };

		if (nd_gen_job_decode(&r, &other))
			ret = nd_err_set(e, -EPROTO, "rank 0's options did not decode");
		else if (nd_gen_job_diff(&other, run->job, what, sizeof(what)))
			ret = nd_err_set(e, -EINVAL, "rank %u runs other traffic options than "
					 "rank 0: %s (rank 0's first); give every rank the same "
					 "options", run->rv->rank, what);
	}
	nd_blobs_free(&all);
	return ret;
}

int nd_stress_run(const struct nd_stress_job *job, const struct nd_stress_local *local,
		  const struct nd_rendezvous *rv, struct nd_stress_result *r, struct nd_err *e)
{
	struct run run = { .job = job, .local = local };
	struct nd_gen_rank_info mine = { 0 };
	struct nd_err err = { 0 };
	int ret;

	if (nd_gen_result_alloc(r))
		return nd_err_set(e, -ENOMEM, "out of memory");
	ret = nd_stress_job_check(job, e);
	/* rank 0 knows the job's size: a pattern that cannot fit fails before anyone joins */
	if (!ret && rv->kind == ND_RV_TCP && rv->serve && rv->nranks) {
		ret = nd_gen_plan_build(job, rv->nranks, &run.plan, e);
		nd_gen_plan_free(&run.plan);
	}
	if (!ret)
		ret = nd_rv_open(rv, job, local->stop, &run.rv, e);
	if (!ret && rv->kind == ND_RV_MPI)
		ret = same_job(&run, e);
	if (!ret)
		ret = nd_gen_plan_build(job, run.rv->nranks, &run.plan, e);
	if (ret) {
		if (run.rv)
			run.rv->ops->close(run.rv);
		nd_stress_result_free(r);
		return ret;
	}
	r->rank = run.rv->rank;
	r->nranks = run.rv->nranks;
	snprintf(r->connect, sizeof(r->connect), "%s", job->connect == ND_CONN_CM ? "rdma_cm" :
		 "verbs");
	r->tos = job->tos;
	r->sl = job->sl;
	/* a row per size step, even from a rank that fails before its engine exists */
	run.res.n_steps = job->sizes.kind == ND_SIZES_SWEEP ? job->sizes.n : 1;
	run.res.steps = calloc(run.res.n_steps, sizeof(*run.res.steps));
	ret = run.res.steps ? setup(&run, &mine, &err) :
	      nd_err_set(&err, -ENOMEM, "out of memory");
	fail(&run, ret, &err);
	ret = exchange(&run, &mine, &err);
	fail(&run, ret, &err);
	if (!run.status) {
		ret = connect_all(&run, &err);
		fail(&run, ret, &err);
	}
	nd_gen_info_free(&mine);
	traffic(&run);
	ret = conclude(&run, r, &err);
	if (ret) {
		/* no verdict from rank 0 (it went away): this rank's own word is FAILED */
		r->report->verdict = ND_VERDICT_FAILED;
		nd_strlcpy(r->report->reason, run.status ? run.err.msg : err.msg,
			   sizeof(r->report->reason));
	}
	teardown(&run);
	run.rv->ops->close(run.rv);
	return 0;
}
