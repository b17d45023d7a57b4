// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress: the engine's loop (gen_engine.c, gen_post.c, gen_complete.c) on a device made here.
 * The device completes every work request at the next poll, in order; only the signalled ones
 * give a completion, as a NIC's send queue does, and once a QP has failed every request gives
 * one, in error. It counts what was posted, message by message, so each run is checked
 * against what went to the "wire", not against the engine's own books: every byte posted is
 * counted once, in the flow and in the size step it was posted in, and the run ends.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stress/coord.h"
#include "stress/gen_rt.h"
#include "unit.h"

#define FAKE_QPS 4
#define FAKE_RING 1024		/* at least any window: tx_depth here stays <= 512 */

static struct fake {
	struct ibv_context ctx;
	struct ibv_cq cq;
	struct ibv_comp_channel ch;
	struct ibv_qp qp[FAKE_QPS];
	struct { uint64_t wr_id; bool sig; } ring[FAKE_QPS][FAKE_RING];
	uint64_t head[FAKE_QPS], tail[FAKE_QPS];
	/* requests up to the last signalled one given back: what the engine knows completed */
	uint64_t seen[FAKE_QPS];
	const struct nd_stress_job *job;
	/* what went out: messages per QP and per size of the job (a sweep's are distinct) */
	uint64_t msgs[FAKE_QPS], bytes[FAKE_QPS];
	uint64_t size_msgs[ND_SIZES_MAX];
	int fail_qp;			/* -1: none; else its request number fail_at fails */
	uint64_t fail_at;
	bool failed[FAKE_QPS];
	uint64_t barrier_at;		/* the others reach the end barrier then (0: at once) */
	uint64_t give_up_at;		/* a run still going then is stopped (a hang, not a wait) */
	volatile int stop;
	int pipe[2];
} fk;

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/*
 * The requests a QP may have in flight with messages of @size: --tx-depth, or fewer by
 * --window's bytes; a sweep's by the size of its step, a distribution's by its largest.
 */
static uint64_t window_of(uint32_t size)
{
	const struct nd_sizes *z = &fk.job->sizes;
	uint64_t w = fk.job->tx_depth, cap;

	cap = nd_ep_align(z->kind == ND_SIZES_SWEEP ? size : nd_sizes_max(z));
	cap = (uint64_t)fk.job->window_mib * 1048576 / cap;
	if (fk.job->window_mib && cap < w)
		w = cap ? cap : 1;
	return w;
}

static int fake_post(struct ibv_qp *qp, struct ibv_send_wr *wr, struct ibv_send_wr **bad)
{
	uint32_t i = qp->qp_num;
	size_t k;

	*bad = NULL;
	for (; wr; wr = wr->next) {
		ck_assert_uint_lt(fk.tail[i] - fk.head[i], FAKE_RING);
		fk.ring[i][fk.tail[i] % FAKE_RING].wr_id = wr->wr_id;
		fk.ring[i][fk.tail[i]++ % FAKE_RING].sig = wr->send_flags & IBV_SEND_SIGNALED;
		ck_assert_int_eq(wr->num_sge, 1);
		fk.msgs[i]++;
		fk.bytes[i] += wr->sg_list[0].length;
		ck_assert_uint_le(fk.tail[i] - fk.seen[i], window_of(wr->sg_list[0].length));
		for (k = 0; k < fk.job->sizes.n; k++)
			if (fk.job->sizes.size[k] == wr->sg_list[0].length)
				fk.size_msgs[k]++;
	}
	return 0;
}

