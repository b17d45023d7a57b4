// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Run reports, shared by stress (measured) and sim (modelled): fairness, percentiles, names. */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static const char *const verdict_names[] = {
	[ND_VERDICT_NONE] = "none",
	[ND_VERDICT_LOSSLESS] = "lossless",
	[ND_VERDICT_LOSSY] = "lossy",
	[ND_VERDICT_FAILED] = "failed",
};

const char *nd_verdict_name(enum nd_verdict v)
{
	if ((unsigned int)v < ND_ARRAY_SIZE(verdict_names) && verdict_names[v])
		return verdict_names[v];
	return "unknown";
}

double nd_jain(const double *x, size_t n)
{
	double sum = 0, sq = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	/* equal shares of nothing are fair too */
	if (n < 2 || sq == 0)
		return 1;
	return sum * sum / ((double)n * sq);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Nearest rank: the smallest sample with at least @q of the samples at or below it. */
static double rank(const double *sorted, size_t n, double q)
{
	size_t k = (size_t)(q * (double)n);

	if ((double)k < q * (double)n)
		k++;
	return sorted[k ? k - 1 : 0];
}

static const double cdf_fractions[ND_DIST_CDF_POINTS] = {
	0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 1,
};

double nd_dist_cdf_fraction(size_t i)
{
	return i < ND_DIST_CDF_POINTS ? cdf_fractions[i] : 1;
}

void nd_dist_of(double *samples_us, size_t n, struct nd_dist *out)
{
	double sum = 0;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	qsort(samples_us, n, sizeof(*samples_us), cmp_double);
	for (i = 0; i < n; i++)
		sum += samples_us[i];
	out->count = n;
	out->p50_us = rank(samples_us, n, 0.50);
	out->p99_us = rank(samples_us, n, 0.99);
	out->p999_us = rank(samples_us, n, 0.999);
	out->max_us = samples_us[n - 1];
	out->mean_us = sum / (double)n;
	for (i = 0; i < ND_DIST_CDF_POINTS; i++)
		out->cdf_us[i] = rank(samples_us, n, cdf_fractions[i]);
}

void nd_run_report_free(struct nd_run_report *r)
{
	size_t i;

	if (!r)
		return;
	for (i = 0; i < r->n_flows; i++)
		free(r->flows[i].series_gbps);
	free(r->flows);
	free(r->ports);
	free(r->evidence);
	memset(r, 0, sizeof(*r));
}
