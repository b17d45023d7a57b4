// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage rules over synthetic deltas, the counters' own (lib/triage/triage_reset.c): counters
 * that went backwards or stand at their maximum; a wrapped one still counts.
 */
#include <stdlib.h>
#include <string.h>

#include "test_triage.h"

START_TEST(counter_reset)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	/* a driver reload: the loss counter went backwards; rdma-loss cannot see it */
	tri_set(&s, "seq_err_naks", -1, 0)->status = ND_DELTA_RESET;
	tri_set(&s, "cnp_sent", -1, 0)->status = ND_DELTA_RESET;
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "counter-reset", -1, ND_SEV_INFO);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_int_eq(tri_ev(f, "seq_err_naks", -1)->status, ND_DELTA_RESET);
	ck_assert_ptr_nonnull(strstr(f->summary, "2 counters went backwards"));
	ck_assert_int_eq(r.n, 1);	/* nor ecn-without-cnp from a cnp_sent of no delta */
	free(r.f);
}
END_TEST

START_TEST(counter_saturated)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	/* port_xmit_wait stood at its maximum before and after: starvation cannot show */
	tri_set(&s, "ib_xmit_wait", -1, 0)->status = ND_DELTA_SATURATED;
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "counter-saturated", -1, ND_SEV_INFO);
	ck_assert_uint_eq(f->n_ev, 1);
	ck_assert_int_eq(tri_ev(f, "ib_xmit_wait", -1)->status, ND_DELTA_SATURATED);
	ck_assert_ptr_nonnull(strstr(f->summary, "1 counter stands at its maximum"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* a 4-bit counter that reached 15 from 8: 7 seen, under the rule's 10, yet said */
	tri_healthy(&s);
	tri_put(&s, "ib_local_link_integrity_errors", -1, 7)->status = ND_DELTA_SATURATED;
	tri_set(&s, "ib_symbol_errors", -1, 0)->status = ND_DELTA_SATURATED;
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "counter-saturated", -1, ND_SEV_INFO);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_ptr_nonnull(strstr(f->summary, "2 counters stand at their maximum"));
	ck_assert_int_eq(tri_count(&r, "ib-link-errors"), 0);
	ck_assert_int_eq(r.n, 1);
	free(r.f);
}
END_TEST

START_TEST(wrapped_counter_counts)
{
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "rx_no_wqe_discards", -1, 16)->status = ND_DELTA_WRAPPED;
	r = tri_run(&p, &s, NULL);
	tri_only(&r, "lossless-drops", -1, ND_SEV_WARN);
	free(r.f);
}
END_TEST

TCase *tcase_triage_reset(void)
{
	TCase *tc = tcase_create("reset");

	tcase_add_test(tc, counter_reset);
	tcase_add_test(tc, counter_saturated);
	tcase_add_test(tc, wrapped_counter_counts);
	return tc;
}