static int fake_poll(struct ibv_cq *cq, int n, struct ibv_wc *wc)
{
	int k = 0;
	uint32_t i;

	(void)cq;
	if (fk.give_up_at && now_ns() > fk.give_up_at)
		fk.stop = 1;
	for (i = 0; i < FAKE_QPS; i++) {
		for (; fk.head[i] < fk.tail[i] && k < n; fk.head[i]++) {
			uint64_t id = fk.ring[i][fk.head[i] % FAKE_RING].wr_id;
			bool fail = (int)i == fk.fail_qp && fk.head[i] == fk.fail_at;

			if (fail || fk.failed[i]) {
				wc[k++] = (struct ibv_wc){ .wr_id = id, .qp_num = i,
					.status = fk.failed[i] ? IBV_WC_WR_FLUSH_ERR : IBV_WC_RETRY_EXC_ERR };
				fk.failed[i] = true;
			} else if (fk.ring[i][fk.head[i] % FAKE_RING].sig) {
				fk.seen[i] = fk.head[i] + 1;
				wc[k++] = (struct ibv_wc){ .wr_id = id, .qp_num = i,
					.status = IBV_WC_SUCCESS, .opcode = IBV_WC_RDMA_WRITE };
			}
		}
	}
	return k;
}

static int fake_notify(struct ibv_cq *cq, int solicited)
{
	(void)cq;
	(void)solicited;
	return 0;
}

/*
 * The others, as the rendezvous shows them: they reach the end barrier at fk.barrier_at, and
 * nobody gives up (starting the barrier and polling for news do nothing).
 */
static int rv_nothing(struct nd_rv_conn *c, struct nd_err *e)
{
	(void)c;
	(void)e;
	return 0;
}

static int rv_barrier_test(struct nd_rv_conn *c, bool *done, struct nd_err *e)
{
	(void)c;
	(void)e;
	*done = now_ns() >= fk.barrier_at;
	return 0;
}

static void rv_abort(struct nd_rv_conn *c, const char *reason)
{
	(void)c;
	(void)reason;
}

static int rv_fd(struct nd_rv_conn *c)
{
	(void)c;
	return -1;
}

static const struct nd_rv_ops rv_ops = {
	.name = "test",
	.barrier_start = rv_nothing,
	.barrier_test = rv_barrier_test,
	.poll = rv_nothing,
	.abort = rv_abort,
	.fd = rv_fd,
};

/* One rank (rank 0) of a job: @n_flows flows, one QP each, this rank their source or sink. */
struct rank {
	struct nd_stress_job job;
	struct nd_stress_local local;
	struct nd_gen_flow flows[FAKE_QPS];
	struct nd_gen_plan plan;
	struct nd_dev dev;
	struct nd_mem mem;
	struct ibv_mr mr;
	struct nd_rv_conn rv;
	struct nd_gen_rank_result res;
	struct nd_engine en;
	struct nd_err e;
	int ret;
};

static void fake_reset(const struct nd_stress_job *job)
{
	memset(fk.ring, 0, sizeof(fk.ring));
	memset(fk.head, 0, sizeof(fk.head));
	memset(fk.tail, 0, sizeof(fk.tail));
	memset(fk.msgs, 0, sizeof(fk.msgs));
	memset(fk.bytes, 0, sizeof(fk.bytes));
	memset(fk.size_msgs, 0, sizeof(fk.size_msgs));
	memset(fk.failed, 0, sizeof(fk.failed));
	memset(fk.seen, 0, sizeof(fk.seen));
	fk.job = job;
	fk.fail_qp = -1;
	fk.barrier_at = 0;
	fk.give_up_at = 0;
	fk.stop = 0;
	fk.ctx.ops.poll_cq = fake_poll;
	fk.ctx.ops.post_send = fake_post;
	fk.ctx.ops.req_notify_cq = fake_notify;
	fk.cq.context = &fk.ctx;
	/* the completion channel: never readable (the engine then sleeps a millisecond at most) */
	if (!fk.pipe[0])
		ck_assert_int_eq(pipe(fk.pipe), 0);
	fk.ch.fd = fk.pipe[0];
}

static struct rank *rank_new(void)
{
	struct rank *r = calloc(1, sizeof(*r));

	ck_assert_ptr_nonnull(r);
	nd_stress_job_init(&r->job);
	return r;
}

