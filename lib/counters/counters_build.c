// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From raw (source, name, value) triples to the counters of a sample. Several raw names can
 * give one canonical name and priority in one source: with "sum" on their map lines they add up
 * (ice counts XON and XOFF pause frames apart); otherwise they are one count under two names
 * (mlx5 rx_pause_ctrl_phy and rx_global_pause) and the line first in the map files wins, so the
 * value never jumps between two counters from one sample to the next.
 */
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "counters.h"

#define NPRIO_SLOTS (ND_PRIO_MAX + 1)	/* -1 (port) and 0..7 */

void nd_ctr_scratch_free(struct nd_ctr_scratch *sc)
{
	free(sc->slot);
	free(sc->perm);
	free(sc->step);
	free(sc->pool);
	free(sc->val);
	free(sc->tmpl);
	memset(sc, 0, sizeof(*sc));
}

/* The last build's sample, to be given new values by replaying its steps. */
static int replay_start(struct nd_ctr_build *b)
{
	const struct nd_ctr_scratch *sc = b->scratch;
	struct nd_counter *c = malloc((sc->n_tmpl ? sc->n_tmpl : 1) * sizeof(*c));

	if (!c)
		return -ENOMEM;
	if (sc->n_tmpl)
		memcpy(c, sc->tmpl, sc->n_tmpl * sizeof(*c));
	b->smp->c = c;
	b->smp->n = sc->n_tmpl;
	b->replay = true;
	return 0;
}

int nd_ctr_build_start(struct nd_ctr_build *b, struct nd_sample *smp,
		       const struct nd_ctr_sel *sel, struct nd_ctr_scratch *scratch)
{
	size_t n_infos;

	nd_counter_infos(&n_infos);
	memset(b, 0, sizeof(*b));
	b->smp = smp;
	b->sel = sel;
	b->scratch = scratch;
	b->n_slots = ND_CTR_SOURCES * n_infos * NPRIO_SLOTS;
	b->slot = scratch && scratch->slot ? scratch->slot : calloc(b->n_slots, sizeof(*b->slot));
	if (!b->slot)
		return -ENOMEM;
	if (!scratch)
		return 0;
	scratch->slot = b->slot;
	if (scratch->layout)
		return replay_start(b);
	/* a port sampled once (a one-shot command) does not pay for a layout */
	b->record = scratch->builds > 0;
	scratch->n_step = 0;
	scratch->n_pool = 0;
	return 0;
}

static size_t slot_of(const struct nd_ctr_build *b, enum nd_ctr_source src,
		      const struct nd_ctr_rule *rule, int prio)
{
	return ((size_t)src * (b->n_slots / ND_CTR_SOURCES / NPRIO_SLOTS) +
		rule->info) * NPRIO_SLOTS + (size_t)(prio + 1);
}

/* The slot table back to the scratch, cleared where this build wrote (before sorting), or freed. */
static void put_slots(struct nd_ctr_build *b)
{
	const struct nd_counter *c;
	size_t i;

	if (!b->scratch || !b->slot) {
		free(b->slot);
		b->slot = NULL;
		return;
	}
	for (i = 0; b->rule && i < b->smp->n; i++) {
		c = &b->smp->c[i];
		if (b->rule[i])
			b->slot[slot_of(b, c->source, b->rule[i], c->prio)] = 0;
	}
	b->slot = NULL;
}

static int grow(struct nd_ctr_build *b)
{
	/* a port's samples hold the same counters: room for the last one's at once */
	size_t cap = b->cap ? b->cap * 2 :
		     b->scratch && b->scratch->n_perm ? b->scratch->n_perm : 128;
	struct nd_counter *c;
	const struct nd_ctr_rule **r;

	c = realloc(b->smp->c, cap * sizeof(*c));
	if (!c)
		return -ENOMEM;
	b->smp->c = c;
	r = realloc(b->rule, cap * sizeof(*r));
	if (!r)
		return -ENOMEM;
	b->rule = r;
	b->cap = cap;
	return 0;
}

static int append(struct nd_ctr_build *b, const struct nd_counter *c,
		  const struct nd_ctr_rule *rule)
{
	if (b->smp->n == b->cap && grow(b))
		return -ENOMEM;
	b->rule[b->smp->n] = rule;
	b->smp->c[b->smp->n++] = *c;
	return 0;
}

