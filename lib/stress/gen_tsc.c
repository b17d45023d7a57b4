// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * --latency round trips timed by the CPU's time-stamp counter where reading the kernel's clock
 * costs a system call: a guest whose kernel found its vCPUs' counters unsynchronised runs on
 * the HPET, and one read there is a sizeable part of a round trip of a few microseconds, paid
 * in every one (perftest's latency tests read the counter, get_cycles(), always). Used only
 * when the clock is slow, the instruction is there (RDTSCP, which also says which CPU read
 * it: a round trip is timed by one CPU's counter), and the counter's rate, measured against
 * CLOCK_MONOTONIC twice, agrees with itself; otherwise the clock it is. The engine's rounds
 * then read the clock from the counter too (nd_tsc_clock_now()), the kernel's clock only now
 * and then, to keep the system call out of the round trips.
 */
#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#include "gen_rt.h"

/* The kernel's clock is cheap (vDSO and a TSC clocksource: tens of ns) below this. */
#define CLOCK_SLOW_NS 150
#define CAL_NS 2000000		/* each calibration window */
#define CAL_AGREE 1e-3		/* two windows' rates agree this closely */

#if defined(__x86_64__)
#include <cpuid.h>

static bool has_rdtscp(void)
{
	unsigned int a, b, c, d;

	return __get_cpuid(0x80000001, &a, &b, &c, &d) && (d & (1u << 27));
}

uint64_t nd_tsc_read(uint32_t *cpu)
{
	unsigned int aux;
	uint64_t t = __builtin_ia32_rdtscp(&aux);

	/* Linux keeps the CPU number in the low 12 bits of TSC_AUX (its node above) */
	*cpu = aux & 0xfff;
	return t;
}
#else
static bool has_rdtscp(void)
{
	return false;
}

uint64_t nd_tsc_read(uint32_t *cpu)
{
	*cpu = 0;
	return 0;
}
#endif

/* Nanoseconds per tick over one window, both ends on one CPU; 0 when it moved. */
static double rate(void)
{
	uint32_t c0, c1;
	uint64_t t0 = nd_gen_now_ns(), k0 = nd_tsc_read(&c0), t1, k1;

	do
		t1 = nd_gen_now_ns();
	while (t1 - t0 < CAL_NS);
	k1 = nd_tsc_read(&c1);
	return c0 == c1 && k1 > k0 ? (double)(t1 - t0) / (double)(k1 - k0) : 0;
}

double nd_tsc_calibrate(void)
{
	double a, b;
	int i;

	if (!has_rdtscp())
		return 0;
	for (i = 0; i < 3; i++) {
		a = rate();
		b = rate();
		if (a > 0 && b > 0 && (a > b ? a - b : b - a) < CAL_AGREE * a)
			return (a + b) / 2;
	}
	return 0;
}

double nd_tsc_ns_per_tick(void)
{
	uint64_t t0, t1 = 0;
	int i;

	t0 = nd_gen_now_ns();
	for (i = 0; i < 32; i++)
		t1 = nd_gen_now_ns();
	return (t1 - t0) / 32 < CLOCK_SLOW_NS ? 0 : nd_tsc_calibrate();
}

uint64_t nd_tsc_clock_at(struct nd_tsc_clock *c, uint64_t t, uint32_t cpu)
{
	uint64_t ns;

	if (c->ns_per_tick > 0) {
		ns = (uint64_t)((double)(t - c->tsc) * c->ns_per_tick);
		if (c->reads && cpu == c->cpu && t >= c->tsc && ns < c->reread_ns)
			return c->ns + ns;
	}
	c->reads++;
	c->ns = nd_gen_now_ns();
	if (c->ns_per_tick > 0)
		c->tsc = nd_tsc_read(&c->cpu);
	return c->ns;
}

uint64_t nd_tsc_clock_now(struct nd_tsc_clock *c)
{
	uint32_t cpu = 0;
	uint64_t t = c->ns_per_tick > 0 ? nd_tsc_read(&cpu) : 0;

	return nd_tsc_clock_at(c, t, cpu);
}
