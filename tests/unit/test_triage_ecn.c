// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage rules over synthetic deltas, ECN's (lib/triage/triage_ecn.c): marks that send no CNP,
 * CNPs the reaction point ignores.
 */
#include <stdlib.h>
#include <string.h>

#include "test_triage.h"

START_TEST(ecn_without_cnp)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "cnp_sent", -1, 0);
	p.ecn.np_en = 0;
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "ecn-without-cnp", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(tri_ev(f, "roce_rx_ecn_marked", -1)->delta, 300);
	ck_assert_uint_eq(tri_ev(f, "cnp_sent", -1)->delta, 0);
	ck_assert_ptr_nonnull(strstr(f->summary, "roce_np enable is off on every priority"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* no marks, or a driver that does not count CNPs sent: nothing to conclude */
	tri_set(&s, "roce_rx_ecn_marked", -1, 0);
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
	tri_set(&s, "roce_rx_ecn_marked", -1, 300);
	tri_drop(&s, "cnp_sent", -1);
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(cnp_ignored)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "cnp_ignored", -1, 30);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "cnp-ignored", -1, ND_SEV_WARN);
	ck_assert_uint_eq(tri_ev(f, "cnp_ignored", -1)->delta, 30);
	ck_assert_uint_eq(tri_ev(f, "cnp_handled", -1)->delta, 80);
	free(r.f);

	/* none handled at all: the reaction point is off */
	tri_set(&s, "cnp_handled", -1, 0);
	p.ecn.rp_en = 0;
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "cnp-ignored", -1, ND_SEV_ERROR);
	ck_assert_ptr_nonnull(strstr(f->summary, "none handled"));
	ck_assert_ptr_nonnull(strstr(f->summary, "roce_rp enable is off"));
	free(r.f);
}
END_TEST

TCase *tcase_triage_ecn(void)
{
	TCase *tc = tcase_create("ecn");

	tcase_add_test(tc, ecn_without_cnp);
	tcase_add_test(tc, cnp_ignored);
	return tc;
}
