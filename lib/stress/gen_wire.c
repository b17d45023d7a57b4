// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The byte codec for everything ranks send each other: explicit little-endian fields, never
 * struct images, so ranks on different builds agree and every read is bounds-checked. A reader
 * that runs short or meets a bad value stays bad: decoders check once at the end.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static void put(struct nd_wbuf *w, const void *p, size_t n)
{
	size_t cap;
	uint8_t *q;

	if (w->oom)
		return;
	if (w->len + n > w->cap) {
		cap = w->cap ? w->cap : 256;
		while (cap < w->len + n)
			cap *= 2;
		q = realloc(w->p, cap);
		if (!q) {
			w->oom = true;
			return;
		}
		w->p = q;
		w->cap = cap;
	}
	if (n)
		memcpy(w->p + w->len, p, n);
	w->len += n;
}

void nd_w_u8(struct nd_wbuf *w, uint8_t v)
{
	put(w, &v, 1);
}

void nd_w_u16(struct nd_wbuf *w, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)v, (uint8_t)(v >> 8) };

	put(w, b, 2);
}

void nd_w_u32(struct nd_wbuf *w, uint32_t v)
{
	nd_w_u16(w, (uint16_t)v);
	nd_w_u16(w, (uint16_t)(v >> 16));
}

void nd_w_u64(struct nd_wbuf *w, uint64_t v)
{
	nd_w_u32(w, (uint32_t)v);
	nd_w_u32(w, (uint32_t)(v >> 32));
}

void nd_w_f64(struct nd_wbuf *w, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof(bits));
	nd_w_u64(w, bits);
}

void nd_w_bytes(struct nd_wbuf *w, const void *p, size_t n)
{
	put(w, p, n);
}

void nd_w_str(struct nd_wbuf *w, const char *s)
{
	size_t n = strlen(s);

	if (n > UINT16_MAX)
		n = UINT16_MAX;
	nd_w_u16(w, (uint16_t)n);
	put(w, s, n);
}

void nd_wbuf_free(struct nd_wbuf *w)
{
	free(w->p);
	memset(w, 0, sizeof(*w));
}

const uint8_t *nd_r_bytes(struct nd_rbuf *r, size_t n)
{
	const uint8_t *p;

	if (r->bad || n > r->left) {
		r->bad = true;
		return NULL;
	}
	p = r->p;
	r->p += n;
	r->left -= n;
	return p;
}

uint8_t nd_r_u8(struct nd_rbuf *r)
{
	const uint8_t *p = nd_r_bytes(r, 1);

	return p ? p[0] : 0;
}

