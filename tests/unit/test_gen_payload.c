// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress: payload validation catches corruption anywhere, misordering, and tells overruns apart;
 * a WRITE sink's slots after a run, also a run that failed mid-message.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stress/gen_rt.h"
#include "unit.h"

#define SLOT 4096

START_TEST(payload_good)
{
	uint8_t *m = malloc(SLOT);
	struct nd_pl_hdr h;

	nd_pl_fill(m, SLOT, 7, 2, 5, 0, SLOT);
	nd_pl_stamp(m, 7, 2, 5, 1234, 1000);
	ck_assert(nd_pl_header(m, 1000, &h));
	ck_assert_uint_eq(h.seq, 1234);
	ck_assert_uint_eq(h.len, 1000);
	ck_assert_uint_eq(h.slot, 5);
	ck_assert_int_eq(nd_pl_check(m, 1000, 7, 2, 5, 1234, 0, false), ND_PL_OK);
	/* READ: a prefix of a slot filled for its whole size */
	nd_pl_stamp(m, 7, 2, 5, 5, SLOT);
	ck_assert_int_eq(nd_pl_check(m, 100, 7, 2, 5, 5, 0, true), ND_PL_OK);
	ck_assert_int_eq(nd_pl_check(m, 100, 7, 2, 5, 5, 0, false), ND_PL_CORRUPT);
	free(m);
}
END_TEST

START_TEST(payload_any_flipped_bit_is_corrupt)
{
	uint8_t *m = malloc(SLOT);
	size_t byte;
	int bit;

	nd_pl_fill(m, SLOT, 1, 0, 3, 0, SLOT);
	nd_pl_stamp(m, 1, 0, 3, 42, 257);
	/* every bit of a 257-byte message, header and body: the odd length has a short tail */
	for (byte = 0; byte < 257; byte++) {
		for (bit = 0; bit < 8; bit++) {
			m[byte] ^= (uint8_t)(1 << bit);
			ck_assert_int_eq(nd_pl_check(m, 257, 1, 0, 3, 42, 0, false), ND_PL_CORRUPT);
			m[byte] ^= (uint8_t)(1 << bit);
		}
	}
	ck_assert_int_eq(nd_pl_check(m, 257, 1, 0, 3, 42, 0, false), ND_PL_OK);
	free(m);
}
END_TEST

START_TEST(payload_identity)
{
	uint8_t *m = malloc(SLOT);

	nd_pl_fill(m, SLOT, 1, 0, 3, 9, 512);
	/* another flow's, another QP's, another slot's message: corrupt (misplaced) */
	ck_assert_int_eq(nd_pl_check(m, 512, 2, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 1, 3, 9, 0, false), ND_PL_CORRUPT);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 0, 4, 9, 0, false), ND_PL_CORRUPT);
	/* the length the header claims must be what arrived */
	ck_assert_int_eq(nd_pl_check(m, 511, 1, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	/* the body follows the slot the header names: a body from slot 4 under slot 3 fails */
	nd_pl_fill(m, SLOT, 1, 0, 4, 9, 512);
	nd_pl_stamp(m, 1, 0, 3, 9, 512);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	memset(m, 0, SLOT);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	free(m);
}
END_TEST

START_TEST(payload_order)
{
	uint8_t *m = malloc(SLOT);

	nd_pl_fill(m, SLOT, 1, 0, 3, 11, 64);
	/* expected 10, got 11: out of order */
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 10, 0, false), ND_PL_MISORDERED);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 12, 0, false), ND_PL_MISORDERED);
	/* 8 target slots: 11 + 8 is a later message that rewrote the slot first */
	nd_pl_stamp(m, 1, 0, 3, 19, 64);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 11, 8, false), ND_PL_OVERRUN);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 11, 0, false), ND_PL_MISORDERED);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 12, 8, false), ND_PL_MISORDERED);
	free(m);
}
END_TEST

START_TEST(payload_short_header)
{
	uint8_t m[ND_PL_HDR] = { 0 };
	struct nd_pl_hdr h;

	nd_pl_stamp(m, 1, 0, 0, 0, ND_PL_HDR);
	ck_assert(nd_pl_header(m, ND_PL_HDR, &h));
	ck_assert(!nd_pl_header(m, ND_PL_HDR - 1, &h));
	ck_assert_int_eq(nd_pl_check(m, ND_PL_HDR, 1, 0, 0, 0, 0, false), ND_PL_OK);
}
END_TEST

/*
 * A WRITE sink after a run: @nmsg messages of seeded random sizes written in order into the
 * QP's slots as the sender does, the newest cut short when @cut (a run stopped mid-message),
 * or an older one damaged when @damage_old. Returns the engine's counts.
 */
struct slots_out {
	uint64_t validated, corrupt, max_seq;
};

