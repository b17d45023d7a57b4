// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The event queue and the simulator's random numbers. Events are 16 bytes in arrays that only
 * grow (no malloc per event): a timing wheel for the next 67 us, where nearly every event lands
 * (a bucket per 4 ns, a bitmap to find the next one, FIFO within a time), and a 4-ary min-heap
 * for what lies further. Equal times pop in an order fixed by the pushes, so a run is a
 * function of its seed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

/*
 * Heap entry k lives at ev[k + PAD]: the four children of k (4k+1..4k+4) then sit at
 * 4(k+1)..4(k+1)+3, one aligned 64-byte line, and the minimum of them is found without branches.
 */
#define PAD 3
#define LINE 64

static struct sim_ev *ev_alloc(size_t cap)
{
	return aligned_alloc(LINE, (cap + PAD + 1) * sizeof(struct sim_ev) / LINE * LINE + LINE);
}

int sim_heap_init(struct sim_heap *h, size_t cap)
{
	h->n = 0;
	h->cap = cap ? cap : 1024;
	h->ev = ev_alloc(h->cap);
	return h->ev ? 0 : -ENOMEM;
}

void sim_heap_free(struct sim_heap *h)
{
	free(h->ev);
	memset(h, 0, sizeof(*h));
}

int sim_heap_push(struct sim_heap *h, uint64_t t, uint8_t kind, uint32_t ref, uint16_t arg)
{
	struct sim_ev *ev = h->ev, e = { .t = t, .ref = ref, .arg = arg, .kind = kind };
	size_t i, parent;

	if (h->n == h->cap) {
		ev = ev_alloc(2 * h->cap);
		if (!ev)
			return -ENOMEM;
		memcpy(ev, h->ev, (h->n + PAD) * sizeof(*ev));
		free(h->ev);
		h->ev = ev;
		h->cap *= 2;
	}
	ev += PAD;
	/* sift up: move parents down until @e fits */
	for (i = h->n++; i; i = parent) {
		parent = (i - 1) / 4;
		if (ev[parent].t <= t)
			break;
		ev[i] = ev[parent];
	}
	ev[i] = e;
	return 0;
}

bool sim_heap_pop(struct sim_heap *h, struct sim_ev *out)
{
	struct sim_ev *ev = h->ev + PAD, last;
	size_t i = 0, c, best, n, b01, b23, k, parent;

	if (!h->n)
		return false;
	*out = ev[0];
	n = --h->n;
	if (!n)
		return true;
	last = ev[n];
	/*
	 * Floyd's way: walk the hole down to a leaf along the smallest children (no compare with
	 * the last event, whose place is nearly always near the bottom), then let it rise.
	 */
	for (;;) {
		c = 4 * i + 1;
		if (c + 3 < n) {
			b01 = ev[c + 1].t < ev[c].t ? c + 1 : c;
			b23 = ev[c + 3].t < ev[c + 2].t ? c + 3 : c + 2;
			best = ev[b23].t < ev[b01].t ? b23 : b01;
		} else {
			if (c >= n)
				break;
			for (best = c, k = c + 1; k < n; k++)
				if (ev[k].t < ev[best].t)
					best = k;
		}
		ev[i] = ev[best];
		i = best;
	}
	for (; i; i = parent) {
		parent = (i - 1) / 4;
		if (ev[parent].t <= last.t)
			break;
		ev[i] = ev[parent];
	}
	ev[i] = last;
	return true;
}

/* ---- the timing wheel ---- */

#define SLOT_MASK (SIM_WHEEL_SLOTS - 1)
#define WORDS (SIM_WHEEL_SLOTS / 64)

int sim_evq_init(struct sim_evq *q)
{
	memset(q, 0, sizeof(*q));
	memset(q->head, 0xff, sizeof(q->head));
	q->free = SIM_NONE;
	return sim_heap_init(&q->far, 1024);
}

void sim_evq_free(struct sim_evq *q)
{
	free(q->pool);
	sim_heap_free(&q->far);
}

