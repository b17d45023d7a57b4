// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The engine's loop: post, poll, probe; every millisecond look up from the queues (a signal,
 * another rank giving up, a peer disconnecting, a QP that stopped completing). When this rank
 * has posted all it will and its signalled work requests are back, it waits at the end
 * barrier while still serving receives and probes for ranks that are not done yet.
 */
#include <errno.h>
#include <sched.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "gen_rt.h"

/* --latency: poll this long for an answer before yielding the CPU */
#define LAT_SPIN_NS 50000
#define HOUSEKEEP_NS 1000000ull
/*
 * A rank with nothing of its own outstanding sleeps until an event (a completion, the others'
 * socket, the CM, a signal) or this long: at 20 ms, with the coordinator's 100 ms, a receiving
 * rank's wake-ups cost the sender beside it on a one-CPU guest 2-9 % of its rate at 4 KiB.
 */
#define PASSIVE_SLEEP_MS 250
#define ACTIVE_SLEEP_MAX_NS (20 * HOUSEKEEP_NS)

/* Keep the first failure: what follows it (flushes, peers' aborts) is its echo. */
static void record(struct nd_engine *en, int ret, const struct nd_err *why)
{
	if (en->fatal || ret >= 0)
		return;
	en->fatal = ret;
	if (why != &en->err)
		en->err = *why;
	en->stopping = true;
	en->rv->ops->abort(en->rv, en->err.msg);
}

/* How long ago @t was; 0 for a time taken after @now (clocks are read as work goes). */
static uint64_t since(uint64_t now, uint64_t t)
{
	return now > t ? now - t : 0;
}

static void watchdog(struct nd_engine *en, uint64_t now)
{
	uint64_t limit = (uint64_t)(en->job->watchdog_s * 1e9);
	struct nd_err e = { 0 };
	size_t i;

	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];
		uint32_t peer = q->flow->src == en->rank ? q->flow->dst : q->flow->src;

		if (q->nsig_posted > q->nsig_done && since(now, q->last_progress) > limit) {
			nd_err_set(&e, -ETIMEDOUT, "flow %u QP %u: no completion for %.1f s with "
				   "work outstanding (watchdog): rank %u stopped answering, or its "
				   "link is down", q->flow->id, q->idx, en->job->watchdog_s, peer);
			return record(en, -ETIMEDOUT, &e);
		}
		if (q->probe_busy && since(now, q->probe_t) > limit) {
			nd_err_set(&e, -ETIMEDOUT, "flow %u: a latency probe got no answer in "
				   "%.1f s (watchdog): rank %u stopped answering", q->flow->id,
				   en->job->watchdog_s, peer);
			return record(en, -ETIMEDOUT, &e);
		}
	}
}

/* What only needs a look now and then: signals, the other ranks, the CM, the watchdog. */
static void housekeep(struct nd_engine *en, uint64_t now)
{
	struct nd_err e = { 0 };
	int ret;

	if (en->local->stop && *en->local->stop && !en->fatal) {
		nd_err_set(&e, -EINTR, "rank %u was interrupted (signal)", en->rank);
		record(en, -EINTR, &e);
	}
	ret = en->rv->ops->poll(en->rv, &e);
	if (ret)
		record(en, ret, &e);
	ret = nd_cm_poll(en, &e);
	if (ret)
		record(en, ret, &e);
	if (!en->stopping)
		watchdog(en, now);
}

/* Waiting for nothing but the others: no work of ours outstanding, no probe to send. */
static bool passive(const struct nd_engine *en)
{
	size_t i;

	if (!en->posting_done)
		return false;
	for (i = 0; i < en->n_qps; i++)
		if (en->qps[i].nsig_posted != en->qps[i].nsig_done || en->qps[i].probe_busy)
			return false;
	return true;
}