static struct slots_out sink_after(unsigned int seed, uint64_t nmsg, bool cut, bool damage_old,
				   int fatal)
{
	struct nd_mem_spec spec = { .kind = ND_MEM_HOST, .gpu = -1 };
	struct nd_stress_job job;
	struct nd_gen_flow flow = { .id = 3, .src = 1, .dst = 0 };
	struct nd_gen_rank_result res = { 0 };
	struct nd_engine en = { 0 };
	struct nd_qp q = { 0 };
	struct nd_mem m;
	struct nd_err e = { 0 };
	struct slots_out o;
	uint8_t *slot;
	uint64_t seq, old;
	uint32_t len;

	nd_stress_job_init(&job);
	job.op = ND_OP_WRITE;
	job.validate = true;
	job.tx_depth = 16;
	q.flow = &flow;
	q.idx = 1;
	q.sink = true;
	q.xslots = 16;
	en.job = &job;
	en.slot_size = SLOT;
	en.qps = &q;
	en.n_qps = 1;
	en.res = &res;
	en.fatal = fatal;
	ck_assert_int_eq(nd_mem_open(&m, &spec, (size_t)SLOT * q.xslots, &e), 0);
	memset(m.host, 0, m.size);
	en.mem = &m;
	slot = malloc(SLOT);
	for (seq = 0; seq < nmsg; seq++) {
		len = ND_PL_HDR + 16 + (uint32_t)(rand_r(&seed) % (SLOT - ND_PL_HDR - 16));
		nd_pl_fill(slot, SLOT, flow.id, q.idx, (uint16_t)(seq % job.tx_depth), seq, len);
		/*
		 * only the first packets of the newest message landed; its tail is what the slot
		 * held (an older message of the same slot has the same body pattern, so the test
		 * zeroes it: a slot written for the first time)
		 */
		if (cut && seq == nmsg - 1)
			memset(slot + len - 8, 0, 8);
		ck_assert_int_eq(nd_mem_put(&m, (seq % q.xslots) * SLOT, slot, SLOT), 0);
	}
	if (damage_old) {
		old = nmsg - 1 - 1 - rand_r(&seed) % (nmsg > q.xslots ? q.xslots - 1 : nmsg - 1);
		m.host[(old % q.xslots) * SLOT + ND_PL_HDR + 1] ^= 0x10;
	}
	nd_engine_final_check(&en);
	o.validated = res.validated;
	o.corrupt = res.corrupt;
	o.max_seq = q.max_seq;
	free(res.checks);
	free(slot);
	nd_mem_close(&m);
	return o;
}

/*
 * Seeded cases: a clean run checks every slot; a half-landed newest message is corrupt in a run
 * that finished, unjudged in one that failed; an older damaged slot is corrupt either way.
 */
START_TEST(sink_slots_after_run)
{
	unsigned int seed = 1795, k;
	struct slots_out o;
	uint64_t n, held;

	for (k = 0; k < 40; k++) {
		n = 3 + rand_r(&seed) % 60;
		held = n < 16 ? n : 16;
		o = sink_after(seed + k, n, false, false, 0);
		ck_assert_uint_eq(o.validated, held);
		ck_assert_uint_eq(o.corrupt, 0);
		ck_assert_uint_eq(o.max_seq, n);
		o = sink_after(seed + k, n, true, false, 0);
		ck_assert_uint_eq(o.corrupt, 1);
		o = sink_after(seed + k, n, true, false, -ETIMEDOUT);
		ck_assert_uint_eq(o.corrupt, 0);
		ck_assert_uint_eq(o.validated, held - 1);
		ck_assert_uint_eq(o.max_seq, n);
		o = sink_after(seed + k, n, true, true, -ECONNABORTED);
		ck_assert_uint_eq(o.corrupt, 1);
		ck_assert_uint_eq(o.validated, held - 2);
	}
}
END_TEST

/*
 * --latency's counter (gen_tsc.c): its measured rate turns counter ticks into the clock's
 * nanoseconds, checked over 20 ms on one CPU (a CPU without RDTSCP: 0, the clock is used).
 * Whether it is used (a kernel clock slower than 150 ns a read) is the VM tier's case: its
 * guests run on the HPET.
 */
START_TEST(tsc_rate_against_clock)
{
	double ns = nd_tsc_calibrate();
	uint64_t t0, t1, k0, k1;
	uint32_t c0, c1;
	int tries;

	if (ns == 0)
		return;
	ck_assert(ns > 0.01 && ns < 100);
	for (tries = 0; tries < 10; tries++) {
		t0 = nd_gen_now_ns();
		k0 = nd_tsc_read(&c0);
		do
			t1 = nd_gen_now_ns();
		while (t1 - t0 < 20000000);
		k1 = nd_tsc_read(&c1);
		if (c0 != c1)
			continue;
		/* 20 ms by the counter within 1 % of 20 ms by the clock */
		ck_assert_msg(fabs((double)(k1 - k0) * ns - (double)(t1 - t0)) < 0.01 * (t1 - t0),
			      "%.0f ns by the counter, %llu by the clock", (double)(k1 - k0) * ns,
			      (unsigned long long)(t1 - t0));
		return;
	}
}
END_TEST

