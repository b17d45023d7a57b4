// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Deltas (wraps, saturation, resets, counters that come and go) and how the mapper resolves names
 * that share a meaning (the netlink replies the sampler parses: test_counters_nl.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_counters.h"
#include "unit.h"

#define SEC 1000000000ull

static struct nd_counter mk(const char *name, int prio, uint64_t value, uint8_t width, bool sat)
{
	struct nd_counter c = { .prio = prio, .mapped = true, .source = ND_CTR_RDMA,
				.value = value, .width = width, .saturates = sat };

	strcpy(c.name, name);
	strcpy(c.raw, name);
	return c;
}

static void sample(struct nd_sample *s, uint64_t t_ns, const struct nd_counter *c, size_t n)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->ifname, "eth2");
	s->t_ns = t_ns;
	s->c = calloc(n + 1, sizeof(*c));
	memcpy(s->c, c, n * sizeof(*c));
	s->n = n;
}

/* The one delta of a diff of single-counter samples @a -> @b. */
static struct nd_delta one(struct nd_counter a, struct nd_counter b)
{
	struct nd_sample sa, sb;
	struct nd_delta *d, r;
	struct nd_err e = { 0 };
	size_t n;

	sample(&sa, 1 * SEC, &a, 1);
	sample(&sb, 3 * SEC, &b, 1);
	ck_assert_int_eq(nd_sample_diff(&sa, &sb, &d, &n, &e), 0);
	ck_assert_uint_eq(n, 1);
	r = d[0];
	free(d);
	nd_sample_free(&sa);
	nd_sample_free(&sb);
	return r;
}

START_TEST(delta_and_rate)
{
	struct nd_delta d = one(mk("cnp_sent", -1, 100, 64, false),
				mk("cnp_sent", -1, 300, 64, false));

	ck_assert_int_eq(d.status, ND_DELTA_OK);
	ck_assert_uint_eq(d.delta, 200);
	ck_assert_uint_eq(d.value, 300);
	ck_assert_double_eq_tol(d.rate, 100.0, 1e-9);
	ck_assert_int_eq(d.source, ND_CTR_RDMA);
	ck_assert(d.mapped);
}
END_TEST

START_TEST(wrap_32)
{
	struct nd_delta d = one(mk("rx_no_wqe_discards", -1, 4294967290u, 32, false),
				mk("rx_no_wqe_discards", -1, 4, 32, false));

	ck_assert_int_eq(d.status, ND_DELTA_WRAPPED);
	ck_assert_uint_eq(d.delta, 10);
	ck_assert_double_eq_tol(d.rate, 5.0, 1e-9);
}
END_TEST

/* A fall that would be a wrap of more than half the range is a reset; half exactly a wrap. */
START_TEST(wrap_or_reset_32)
{
	struct nd_delta d;

	d = one(mk("x", -1, 1000, 32, false), mk("x", -1, 10, 32, false));
	ck_assert_int_eq(d.status, ND_DELTA_RESET);
	ck_assert_uint_eq(d.delta, 0);
	ck_assert_double_eq(d.rate, 0);
	d = one(mk("x", -1, 0x80000000u, 32, false), mk("x", -1, 0, 32, false));
	ck_assert_int_eq(d.status, ND_DELTA_WRAPPED);
	ck_assert_uint_eq(d.delta, 0x80000000u);
	d = one(mk("x", -1, 0x7fffffffu, 32, false), mk("x", -1, 0, 32, false));
	ck_assert_int_eq(d.status, ND_DELTA_RESET);
	/* the same rule at other widths */
	d = one(mk("x", -1, 250, 8, false), mk("x", -1, 3, 8, false));
	ck_assert_int_eq(d.status, ND_DELTA_WRAPPED);
	ck_assert_uint_eq(d.delta, 9);
}
END_TEST

START_TEST(reset_64)
{
	struct nd_delta d = one(mk("x", -1, 5000000000ull, 64, false), mk("x", -1, 7, 64, false));

	ck_assert_int_eq(d.status, ND_DELTA_RESET);
	ck_assert_uint_eq(d.delta, 0);
	ck_assert_uint_eq(d.value, 7);
}
END_TEST

