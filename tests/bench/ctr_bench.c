// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `make bench`: what a long-running counter watcher costs. One sampler samples every DEV at HZ
 * for SECONDS on an absolute schedule (a pause-storm watcher's loop: sample, diff against the
 * last, sleep), and prints the CPU it used (getrusage, user + system) as a percentage of one
 * core, and the mean CPU per port sample. HZ 0: back to back, for the wall time of one port's
 * sample inside a long-running process. It asserts nothing.
 *
 * What the platform costs anyway, on the same schedule: --floor makes per port only the system
 * call that any reader of a driver's counters makes (ETHTOOL_GSTATS, what `ethtool -S` reads:
 * the kernel's share), --idle nothing at all (waking up HZ times a second).
 *
 *   ctr_bench [--floor|--idle] HZ SECONDS DEV...
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <string.h>
#include <unistd.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>

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

enum mode { SAMPLE, FLOOR, IDLE };

/* --floor: one port's ETHTOOL_GSTATS, sized once as ethtool sizes it */
struct bare {
	struct ifreq ifr;
	struct ethtool_stats *st;
	uint32_t n;
};

static int bare_open(int fd, const char *dev, struct bare *b)
{
	struct ethtool_drvinfo di = { .cmd = ETHTOOL_GDRVINFO };

	memset(b, 0, sizeof(*b));
	snprintf(b->ifr.ifr_name, sizeof(b->ifr.ifr_name), "%s", dev);
	b->ifr.ifr_data = (void *)&di;
	if (ioctl(fd, SIOCETHTOOL, &b->ifr))
		return -1;
	b->n = di.n_stats;
	b->st = calloc(1, sizeof(*b->st) + b->n * sizeof(uint64_t));
	return b->st ? 0 : -1;
}

static int bare_read(int fd, struct bare *b)
{
	b->st->cmd = ETHTOOL_GSTATS;
	b->st->n_stats = b->n;
	b->ifr.ifr_data = (void *)b->st;
	return ioctl(fd, SIOCETHTOOL, &b->ifr);
}

static int floor_once(int fd, struct bare *b, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (bare_read(fd, &b[i]))
			return -1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const what[] = { "counters", "bare ethtool ioctls", "empty loop" };
	struct nd_sample *last, *now;
	struct nd_sampler *s = NULL;
	struct nd_err e = { 0 };
	struct bare *bare;
	struct timespec at;
	double hz, secs, c0, w0, cpu, wall;
	enum mode mode = SAMPLE;
	long k, rounds;
	int n, i, fd = -1, ret = 0;

	if (argc > 1 && (!strcmp(argv[1], "--floor") || !strcmp(argv[1], "--idle"))) {
		mode = argv[1][2] == 'f' ? FLOOR : IDLE;
		argv++;
		argc--;
	}
	if (argc < 4) {
		fprintf(stderr, "usage: ctr_bench [--floor|--idle] HZ SECONDS DEV...\n");
		return 2;
	}
	hz = atof(argv[1]);
	secs = atof(argv[2]);
	n = argc - 3;
	last = calloc((size_t)n, sizeof(*last));
	now = calloc((size_t)n, sizeof(*now));
	bare = calloc((size_t)n, sizeof(*bare));
	if (!last || !now || !bare || hz < 0 || secs <= 0 ||
	    (mode == SAMPLE && nd_sampler_new(&s, NULL, &e))) {
		fprintf(stderr, "ctr_bench: %s\n", e.msg[0] ? e.msg : "bad arguments");
		return 2;
	}
	if (mode == FLOOR) {
		fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		for (i = 0; i < n; i++)
			if (fd < 0 || bare_open(fd, argv[3 + i], &bare[i])) {
				perror(argv[3 + i]);
				ret = 1;
				goto out;
			}
	}
	/* the first round finds every port out; the measurement starts after it */
	if (mode == SAMPLE && round_once(s, argv + 3, n, last, now, &e))
		goto fail;
	rounds = hz > 0 ? (long)(hz * secs) : LONG_MAX;
	clock_gettime(CLOCK_MONOTONIC, &at);
	c0 = cpu_s();
	w0 = wall_s();
	for (k = 1; k <= rounds; k++) {
		if (mode == SAMPLE && round_once(s, argv + 3, n, last, now, &e))
			goto fail;
		if (mode == FLOOR && floor_once(fd, bare, n)) {
			perror("ETHTOOL_GSTATS");
			ret = 1;
			goto out;
		}
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
		printf("%s back to back x %d ports for %.1f s: %.2f us per port sample (wall), "
		       "%.2f us CPU\n", what[mode], n, wall, wall / (double)(k * n) * 1e6,
		       cpu / (double)(k * n) * 1e6);
		goto out;
	}
	printf("%s watch %.0f Hz x %d ports for %.1f s: %.2f %% of a core, %.2f us CPU per "
	       "port sample\n", what[mode], hz, n, wall, 100 * cpu / wall,
	       cpu / (double)(rounds * n) * 1e6);
	goto out;
fail:
	fprintf(stderr, "ctr_bench: %s\n", e.msg);
	ret = 1;
out:
	for (i = 0; i < n; i++) {
		nd_sample_free(&last[i]);
		free(bare[i].st);
	}
	free(last);
	free(now);
	free(bare);
	if (fd >= 0)
		close(fd);
	nd_sampler_free(s);
	return ret;
}