static void rank_init(struct rank *r, size_t n_flows, bool source)
{
	struct nd_mem_spec spec = { .kind = ND_MEM_HOST, .gpu = -1 };
	struct nd_engine *en = &r->en;
	size_t i;

	fake_reset(&r->job);
	nd_stress_local_init(&r->local);
	r->local.stop = &fk.stop;
	r->plan = (struct nd_gen_plan){ .flows = r->flows, .n_flows = n_flows, .nranks = 2 };
	r->dev.cq = &fk.cq;
	r->dev.ch = &fk.ch;
	strcpy(r->dev.name, "fake0");
	r->rv = (struct nd_rv_conn){ .ops = &rv_ops, .rank = 0, .nranks = 2, .timeout_s = 60 };
	r->res.n_steps = r->job.sizes.kind == ND_SIZES_SWEEP ? r->job.sizes.n : 1;
	r->res.steps = calloc(r->res.n_steps, sizeof(*r->res.steps));
	ck_assert_ptr_nonnull(r->res.steps);
	*en = (struct nd_engine){ .job = &r->job, .local = &r->local, .plan = &r->plan,
				  .dev = &r->dev, .mem = &r->mem, .rv = &r->rv, .res = &r->res,
				  .slot_size = (uint32_t)nd_ep_align(nd_sizes_max(&r->job.sizes)) };
	ck_assert_int_eq(nd_mem_open(&r->mem, &spec, n_flows * en->slot_size, &r->e), 0);
	r->mem.mr = &r->mr;
	en->qps = calloc(n_flows, sizeof(*en->qps));
	ck_assert_ptr_nonnull(en->qps);
	for (i = 0; i < n_flows; i++) {
		r->flows[i] = (struct nd_gen_flow){ .id = (uint32_t)i, .src = source ? 0 : 1,
						    .dst = source ? 1 : 0 };
		fk.qp[i] = (struct ibv_qp){ .context = &fk.ctx, .qp_num = (uint32_t)i };
		en->qps[en->n_qps++] = (struct nd_qp){ .qp = &fk.qp[i], .flow = &r->flows[i],
			.active = source, .sink = !source, .connected = true,
			.lbuf = i * en->slot_size, .lslots = 1, .xslots = 1, .rslots = 1 };
	}
	ck_assert_int_eq(nd_engine_init(en, &r->e), 0);
}

static void rank_run(struct rank *r)
{
	/* none takes long: one that does has hung */
	fk.give_up_at = now_ns() + 20000000000ull;
	r->ret = nd_engine_run(&r->en, &r->e);
	nd_engine_results(&r->en);
}

static void rank_free(struct rank *r)
{
	size_t i;

	/* what nd_ep_destroy() frees beside the QPs it would destroy */
	for (i = 0; i < r->en.n_qps; i++) {
		free(r->en.qps[i].sig);
		free(r->en.qps[i].lsize);
	}
	nd_engine_free(&r->en);
	free(r->en.qps);
	r->mem.mr = NULL;	/* the test's own: nothing registered */
	nd_mem_close(&r->mem);
	nd_gen_result_free(&r->res);
	free(r);
}

static uint64_t series_sum(const struct nd_gen_flow_stats *st)
{
	uint64_t sum = 0;
	size_t k;

	for (k = 0; k < st->n_series; k++)
		sum += st->series[k];
	return sum;
}