static uint64_t sooner(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/*
 * How long this rank may sleep when its only news is its own clock: until the next probe,
 * burst edge or size step, or a pacing refill. Completions, the others' socket and the CM
 * wake it earlier; signals interrupt the sleep. Waking every millisecond for nothing costs a
 * guest's only CPU a few percent that soft-RoCE (whose work is in the kernel) needs.
 */
static int sleep_ms(const struct nd_engine *en, uint64_t now, bool woken_by_others)
{
	const struct nd_stress_job *job = en->job;
	uint64_t until, t = now - en->t0, on = job->burst_on_us * 1000ull;
	uint64_t period = on + job->burst_off_us * 1000ull;
	size_t i;

	if (!woken_by_others)
		return 1;	/* the rendezvous has no descriptor: look at it often */
	if (passive(en))
		return PASSIVE_SLEEP_MS;
	until = now + ACTIVE_SLEEP_MAX_NS;
	if (!en->posting_done) {
		if (job->rate_gbps > 0 && !en->hw_rate)
			until = sooner(until, now + HOUSEKEEP_NS);
		if (on)
			until = sooner(until, now - t % period + (t % period < on ? on : period));
		if (!job->iters)
			until = sooner(until, now - t % en->step_ns + en->step_ns);
		for (i = 0; nd_gen_probing(job) && i < en->n_qps; i++) {
			const struct nd_qp *q = &en->qps[i];

			if (q->probe && q->active && !q->probe_busy)
				until = sooner(until, q->probe_next > now ? q->probe_next : now);
		}
	}
	return (int)((until - now + 999999) / 1000000);
}

/*
 * Nothing happened this round. Spin a little (a completion is usually microseconds away on a
 * NIC), then sleep on the completion channel until something is due (sleep_ms): a rank that
 * only receives RDMA WRITEs, or one whose window is full, leaves the CPU to the others on its
 * host (and to soft-RoCE, which does its work in the kernel).
 */
static void idle(struct nd_engine *en, uint64_t now)
{
	struct pollfd pfd[3];
	struct ibv_cq *cq;
	nfds_t n = 1;
	void *ctx;

	if (!en->idle_since)
		en->idle_since = now;
	/*
	 * --latency polls without sleeping, as perftest; but the peer may share this CPU (two
	 * ranks on one host or guest): after a while without an answer, hand it over. Not at
	 * once: a system call per poll would add to every round trip on a core of one's own.
	 */
	if (en->job->latency) {
		if (since(now, en->idle_since) > LAT_SPIN_NS)
			sched_yield();
		return;
	}
	if (since(now, en->idle_since) < en->spin_ns)
		return;
	if (ibv_req_notify_cq(en->dev->cq, 0))
		return;
	/* a completion may have come between the last poll and arming: look once more */
	if (nd_poll_cq(en) != 0)
		return;
	pfd[0] = (struct pollfd){ en->dev->ch->fd, POLLIN, 0 };
	if (en->rv->ops->fd(en->rv) >= 0)
		pfd[n++] = (struct pollfd){ en->rv->ops->fd(en->rv), POLLIN, 0 };
	if (en->dev->cm_ch)
		pfd[n++] = (struct pollfd){ en->dev->cm_ch->fd, POLLIN, 0 };
	if (poll(pfd, n, sleep_ms(en, now, n > 1)) > 0 && pfd[0].revents &&
	    !ibv_get_cq_event(en->dev->ch, &cq, &ctx))
		ibv_ack_cq_events(cq, 1);
}

static void step(struct nd_engine *en, uint64_t now, bool post)
{
	int n = 0, ret;

	en->now = now;
	if (post && !en->stopping) {
		ret = nd_post_all(en, now);
		if (ret < 0)
			record(en, ret, &en->err);
		n += ret > 0 ? ret : 0;
		ret = nd_probe_tick(en, now);
		if (ret < 0)
			record(en, ret, &en->err);
	}
	ret = nd_poll_cq(en);
	if (ret < 0)
		record(en, ret, &en->err);
	n += ret > 0 ? ret : 0;
	if (n) {
		en->idle_since = en->waited_since;
	} else {
		idle(en, now);
	}
}

/*
 * Once every rank is past the end barrier, every signalled send a peer saw complete has its
 * receive completion here too; take those in (until the queue stays empty for a while) so
 * the sink's count is final.
 */
static void drain(struct nd_engine *en)
{
	uint64_t now = nd_gen_now_ns(), quiet = now, until = now + 100 * HOUSEKEEP_NS;

	while (now < until && now - quiet < 2 * HOUSEKEEP_NS) {
		if (nd_poll_cq(en) > 0)
			quiet = now;
		now = nd_gen_now_ns();
	}
}

/*
 * Wait for every rank at the end, serving what peers still send. A rank with nothing of its
 * own to send (a sink, the latency answerer) comes here at once, so the wait is bounded from
 * the job's planned end, not from coming here. With --iters nobody knows that end: the wait
 * ends with the others, an abort, a peer's death (the rendezvous sees it) or a signal, and a
 * source that stalls fails its own watchdog.
 */
static void end_barrier(struct nd_engine *en)
{
	uint64_t until = UINT64_MAX, next = 0, now = nd_gen_now_ns();
	double grace_s = en->rv->timeout_s + en->job->watchdog_s;
	struct nd_err e = { 0 };
	bool done = false;
	int ret;

	ret = en->rv->ops->barrier_start(en->rv, &e);
	if (ret)
		return record(en, ret, &e);
	if (!en->job->iters) {
		until = nd_engine_end_ns(en);
		until = (until > now ? until : now) + (uint64_t)(grace_s * 1e9);
	}
	while (!done) {
		now = nd_tsc_clock_now(&en->clk);
		step(en, now, false);
		if (now < next)
			continue;
		next = now + HOUSEKEEP_NS;
		housekeep(en, now);
		ret = en->rv->ops->barrier_test(en->rv, &done, &e);
		if (ret)
			return record(en, ret, &e);
		if (now > until) {
			nd_err_set(&e, -ETIMEDOUT, "rank %u waited %g s past the job's end for "
				   "the other ranks to finish", en->rank, grace_s);
			return record(en, -ETIMEDOUT, &e);
		}
	}
	/*
	 * The coordinator still completes the barrier for the ranks left after one died, so
	 * its abort can come in the same read as the barrier's reply: look at it once more.
	 */
	ret = en->rv->ops->poll(en->rv, &e);
	if (ret)
		record(en, ret, &e);
}

int nd_engine_run(struct nd_engine *en, struct nd_err *e)
{
	uint64_t now, next = 0;

	en->t0 = now = nd_gen_now_ns();
	while (!en->fatal) {
		now = nd_tsc_clock_now(&en->clk);
		step(en, now, true);
		if (now >= next) {
			next = now + HOUSEKEEP_NS;
			housekeep(en, now);
		}
		if (passive(en))
			break;
	}
	en->stopping = true;
	end_barrier(en);
	drain(en);
	if (en->fatal)
		*e = en->err;
	return en->fatal;
}

/* The flow runtime of @f, added on first use. */
static size_t flow_index(struct nd_engine *en, const struct nd_gen_flow *f)
{
	size_t i;

	for (i = 0; i < en->n_flows; i++)
		if (en->flows[i].flow == f)
			return i;
	en->flows[en->n_flows].flow = f;
	en->flows[en->n_flows].st.flow = f->id;
	return en->n_flows++;
}

static int alloc_qp(struct nd_engine *en, struct nd_qp *q)
{
	if (!q->active || q->probe)
		return 0;
	q->fidx = flow_index(en, q->flow);
	q->nsig = en->job->tx_depth + 2;
	q->sig = calloc(q->nsig, sizeof(*q->sig));
	if (!q->sig)
		return -ENOMEM;
	/* READs land in the reader's slots: their sizes are needed when they complete */
	if (en->job->op == ND_OP_READ) {
		q->lsize = calloc(q->lslots, sizeof(*q->lsize));
		if (!q->lsize)
			return -ENOMEM;
	}
	return 0;
}

int nd_engine_init(struct nd_engine *en, struct nd_err *e)
{
	const struct nd_stress_job *job = en->job;
	const struct nd_sizes *z = &job->sizes;
	size_t i, scratch = en->slot_size;

	en->n_steps = z->kind == ND_SIZES_SWEEP ? z->n : 1;
	/*
	 * Inline by default only where perftest's latency tests inline (its "optimal values",
	 * DEF_INLINE_WRITE 220 and DEF_INLINE_SEND_RC_UC 236). perftest leaves it off on a
	 * device it does not know (soft-RoCE): where the device takes it, inline spares the
	 * send a memory-region lookup (soft-RoCE WRITE p50 -5 to -8 %), so it stays on here.
	 */
	en->inline_max = en->local->inline_max;
	if (en->inline_max == ND_INLINE_AUTO)
		en->inline_max = !job->latency ? 0 : job->op == ND_OP_SEND ? 236 :
				 job->op == ND_OP_WRITE ? 220 : 0;
	/*
	 * Bytes in flight per QP are capped (16 MiB: many times any NIC's bandwidth-delay
	 * product): a window of big messages on several QPs can hold more than a soft device's
	 * queues, which then drop and retransmit until nothing moves. A sweep's step is capped
	 * by its own size, so its small sizes run as they would alone; a size distribution by
	 * its largest.
	 */
	for (i = 0; i < en->n_steps; i++) {
		uint64_t size = z->kind == ND_SIZES_SWEEP ? nd_ep_align(z->size[i]) : en->slot_size;

		en->window[i] = job->tx_depth;
		if (job->window_mib && (uint64_t)job->window_mib * 1048576 / size < en->window[i])
			en->window[i] = (uint32_t)((uint64_t)job->window_mib * 1048576 / size);
		if (!en->window[i])
			en->window[i] = 1;
	}
	en->step_ns = (uint64_t)(job->duration_s * 1e9);
	en->interval_ns = (uint64_t)(job->interval_s * 1e9);
	en->rng = nd_gen_mix64(nd_gen_now_ns() ^ ((uint64_t)en->rank << 32)) | 1;
	if (job->latency && job->op == ND_OP_WRITE && (!en->mem->host || en->mem->gpu))
		return nd_err_set(e, -EINVAL, "--latency with --op write watches the probe buffer "
				  "from the CPU: give it host memory (--mem host)");
	/* latency is measured as perftest does: polling, never sleeping, by the counter if need be */
	en->spin_ns = en->local->event ? 0 : job->latency ? UINT64_MAX : ND_SPIN_NS;
	/*
	 * --latency's round trips are timed by the counter where the clock is slow, and the rounds
	 * read their clock from it too: a clock read there is a system call (in a guest on the
	 * HPET, an exit to the hypervisor), and a probe that landed during one waited for it
	 * (2-vCPU guest: WRITE p50 1.02x -> 0.99x of ib_write_lat).
	 */
	en->clk = (struct nd_tsc_clock){
		.ns_per_tick = job->latency ? nd_tsc_ns_per_tick() : 0,
		.reread_ns = HOUSEKEEP_NS,
	};
	en->now = nd_gen_now_ns();
	if (nd_gen_probing(job) && nd_gen_probe_size(job) > scratch)
		scratch = nd_gen_probe_size(job);
	en->wr = calloc(job->tx_depth, sizeof(*en->wr));
	en->sge = calloc(job->tx_depth, sizeof(*en->sge));
	en->scratch = malloc(scratch);
	en->flows = calloc(en->plan->n_flows, sizeof(*en->flows));
	en->cum = calloc(z->n, sizeof(*en->cum));
	if (!en->wr || !en->sge || !en->scratch || !en->flows || !en->cum)
		return nd_err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < z->n; i++)
		en->cum[i] = (i ? en->cum[i - 1] : 0) + z->weight[i];
	for (i = 0; i < en->n_qps; i++)
		if (alloc_qp(en, &en->qps[i]))
			return nd_err_set(e, -ENOMEM, "out of memory");
	return 0;
}

/* Hand the flows' measurements to the results (the series move, they are not copied). */
void nd_engine_results(struct nd_engine *en)
{
	size_t i;

	en->res->flows = calloc(en->n_flows ? en->n_flows : 1, sizeof(*en->res->flows));
	if (!en->res->flows)
		return;
	for (i = 0; i < en->n_flows; i++) {
		en->res->flows[i] = en->flows[i].st;
		memset(&en->flows[i].st, 0, sizeof(en->flows[i].st));
	}
	en->res->n_flows = en->n_flows;
}

void nd_engine_free(struct nd_engine *en)
{
	size_t i;

	for (i = 0; en->flows && i < en->n_flows; i++)
		free(en->flows[i].st.series);
	free(en->flows);
	free(en->wr);
	free(en->sge);
	free(en->scratch);
	free(en->cum);
	en->flows = NULL;
	en->wr = NULL;
	en->sge = NULL;
	en->scratch = NULL;
	en->cum = NULL;
}