/* The layout's step for the add just made; out of memory costs only the layout. */
static void record_step(struct nd_ctr_build *b, enum nd_ctr_source src, const char *raw,
			const struct nd_ctr_rule *rule, int prio, size_t dst, int op)
{
	struct nd_ctr_scratch *sc = b->scratch;
	size_t len = strlen(raw) + 1, cap;
	struct nd_ctr_step *st;
	char *pool;

	if (!b->record)
		return;
	if (sc->n_pool + len > sc->cap_pool) {
		cap = sc->cap_pool ? sc->cap_pool : 1024;
		while (cap < sc->n_pool + len)
			cap *= 2;
		pool = cap <= UINT32_MAX ? realloc(sc->pool, cap) : NULL;
		if (!pool) {
			b->record = false;
			return;
		}
		sc->pool = pool;
		sc->cap_pool = cap;
	}
	st = nd_append((void **)&sc->step, &sc->n_step, &sc->cap_step, sizeof(*st));
	if (!st) {
		b->record = false;
		return;
	}
	*st = (struct nd_ctr_step){ rule, (uint32_t)sc->n_pool, (uint32_t)dst, (int8_t)prio,
				    (uint8_t)src, (uint8_t)op };
	memcpy(sc->pool + sc->n_pool, raw, len);
	sc->n_pool += len;
}

static int add(struct nd_ctr_build *b, enum nd_ctr_source src, const char *raw, uint64_t value,
	       const struct nd_ctr_rule *rule, int prio)
{
	struct nd_counter c = { .prio = -1, .source = src, .value = value, .width = 64 };
	struct nd_counter *old;
	int *at;

	nd_strlcpy(c.raw, raw, sizeof(c.raw));
	if (!rule) {
		nd_strlcpy(c.name, raw, sizeof(c.name));
		if (append(b, &c, NULL))
			return -ENOMEM;
		record_step(b, src, raw, rule, -1, b->smp->n - 1, ND_CTR_STEP_SET);
		return 0;
	}
	nd_strlcpy(c.name, nd_ctr_rule_info(rule)->name, sizeof(c.name));
	c.prio = prio;
	c.mapped = true;
	c.value = value * rule->scale;
	c.width = rule->width;
	c.saturates = rule->saturates;
	at = &b->slot[slot_of(b, src, rule, prio)];
	if (!*at) {
		if (append(b, &c, rule))
			return -ENOMEM;
		*at = (int)b->smp->n;
		record_step(b, src, raw, rule, prio, b->smp->n - 1, ND_CTR_STEP_SET);
		return 0;
	}
	old = &b->smp->c[*at - 1];
	if (rule->sum && b->rule[*at - 1]->sum) {
		old->value += c.value;
		/* the name shown is the first line's, whichever the driver listed first */
		if (rule->order < b->rule[*at - 1]->order) {
			memcpy(old->raw, c.raw, sizeof(old->raw));
			b->rule[*at - 1] = rule;
		}
		record_step(b, src, raw, rule, prio, (size_t)*at - 1, ND_CTR_STEP_ADD);
	} else if (rule->order < b->rule[*at - 1]->order) {
		*old = c;
		b->rule[*at - 1] = rule;
		record_step(b, src, raw, rule, prio, (size_t)*at - 1, ND_CTR_STEP_SET);
	} else {
		record_step(b, src, raw, rule, prio, 0, ND_CTR_STEP_SKIP);
	}
	return 0;
}

/* The next step of the layout, when this add is the one it recorded. */
static bool replay_step(struct nd_ctr_build *b, enum nd_ctr_source src, const char *raw,
			uint64_t value, const struct nd_ctr_rule *rule, int prio)
{
	struct nd_ctr_scratch *sc = b->scratch;
	const struct nd_ctr_step *st;
	struct nd_counter *c;

	if (b->adds == sc->n_step)
		return false;
	st = &sc->step[b->adds];
	if (st->rule != rule || st->prio != prio || st->source != src ||
	    strcmp(sc->pool + st->raw, raw))
		return false;
	sc->val[b->adds] = value;
	if (st->op == ND_CTR_STEP_SKIP)
		return true;
	c = &b->smp->c[st->dst];
	if (rule)
		value *= rule->scale;
	c->value = st->op == ND_CTR_STEP_ADD ? c->value + value : value;
	return true;
}

/*
 * This build is not the last one: the adds so far, made again as a build of its own that
 * records a new layout. The old steps are read while new ones are written: they move aside.
 */
