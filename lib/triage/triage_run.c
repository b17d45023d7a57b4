// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage of live ports: read each port's state, sample its counters twice an interval apart,
 * and run the rules (nd_triage(), triage.c) over the deltas. This file owns the sampling, the
 * wait between samples and the report; it calls down into triage.c, never the other way.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "triage_int.h"

static int sleep_until(const struct timespec *deadline)
{
	int ret;

	do
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL);
	while (ret == EINTR);
	return -ret;
}

static int append(struct nd_triage_report *r, struct nd_finding *f, size_t n, struct nd_err *e)
{
	struct nd_finding *grown;

	if (!n)
		return 0;
	grown = realloc(r->findings, (r->n_findings + n) * sizeof(*grown));
	if (!grown)
		return nd_err_set(e, -ENOMEM, "cannot triage: out of memory");
	memcpy(grown + r->n_findings, f, n * sizeof(*f));
	r->findings = grown;
	r->n_findings += n;
	return 0;
}

/* Second sample, deltas and rules for port @i, whose first sample is @a. */
static int finish_port(struct nd_sampler *s, struct nd_triage_report *r, size_t i,
		       const struct nd_sample *a, const struct nd_triage_opts *o, struct nd_err *e)
{
	struct nd_triage_port *tp = &r->ports[i];
	struct nd_sample b = { 0 };
	struct nd_finding *f = NULL;
	struct nd_delta *d = NULL;
	struct nd_err pe = { 0 };
	size_t n = 0, k;
	int ret;

	ret = nd_sample_port(s, tp->port.link.name, &b, &pe);
	if (ret) {
		tp->status = ret;
		nd_strlcpy(tp->error, pe.msg, sizeof(tp->error));
		return 0;
	}
	ret = nd_sample_diff(a, &b, &d, &n, e);
	if (ret)
		goto out;
	tp->interval_s = (double)(b.t_ns - a->t_ns) / 1e9;
	tp->n_counters = b.n;
	for (k = 0; k < n; k++)
		tp->n_moved += nd_tri_counted(&d[k]) && d[k].delta;
	ret = nd_triage(&tp->port, d, n, tp->interval_s, o, &f, e);
	if (ret >= 0)
		ret = append(r, f, (size_t)ret, e);
out:
	free(f);
	free(d);
	nd_sample_free(&b);
	return ret;
}

/*
 * Read the ports named (all when @n is 0) into the report, with room for each one's first
 * sample; on failure the report is freed.
 */
static int read_ports(struct nd_ctx *ctx, const char *const *names, size_t n,
		      struct nd_triage_report *r, struct nd_sample **first, bool **taken,
		      struct nd_err *e)
{
	struct nd_port *ports = NULL;
	size_t count = 0, i;
	int ret;

	ret = nd_ports_read(ctx, names, n, &ports, &count, e);
	if (ret)
		return ret;
	r->ports = calloc(count ? count : 1, sizeof(*r->ports));
	*first = calloc(count ? count : 1, sizeof(**first));
	*taken = calloc(count ? count : 1, sizeof(**taken));
	if (!r->ports || !*first || !*taken) {
		nd_ports_free(ports, count);
		free(*taken);
		free(*first);
		nd_triage_report_free(r);
		return nd_err_set(e, -ENOMEM, "cannot triage: out of memory");
	}
	/* the report owns each port's state from here on */
	for (i = 0; i < count; i++)
		r->ports[i].port = ports[i];
	r->n = count;
	free(ports);
	return 0;
}

/* CLOCK_MONOTONIC @seconds from now. */
static void deadline_after(struct timespec *t, double seconds)
{
	clock_gettime(CLOCK_MONOTONIC, t);
	t->tv_sec += (time_t)seconds;
	t->tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (t->tv_nsec >= 1000000000L) {
		t->tv_sec++;
		t->tv_nsec -= 1000000000L;
	}
}

/* The first sample of every port; one that cannot be sampled says why in its entry. */
static void sample_first(struct nd_sampler *s, struct nd_triage_report *r,
			 struct nd_sample *first, bool *taken)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		struct nd_err pe = { 0 };

		r->ports[i].status = nd_sample_port(s, r->ports[i].port.link.name, &first[i], &pe);
		nd_strlcpy(r->ports[i].error, pe.msg, sizeof(r->ports[i].error));
		taken[i] = !r->ports[i].status;
	}
}

int nd_triage_run(struct nd_ctx *ctx, const char *const *names, size_t n, double seconds,
		  const struct nd_triage_opts *o, struct nd_triage_report *r, struct nd_err *e)
{
	struct nd_sample *first = NULL;
	struct nd_sampler *s = NULL;
	bool *taken = NULL;		/* first[i] holds a sample to free */
	struct nd_triage_opts def;
	struct timespec deadline;
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->interval_s = seconds;
	if (!(seconds > 0 && seconds <= 86400))
		return nd_err_set(e, -EINVAL, "the interval must be more than 0 and at most 86400 "
				  "seconds, not %g", seconds);
	if (!o) {
		nd_triage_opts_init(&def);
		o = &def;
	}
	ret = read_ports(ctx, names, n, r, &first, &taken, e);
	if (ret)
		return ret;
	ret = nd_sampler_new(&s, o->maps, e);
	if (ret)
		goto out;
	deadline_after(&deadline, seconds);
	sample_first(s, r, first, taken);
	ret = sleep_until(&deadline);
	if (ret) {
		nd_err_set(e, ret, "cannot wait %g s between samples: %s", seconds, strerror(-ret));
		goto out;
	}
	for (i = 0; i < r->n && !ret; i++)
		if (!r->ports[i].status)
			ret = finish_port(s, r, i, &first[i], o, e);
out:
	for (i = 0; i < r->n; i++)
		if (taken[i])
			nd_sample_free(&first[i]);
	free(taken);
	free(first);
	if (s)
		nd_sampler_free(s);
	if (ret)
		nd_triage_report_free(r);
	return ret;
}

void nd_triage_report_free(struct nd_triage_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		nd_dcb_free(&r->ports[i].port.dcb);
	free(r->ports);
	free(r->findings);
	memset(r, 0, sizeof(*r));
}
