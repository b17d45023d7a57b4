// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage rules over synthetic deltas, RDMA transport loss (lib/triage/triage_loss.c): NAKs,
 * retries and packets out of sequence; RNR storms.
 */
#include <stdlib.h>
#include <string.h>

#include "test_triage.h"

START_TEST(rdma_loss)
{
	const struct nd_finding *f;
	struct nd_triage_opts o;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	/* netem loss between two soft-RoCE hosts, as seen on the requester */
	tri_set(&s, "seq_err_naks", -1, 230);
	tri_set(&s, "duplicate_requests", -1, 3);
	tri_set(&s, "transport_retries", -1, 231);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 3);
	ck_assert_uint_eq(tri_ev(f, "seq_err_naks", -1)->delta, 230);
	ck_assert_double_eq_tol(tri_ev(f, "seq_err_naks", -1)->rate, 46, 1e-9);
	ck_assert_uint_eq(tri_ev(f, "duplicate_requests", -1)->delta, 3);
	ck_assert_uint_eq(tri_ev(f, "transport_retries", -1)->delta, 231);
	ck_assert_ptr_null(tri_ev(f, "out_of_sequence", -1));	/* did not move */
	ck_assert_ptr_nonnull(strstr(f->summary, "464 loss"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* each counter alone is enough */
	tri_healthy(&s);
	tri_set(&s, "out_of_sequence", -1, 1);
	r = tri_run(&p, &s, NULL);
	tri_only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	free(r.f);
	tri_healthy(&s);
	tri_set(&s, "transport_retries", -1, 1);
	r = tri_run(&p, &s, NULL);
	tri_only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	free(r.f);

	/* under a raised threshold */
	nd_triage_opts_init(&o);
	o.loss_events = 10;
	tri_set(&s, "transport_retries", -1, 9);
	r = tri_run(&p, &s, &o);
	ck_assert_int_eq(r.n, 0);
	tri_set(&s, "transport_retries", -1, 10);
	r = tri_run(&p, &s, &o);
	tri_only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	free(r.f);
}
END_TEST

START_TEST(rnr_storm)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "rnr_naks_rcvd", -1, 499);	/* 99.8/s */
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
	tri_put(&s, "rnr_naks_sent", -1, 1);		/* together 100/s */
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "rnr-storm", -1, ND_SEV_WARN);
	ck_assert_uint_eq(f->n_ev, 2);
	free(r.f);

	/* a QP ran out of RNR retries: an error whatever the rate */
	tri_healthy(&s);
	tri_put(&s, "rnr_retry_exceeded", -1, 1);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "rnr-storm", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(tri_ev(f, "rnr_retry_exceeded", -1)->delta, 1);
	free(r.f);
}
END_TEST

TCase *tcase_triage_loss(void)
{
	TCase *tc = tcase_create("loss");

	tcase_add_test(tc, rdma_loss);
	tcase_add_test(tc, rnr_storm);
	return tc;
}