static int redo(struct nd_ctr_build *b)
{
	struct nd_ctr_scratch *sc = b->scratch, old = *sc;
	size_t i;
	int ret = 0;

	nd_sample_free(b->smp);
	b->replay = false;
	b->record = true;
	sc->layout = false;
	sc->step = NULL;
	sc->n_step = sc->cap_step = 0;
	sc->pool = NULL;
	sc->n_pool = sc->cap_pool = 0;
	sc->val = NULL;
	for (i = 0; i < b->adds && !ret; i++)
		ret = add(b, old.step[i].source, old.pool + old.step[i].raw, old.val[i],
			  old.step[i].rule, old.step[i].prio);
	free(old.step);
	free(old.pool);
	free(old.val);
	return ret;
}

int nd_ctr_add_rule(struct nd_ctr_build *b, enum nd_ctr_source src, const char *raw,
		    uint64_t value, const struct nd_ctr_rule *rule, int prio)
{
	if (!rule)
		prio = -1;
	if (b->replay && !replay_step(b, src, raw, value, rule, prio)) {
		if (redo(b))
			return -ENOMEM;
	}
	if (!b->replay && add(b, src, raw, value, rule, prio))
		return -ENOMEM;
	b->adds++;
	return 0;
}

int nd_ctr_add(struct nd_ctr_build *b, enum nd_ctr_source src, const char *raw, uint64_t value)
{
	const struct nd_ctr_rule *rule;
	int prio;

	rule = b->sel ? nd_ctr_lookup(b->sel, src, raw, &prio) : NULL;
	return nd_ctr_add_rule(b, src, raw, value, rule, rule ? prio : -1);
}

struct order {
	bool raw;
	size_t info;
	int prio;
	int source;
	size_t idx;
};