static uint32_t wev_alloc(struct sim_evq *q)
{
	struct sim_wev *pool;
	uint32_t w, cap;

	if (q->free != SIM_NONE) {
		w = q->free;
		q->free = q->pool[w].next;
		return w;
	}
	if (q->n_pool == q->cap_pool) {
		cap = q->cap_pool ? 2 * q->cap_pool : 4096;
		pool = realloc(q->pool, (size_t)cap * sizeof(*pool));
		if (!pool)
			return SIM_NONE;
		q->pool = pool;
		q->cap_pool = cap;
	}
	return q->n_pool++;
}

int sim_evq_push(struct sim_evq *q, uint64_t t, uint8_t kind, uint32_t ref, uint16_t arg)
{
	uint64_t b = t >> SIM_WHEEL_SHIFT;
	struct sim_wev *w;
	uint32_t i, slot, *link;

	if (b >= q->cur + SIM_WHEEL_SLOTS)
		return sim_heap_push(&q->far, t, kind, ref, arg);
	i = wev_alloc(q);
	if (i == SIM_NONE)
		return -ENOMEM;
	w = &q->pool[i];
	w->ev = (struct sim_ev){ .t = t, .ref = ref, .arg = arg, .kind = kind };
	slot = (uint32_t)(b & SLOT_MASK);
	q->n_wheel++;
	if (q->head[slot] == SIM_NONE) {
		w->next = SIM_NONE;
		q->head[slot] = q->tail[slot] = i;
		q->bits[slot / 64] |= 1ULL << (slot % 64);
		return 0;
	}
	/* the common case: not earlier than the bucket's last */
	if (q->pool[q->tail[slot]].ev.t <= t) {
		w->next = SIM_NONE;
		q->pool[q->tail[slot]].next = i;
		q->tail[slot] = i;
		return 0;
	}
	for (link = &q->head[slot]; q->pool[*link].ev.t <= t; link = &q->pool[*link].next)
		;
	w->next = *link;
	*link = i;
	return 0;
}

/* The first non-empty bucket at or after the current one, going round once; -1 none. */
static int next_slot(const struct sim_evq *q)
{
	uint32_t start = (uint32_t)(q->cur & SLOT_MASK), word = start / 64, k;
	uint64_t bits = q->bits[word] & (~0ULL << (start % 64));

	for (k = 0; k <= WORDS; k++) {
		if (bits)
			return (int)(word * 64 + (uint32_t)__builtin_ctzll(bits));
		word = (word + 1) % WORDS;
		bits = q->bits[word];
	}
	return -1;
}

bool sim_evq_pop(struct sim_evq *q, uint64_t until, struct sim_ev *out)
{
	const struct sim_ev *far = q->far.n ? &q->far.ev[PAD] : NULL;
	struct sim_wev *w = NULL;
	uint32_t i;
	int slot;

	slot = q->n_wheel ? next_slot(q) : -1;
	if (slot >= 0)
		w = &q->pool[q->head[slot]];
	/* a far event pushed long ago may now be due before anything in the wheel */
	if (!w || (far && far->t < w->ev.t)) {
		if (!far || far->t > until)
			return false;
		sim_heap_pop(&q->far, out);
		q->cur = out->t >> SIM_WHEEL_SHIFT;
		return true;
	}
	if (w->ev.t > until)
		return false;
	i = q->head[slot];
	*out = w->ev;
	q->head[slot] = w->next;
	if (w->next == SIM_NONE)
		q->bits[slot / 64] &= ~(1ULL << (slot % 64));
	w->next = q->free;
	q->free = i;
	q->n_wheel--;
	q->cur = out->t >> SIM_WHEEL_SHIFT;
	return true;
}

uint64_t sim_mix64(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

void sim_rng_seed(struct sim_rng *r, uint64_t seed)
{
	unsigned int i;

	/* splitmix64 steps: never the all-zero state xoshiro cannot leave */
	for (i = 0; i < 4; i++) {
		seed += 0x9e3779b97f4a7c15ULL;
		r->s[i] = sim_mix64(seed);
	}
}

static inline uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sim_rng_next(struct sim_rng *r)
{
	uint64_t *s = r->s, result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double sim_rng_unit(struct sim_rng *r)
{
	/* the top 53 bits: every double in [0, 1) this can give is equally likely */
	return (double)(sim_rng_next(r) >> 11) * 0x1.0p-53;
}