/*
 * The engine rounds' clock from the counter (nd_tsc_clock_now()), at seeded random gaps of
 * 0-300 us: within 20 us of the kernel's clock read around it, even with a rate 1 % off (the
 * clock is read again every reread_ns, 1 ms), and the kernel's clock read about that often
 * (and on a CPU change), not every time. Without a rate: the kernel's clock, every time.
 */
START_TEST(tsc_clock_follows_clock)
{
	struct nd_tsc_clock c;
	uint64_t x = 0x7e57c10c, start, r0, r1, now, moves = 0, gap;
	uint32_t cpu, last = UINT32_MAX;
	int i, n = 1000, pass;

	for (pass = 0; pass < 3; pass++) {
		c = (struct nd_tsc_clock){ .reread_ns = 1000000 };
		c.ns_per_tick = pass ? nd_tsc_calibrate() * (pass == 2 ? 1.01 : 1) : 0;
		start = nd_gen_now_ns();
		for (i = 0; i < n; i++) {
			x = nd_gen_mix64(x);
			gap = x % 300000;
			r0 = nd_gen_now_ns();
			while (nd_gen_now_ns() - r0 < gap)
				;
			r0 = nd_gen_now_ns();
			now = nd_tsc_clock_now(&c);
			r1 = nd_gen_now_ns();
			nd_tsc_read(&cpu);
			moves += cpu != last;
			last = cpu;
			ck_assert_msg(now + 20000 >= r0 && now <= r1 + 20000,
				      "pass %d call %d: %llu ns, the clock %llu-%llu", pass, i,
				      (unsigned long long)now, (unsigned long long)r0,
				      (unsigned long long)r1);
		}
		if (!c.ns_per_tick) {
			ck_assert_uint_eq(c.reads, n);
			continue;
		}
		ck_assert_msg(c.reads <= (nd_gen_now_ns() - start) / c.reread_ns + 2 * moves + 2,
			      "%llu clock reads in %d calls, %llu CPU changes",
			      (unsigned long long)c.reads, n, (unsigned long long)moves);
		ck_assert_uint_lt(c.reads, n / 2);
	}
}
END_TEST

/*
 * A counter reading converted later (nd_tsc_clock_at(), the time WRITE latency last moved):
 * after seeded random gaps of 0-300 us, within 20 us of the kernel's clock read beside the
 * reading, or where the clock had to be read again, the clock then: never before the reading.
 * A reading another CPU took is the clock now. Without a rate: the clock now, every time.
 */
START_TEST(tsc_clock_at_reading)
{
	struct nd_tsc_clock c;
	uint64_t x = 0x7e57a7, r0, r1, r2, at, t, reads, gap;
	uint32_t cpu;
	int i, pass, fresh = 0;

	for (pass = 0; pass < 2; pass++) {
		c = (struct nd_tsc_clock){ .reread_ns = 1000000 };
		c.ns_per_tick = pass ? nd_tsc_calibrate() : 0;
		nd_tsc_clock_now(&c);
		for (i = 0; i < 500; i++) {
			x = nd_gen_mix64(x);
			gap = x % 300000;
			r0 = nd_gen_now_ns();
			t = nd_tsc_read(&cpu);
			r1 = nd_gen_now_ns();
			while (nd_gen_now_ns() - r1 < gap)
				;
			reads = c.reads;
			at = nd_tsc_clock_at(&c, t, cpu);
			r2 = nd_gen_now_ns();
			if (c.ns_per_tick && c.reads == reads) {
				fresh++;
				ck_assert_msg(at + 20000 >= r0 && at <= r1 + 20000,
					      "call %d: %llu ns for a reading at %llu-%llu", i,
					      (unsigned long long)at, (unsigned long long)r0,
					      (unsigned long long)r1);
			} else {
				ck_assert_uint_eq(c.reads, reads + 1);
				ck_assert_uint_ge(at, r1 + gap);
				ck_assert_uint_le(at, r2);
			}
		}
		if (!c.ns_per_tick)
			continue;
		ck_assert_int_gt(fresh, 250);
		reads = c.reads;
		r0 = nd_gen_now_ns();
		t = nd_tsc_read(&cpu);
		at = nd_tsc_clock_at(&c, t, cpu + 1);
		ck_assert_uint_eq(c.reads, reads + 1);
		ck_assert_uint_ge(at, r0);
	}
}
END_TEST

Suite *suite_gen_payload(void)
{
	Suite *s = suite_create("gen_payload");
	TCase *tc = tcase_create("payload");

	tcase_add_test(tc, payload_good);
	tcase_add_test(tc, payload_any_flipped_bit_is_corrupt);
	tcase_add_test(tc, payload_identity);
	tcase_add_test(tc, payload_order);
	tcase_add_test(tc, payload_short_header);
	tcase_add_test(tc, sink_slots_after_run);
	tcase_add_test(tc, tsc_rate_against_clock);
	tcase_add_test(tc, tsc_clock_follows_clock);
	tcase_add_test(tc, tsc_clock_at_reading);
	suite_add_tcase(s, tc);
	return s;
}
