// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Deltas and rates between two samples of one port. Counters are matched by (mapped, source,
 * name, priority); a counter present in one sample only is NEW or GONE, which is how mlx5's
 * per-priority pause strings come and go with PFC.
 *
 * What moved when a value went down:
 * - narrower than 64 bits and not saturating: a wrap if the modular distance (2^w - a) + b is at
 *   most half the range, 2^(w-1); otherwise a reset. A reset (driver reload, counters cleared)
 *   brings values back near zero from wherever they were, which as a wrap would mean more than
 *   half the range in one interval; a true wrap moved the counter by less unless the port ran
 *   faster than the sampling can follow (a 32-bit packet counter at 600 Mpps needs samples at
 *   least every 3.5 s), and then no rule could tell anyway.
 * - 64 bits: always a reset; nothing counts to 2^64 in a lifetime.
 * - saturating (IB PMA error counters): a reset; at the maximum the counter is SATURATED and the
 *   delta is what it moved up to the maximum, a lower bound.
 * A reset gives no delta: inventing one would report traffic or loss that nobody saw.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"

struct ref {
	const struct nd_counter *c;
	size_t idx;
};

static int key_cmp(const struct nd_counter *x, const struct nd_counter *y)
{
	int r;

	if (x->mapped != y->mapped)
		return x->mapped ? -1 : 1;
	if (x->source != y->source)
		return x->source < y->source ? -1 : 1;
	r = strcmp(x->name, y->name);
	if (r)
		return r;
	return (x->prio > y->prio) - (x->prio < y->prio);
}

/*
 * The key and the raw name as bytes, name through raw: equal bytes are equal fields (each
 * string ends inside its array), and a port's samples built from one layout have them so.
 * Unequal bytes (padding, what follows a string's end) say nothing: compare the fields.
 */
#define KEY_BYTES (offsetof(struct nd_counter, raw) + ND_CTR_NAME_MAX)
_Static_assert(offsetof(struct nd_counter, name) < offsetof(struct nd_counter, raw) &&
	       offsetof(struct nd_counter, prio) < offsetof(struct nd_counter, raw) &&
	       offsetof(struct nd_counter, mapped) < offsetof(struct nd_counter, raw) &&
	       offsetof(struct nd_counter, source) < offsetof(struct nd_counter, raw),
	       "same_bytes() compares the key and the raw name as one range");

static bool same_bytes(const struct nd_counter *x, const struct nd_counter *y)
{
	return !memcmp(x, y, KEY_BYTES);
}