static int order_cmp(const void *pa, const void *pb)
{
	const struct order *a = pa, *b = pb;

	if (a->raw != b->raw)
		return a->raw ? 1 : -1;
	if (!a->raw) {
		if (a->info != b->info)
			return a->info < b->info ? -1 : 1;
		if (a->prio != b->prio)
			return a->prio < b->prio ? -1 : 1;
		if (a->source != b->source)
			return a->source < b->source ? -1 : 1;
	}
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/*
 * The last build's order, when it sorts this one too. The keys end in the index, so the sorted
 * order is unique and checking each neighbour proves it.
 */
static bool hint_sorts(const struct order *o, const struct nd_ctr_scratch *sc, size_t n)
{
	size_t k;

	if (!sc || sc->n_perm != n)
		return false;
	for (k = 1; k < n; k++)
		if (order_cmp(&o[sc->perm[k - 1]], &o[sc->perm[k]]) >= 0)
			return false;
	return true;
}

static void keep_order(struct nd_ctr_scratch *sc, const struct order *sorted, size_t n)
{
	size_t k, *perm;

	if (!sc)
		return;
	sc->n_perm = 0;
	if (n > sc->cap_perm) {
		perm = realloc(sc->perm, n * sizeof(*perm));
		if (!perm)
			return;
		sc->perm = perm;
		sc->cap_perm = n;
	}
	for (k = 0; k < n; k++)
		sc->perm[k] = sorted[k].idx;
	sc->n_perm = n;
}

/* counters per sample whose sort keys fit on the stack */
#define ORDER_STACK 128

static bool identity(const size_t *perm, size_t n)
{
	size_t i;

	for (i = 0; i < n && perm[i] == i; i++)
		;
	return i == n;
}

/*
 * The layout of the build just finished, its steps' counters now at their places in the sorted
 * sample (@perm[new] = old; NULL: in the order built).
 */
static void keep_layout(struct nd_ctr_build *b, const size_t *perm)
{
	struct nd_ctr_scratch *sc = b->scratch;
	size_t n = b->smp->n, i, *inv;
	struct nd_counter *tmpl;
	uint64_t *val;

	inv = malloc((n ? n : 1) * sizeof(*inv));
	tmpl = realloc(sc->tmpl, (n ? n : 1) * sizeof(*tmpl));
	if (tmpl)
		sc->tmpl = tmpl;
	val = realloc(sc->val, (sc->cap_step ? sc->cap_step : 1) * sizeof(*val));
	if (val)
		sc->val = val;
	if (inv && tmpl && val) {
		for (i = 0; i < n; i++)
			inv[perm ? perm[i] : i] = i;
		for (i = 0; i < sc->n_step; i++)
			if (sc->step[i].op != ND_CTR_STEP_SKIP)
				sc->step[i].dst = (uint32_t)inv[sc->step[i].dst];
		if (n)
			memcpy(tmpl, b->smp->c, n * sizeof(*tmpl));
		sc->n_tmpl = n;
		sc->layout = true;
	}
	free(inv);
}

/*
 * Mapped counters first in canonical order, raw ones after in the order read. True when the
 * sample is in that order and *@perm says how (new = old order, NULL: as built); false when
 * out of memory left it as built, which costs only the order (and the layout).
 */
static bool sort_sample(struct nd_ctr_build *b, const size_t **perm)
{
	struct nd_ctr_scratch *sc = b->scratch;
	struct nd_sample *smp = b->smp;
	struct order o_st[ORDER_STACK], *o;
	struct nd_counter *sorted = NULL;
	bool ok = false;
	size_t i;

	*perm = NULL;
	o = smp->n <= ORDER_STACK ? o_st : malloc(smp->n * sizeof(*o));
	if (!o)
		return false;
	for (i = 0; i < smp->n; i++)
		o[i] = (struct order){ !b->rule[i], b->rule[i] ? b->rule[i]->info : 0,
				       smp->c[i].prio, (int)smp->c[i].source, i };
	/* a watch's sample is mostly in the order of the last one, often already sorted */
	if (hint_sorts(o, sc, smp->n)) {
		ok = identity(sc->perm, smp->n);
		if (!ok)
			sorted = malloc(smp->n * sizeof(*sorted));
		for (i = 0; sorted && i < smp->n; i++)
			sorted[i] = smp->c[sc->perm[i]];
	} else if (smp->n) {
		qsort(o, smp->n, sizeof(*o), order_cmp);
		sorted = malloc(smp->n * sizeof(*sorted));
		for (i = 0; sorted && i < smp->n; i++)
			sorted[i] = smp->c[o[i].idx];
		if (sorted)
			keep_order(sc, o, smp->n);
		/* a layout maps through the order kept */
		if (sorted && (!sc || sc->n_perm != smp->n))
			b->record = false;
	} else {
		ok = true;
	}
	if (sorted) {
		free(smp->c);
		smp->c = sorted;
		*perm = sc ? sc->perm : NULL;
		ok = true;
	}
	if (o != o_st)
		free(o);
	return ok;
}

int nd_ctr_build_finish(struct nd_ctr_build *b)
{
	struct nd_ctr_scratch *sc = b->scratch;
	const size_t *perm;

	if (b->replay) {
		if (b->adds == sc->n_step) {
			sc->builds++;
			return 0;
		}
		/* fewer adds than last time */
		if (redo(b)) {
			nd_ctr_build_abort(b);
			return -ENOMEM;
		}
	}
	put_slots(b);
	if (sort_sample(b, &perm) && b->record)
		keep_layout(b, perm);
	free(b->rule);
	b->rule = NULL;
	if (sc)
		sc->builds++;
	return 0;
}

void nd_ctr_build_abort(struct nd_ctr_build *b)
{
	put_slots(b);
	free(b->rule);
	b->rule = NULL;
	if (b->smp)
		nd_sample_free(b->smp);
}

struct dir_read {
	struct nd_ctr_build *b;
	enum nd_ctr_source src;
	const char *dir;
};

static int read_one(const char *name, void *data)
{
	struct dir_read *d = data;
	uint64_t v;

	/* hw_counters/lifespan is the cache time of the others, not a counter */
	if (d->src == ND_CTR_RDMA && !strcmp(name, "lifespan"))
		return 0;
	/* a PMA that cannot be queried answers "N/A (no PMA)" or an error: not a value */
	if (nd_sys_read_u64(&v, "%s/%s", d->dir, name))
		return 0;
	return nd_ctr_add(d->b, d->src, name, v);
}

static int read_dir(struct nd_ctr_build *b, enum nd_ctr_source src, const char *ibdev,
		    unsigned int port, const char *sub)
{
	char dir[256];
	struct dir_read d = { b, src, dir };
	int ret;

	snprintf(dir, sizeof(dir), "/sys/class/infiniband/%s/ports/%u/%s", ibdev, port, sub);
	ret = nd_sys_dir(read_one, &d, "%s", dir);
	return ret == -ENOENT || ret == -ENOTDIR ? -ENOENT : ret;
}

int nd_ctr_read_hw_counters(struct nd_ctr_build *b, const char *ibdev, unsigned int port)
{
	return read_dir(b, ND_CTR_RDMA, ibdev, port, "hw_counters");
}

int nd_ctr_read_pma(struct nd_ctr_build *b, const char *ibdev, unsigned int port)
{
	return read_dir(b, ND_CTR_PMA, ibdev, port, "counters");
}
