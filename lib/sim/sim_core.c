// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The simulator's core (its types are sim_core.h's), below every other file of lib/sim/: the
 * event queue and the random numbers. Events are 16 bytes in arrays that only grow (no malloc
 * per event): a timing wheel for the next 67 us, where nearly every event lands (a bucket per
 * 4 ns, a list of chunks of seven events, a bitmap to find the next one; a bucket is sorted
 * once, when the clock reaches it), and a 4-ary min-heap for what lies further. Equal times pop
 * in an order fixed by the pushes, so a run is a function of its seed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_core.h"

/*
 * Heap entry k lives at ev[k + PAD]: the four children of k (4k+1..4k+4) then sit at
 * 4(k+1)..4(k+1)+3, one aligned 64-byte line, and the minimum of them is found without branches.
 */
#define PAD SIM_HEAP_PAD
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
/* below this many events a bucket is sorted by insertion, above by radix */
#define INSERTION_MAX 24

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
	free(q->run);
	free(q->tmp);
	free(q->late);
	sim_heap_free(&q->far);
}

/* Room for @n events in the drain's sorted run and its sort's scratch. */
static int run_reserve(struct sim_evq *q, uint32_t n)
{
	struct sim_ev *run, *tmp;
	uint32_t cap = q->run_cap ? q->run_cap : 64;

	if (n <= q->run_cap)
		return 0;
	while (cap < n)
		cap *= 2;
	run = realloc(q->run, (size_t)cap * sizeof(*run));
	if (run)
		q->run = run;
	tmp = realloc(q->tmp, (size_t)cap * sizeof(*tmp));
	if (tmp)
		q->tmp = tmp;
	if (!run || !tmp)
		return -ENOMEM;
	q->run_cap = cap;
	return 0;
}

