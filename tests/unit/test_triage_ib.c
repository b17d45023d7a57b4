// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage rules over synthetic deltas, InfiniBand links' (lib/triage/triage_ib.c): credit
 * starvation (port_xmit_wait) and link errors.
 */
#include <stdlib.h>
#include <string.h>

#include "test_triage.h"

START_TEST(ib_credit_starvation)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "ib_xmit_wait", -1, 1000);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "ib-credit-starvation", -1, ND_SEV_WARN);
	ck_assert_double_eq(tri_ev(f, "ib_xmit_wait", -1)->rate, 200);
	ck_assert_ptr_nonnull(strstr(f->summary, "1000 ticks in 5.00 s (200/s"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);
}
END_TEST

START_TEST(ib_link_errors)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "ib_symbol_errors", -1, 10);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "ib-link-errors", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 1);
	free(r.f);

	/* one link_downed suffices; a saturated counter counts with what it shows */
	tri_healthy(&s);
	tri_put(&s, "ib_link_downed", -1, 1);
	tri_set(&s, "ib_xmit_discards", -1, 100)->status = ND_DELTA_SATURATED;
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "ib-link-errors", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_int_eq(tri_ev(f, "ib_xmit_discards", -1)->status, ND_DELTA_SATURATED);
	ck_assert_ptr_nonnull(strstr(f->summary, "2 link error counters"));
	free(r.f);
}
END_TEST

TCase *tcase_triage_ib(void)
{
	TCase *tc = tcase_create("ib");

	tcase_add_test(tc, ib_credit_starvation);
	tcase_add_test(tc, ib_link_errors);
	return tc;
}