/* Every byte posted counted once: per flow, per interval, and per size step. */
static void check_books(const struct rank *r)
{
	const struct nd_stress_job *job = &r->job;
	uint64_t msgs = 0, bytes = 0;
	size_t i, k;

	ck_assert_msg(r->ret == 0, "the run failed: %s", r->e.msg);
	ck_assert_uint_eq(r->res.n_flows, r->en.n_qps);
	for (i = 0; i < r->res.n_flows; i++) {
		const struct nd_gen_flow_stats *st = &r->res.flows[i];

		ck_assert_uint_eq(st->messages, fk.msgs[st->flow]);
		ck_assert_uint_eq(st->bytes, fk.bytes[st->flow]);
		ck_assert_uint_eq(series_sum(st), st->bytes);
		msgs += st->messages;
		bytes += st->bytes;
		if (job->iters)
			ck_assert_uint_eq(st->messages, job->iters * r->res.n_steps);
	}
	if (job->sizes.kind == ND_SIZES_DIST)
		return;
	for (k = 0; k < r->res.n_steps; k++) {
		const struct nd_gen_step_stats *st = &r->res.steps[k];

		ck_assert_msg(st->messages == fk.size_msgs[k], "step %zu (%u B): %llu messages "
			      "counted, %llu posted", k, job->sizes.size[k],
			      (unsigned long long)st->messages,
			      (unsigned long long)fk.size_msgs[k]);
		ck_assert_uint_eq(st->bytes, st->messages * job->sizes.size[k]);
		msgs -= st->messages;
		bytes -= st->bytes;
	}
	ck_assert_uint_eq(msgs, 0);
	ck_assert_uint_eq(bytes, 0);
}

/* A fixed size or a sweep of distinct sizes, 64 B to 64 KiB. */
static void random_sizes(struct nd_sizes *z, uint64_t *rng)
{
	size_t k;

	memset(z, 0, sizeof(*z));
	z->kind = unit_rand(rng) % 2 ? ND_SIZES_SWEEP : ND_SIZES_FIXED;
	z->n = z->kind == ND_SIZES_SWEEP ? 2 + unit_rand(rng) % 5 : 1;
	for (k = 0; k < z->n; k++) {
		/* in [64 << k, 128 << k): distinct */
		z->size[k] = (64u << k) + (uint32_t)(unit_rand(rng) % (64u << k)) / 8 * 8;
		z->weight[k] = 1;
	}
}

/*
 * Seeded jobs: sizes, QPs, queue depth, window, signalling (by size or --cq-mod up to the
 * queue depth), count or duration, bursts. Each must end and count what it posted.
 */
START_TEST(engine_counts_what_it_posts)
{
	uint64_t rng = 0x5eed2026;
	int c, durations = 0;

	for (c = 0; c < 60; c++) {
		struct rank *r = rank_new();
		struct nd_stress_job *job = &r->job;

		random_sizes(&job->sizes, &rng);
		job->tx_depth = 1 + (uint32_t)(unit_rand(&rng) % 256);
		job->cq_mod = unit_rand(&rng) % 2 ? 0 : 1 + (uint32_t)(unit_rand(&rng) %
								     job->tx_depth);
		/* a window of bytes that may hold fewer requests than --cq-mod */
		job->window_mib = unit_rand(&rng) % 3 ? 0 : 1 + (uint32_t)(unit_rand(&rng) % 2);
		if (job->window_mib)
			job->sizes.size[job->sizes.n - 1] = 1u << (18 + unit_rand(&rng) % 3);
		if (unit_rand(&rng) % 3 || durations >= 16) {
			job->iters = 1 + unit_rand(&rng) % 700;
		} else {
			/* a few in duration mode: steps end by the clock, tails and all */
			job->duration_s = 0.02;
			if (unit_rand(&rng) % 2) {
				job->burst_on_us = 3000;
				job->burst_off_us = 1 + unit_rand(&rng) % 9000;
			}
			durations++;
		}
		rank_init(r, 1 + unit_rand(&rng) % FAKE_QPS, true);
		rank_run(r);
		check_books(r);
		rank_free(r);
	}
}
END_TEST

/*
 * --cq-mod above what the window holds: 1 MiB messages fill the 16 MiB window with 16, so a
 * signal every 32nd never comes; the window's last must be signalled or the run never ends.
 */
START_TEST(engine_cq_mod_beyond_window)
{
	struct rank *r = rank_new();

	r->job.sizes.size[0] = 1u << 20;
	r->job.cq_mod = 32;
	r->job.iters = 100;
	rank_init(r, 1, true);
	ck_assert_uint_eq(r->en.window[0], 16);
	rank_run(r);
	check_books(r);
	ck_assert_uint_eq(r->res.flows[0].bytes, 100u << 20);
	rank_free(r);
}
END_TEST