START_TEST(saturating)
{
	struct nd_delta d;

	d = one(mk("ib_symbol_errors", -1, 100, 16, true),
		mk("ib_symbol_errors", -1, 65535, 16, true));
	ck_assert_int_eq(d.status, ND_DELTA_SATURATED);
	ck_assert_uint_eq(d.delta, 65435);
	d = one(mk("s", -1, 65535, 16, true), mk("s", -1, 65535, 16, true));
	ck_assert_int_eq(d.status, ND_DELTA_SATURATED);
	ck_assert_uint_eq(d.delta, 0);
	/* cleared (perfquery -x) from the maximum: a reset, not a wrap */
	d = one(mk("s", -1, 65535, 16, true), mk("s", -1, 3, 16, true));
	ck_assert_int_eq(d.status, ND_DELTA_RESET);
	d = one(mk("s", -1, 5, 16, true), mk("s", -1, 9, 16, true));
	ck_assert_int_eq(d.status, ND_DELTA_OK);
	ck_assert_uint_eq(d.delta, 4);
	d = one(mk("s", -1, 3, 4, true), mk("s", -1, 15, 4, true));
	ck_assert_int_eq(d.status, ND_DELTA_SATURATED);
	ck_assert_uint_eq(d.delta, 12);
	d = one(mk("w", -1, 100, 32, true), mk("w", -1, 4294967295u, 32, true));
	ck_assert_int_eq(d.status, ND_DELTA_SATURATED);
}
END_TEST

/* Values the map's width cannot hold: the values are right and the map is not. */
START_TEST(width_too_small)
{
	struct nd_delta d;

	d = one(mk("x", -1, 1ull << 40, 32, false), mk("x", -1, (1ull << 40) + 5, 32, false));
	ck_assert_int_eq(d.status, ND_DELTA_OK);
	ck_assert_uint_eq(d.delta, 5);
	d = one(mk("x", -1, 1ull << 40, 32, false), mk("x", -1, 3, 32, false));
	ck_assert_int_eq(d.status, ND_DELTA_RESET);
	d = one(mk("s", -1, 70000, 16, true), mk("s", -1, 70010, 16, true));
	ck_assert_int_eq(d.status, ND_DELTA_OK);
}
END_TEST

/* Another raw counter behind the same name cannot be compared with the first one. */
START_TEST(raw_changed)
{
	struct nd_counter a = mk("pause_rx_frames", -1, 10, 64, false);
	struct nd_counter b = mk("pause_rx_frames", -1, 20, 64, false);
	struct nd_delta d;

	strcpy(b.raw, "rx_global_pause");
	d = one(a, b);
	ck_assert_int_eq(d.status, ND_DELTA_RESET);
	b = mk("pause_rx_frames", -1, 20, 32, false);
	ck_assert_int_eq(one(a, b).status, ND_DELTA_RESET);
}
END_TEST

