// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress: latency probes on a NIC's send queue. Most probes are unsignalled; a NIC keeps an
 * unsignalled work request's slot until the completion of a later signalled one is polled
 * (soft-RoCE frees slots as it retires them, so the VM tier cannot see an overflow).
 */
#include <stdlib.h>

#include "stress/gen_rt.h"
#include "unit.h"

#define PROBES 100000

/*
 * Post @n probes on a send queue of @slots under nd_probe_signalled(); a signalled probe's
 * completion is polled after 0 to ND_PROBE_SIGNAL - 1 further posts (seeded: the engine polls
 * every round, and a probe's answer, which the next probe waits for, comes after its ACK).
 * Returns the posts that found the queue full.
 */
static int overflows(uint32_t slots, unsigned int seed, int n)
{
	struct nd_qp q = { 0 };
	/* signalled probes in order of posting: each one's completion falls due after the last's */
	uint64_t posted = 0, freed = 0, due_at[2], upto[2];
	unsigned int head = 0, tail = 0;
	int full = 0, i;

	for (i = 0; i < n; i++) {
		/* a completion due by now frees every slot up to its work request */
		for (; head != tail && due_at[head % 2] <= posted; head++)
			freed = upto[head % 2];
		if (posted - freed >= slots) {
			full++;
			continue;	/* the post fails; the engine would stop there */
		}
		posted++;
		if (nd_probe_signalled(&q)) {
			ck_assert_uint_lt(tail - head, 2);
			due_at[tail % 2] = posted + (uint64_t)(rand_r(&seed) % ND_PROBE_SIGNAL);
			upto[tail++ % 2] = posted;
		}
	}
	return full;
}

/* The probe QP's send queue as the engine asks for it (WRITE and SEND latency, --probes). */
static uint32_t probe_send_slots(enum nd_op op, bool latency)
{
	struct nd_mem_spec spec = { .kind = ND_MEM_HOST, .gpu = -1 };
	struct nd_stress_job job;
	struct nd_engine en = { 0 };
	struct nd_dev dev = { 0 };
	struct nd_qp q = { 0 };
	struct ibv_qp_init_attr a;
	struct nd_mem m;
	struct nd_err e = { 0 };

	nd_stress_job_init(&job);
	job.op = op;
	job.latency = latency;
	ck_assert_int_eq(nd_mem_open(&m, &spec, 4096, &e), 0);
	en.job = &job;
	en.dev = &dev;
	en.mem = &m;
	q.probe = true;
	q.active = true;
	q.rx_depth = ND_PROBE_RX;
	nd_ep_qp_attr(&en, &q, &a);
	nd_mem_close(&m);
	return a.cap.max_send_wr;
}

START_TEST(probe_send_queue_never_overflows)
{
	static const enum nd_op ops[] = { ND_OP_WRITE, ND_OP_SEND };
	unsigned int seed = 2611;
	size_t i;
	int lat, r;

	for (i = 0; i < ND_ARRAY_SIZE(ops); i++) {
		for (lat = 0; lat < 2; lat++) {
			uint32_t slots = probe_send_slots(ops[i], lat);

			for (r = 0; r < 8; r++)
				ck_assert_int_eq(overflows(slots, seed + (unsigned int)r, PROBES), 0);
		}
	}
	/* the model finds what it looks for: the queue of 4 that WRITE probes once had */
	ck_assert_int_gt(overflows(4, seed, PROBES), 0);
}
END_TEST

Suite *suite_gen_probe(void)
{
	Suite *s = suite_create("gen_probe");
	TCase *tc = tcase_create("probe");

	tcase_add_test(tc, probe_send_queue_never_overflows);
	suite_add_tcase(s, tc);
	return s;
}