/* A sweep's small sizes keep the whole queue depth; its big ones are held by --window. */
START_TEST(engine_sweep_window_per_step)
{
	struct rank *r = rank_new();
	size_t k;

	r->job.sizes = (struct nd_sizes){ .kind = ND_SIZES_SWEEP, .n = 15 };
	for (k = 0; k < 15; k++) {
		r->job.sizes.size[k] = 64u << k;
		r->job.sizes.weight[k] = 1;
	}
	r->job.iters = 200;
	rank_init(r, 2, true);
	ck_assert_uint_eq(r->en.window[0], 128);
	ck_assert_uint_eq(r->en.window[14], 16);
	rank_run(r);
	check_books(r);
	rank_free(r);
}
END_TEST

/* A failing request is almost always an unsignalled one: its error names its own flow. */
START_TEST(engine_error_names_the_flow)
{
	struct rank *r = rank_new();

	r->job.iters = 1000;
	rank_init(r, 3, true);
	fk.fail_qp = 1;
	fk.fail_at = 4;		/* 64 KiB messages are signalled every 32nd */
	rank_run(r);
	ck_assert_int_eq(r->ret, -EIO);
	ck_assert_msg(strstr(r->e.msg, "flow 1 (rank 0 -> rank 1) QP 0: completion failed: "),
		      "%s", r->e.msg);
	rank_free(r);
}
END_TEST

/*
 * A rank that only receives WRITEs is at the end barrier at once; it waits for the sender
 * through the job's duration and then --timeout + --watchdog more, not those alone.
 */
static int sink_run(double duration_s, uint64_t iters, uint64_t others_after_ns,
		    uint64_t *took_ns, char *msg, size_t len)
{
	struct rank *r = rank_new();
	uint64_t t0;
	int ret;

	r->job.duration_s = duration_s;
	r->job.iters = iters;
	r->job.watchdog_s = 0.2;
	rank_init(r, 1, false);
	r->rv.timeout_s = 0.2;
	t0 = now_ns();
	fk.barrier_at = others_after_ns ? t0 + others_after_ns : UINT64_MAX;
	rank_run(r);
	*took_ns = now_ns() - t0;
	ret = r->ret;
	snprintf(msg, len, "%s", r->e.msg);
	ck_assert_uint_eq(r->res.n_flows, 0);
	rank_free(r);
	return ret;
}

START_TEST(engine_sink_waits_for_the_job)
{
	char msg[ND_ERR_MSG_MAX];
	uint64_t took;

	/* the sender ends after its 0.6 s, past the 0.4 s of --timeout + --watchdog */
	ck_assert_msg(sink_run(0.6, 0, 700000000ull, &took, msg, sizeof(msg)) == 0, "%s", msg);
	ck_assert_uint_ge(took, 700000000ull);
	/* a sender that never ends: given up 0.4 s after the job's planned end */
	ck_assert_int_eq(sink_run(0.6, 0, 0, &took, msg, sizeof(msg)), -ETIMEDOUT);
	ck_assert_uint_ge(took, 1000000000ull);
	ck_assert_msg(strstr(msg, "rank 0 waited 0.4 s past the job's end for the other ranks"),
		      "%s", msg);
	/* --iters: the end is unknown, the wait lasts as long as the sender does */
	ck_assert_msg(sink_run(5, 1000, 700000000ull, &took, msg, sizeof(msg)) == 0, "%s", msg);
}
END_TEST

Suite *suite_gen_engine(void)
{
	Suite *s = suite_create("gen_engine");
	TCase *tc = tcase_create("engine");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, engine_counts_what_it_posts);
	tcase_add_test(tc, engine_cq_mod_beyond_window);
	tcase_add_test(tc, engine_sweep_window_per_step);
	tcase_add_test(tc, engine_error_names_the_flow);
	tcase_add_test(tc, engine_sink_waits_for_the_job);
	suite_add_tcase(s, tc);
	return s;
}
