// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Posting bulk work requests: all the QP's window has room for, in one chain per doorbell (on
 * soft devices a doorbell is a system call that does the transport's work too, so fewer and
 * longer ones cost less), some signalled (due_signal()), within the flow's pace (software, when
 * the NIC has no per-QP rate limit) and the burst's on time. Sizes follow the job: one, the
 * current sweep step, or a draw from the distribution. When its time is up a QP posts one
 * signalled message more if its last ones were not, so every byte sent is counted.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "gen_rt.h"

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static uint32_t pick_size(struct nd_engine *en, const struct nd_qp *q)
{
	const struct nd_sizes *z = &en->job->sizes;
	size_t lo = 0, hi = z->n - 1, mid;
	double u;

	if (z->kind == ND_SIZES_SWEEP)
		return z->size[q->step];
	if (z->kind != ND_SIZES_DIST)
		return z->size[0];
	u = (double)(xorshift(&en->rng) >> 11) / 9007199254740992.0 * en->cum[z->n - 1];
	while (lo < hi) {
		mid = (lo + hi) / 2;
		if (u < en->cum[mid])
			hi = mid;
		else
			lo = mid + 1;
	}
	return z->size[lo];
}

/* Which size step the QP is in; false once it has posted all it will. */
static bool advance_step(struct nd_engine *en, struct nd_qp *q, uint64_t now)
{
	const struct nd_stress_job *job = en->job;
	uint64_t s;

	if (job->iters) {
		if (q->step_posted == job->iters) {
			q->step++;
			q->step_posted = 0;
		}
		return q->step < en->n_steps;
	}
	s = (now - en->t0) / en->step_ns;
	if (s >= en->n_steps)
		return false;
	q->step = (uint32_t)s;
	return true;
}

/* Duration mode: is the run's time up? (Steps are advanced by advance_step() alone.) */
static bool run_over(const struct nd_engine *en, uint64_t now)
{
	return !en->job->iters && now >= nd_engine_end_ns(en);
}

/* Software pacing: may @size bytes go now? */
static bool paced(struct nd_engine *en, struct nd_flow_rt *fr, uint32_t size, uint64_t now)
{
	double per_ns = en->job->rate_gbps / 8;	/* bytes per ns */
	double cap = (double)en->slot_size * en->job->qps + per_ns * 100000;

	if (en->hw_rate || !(en->job->rate_gbps > 0))
		return true;
	fr->tokens += (double)(now - fr->t_tokens) * per_ns;
	fr->t_tokens = now;
	if (fr->tokens > cap)
		fr->tokens = cap;
	if (fr->tokens < size)
		return false;
	fr->tokens -= size;
	return true;
}

static bool burst_off(const struct nd_engine *en, uint64_t now)
{
	uint64_t on = en->job->burst_on_us * 1000ull, off = en->job->burst_off_us * 1000ull;

	return on && (now - en->t0) % (on + off) >= on;
}

/* Header of message @seq in its slot, written where the data lives. */
static int stamp(struct nd_engine *en, struct nd_qp *q, size_t off, uint32_t slot, uint64_t seq,
		 uint32_t size)
{
	uint8_t hdr[ND_PL_HDR];

	if (en->mem->host && !en->mem->gpu) {
		nd_pl_stamp(en->mem->host + off, q->flow->id, q->idx, (uint16_t)slot, seq, size);
		return 0;
	}
	nd_pl_stamp(hdr, q->flow->id, q->idx, (uint16_t)slot, seq, size);
	return nd_mem_put(en->mem, off, hdr, sizeof(hdr));
}

static const enum ibv_wr_opcode opcodes[ND_OP_COUNT] = {
	[ND_OP_WRITE] = IBV_WR_RDMA_WRITE,
	[ND_OP_WRITE_IMM] = IBV_WR_RDMA_WRITE_WITH_IMM,
	[ND_OP_SEND] = IBV_WR_SEND,
	[ND_OP_READ] = IBV_WR_RDMA_READ,
};

/*
 * Bytes are counted when a signalled completion says they landed, so signals must come often
 * enough for every window to see some, and seldom enough to cost nothing: by default (--cq-mod
 * 0) one per 64 messages or per 4 MiB, whichever comes first, and at least four per send window
 * (4 KiB messages: every 64th; 1 MiB: every 4th). --cq-mod N: every Nth, as perftest does,
 * and at least the last of a full window (the window may hold fewer than N: 1 MiB messages
 * fill 16 MiB with 16; left unsignalled, they could never be seen complete).
 */
#define SIG_MSGS 64
#define SIG_BYTES (4u << 20)

static bool due_signal(const struct nd_engine *en, struct nd_qp *q, uint32_t size)
{
	const struct nd_stress_job *job = en->job;
	uint32_t window = en->window[q->step], per_window = window / 4 ? window / 4 : 1;

	q->unsig_msgs++;
	q->unsig_bytes += size;
	if (job->cq_mod)
		return q->unsig_msgs >= job->cq_mod || q->unsig_msgs >= window;
	return q->unsig_msgs >= SIG_MSGS || q->unsig_msgs >= per_window ||
	       q->unsig_bytes >= SIG_BYTES;
}

