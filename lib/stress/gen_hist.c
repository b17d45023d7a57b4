// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Latency histograms: 128 linear buckets per power of two of nanoseconds (under 0.8 % wide: a
 * median is told from perftest's to well within 1 %), so a p99.9 over millions of samples costs
 * 64 KiB, and ranks merge theirs by adding counts (sent sparse: only buckets with samples).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define SUB_BITS 7

_Static_assert(ND_HIST_SUB == 1 << SUB_BITS, "sub-buckets are a power of two");

size_t nd_hist_bucket(uint64_t ns)
{
	unsigned int e;

	if (ns < ND_HIST_SUB)
		return (size_t)ns;
	e = 63u - (unsigned int)__builtin_clzll(ns);
	return (size_t)(e - SUB_BITS + 1) * ND_HIST_SUB +
	       (size_t)((ns >> (e - SUB_BITS)) & (ND_HIST_SUB - 1));
}

uint64_t nd_hist_value(size_t bucket)
{
	size_t e;

	if (bucket < ND_HIST_SUB)
		return bucket;
	e = bucket / ND_HIST_SUB + SUB_BITS - 1;
	return (uint64_t)(ND_HIST_SUB + bucket % ND_HIST_SUB) << (e - SUB_BITS);
}

static int ensure(struct nd_hist *h)
{
	if (!h->b)
		h->b = calloc(ND_HIST_BUCKETS, sizeof(*h->b));
	return h->b ? 0 : -ENOMEM;
}

int nd_hist_add(struct nd_hist *h, uint64_t ns)
{
	if (ensure(h))
		return -ENOMEM;
	h->b[nd_hist_bucket(ns)]++;
	h->count++;
	h->sum_ns += (double)ns;
	if (ns > h->max_ns)
		h->max_ns = ns;
	return 0;
}

int nd_hist_merge(struct nd_hist *to, const struct nd_hist *from)
{
	size_t i;

	if (!from->count)
		return 0;
	if (ensure(to))
		return -ENOMEM;
	for (i = 0; i < ND_HIST_BUCKETS; i++)
		to->b[i] += from->b[i];
	to->count += from->count;
	to->sum_ns += from->sum_ns;
	if (from->max_ns > to->max_ns)
		to->max_ns = from->max_ns;
	return 0;
}

/* The value below which a share @q of the samples lie: the middle of its bucket. */
static double quantile_us(const struct nd_hist *h, double q)
{
	double x = q * (double)h->count, lo, hi, v;
	uint64_t want = (uint64_t)x, seen = 0;
	size_t i;

	/* the nearest rank: ceil(q * count), at least 1 */
	if ((double)want < x || !want)
		want++;
	for (i = 0; i < ND_HIST_BUCKETS; i++) {
		seen += h->b[i];
		if (seen >= want)
			break;
	}
	if (i == ND_HIST_BUCKETS)
		i--;
	lo = (double)nd_hist_value(i);
	hi = i + 1 < ND_HIST_BUCKETS ? (double)nd_hist_value(i + 1) : lo;
	v = (lo + hi) / 2;
	if (v > (double)h->max_ns)
		v = (double)h->max_ns;
	return v / 1000;
}

void nd_hist_dist(const struct nd_hist *h, struct nd_dist *d)
{
	size_t i;

	memset(d, 0, sizeof(*d));
	if (!h->count || !h->b)
		return;
	d->count = h->count;
	d->p50_us = quantile_us(h, 0.50);
	d->p99_us = quantile_us(h, 0.99);
	d->p999_us = quantile_us(h, 0.999);
	d->max_us = (double)h->max_ns / 1000;
	d->mean_us = h->sum_ns / (double)h->count / 1000;
	for (i = 0; i < ND_DIST_CDF_POINTS; i++)
		d->cdf_us[i] = i + 1 < ND_DIST_CDF_POINTS ?
			       quantile_us(h, nd_dist_cdf_fraction(i)) : d->max_us;
}

void nd_hist_free(struct nd_hist *h)
{
	free(h->b);
	memset(h, 0, sizeof(*h));
}

void nd_hist_encode(const struct nd_hist *h, struct nd_wbuf *w)
{
	uint32_t n = 0;
	size_t i;

	for (i = 0; h->b && i < ND_HIST_BUCKETS; i++)
		n += h->b[i] != 0;
	nd_w_u32(w, n);
	for (i = 0; h->b && i < ND_HIST_BUCKETS; i++) {
		if (!h->b[i])
			continue;
		nd_w_u16(w, (uint16_t)i);
		nd_w_u64(w, h->b[i]);
	}
	nd_w_u64(w, h->max_ns);
	nd_w_f64(w, h->sum_ns);
}

int nd_hist_decode(struct nd_rbuf *r, struct nd_hist *h)
{
	size_t n = nd_r_count(r, ND_HIST_BUCKETS, 10), i, bucket;
	uint64_t c;

	memset(h, 0, sizeof(*h));
	if (n && ensure(h))
		return -ENOMEM;
	for (i = 0; i < n && !r->bad; i++) {
		bucket = nd_r_u16(r);
		c = nd_r_u64(r);
		/* every bucket once, counts that cannot overflow the total */
		if (bucket >= ND_HIST_BUCKETS || h->b[bucket] || !c || c > (UINT64_MAX >> 16)) {
			r->bad = true;
			break;
		}
		h->b[bucket] = c;
		h->count += c;
	}
	h->max_ns = nd_r_u64(r);
	h->sum_ns = nd_r_f64(r, 0, 1e30);
	if (!r->bad && h->count && nd_hist_bucket(h->max_ns) >= ND_HIST_BUCKETS)
		r->bad = true;
	if (r->bad) {
		nd_hist_free(h);
		return -EPROTO;
	}
	return 0;
}
