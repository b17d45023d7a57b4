// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `make bench`, on the host: how fast the simulator runs the 64:1 incast at 100G (10 ms of
 * simulated time, profiles/scenarios/incast-64.yaml) with each flow control: events per second
 * and the wall time of nd_sim_run(), the best of ROUNDS runs. It prints numbers and asserts
 * nothing; the target (20 million events per second on one core) is read off the output.
 *
 *   sim_bench [SCENARIO [ROUNDS]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "nodrop.h"

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "profiles/scenarios/incast-64.yaml";
	int rounds = argc > 2 ? atoi(argv[2]) : 5, f, i;
	struct nd_run_report r;
	struct nd_sim_stats st;
	struct nd_scenario sc;
	struct nd_err e = { 0 };
	double t, best;

	if (nd_scenario_load(path, &sc, &e)) {
		fprintf(stderr, "sim_bench: %s\n", e.msg);
		return 2;
	}
	for (f = 0; f < ND_FABRIC_COUNT; f++) {
		best = 0;
		for (i = 0; i < (rounds > 0 ? rounds : 1); i++) {
			t = now_s();
			if (nd_sim_run(&sc, f, &r, &st, &e)) {
				fprintf(stderr, "sim_bench: %s: %s\n", path, e.msg);
				nd_scenario_free(&sc);
				return 3;
			}
			t = now_s() - t;
			best = !i || t < best ? t : best;
			nd_run_report_free(&r);
		}
		printf("sim %-4s %s: %.3f ms simulated in %.4f s: %llu events, %.1f M events/s\n",
		       nd_fabric_name(f), sc.name, (double)sc.duration_ps / 1e9, best,
		       (unsigned long long)st.events, (double)st.events / best / 1e6);
	}
	nd_scenario_free(&sc);
	return 0;
}