/* Twice the chunks. The pool moves: what holds a chunk across this holds its index. */
static int pool_grow(struct sim_evq *q)
{
	uint32_t cap = q->cap_pool ? 2 * q->cap_pool : 1024;
	struct sim_wchunk *pool;

	/* a bucket holds at most the pool: loading it into the drain never allocates */
	if (run_reserve(q, cap * SIM_CHUNK))
		return -ENOMEM;
	pool = aligned_alloc(LINE, (size_t)cap * sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	if (q->n_pool)
		memcpy(pool, q->pool, (size_t)q->n_pool * sizeof(*pool));
	free(q->pool);
	q->pool = pool;
	q->cap_pool = cap;
	return 0;
}

/* An empty chunk off the free list, or a new one; SIM_NONE when the pool cannot grow. */
static inline uint32_t chunk_alloc(struct sim_evq *q)
{
	uint32_t c = q->free;

	if (c != SIM_NONE)
		q->free = q->pool[c].next;
	else if (q->n_pool < q->cap_pool || !pool_grow(q))
		c = q->n_pool++;
	else
		return SIM_NONE;
	q->pool[c].next = SIM_NONE;
	q->pool[c].lo = 0;
	q->pool[c].hi = 0;
	return c;
}

static inline bool late_before(const struct sim_lev *a, const struct sim_lev *b)
{
	return a->ev.t < b->ev.t || (a->ev.t == b->ev.t && a->seq < b->seq);
}

static int late_push(struct sim_evq *q, const struct sim_ev *e)
{
	struct sim_lev *h = q->late, x = { .ev = *e, .seq = q->seq++ };
	uint32_t i, parent, cap;

	if (q->n_late == q->cap_late) {
		cap = q->cap_late ? 2 * q->cap_late : 256;
		h = realloc(q->late, (size_t)cap * sizeof(*h));
		if (!h)
			return -ENOMEM;
		q->late = h;
		q->cap_late = cap;
	}
	for (i = q->n_late++; i; i = parent) {
		parent = (i - 1) / 2;
		if (!late_before(&x, &h[parent]))
			break;
		h[i] = h[parent];
	}
	h[i] = x;
	return 0;
}

static void late_pop(struct sim_evq *q, struct sim_ev *out)
{
	struct sim_lev *h = q->late, last;
	uint32_t i = 0, c, n = --q->n_late;

	*out = h[0].ev;
	last = h[n];
	for (; (c = 2 * i + 1) < n; i = c) {
		if (c + 1 < n && late_before(&h[c + 1], &h[c]))
			c++;
		if (!late_before(&h[c], &last))
			break;
		h[i] = h[c];
	}
	h[i] = last;
}

/* @e into a bucket of one chunk with room, kept in order: after the equal times. */
static void insert(struct sim_wchunk *ch, const struct sim_ev *e)
{
	uint32_t k;

	if (ch->hi == SIM_CHUNK) {
		memmove(ch->ev, ch->ev + ch->lo, (size_t)(ch->hi - ch->lo) * sizeof(ch->ev[0]));
		ch->hi -= ch->lo;
		ch->lo = 0;
	}
	for (k = ch->hi; k > ch->lo && ch->ev[k - 1].t > e->t; k--)
		ch->ev[k] = ch->ev[k - 1];
	ch->ev[k] = *e;
	ch->hi++;
}

/* sim_evq_push()'s every case */
int sim_evq_push_slow(struct sim_evq *q, const struct sim_ev *ev)
{
	struct sim_ev e = *ev;
	uint64_t t = e.t, b = t >> SIM_WHEEL_SHIFT;
	struct sim_wchunk *ch = NULL;
	bool empty;
	uint32_t slot, c;

	if (b >= q->cur + SIM_WHEEL_SLOTS)
		return sim_heap_push(&q->far, t, e.kind, e.ref, e.arg);
	/* a bucket already sorted into the drain: the heap beside it keeps the order */
	if (q->draining && b <= q->drained)
		return late_push(q, &e);
	slot = (uint32_t)(b & SLOT_MASK);
	empty = q->head[slot] == SIM_NONE;
	if (!empty) {
		ch = &q->pool[q->tail[slot]];
		/* earlier than the bucket's last, in a bucket kept in order */
		if (ch->ev[ch->hi - 1].t > t && !sim_evq_unsorted(q, slot)) {
			/* one chunk with room: in place, after equal times; else sort on loading */
			if (q->head[slot] == q->tail[slot] && ch->hi - ch->lo < SIM_CHUNK) {
				insert(ch, &e);
				q->n_wheel++;
				return 0;
			}
			q->unsorted[slot / 64] |= 1ULL << (slot % 64);
		}
	}
	/* a new bucket, or its last chunk full: a chunk at its end (the pool may move) */
	if (empty || ch->hi == SIM_CHUNK) {
		c = chunk_alloc(q);
		if (c == SIM_NONE)
			return -ENOMEM;
		if (empty) {
			q->head[slot] = c;
			q->bits[slot / 64] |= 1ULL << (slot % 64);
		} else {
			q->pool[q->tail[slot]].next = c;
		}
		q->tail[slot] = c;
		ch = &q->pool[c];
	}
	ch->ev[ch->hi++] = e;
	q->n_wheel++;
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

/* Sort @n events of one bucket by time, equal times kept in order (@tmp: scratch for @n). */
static void sort_bucket(struct sim_ev *ev, struct sim_ev *tmp, uint32_t n)
{
	uint32_t i, j, cnt[2][64], pos, pass;
	struct sim_ev x, *src = ev, *dst = tmp, *swap;

	if (n <= INSERTION_MAX) {
		for (i = 1; i < n; i++) {
			x = ev[i];
			for (j = i; j && ev[j - 1].t > x.t; j--)
				ev[j] = ev[j - 1];
			ev[j] = x;
		}
		return;
	}
	/* within a bucket only the low 12 bits differ: two stable passes of 6 bits (one count) */
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < n; i++) {
		cnt[0][ev[i].t & 63]++;
		cnt[1][(ev[i].t >> 6) & 63]++;
	}
	for (pass = 0; pass < 2; pass++) {
		for (i = 0, pos = 0; i < 64; i++) {
			j = cnt[pass][i];
			cnt[pass][i] = pos;
			pos += j;
		}
		for (i = 0; i < n; i++)
			dst[cnt[pass][(src[i].t >> (6 * pass)) & 63]++] = src[i];
		swap = src;
		src = dst;
		dst = swap;
	}
}

/* Move bucket @slot into the drain, sorted; its chunks go back to the pool. */
static void load_bucket(struct sim_evq *q, int slot)
{
	const struct sim_wchunk *ch;
	uint32_t c, n = 0, last = SIM_NONE;

	for (c = q->head[slot]; c != SIM_NONE; last = c, c = ch->next) {
		ch = &q->pool[c];
		memcpy(q->run + n, ch->ev + ch->lo, (size_t)(ch->hi - ch->lo) * sizeof(ch->ev[0]));
		n += ch->hi - ch->lo;
	}
	q->pool[last].next = q->free;
	q->free = q->head[slot];
	q->head[slot] = SIM_NONE;
	q->bits[slot / 64] &= ~(1ULL << (slot % 64));
	q->unsorted[slot / 64] &= ~(1ULL << (slot % 64));
	q->n_wheel -= n;
	sort_bucket(q->run, q->tmp, n);
	q->run_i = 0;
	q->run_n = n;
	q->draining = true;
	q->drained = q->run[0].t >> SIM_WHEEL_SHIFT;
}

/* Take the first event of a sorted bucket straight from its first chunk. */
static void take_head(struct sim_evq *q, int slot, struct sim_ev *out)
{
	uint32_t c = q->head[slot];
	struct sim_wchunk *ch = &q->pool[c];

	*out = ch->ev[ch->lo++];
	q->n_wheel--;
	if (ch->lo < ch->hi)
		return;
	q->head[slot] = ch->next;
	if (ch->next == SIM_NONE)
		q->bits[slot / 64] &= ~(1ULL << (slot % 64));
	ch->next = q->free;
	q->free = c;
}

/* A far event pushed long ago may be due before anything in the wheel: take it if @w is later. */
static inline bool far_first(struct sim_evq *q, const struct sim_ev *w, uint64_t until,
			     struct sim_ev *out, bool *taken)
{
	const struct sim_ev *far = sim_heap_top(&q->far);

	*taken = false;
	if (w && !(far && far->t < w->t))
		return false;
	if (far && far->t <= until) {
		sim_heap_pop(&q->far, out);
		q->cur = out->t >> SIM_WHEEL_SHIFT;
		*taken = true;
	}
	return true;
}

/* The next event of the drain (its sorted run or the heap beside it). */
static bool pop_drain(struct sim_evq *q, uint64_t until, struct sim_ev *out)
{
	const struct sim_ev *w = q->run_i < q->run_n ? &q->run[q->run_i] : NULL;
	bool late, taken;

	/* the run was pushed before anything in the heap: it wins equal times */
	late = q->n_late && (!w || q->late[0].ev.t < w->t);
	if (late)
		w = &q->late[0].ev;
	if (far_first(q, w, until, out, &taken))
		return taken;
	if (w->t > until)
		return false;
	if (late)
		late_pop(q, out);
	else
		*out = q->run[q->run_i++];
	if (q->run_i == q->run_n && !q->n_late)
		q->draining = false;
	q->cur = out->t >> SIM_WHEEL_SHIFT;
	return true;
}

/* sim_evq_pop()'s every case */
bool sim_evq_pop_slow(struct sim_evq *q, uint64_t until, struct sim_ev *out)
{
	const struct sim_ev *w;
	bool taken;
	int slot;

	if (!q->draining) {
		if (!q->n_wheel)
			return far_first(q, NULL, until, out, &taken) && taken;
		slot = next_slot(q);
		/* a bucket in order (a sparse fabric's every one): its head is next */
		if (!sim_evq_unsorted(q, (uint32_t)slot)) {
			w = &q->pool[q->head[slot]].ev[q->pool[q->head[slot]].lo];
			if (far_first(q, w, until, out, &taken))
				return taken;
			if (w->t > until)
				return false;
			take_head(q, slot, out);
			q->cur = out->t >> SIM_WHEEL_SHIFT;
			return true;
		}
		load_bucket(q, slot);
	}
	return pop_drain(q, until, out);
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
