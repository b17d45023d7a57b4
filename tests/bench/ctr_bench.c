// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `make bench`: what a long-running counter watcher costs. One sampler samples every DEV at HZ
 * for SECONDS on an absolute schedule (a pause-storm watcher's loop: sample, diff against the
 * last, sleep), and prints the CPU it used (getrusage, user + system) as a percentage of one
 * core, and the mean CPU per port sample. HZ 0: back to back, for the wall time of one port's
 * sample inside a long-running process. It asserts nothing.
 *
 *   ctr_bench HZ SECONDS DEV...
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <sys/resource.h>

#include "nodrop.h"

static double cpu_s(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static double wall_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Sample every port once (one batch, as a watch does), diff against @last, keep them. */
static int round_once(struct nd_sampler *s, char **dev, int n, struct nd_sample *last,
		      struct nd_sample *now, struct nd_err *e)
{
	struct nd_delta *d;
	size_t nd;
	int i;

	if (nd_sample_ports(s, (const char *const *)dev, (size_t)n, now, e))
		return -1;
	for (i = 0; i < n; i++) {
		if (last[i].t_ns) {
			if (nd_sample_diff(&last[i], &now[i], &d, &nd, e))
				return -1;
			free(d);
		}
		nd_sample_free(&last[i]);
		last[i] = now[i];
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct nd_sample *last, *now;
	struct nd_sampler *s;
	struct nd_err e = { 0 };
	struct timespec at;
	double hz, secs, c0, w0, cpu, wall;
	long k, rounds;
	int n, i, ret = 0;

	if (argc < 4) {
		fprintf(stderr, "usage: ctr_bench HZ SECONDS DEV...\n");
		return 2;
	}
	hz = atof(argv[1]);
	secs = atof(argv[2]);
	n = argc - 3;
	last = calloc((size_t)n, sizeof(*last));
	now = calloc((size_t)n, sizeof(*now));
	if (!last || !now || hz < 0 || secs <= 0 || nd_sampler_new(&s, NULL, &e)) {
		fprintf(stderr, "ctr_bench: %s\n", e.msg[0] ? e.msg : "bad arguments");
		return 2;
	}
	/* the first round finds every port out; the measurement starts after it */
	if (round_once(s, argv + 3, n, last, now, &e))
		goto fail;
	rounds = hz > 0 ? (long)(hz * secs) : LONG_MAX;
	clock_gettime(CLOCK_MONOTONIC, &at);
	c0 = cpu_s();
	w0 = wall_s();
	for (k = 1; k <= rounds; k++) {
		if (round_once(s, argv + 3, n, last, now, &e))
			goto fail;
		if (!(hz > 0)) {
			if (wall_s() - w0 >= secs)
				break;
			continue;
		}
		at.tv_nsec += (long)(1e9 / hz);
		while (at.tv_nsec >= 1000000000L) {
			at.tv_nsec -= 1000000000L;
			at.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &at, NULL);
	}
	cpu = cpu_s() - c0;
	wall = wall_s() - w0;
	if (!(hz > 0)) {
		printf("counters back to back x %d ports for %.1f s: %.2f us per port sample (wall), "
		       "%.2f us CPU\n", n, wall, wall / (double)(k * n) * 1e6,
		       cpu / (double)(k * n) * 1e6);
		goto out;
	}
	printf("counters watch %.0f Hz x %d ports for %.1f s: %.2f %% of a core, %.2f us CPU per "
	       "port sample\n", hz, n, wall, 100 * cpu / wall, cpu / (double)(rounds * n) * 1e6);
	goto out;
fail:
	fprintf(stderr, "ctr_bench: %s\n", e.msg);
	ret = 1;
out:
	for (i = 0; i < n; i++)
		nd_sample_free(&last[i]);
	free(last);
	free(now);
	nd_sampler_free(s);
	return ret;
}