/* Fill work request @n for message q->posted (signalled when @close); -EAGAIN: must wait. */
static int build_wr(struct nd_engine *en, struct nd_qp *q, unsigned int n, uint64_t now,
		    bool close)
{
	const struct nd_stress_job *job = en->job;
	struct ibv_send_wr *wr = &en->wr[n];
	struct ibv_sge *sge = &en->sge[n];
	uint64_t seq = q->posted;
	uint32_t size = pick_size(en, q), slot = (uint32_t)(seq % q->lslots);
	size_t off = q->lbuf + (size_t)slot * en->slot_size;
	bool step_end, last, sig;
	struct nd_sig *s;
	int ret;

	if (!close && !paced(en, &en->flows[q->fidx], size, now))
		return -EAGAIN;
	if (job->op != ND_OP_READ) {
		if (job->validate && (ret = stamp(en, q, off, slot, seq, size)))
			return ret;
		if ((ret = nd_mem_stage_out(en->mem, off, size)))
			return ret;
	}
	if (q->lsize)
		q->lsize[slot] = size;
	memset(wr, 0, sizeof(*wr));
	sge->addr = en->mem->nic_base + off;
	sge->length = size;
	sge->lkey = en->mem->mr->lkey;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = opcodes[job->op];
	wr->wr.rdma.remote_addr = q->raddr + (seq % q->rslots) * en->slot_size;
	wr->wr.rdma.rkey = q->rkey;
	if (job->op == ND_OP_WRITE_IMM)
		wr->imm_data = htonl((uint32_t)seq);
	if (job->op != ND_OP_READ && !en->mem->gpu && size <= en->inline_max)
		wr->send_flags |= IBV_SEND_INLINE;
	/* with --iters a step's last message is signalled: the step's count ends with it */
	step_end = job->iters && q->step_posted + 1 == job->iters;
	last = step_end && q->step + 1u == en->n_steps;
	sig = due_signal(en, q, size) || step_end || close;
	if (sig) {
		q->unsig_msgs = 0;
		q->unsig_bytes = 0;
		if (q->nsig_posted == q->nsig_done)
			q->last_progress = now;
		s = &q->sig[q->nsig_posted % q->nsig];
		*s = (struct nd_sig){ seq + 1, q->posted_bytes + size, now, q->step };
		wr->wr_id = ND_WR_ID(q - en->qps, ND_WR_DATA, q->nsig_posted & ((1ull << 40) - 1));
		wr->send_flags |= IBV_SEND_SIGNALED;
		q->nsig_posted++;
	} else {
		/* completes only in error (most failing requests are unsignalled): names its QP */
		wr->wr_id = ND_WR_ID(q - en->qps, ND_WR_UNSIGNALLED, 0);
	}
	if (n)
		en->wr[n - 1].next = wr;
	q->posted++;
	q->step_posted++;
	q->posted_bytes += size;
	/* 0 means "nothing posted in this step yet" */
	if (!en->res->steps[q->step].t_begin_ns)
		en->res->steps[q->step].t_begin_ns = now - en->t0 ? now - en->t0 : 1;
	if (last)
		q->finished = true;
	return 0;
}

static int post_qp(struct nd_engine *en, struct nd_qp *q)
{
	/* a fresh clock per batch: completion latency is measured from it */
	uint64_t now = nd_gen_now_ns();
	struct ibv_send_wr *bad;
	unsigned int n = 0;
	int ret = 0;

	while (!q->finished) {
		uint32_t step = q->step;
		bool more = advance_step(en, q, now);
		/*
		 * A step's time is up (or the run's): its unsignalled tail gets a signalled
		 * message behind it, of that step, so the step's count ends with it.
		 */
		bool tail = q->unsig_msgs && (!more || q->step != step);

		if (tail) {
			q->step = step;
		} else if (!more) {
			q->finished = true;
			break;
		}
		/* in flight: what was posted before and the n built here, by the step's window */
		if (q->posted - q->done >= en->window[q->step])
			break;
		ret = build_wr(en, q, n, now, tail);
		if (ret)
			break;
		n++;
	}
	if (ret && ret != -EAGAIN)
		return nd_err_set(&en->err, ret, "flow %u QP %u: preparing a message failed: %s",
				  q->flow->id, q->idx, strerror(-ret));
	if (!n)
		return 0;
	en->wr[n - 1].next = NULL;
	ret = ibv_post_send(q->qp, en->wr, &bad);
	if (ret)
		return nd_err_set(&en->err, -ret, "flow %u QP %u: ibv_post_send failed: %s",
				  q->flow->id, q->idx, strerror(ret));
	return (int)n;
}

int nd_post_all(struct nd_engine *en, uint64_t now)
{
	bool off = burst_off(en, now), all_done = true, ended;
	int n = 0, ret;
	size_t i;

	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		if (!q->active)
			continue;
		/* --latency: a probe QP is done after its time or its round trips */
		if (q->probe) {
			if (en->job->latency && !q->finished && !q->probe_busy &&
			    (en->job->iters ? q->done >= en->job->iters : run_over(en, now)))
				q->finished = true;
			all_done &= q->finished || !en->job->latency;
			continue;
		}
		/*
		 * An off period can outlast the run: the clock still ends it (post_qp() then
		 * closes an unsignalled tail; a QP ends at once without one).
		 */
		ended = off && !q->finished && run_over(en, now);
		if (ended && !q->unsig_msgs)
			q->finished = true;
		if (!q->finished && (!off || ended)) {
			ret = post_qp(en, q);
			if (ret < 0)
				return ret;
			n += ret;
		}
		all_done &= q->finished;
	}
	en->posting_done = all_done;
	return n;
}