/* Equal keys keep sample order, so duplicate raw names pair up first with first. */
static int ref_cmp(const void *pa, const void *pb)
{
	const struct ref *a = pa, *b = pb;
	int r = key_cmp(a->c, b->c);

	if (r)
		return r;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

static struct ref *sorted_refs(const struct nd_sample *s)
{
	struct ref *r = calloc(s->n ? s->n : 1, sizeof(*r));
	size_t i;

	if (!r)
		return NULL;
	for (i = 0; i < s->n; i++)
		r[i] = (struct ref){ &s->c[i], i };
	qsort(r, s->n, sizeof(*r), ref_cmp);
	return r;
}

/* pair[j]: the counter of @a that counter j of @b continues, -1 none; used[i]: i was paired. */
static int pair_up(const struct nd_sample *a, const struct nd_sample *b, ssize_t *pair,
		   bool *used)
{
	struct ref *ra, *rb;
	size_t i, j;
	int r;

	ra = sorted_refs(a);
	rb = sorted_refs(b);
	if (!ra || !rb) {
		free(ra);
		free(rb);
		return -ENOMEM;
	}
	for (j = 0; j < b->n; j++)
		pair[j] = -1;
	for (i = j = 0; i < a->n && j < b->n;) {
		r = key_cmp(ra[i].c, rb[j].c);
		if (r < 0) {
			i++;
		} else if (r > 0) {
			j++;
		} else {
			pair[rb[j].idx] = (ssize_t)ra[i].idx;
			used[ra[i].idx] = true;
			i++;
			j++;
		}
	}
	free(ra);
	free(rb);
	return 0;
}

static void fill(struct nd_delta *d, const struct nd_counter *c, enum nd_delta_status status)
{
	/* field by field: a watch fills one per counter per round, and the name is most of it */
	memcpy(d->name, c->name, sizeof(d->name));
	d->prio = c->prio;
	d->mapped = c->mapped;
	d->source = c->source;
	d->value = c->value;
	d->delta = 0;
	d->rate = 0;
	d->status = status;
}

/* @b continues @a: their keys are equal (@raw_same: their raw names too). */
static void moved(const struct nd_counter *a, const struct nd_counter *b, bool raw_same,
		  struct nd_delta *d)
{
	unsigned int w = b->width && b->width < 64 ? b->width : 64;
	uint64_t max = w == 64 ? UINT64_MAX : (UINT64_C(1) << w) - 1;
	bool sat = b->saturates;

	fill(d, b, ND_DELTA_OK);
	/* another raw counter (an alias) or another definition now stands behind the name */
	if ((!raw_same && strcmp(a->raw, b->raw)) || a->width != b->width ||
	    a->saturates != b->saturates) {
		d->status = ND_DELTA_RESET;
		return;
	}
	/* values beyond the width say the map is wrong about it: trust the values */
	if (a->value > max || b->value > max) {
		w = 64;
		max = UINT64_MAX;
		sat = false;
	}
	if (b->value < a->value) {
		uint64_t wrapped = max - a->value + b->value + 1;

		if (!sat && w < 64 && wrapped <= UINT64_C(1) << (w - 1)) {
			d->status = ND_DELTA_WRAPPED;
			d->delta = wrapped;
		} else {
			d->status = ND_DELTA_RESET;
		}
		return;
	}
	d->delta = b->value - a->value;
	if (sat && b->value == max)
		d->status = ND_DELTA_SATURATED;
}

static void moved_rate(const struct nd_counter *a, const struct nd_counter *b, bool raw_same,
		       double dt, struct nd_delta *d)
{
	moved(a, b, raw_same, d);
	if (dt > 0)
		d->rate = (double)d->delta / dt;
}

/*
 * Two samples of a port whose driver listed the same counters the same way (nearly always):
 * pairing by position is what matching sorted keys gives, without the sorts. False when
 * another list came: what was written to @d is to be written again.
 */
static bool by_position(const struct nd_sample *a, const struct nd_sample *b, double dt,
			struct nd_delta *d)
{
	bool same;
	size_t j;

	if (a->n != b->n)
		return false;
	for (j = 0; j < b->n; j++) {
		same = same_bytes(&a->c[j], &b->c[j]);
		if (!same && key_cmp(&a->c[j], &b->c[j]))
			return false;
		moved_rate(&a->c[j], &b->c[j], same, dt, &d[j]);
	}
	return true;
}

/* counters per sample whose pairing tables fit on the stack (mlx5 lists about 1,000) */
#define DIFF_STACK 256

/* Pairs by key: the counters of @b in its order, then what vanished from @a in @a's. */
static int by_key(const struct nd_sample *a, const struct nd_sample *b, double dt,
		  struct nd_delta *d, size_t *n)
{
	ssize_t pair_st[DIFF_STACK + 1], *pair;
	bool used_st[DIFF_STACK + 1], *used;
	size_t i, j, k = 0;
	int ret = 0;

	/* small tables on the stack */
	pair = b->n <= DIFF_STACK ? pair_st : malloc((b->n + 1) * sizeof(*pair));
	used = a->n <= DIFF_STACK ? used_st : malloc(a->n + 1);
	if (used)
		memset(used, 0, a->n + 1);
	if (!pair || !used || pair_up(a, b, pair, used)) {
		ret = -ENOMEM;
		goto out;
	}
	for (j = 0; j < b->n; j++, k++) {
		if (pair[j] < 0)
			fill(&d[k], &b->c[j], ND_DELTA_NEW);
		else
			moved_rate(&a->c[pair[j]], &b->c[j], false, dt, &d[k]);
	}
	for (i = 0; i < a->n; i++)
		if (!used[i])
			fill(&d[k++], &a->c[i], ND_DELTA_GONE);
	*n = k;
out:
	if (pair != pair_st)
		free(pair);
	if (used != used_st)
		free(used);
	return ret;
}

int nd_sample_diff(const struct nd_sample *a, const struct nd_sample *b, struct nd_delta **out,
		   size_t *n, struct nd_err *e)
{
	struct nd_delta *d;
	double dt = 0;

	*out = NULL;
	*n = 0;
	if (strcmp(a->ifname, b->ifname))
		return nd_err_set(e, -EINVAL, "cannot diff samples of two ports (%s and %s)",
				  a->ifname, b->ifname);
	/* a watch diffs every port every round: the deltas are not zeroed */
	d = malloc((a->n + b->n + 1) * sizeof(*d));
	if (!d)
		goto nomem;
	if (b->t_ns > a->t_ns)
		dt = (double)(b->t_ns - a->t_ns) / 1e9;
	if (by_position(a, b, dt, d))
		*n = b->n;
	else if (by_key(a, b, dt, d, n))
		goto nomem;
	*out = d;
	return 0;
nomem:
	free(d);
	return nd_err_set(e, -ENOMEM, "out of memory for %zu counter deltas", a->n + b->n);
}

const struct nd_delta *nd_delta_find(const struct nd_delta *d, size_t n, const char *name,
				     int prio)
{
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++)
		for (i = 0; i < n; i++)
			if (d[i].mapped == !pass && d[i].prio == prio && !strcmp(d[i].name, name))
				return &d[i];
	return NULL;
}

static const char *const status_names[] = {
	[ND_DELTA_OK] = "ok",
	[ND_DELTA_WRAPPED] = "wrapped",
	[ND_DELTA_SATURATED] = "saturated",
	[ND_DELTA_RESET] = "reset",
	[ND_DELTA_NEW] = "new",
	[ND_DELTA_GONE] = "gone",
};

const char *nd_delta_status_name(enum nd_delta_status status)
{
	return (size_t)status < sizeof(status_names) / sizeof(status_names[0]) ?
	       status_names[status] : "unknown";
}