uint16_t nd_r_u16(struct nd_rbuf *r)
{
	const uint8_t *p = nd_r_bytes(r, 2);

	return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

uint32_t nd_r_u32(struct nd_rbuf *r)
{
	uint32_t lo = nd_r_u16(r);

	return lo | (uint32_t)nd_r_u16(r) << 16;
}

uint64_t nd_r_u64(struct nd_rbuf *r)
{
	uint64_t lo = nd_r_u32(r);

	return lo | (uint64_t)nd_r_u32(r) << 32;
}

double nd_r_f64(struct nd_rbuf *r, double min, double max)
{
	uint64_t bits = nd_r_u64(r);
	double v;

	memcpy(&v, &bits, sizeof(v));
	if (!isfinite(v) || v < min || v > max) {
		r->bad = true;
		return 0;
	}
	return v;
}

void nd_r_str(struct nd_rbuf *r, char *dst, size_t cap)
{
	size_t n = nd_r_u16(r), i;
	const uint8_t *p = nd_r_bytes(r, n);

	dst[0] = '\0';
	if (!p || n >= cap) {
		r->bad = true;
		return;
	}
	for (i = 0; i < n; i++) {
		if (p[i] < 0x20 || p[i] > 0x7e) {
			r->bad = true;
			return;
		}
	}
	memcpy(dst, p, n);
	dst[n] = '\0';
}

size_t nd_r_count(struct nd_rbuf *r, size_t max, size_t min_each)
{
	uint32_t n = nd_r_u32(r);

	if (n > max || (min_each && n > r->left / min_each)) {
		r->bad = true;
		return 0;
	}
	return n;
}

/* ---- the job: one row per option, so encode, decode and compare cannot drift apart ---- */

enum jf_type { JF_U32, JF_U64, JF_INT, JF_F64, JF_BOOL };

static const struct {
	const char *opt;	/* the option that sets it, for "ranks disagree on --qps" */
	enum jf_type type;
	size_t off;
	double max;		/* decoding rejects more */
} job_fields[] = {
#define JF(opt, type, field, max) { opt, type, offsetof(struct nd_stress_job, field), max }
	JF("--pattern", JF_U32, pattern, ND_SP_COUNT - 1),
	JF("--op", JF_U32, op, ND_OP_COUNT - 1),
	JF("--qps", JF_U32, qps, 1024),
	JF("--tx-depth", JF_U32, tx_depth, 16384),
	JF("--cq-mod", JF_U32, cq_mod, 16384),
	JF("--window", JF_U32, window_mib, 65536),
	JF("--duration", JF_F64, duration_s, 7 * 86400.0),
	JF("--iters", JF_U64, iters, 1e18),
	JF("--rate", JF_F64, rate_gbps, 10000),
	JF("--burst (on)", JF_U32, burst_on_us, 4e9),
	JF("--burst (off)", JF_U32, burst_off_us, 4e9),
	JF("--probes", JF_BOOL, probes, 1),
	JF("--latency", JF_BOOL, latency, 1),
	JF("--probe-size", JF_U32, probe_size, 65536),
	JF("--probe-interval", JF_U32, probe_interval_us, 4e9),
	JF("--validate", JF_BOOL, validate, 1),
	JF("--watchdog", JF_F64, watchdog_s, 86400),
	JF("--interval", JF_F64, interval_s, 86400),
	JF("--margin", JF_F64, margin_s, 86400),
	JF("--verbs", JF_U32, connect, ND_CONN_VERBS),
	JF("--tos", JF_INT, tos, 255),
	JF("--sl", JF_INT, sl, 15),
	JF("--qp-timeout", JF_INT, qp_timeout, 31),
#undef JF
};

_Static_assert(sizeof(enum nd_stress_pattern) == sizeof(uint32_t) &&
	       sizeof(enum nd_op) == sizeof(uint32_t) &&
	       sizeof(enum nd_connect) == sizeof(uint32_t), "enums are stored as uint32_t");

static double field_get(const struct nd_stress_job *job, size_t i)
{
	const char *p = (const char *)job + job_fields[i].off;
	uint32_t u32;
	uint64_t u64;
	int v;
	bool b;

	switch (job_fields[i].type) {
	case JF_U32:
		memcpy(&u32, p, sizeof(u32));
		return u32;
	case JF_U64:
		memcpy(&u64, p, sizeof(u64));
		return (double)u64;
	case JF_INT:
		memcpy(&v, p, sizeof(v));
		return v;
	case JF_BOOL:
		memcpy(&b, p, sizeof(b));
		return b;
	default:
		return *(const double *)(const void *)p;
	}
}

static void field_put(struct nd_wbuf *w, const struct nd_stress_job *job, size_t i)
{
	const char *p = (const char *)job + job_fields[i].off;
	uint64_t u64;

	if (job_fields[i].type == JF_F64) {
		nd_w_f64(w, *(const double *)(const void *)p);
	} else if (job_fields[i].type == JF_U64) {
		memcpy(&u64, p, sizeof(u64));
		nd_w_u64(w, u64);
	} else {
		/* -1 ("not given") travels as a large u64 and comes back as -1 */
		nd_w_u64(w, (uint64_t)(int64_t)field_get(job, i));
	}
}

static void field_take(struct nd_rbuf *r, struct nd_stress_job *job, size_t i)
{
	char *p = (char *)job + job_fields[i].off;
	double max = job_fields[i].max, d;
	uint64_t u64;
	int64_t s64;
	uint32_t u32;
	bool b;
	int v;

	if (job_fields[i].type == JF_F64) {
		d = nd_r_f64(r, 0, max);
		memcpy(p, &d, sizeof(d));
		return;
	}
	u64 = nd_r_u64(r);
	s64 = (int64_t)u64;
	if (job_fields[i].type == JF_INT ? (s64 < -1 || s64 > (int64_t)max) : u64 > (uint64_t)max) {
		r->bad = true;
		return;
	}
	switch (job_fields[i].type) {
	case JF_U32:
		u32 = (uint32_t)u64;
		memcpy(p, &u32, sizeof(u32));
		break;
	case JF_U64:
		memcpy(p, &u64, sizeof(u64));
		break;
	case JF_INT:
		v = (int)s64;
		memcpy(p, &v, sizeof(v));
		break;
	default:
		b = u64 != 0;
		memcpy(p, &b, sizeof(b));
		break;
	}
}

int nd_gen_job_encode(const struct nd_stress_job *job, struct nd_wbuf *w)
{
	size_t i;

	nd_w_u32(w, (uint32_t)ND_ARRAY_SIZE(job_fields));
	for (i = 0; i < ND_ARRAY_SIZE(job_fields); i++)
		field_put(w, job, i);
	nd_w_u32(w, job->sizes.kind);
	nd_w_u32(w, (uint32_t)job->sizes.n);
	for (i = 0; i < job->sizes.n; i++) {
		nd_w_u32(w, job->sizes.size[i]);
		nd_w_f64(w, job->sizes.weight[i]);
	}
	return w->oom ? -ENOMEM : 0;
}

int nd_gen_job_decode(struct nd_rbuf *r, struct nd_stress_job *job)
{
	size_t i, n;

	nd_stress_job_init(job);
	if (nd_r_u32(r) != ND_ARRAY_SIZE(job_fields))
		r->bad = true;
	for (i = 0; i < ND_ARRAY_SIZE(job_fields) && !r->bad; i++)
		field_take(r, job, i);
	job->sizes.kind = (enum nd_sizes_kind)nd_r_u32(r);
	if (job->sizes.kind > ND_SIZES_DIST)
		r->bad = true;
	n = nd_r_count(r, ND_SIZES_MAX, 12);
	if (!n)
		r->bad = true;
	for (i = 0; i < n; i++) {
		job->sizes.size[i] = nd_r_u32(r);
		job->sizes.weight[i] = nd_r_f64(r, 1e-300, 1e300);
		if (!job->sizes.size[i] || job->sizes.size[i] > ND_MSG_MAX)
			r->bad = true;
	}
	job->sizes.n = r->bad ? 0 : n;
	return r->bad ? -EPROTO : 0;
}

const char *nd_stress_job_option(const struct nd_stress_job *job, size_t i, double *value)
{
	if (i >= ND_ARRAY_SIZE(job_fields))
		return NULL;
	*value = field_get(job, i);
	return job_fields[i].opt;
}

int nd_gen_job_diff(const struct nd_stress_job *a, const struct nd_stress_job *b, char *what,
		    size_t len)
{
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(job_fields); i++) {
		if (field_get(a, i) != field_get(b, i)) {
			snprintf(what, len, "%s %g vs %g", job_fields[i].opt, field_get(a, i),
				 field_get(b, i));
			return 1;
		}
	}
	if (a->sizes.kind != b->sizes.kind || a->sizes.n != b->sizes.n ||
	    memcmp(a->sizes.size, b->sizes.size, a->sizes.n * sizeof(a->sizes.size[0])) ||
	    memcmp(a->sizes.weight, b->sizes.weight, a->sizes.n * sizeof(a->sizes.weight[0]))) {
		snprintf(what, len, "--size %u..%u vs %u..%u", nd_sizes_min(&a->sizes),
			 nd_sizes_max(&a->sizes), nd_sizes_min(&b->sizes), nd_sizes_max(&b->sizes));
		return 1;
	}
	return 0;
}