START_TEST(new_and_gone)
{
	struct nd_counter a[] = { mk("pfc_rx_frames", 3, 50, 64, false),
				  mk("cnp_sent", -1, 1, 64, false) };
	struct nd_counter b[] = { mk("pfc_rx_frames", 4, 0, 64, false),
				  mk("cnp_sent", -1, 2, 64, false) };
	struct nd_sample sa, sb;
	struct nd_err e = { 0 };
	struct nd_delta *d;
	size_t n;

	sample(&sa, SEC, a, 2);
	sample(&sb, 2 * SEC, b, 2);
	ck_assert_int_eq(nd_sample_diff(&sa, &sb, &d, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	/* the second sample's order, then what vanished */
	ck_assert_int_eq(d[0].prio, 4);
	ck_assert_int_eq(d[0].status, ND_DELTA_NEW);
	ck_assert_uint_eq(d[0].delta, 0);
	ck_assert_int_eq(d[1].status, ND_DELTA_OK);
	ck_assert_uint_eq(d[1].delta, 1);
	ck_assert_int_eq(d[2].prio, 3);
	ck_assert_int_eq(d[2].status, ND_DELTA_GONE);
	ck_assert_uint_eq(d[2].value, 50);
	ck_assert_ptr_eq(nd_delta_find(d, n, "pfc_rx_frames", 3), &d[2]);
	ck_assert_ptr_null(nd_delta_find(d, n, "pfc_rx_frames", 5));
	free(d);
	nd_sample_free(&sa);
	nd_sample_free(&sb);
}
END_TEST

/* Raw names may repeat (a driver listing one twice): they pair up in order. */
START_TEST(duplicates_pair_in_order)
{
	struct nd_counter a[3], b[3];
	struct nd_sample sa, sb;
	struct nd_err e = { 0 };
	struct nd_delta *d;
	size_t n, i;

	for (i = 0; i < 3; i++) {
		a[i] = mk("dup", -1, 10 * (i + 1), 64, false);
		a[i].mapped = false;
		a[i].source = ND_CTR_ETHTOOL;
		b[i] = a[i];
		b[i].value += i + 1;
	}
	sample(&sa, SEC, a, 3);
	sample(&sb, SEC, b, 3);
	ck_assert_int_eq(nd_sample_diff(&sa, &sb, &d, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(d[i].status, ND_DELTA_OK);
		ck_assert_uint_eq(d[i].delta, i + 1);
		/* no time passed: no rate */
		ck_assert_double_eq(d[i].rate, 0);
	}
	free(d);
	nd_sample_free(&sa);
	nd_sample_free(&sb);
}
END_TEST

/* A raw counter named like a canonical one, and one name from two sources. */
START_TEST(find_prefers_canonical)
{
	struct nd_counter c[] = { mk("rx_bytes", -1, 1, 64, false),
				  mk("rx_bytes", -1, 2, 64, false),
				  mk("rx_bytes", -1, 3, 64, false) };
	struct nd_sample s;
	struct nd_err e = { 0 };
	struct nd_delta *d;
	size_t n;

	c[0].mapped = false;
	c[0].source = ND_CTR_ETHTOOL;
	c[1].source = ND_CTR_ETHTOOL;
	c[2].source = ND_CTR_PMA;
	sample(&s, SEC, c, 3);
	ck_assert_ptr_eq(nd_sample_find(&s, "rx_bytes", -1), &s.c[1]);
	ck_assert_int_eq(nd_sample_diff(&s, &s, &d, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_ptr_eq(nd_delta_find(d, n, "rx_bytes", -1), &d[1]);
	free(d);
	nd_sample_free(&s);
}
END_TEST

START_TEST(two_ports)
{
	struct nd_counter c = mk("x", -1, 1, 64, false);
	struct nd_sample a, b;
	struct nd_err e = { 0 };
	struct nd_delta *d;
	size_t n;

	sample(&a, SEC, &c, 1);
	sample(&b, SEC, &c, 1);
	strcpy(b.ifname, "eth3");
	ck_assert_int_eq(nd_sample_diff(&a, &b, &d, &n, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "cannot diff samples of two ports (eth2 and eth3)");
	ck_assert_ptr_null(d);
	nd_sample_free(&a);
	nd_sample_free(&b);
}
END_TEST

/* ---- seeded random samples: the diff against pairing done the slow, obvious way ---- */

static uint64_t rng;

static unsigned int pick(unsigned int n)
{
	return (unsigned int)(unit_rand(&rng) % n);
}

/* A counter from a small pool of keys, so keys repeat; raw names now and then differ. */
static struct nd_counter rand_counter(void)
{
	struct nd_counter c = { 0 };

	snprintf(c.name, sizeof(c.name), "c%u", pick(24));
	snprintf(c.raw, sizeof(c.raw), "%s", pick(16) ? c.name : "other");
	c.prio = (int)pick(9) - 1;
	c.mapped = pick(2);
	c.source = (enum nd_ctr_source)pick(4);
	c.width = pick(3) ? 64 : 32;
	c.saturates = !pick(8);
	c.value = pick(4) ? unit_rand(&rng) >> pick(64) : pick(3);
	return c;
}

static bool same_key(const struct nd_counter *x, const struct nd_counter *y)
{
	return x->mapped == y->mapped && x->source == y->source && x->prio == y->prio &&
	       !strcmp(x->name, y->name);
}

/* The counter after @a: the same one later (value moved, now and then wrapped), or another. */
static struct nd_counter rand_next(const struct nd_counter *a)
{
	struct nd_counter c = *a;

	if (!pick(10))
		return rand_counter();
	c.value = pick(5) ? c.value + pick(1000) : unit_rand(&rng) >> pick(64);
	if (!pick(40))
		snprintf(c.raw, sizeof(c.raw), "renamed");
	return c;
}

static void check_delta(const struct nd_delta *got, const struct nd_delta *want)
{
	ck_assert_str_eq(got->name, want->name);
	ck_assert_int_eq(got->prio, want->prio);
	ck_assert_int_eq(got->mapped, want->mapped);
	ck_assert_int_eq(got->source, want->source);
	ck_assert_uint_eq(got->value, want->value);
	ck_assert_uint_eq(got->delta, want->delta);
	ck_assert_int_eq(got->status, want->status);
	ck_assert_double_eq(got->rate, want->rate);
}

/* One delta of a diff of one-counter samples: what pairing leaves to the rest. */
static struct nd_delta one_at(const struct nd_counter *a, const struct nd_counter *b,
			      enum nd_delta_status alone)
{
	struct nd_delta d = { 0 };

	if (a && b)
		return one(*a, *b);
	/* NEW and GONE carry the counter's own fields and nothing moved */
	memcpy(d.name, (a ? a : b)->name, sizeof(d.name));
	d.prio = (a ? a : b)->prio;
	d.mapped = (a ? a : b)->mapped;
	d.source = (a ? a : b)->source;
	d.value = (a ? a : b)->value;
	d.status = alone;
	return d;
}

/*
 * Samples of up to 600 counters (past the stack tables' 256), laid out alike, shuffled, thinned
 * or grown: every delta is the k-th counter of a key in the second sample against the k-th of
 * that key in the first, in the second sample's order, then what vanished in the first's.
 */
START_TEST(diff_random_against_pairs)
{
	unsigned int seed;

	for (seed = 1; seed <= 200; seed++) {
		struct nd_counter *a, *b;
		struct nd_sample sa, sb;
		struct nd_err e = { 0 };
		struct nd_delta *d, want;
		size_t na, nb, n, i, j, k = 0;
		bool *used;

		rng = 0x9e3779b97f4a7c15ULL * seed;
		na = pick(4) ? pick(40) : pick(601);
		a = calloc(na + 1, sizeof(*a));
		b = calloc(2 * na + 2, sizeof(*b));
		used = calloc(na + 1, sizeof(*used));
		ck_assert(a && b && used);
		for (i = 0; i < na; i++)
			a[i] = rand_counter();
		nb = 0;
		switch (pick(3)) {
		case 0:	/* the same layout: the fast path */
			for (i = 0; i < na; i++)
				b[nb++] = rand_next(&a[i]);
			break;
		case 1:	/* shuffled */
			for (i = 0; i < na; i++)
				b[nb++] = rand_next(&a[i]);
			for (i = nb; i > 1; i--) {
				struct nd_counter t = b[i - 1];

				j = pick((unsigned int)i);
				b[i - 1] = b[j];
				b[j] = t;
			}
			break;
		default: /* some gone, some new */
			for (i = 0; i < na; i++) {
				if (pick(4))
					b[nb++] = rand_next(&a[i]);
				if (!pick(4))
					b[nb++] = rand_counter();
			}
		}
		sample(&sa, SEC, a, na);
		sample(&sb, SEC + 1 + pick(5000) * 1000000ull, b, nb);
		ck_assert_int_eq(nd_sample_diff(&sa, &sb, &d, &n, &e), 0);
		for (j = 0; j < nb; j++, k++) {
			for (i = 0; i < na && (used[i] || !same_key(&a[i], &b[j])); i++)
				;
			if (i < na)
				used[i] = true;
			want = one_at(i < na ? &a[i] : NULL, &b[j], ND_DELTA_NEW);
			/* the rate is of the two samples' times, not one()'s */
			want.rate = want.status <= ND_DELTA_SATURATED ?
				    (double)want.delta / ((double)(sb.t_ns - sa.t_ns) / 1e9) : 0;
			ck_assert_uint_lt(k, n);
			check_delta(&d[k], &want);
		}
		for (i = 0; i < na; i++)
			if (!used[i]) {
				ck_assert_uint_lt(k, n);
				want = one_at(&a[i], NULL, ND_DELTA_GONE);
				check_delta(&d[k++], &want);
			}
		ck_assert_uint_eq(n, k);
		free(d);
		free(a);
		free(b);
		free(used);
		nd_sample_free(&sa);
		nd_sample_free(&sb);
	}
}
END_TEST

TCase *tcase_counters_diff(void)
{
	TCase *tc = tcase_create("diff");

	tcase_add_test(tc, delta_and_rate);
	tcase_add_test(tc, wrap_32);
	tcase_add_test(tc, wrap_or_reset_32);
	tcase_add_test(tc, reset_64);
	tcase_add_test(tc, saturating);
	tcase_add_test(tc, width_too_small);
	tcase_add_test(tc, raw_changed);
	tcase_add_test(tc, new_and_gone);
	tcase_add_test(tc, duplicates_pair_in_order);
	tcase_add_test(tc, find_prefers_canonical);
	tcase_add_test(tc, two_ports);
	tcase_add_test(tc, diff_random_against_pairs);
	return tc;
}

/* ---- the mapper: aliases, sums, scale ---- */

static const char build_map[] =
	"drivers x\n"
	"ethtool mac_pause pause_rx_frames 64\n"
	"ethtool fc_pause pause_rx_frames 64\n"
	"ethtool pfcx{p} pfc_tx_frames 64\n"
	"ethtool pfcy{p} pfc_tx_frames 32\n"
	"ethtool xon{p} pfc_rx_frames 64 sum\n"
	"ethtool xoff{p} pfc_rx_frames 64 sum\n"
	"pma words ib_xmit_bytes 64 scale=4\n"
	"pma errs ib_symbol_errors 16 sat\n";

static void build(struct nd_sample *smp, const char *const *names, const uint64_t *values,
		  size_t n, enum nd_ctr_source src)
{
	static const char *const drivers[] = { "x" };
	struct nd_ctr_maps maps = { 0 };
	struct nd_ctr_build b;
	struct nd_ctr_sel sel;
	struct nd_err e = { 0 };
	size_t i;

	ck_assert_int_eq(nd_ctr_map_parse(&maps, "t.map", build_map, &e), 0);
	ck_assert_int_eq(nd_ctr_select(&maps, drivers, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), 0);
	memset(smp, 0, sizeof(*smp));
	ck_assert_int_eq(nd_ctr_build_start(&b, smp, &sel, NULL), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(nd_ctr_add(&b, src, names[i], values[i]), 0);
	ck_assert_int_eq(nd_ctr_build_finish(&b), 0);
	nd_ctr_maps_free(&maps);
}

/* Whichever order the driver lists them in, the first map line of an alias wins. */
START_TEST(alias_first_line_wins)
{
	static const char *const names[] = { "fc_pause", "other", "mac_pause" };
	static const uint64_t values[] = { 7, 1, 9 };
	struct nd_sample smp;

	build(&smp, names, values, 3, ND_CTR_ETHTOOL);
	ck_assert_uint_eq(smp.n, 2);
	ck_assert_str_eq(smp.c[0].name, "pause_rx_frames");
	ck_assert_str_eq(smp.c[0].raw, "mac_pause");
	ck_assert_uint_eq(smp.c[0].value, 9);
	ck_assert(!smp.c[1].mapped);
	ck_assert_str_eq(smp.c[1].name, "other");
	nd_sample_free(&smp);
	build(&smp, names, values, 1, ND_CTR_ETHTOOL);
	ck_assert_str_eq(smp.c[0].raw, "fc_pause");
	ck_assert_uint_eq(smp.c[0].value, 7);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(sum_in_any_order)
{
	static const char *const names[] = { "xoff2", "xon5", "xon2" };
	static const uint64_t values[] = { 30, 4, 12 };
	struct nd_sample smp;

	build(&smp, names, values, 3, ND_CTR_ETHTOOL);
	ck_assert_uint_eq(smp.n, 2);
	/* canonical order: priority 2 before 5 */
	ck_assert_int_eq(smp.c[0].prio, 2);
	ck_assert_uint_eq(smp.c[0].value, 42);
	ck_assert_str_eq(smp.c[0].raw, "xon2");
	ck_assert_int_eq(smp.c[1].prio, 5);
	ck_assert_uint_eq(smp.c[1].value, 4);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(scale_and_source)
{
	static const char *const names[] = { "errs", "words", "mac_pause" };
	static const uint64_t values[] = { 65535, 250, 3 };
	struct nd_sample smp;

	build(&smp, names, values, 3, ND_CTR_PMA);
	/* the ethtool rule does not map a PMA file of that name */
	ck_assert_uint_eq(smp.n, 3);
	ck_assert_str_eq(smp.c[0].name, "ib_xmit_bytes");
	ck_assert_uint_eq(smp.c[0].value, 1000);
	ck_assert_str_eq(smp.c[1].name, "ib_symbol_errors");
	ck_assert(smp.c[1].saturates);
	ck_assert_uint_eq(smp.c[1].width, 16);
	ck_assert_str_eq(smp.c[2].name, "mac_pause");
	ck_assert(!smp.c[2].mapped);
	ck_assert_int_eq(smp.c[2].source, ND_CTR_PMA);
	nd_sample_free(&smp);
}
END_TEST

/* The raw names a build of build_map sees: mapped ones (aliases, sums, per priority) and not. */
static void rand_raw(char *name, size_t len)
{
	static const char *const mapped[] = { "mac_pause", "fc_pause", "words", "errs" };
	static const char *const prio[] = { "xon", "xoff", "pfcx", "pfcy" };

	switch (pick(4)) {
	case 0:
		snprintf(name, len, "%s", mapped[pick(4)]);
		break;
	case 1:
		snprintf(name, len, "%s%u", prio[pick(4)], pick(8));
		break;
	default:
		snprintf(name, len, "raw%u", pick(40));
	}
}

void check_same_sample(const struct nd_sample *got, const struct nd_sample *want)
{
	size_t i;

	ck_assert_uint_eq(got->n, want->n);
	/* Check records every assertion that passes: one per counter made the seeded tests slow */
	for (i = 0; i < want->n; i++) {
		const struct nd_counter *g = &got->c[i], *w = &want->c[i];

		if (strcmp(g->name, w->name) || strcmp(g->raw, w->raw) || g->prio != w->prio ||
		    g->mapped != w->mapped || g->source != w->source || g->value != w->value ||
		    g->width != w->width || g->saturates != w->saturates)
			ck_abort_msg("counter %zu: %s/%s prio %d source %d value %" PRIu64 " width %u, "
				     "want %s/%s prio %d source %d value %" PRIu64 " width %u", i,
				     g->name, g->raw, g->prio, g->source, g->value, g->width,
				     w->name, w->raw, w->prio, w->source, w->value, w->width);
	}
}

/* The next list a port's driver gives: mostly the same, else reordered, shorter, longer, renamed. */
static size_t change_list(char (*names)[ND_CTR_NAME_MAX], size_t n, size_t cap)
{
	char t[ND_CTR_NAME_MAX];
	size_t i, j;

	switch (pick(8)) {
	case 0:
		for (i = n; i > 1; i--) {
			j = pick((unsigned int)i);
			memcpy(t, names[i - 1], sizeof(t));
			memcpy(names[i - 1], names[j], sizeof(t));
			memcpy(names[j], t, sizeof(t));
		}
		break;
	case 1:
		n -= n ? pick((unsigned int)n) / 2 + 1 : 0;
		break;
	case 2:
		for (j = pick((unsigned int)n + 2); j && n < cap; j--)
			rand_raw(names[n++], sizeof(names[0]));
		break;
	case 3:
		if (n)
			rand_raw(names[pick((unsigned int)n)], sizeof(names[0]));
		break;
	}
	return n;
}

/*
 * A port's builds share a scratch (its slots, the last sample's order and size, the layout a
 * build replays): each of a series of samples, the same list again, reordered, shorter,
 * longer or with one name changed, from another source, after a build abandoned half-way,
 * must come out as a build of its own makes it. A list the same as the last one's is
 * replayed to its end.
 */
START_TEST(build_scratch_random)
{
	static const char *const drivers[] = { "x" };
	struct nd_ctr_maps maps = { 0 };
	struct nd_ctr_sel sel;
	struct nd_err e = { 0 };
	unsigned int seed, replays = 0;

	ck_assert_int_eq(nd_ctr_map_parse(&maps, "t.map", build_map, &e), 0);
	ck_assert_int_eq(nd_ctr_select(&maps, drivers, 1, NULL, ND_CTR_SRC_ALL, &sel, &e), 0);
	for (seed = 1; seed <= 200; seed++) {
		struct nd_ctr_scratch scratch = { 0 };
		enum nd_ctr_source src = ND_CTR_ETHTOOL, last_src = ND_CTR_ETHTOOL;
		char (*names)[ND_CTR_NAME_MAX], (*last)[ND_CTR_NAME_MAX];
		size_t n, last_n = 0, cap, i, round;
		bool same;
		uint64_t *values;

		rng = 0x2545f4914f6cdd1dULL * seed;
		n = pick(3) ? pick(30) : pick(300);
		cap = 2 * n + 16;
		names = calloc(cap, sizeof(*names));
		last = calloc(cap, sizeof(*last));
		values = calloc(cap, sizeof(*values));
		ck_assert(names && last && values);
		for (i = 0; i < n; i++)
			rand_raw(names[i], sizeof(names[i]));
		for (round = 0; round < 12; round++) {
			struct nd_sample got, want;
			struct nd_ctr_build b;

			if (!pick(6))
				src = pick(2) ? ND_CTR_ETHTOOL : ND_CTR_PMA;
			for (i = 0; i < n; i++)
				values[i] = unit_rand(&rng) >> pick(64);
			memset(&got, 0, sizeof(got));
			memset(&want, 0, sizeof(want));
			/* a read that fails half-way: nothing kept, nothing of it seen next time */
			if (!pick(8)) {
				ck_assert_int_eq(nd_ctr_build_start(&b, &got, &sel, &scratch), 0);
				for (i = 0; i < n / 2; i++)
					if (nd_ctr_add(&b, pick(2) ? src : ND_CTR_RDMA, names[i],
						       values[i]))
						ck_abort_msg("add %zu", i);
				ck_assert_uint_eq(b.adds, n / 2);
				nd_ctr_build_abort(&b);
			}
			same = scratch.layout && n == last_n && (src == last_src || !n);
			for (i = 0; same && i < n; i++)
				same = !strcmp(names[i], last[i]);
			ck_assert_int_eq(nd_ctr_build_start(&b, &got, &sel, &scratch), 0);
			for (i = 0; i < n; i++)
				if (nd_ctr_add(&b, src, names[i], values[i]))
					ck_abort_msg("add %zu", i);
			/* every add counts, replayed or not: a reader asks whether its source gave any */
			ck_assert_uint_eq(b.adds, n);
			ck_assert_int_eq(nd_ctr_build_finish(&b), 0);
			ck_assert_int_eq(b.replay, same);
			replays += same;
			ck_assert_int_eq(nd_ctr_build_start(&b, &want, &sel, NULL), 0);
			for (i = 0; i < n; i++)
				if (nd_ctr_add(&b, src, names[i], values[i]))
					ck_abort_msg("add %zu", i);
			ck_assert_int_eq(nd_ctr_build_finish(&b), 0);
			check_same_sample(&got, &want);
			nd_sample_free(&got);
			nd_sample_free(&want);
			/* from the second build on, the layout is the last build's */
			ck_assert_int_eq(scratch.layout, round > 0);
			memcpy(last, names, n * sizeof(*names));
			last_n = n;
			last_src = src;
			n = change_list(names, n, cap);
		}
		nd_ctr_scratch_free(&scratch);
		free(names);
		free(last);
		free(values);
	}
	/* most seeds replay several rounds */
	ck_assert_uint_gt(replays, 200);
	nd_ctr_maps_free(&maps);
}
END_TEST

TCase *tcase_counters_build(void)
{
	TCase *tc = tcase_create("build");

	tcase_add_test(tc, alias_first_line_wins);
	tcase_add_test(tc, sum_in_any_order);
	tcase_add_test(tc, scale_and_source);
	tcase_add_test(tc, build_scratch_random);
	return tc;
}
