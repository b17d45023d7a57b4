// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `make bench`, on the host: how fast the simulator runs, in events per second of wall time,
 * the best of ROUNDS runs. It prints numbers and asserts nothing.
 *
 *   sim_bench SCENARIO [ROUNDS]
 *	each flow control on one scenario (make bench: the 64:1 incast at 100G)
 *   sim_bench --scale SCENARIO [ROUNDS] [HOSTS...]
 *	the same leaf-spine scenario (make bench: web search at 30 % load) grown to 8, 64, 256,
 *	1024 and 4096 hosts, leaves = spines = sqrt-ish of the hosts, simulated for a time that
 *	gives each size about the same number of events
 *	(3x the scenario's duration at 8 hosts, 1/hosts of that beyond, 200 us at least).
 *	packets, flows done, the p99 slowdown's bits) follows each line: two builds that model
 *	the same thing print the same fingerprints.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nodrop.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint64_t fnv(uint64_t h, uint64_t v)
{
	int i;

	for (i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
	return h;
}

static uint64_t fingerprint(const struct nd_sim_stats *st)
{
	uint64_t h = 0xcbf29ce484222325ULL, bits;

	memcpy(&bits, &st->slowdown.p99, sizeof(bits));
	h = fnv(h, st->events);
	h = fnv(h, st->packets);
	h = fnv(h, st->flows_done);
	return fnv(h, bits);
}

/* The best wall time of @rounds runs; @st holds the last run's numbers. */
static int best_run(const struct nd_scenario *sc, enum nd_fabric f, int rounds, double *best,
		    struct nd_sim_stats *st)
{
	struct nd_run_report r;
	struct nd_err e = { 0 };
	double t;
	int i;

	for (i = 0; i < (rounds > 0 ? rounds : 1); i++) {
		t = now_s();
		if (nd_sim_run(sc, f, &r, st, &e)) {
			fprintf(stderr, "sim_bench: %s: %s\n", sc->file, e.msg);
			return -1;
		}
		t = now_s() - t;
		*best = !i || t < *best ? t : *best;
		nd_run_report_free(&r);
	}
	return 0;
}

static int fabrics(const struct nd_scenario *sc, int rounds)
{
	struct nd_sim_stats st;
	double best;
	int f;

	for (f = 0; f < ND_FABRIC_COUNT; f++) {
		if (best_run(sc, f, rounds, &best, &st))
			return 3;
		printf("sim %-4s %s: %.3f ms simulated in %.4f s: %llu events, %.1f M events/s\n",
		       nd_fabric_name(f), sc->name, (double)sc->duration_ps / 1e9, best,
		       (unsigned long long)st.events, (double)st.events / best / 1e6);
	}
	return 0;
}

/* Leaves (= spines) for @hosts: a power of two near its square root. */
static unsigned int leaves_for(unsigned int hosts)
{
	unsigned int l = 2;

	while (l * l * 4 <= hosts)
		l *= 2;
	return l;
}

static int scale(struct nd_scenario *sc, int rounds, int argc, char **argv)
{
	static const char *const dflt[] = { "8", "64", "256", "1024", "4096" };
	uint64_t base = sc->duration_ps;
	struct nd_sim_stats st;
	unsigned int hosts, l;
	double best;
	int i, n = argc ? argc : 5;

	for (i = 0; i < n; i++) {
		hosts = (unsigned int)atoi(argc ? argv[i] : dflt[i]);
		l = leaves_for(hosts);
		sc->topo.leaves = sc->topo.spines = l;
		sc->topo.hosts_per_leaf = hosts / l;
		/*
		 * About as many events at every size (the load per host is fixed), but never
		 * less than 200 us: the biggest flows need that to reach their steady state.
		 */
		sc->duration_ps = base * 24 / (hosts < 8 ? 8 : hosts);
		if (sc->duration_ps < 200000000)
			sc->duration_ps = 200000000;
		if (best_run(sc, ND_FABRIC_ROCE, rounds, &best, &st))
			return 3;
		printf("sim scale %4u hosts (%u leaves x %u): %.1f us simulated in %.4f s: "
		       "%llu events, %.1f M events/s, fingerprint %016" PRIx64 "\n",
		       l * (hosts / l), l, hosts / l, (double)sc->duration_ps / 1e6, best,
		       (unsigned long long)st.events, (double)st.events / best / 1e6,
		       fingerprint(&st));
	}
	return 0;
}

int main(int argc, char **argv)
{
	bool sc_mode = argc > 1 && !strcmp(argv[1], "--scale");
	const char *path;
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	int rounds, ret;

	argv += sc_mode;
	argc -= sc_mode;
	path = argc > 1 ? argv[1] : "profiles/scenarios/incast-64.yaml";
	rounds = argc > 2 ? atoi(argv[2]) : 5;
	if (nd_scenario_load(path, &sc, &e)) {
		fprintf(stderr, "sim_bench: %s\n", e.msg);
		return 2;
	}
	if (sc_mode)
		ret = scale(&sc, rounds, argc > 3 ? argc - 3 : 0, argv + 3);
	else
		ret = fabrics(&sc, rounds);
	nd_scenario_free(&sc);
	return ret;
}
