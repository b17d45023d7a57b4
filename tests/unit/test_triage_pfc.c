// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage rules over synthetic deltas, PFC's (lib/triage/triage_pfc.c): storms (the pause time
 * against the traffic that still left), heavy pause, the NIC's own storm events, drops on
 * lossless priorities and PAUSE the port does not heed.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "test_triage.h"

START_TEST(pfc_storm)
{
	const struct nd_finding *f;
	const struct nd_finding_ev *d;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "pfc_rx_duration_us", 3, US(0.995));
	tri_set(&s, "tx_prio_packets", 3, 0);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	ck_assert_int_eq(tri_count(&r, "pause-heavy"), 0);
	ck_assert_int_eq(r.n, 1);
	d = tri_ev(f, "pfc_rx_duration_us", 3);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->delta, US(0.995));
	ck_assert_double_eq_tol(d->rate, 995000, 1);
	ck_assert_ptr_nonnull(tri_ev(f, "tx_prio_packets", 3));
	ck_assert_uint_eq(tri_ev(f, "tx_prio_packets", 3)->delta, 0);
	ck_assert_ptr_nonnull(tri_ev(f, "pfc_rx_frames", 3));
	ck_assert_ptr_nonnull(strstr(f->summary, "99.5 %"));
	ck_assert_ptr_nonnull(strstr(f->action, "pfc-prevention-tout"));
	free(r.f);

	/* a pause duration a little over the interval (samples are not instantaneous) is a storm */
	tri_set(&s, "pfc_rx_duration_us", 3, US(1.002));
	r = tri_run(&p, &s, NULL);
	tri_only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	free(r.f);

	/* a driver without per-priority tx packets: the pause time alone decides */
	tri_drop(&s, "tx_prio_packets", 3);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	ck_assert_ptr_null(tri_ev(f, "tx_prio_packets", 3));
	free(r.f);
}
END_TEST

START_TEST(storm_threshold)
{
	struct nd_triage_opts o;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "tx_prio_packets", 3, 0);
	tri_set(&s, "pfc_rx_duration_us", 3, US(0.98));
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(tri_count(&r, "pfc-storm"), 0);
	tri_only(&r, "pause-heavy", 3, ND_SEV_WARN);
	free(r.f);

	nd_triage_opts_init(&o);
	o.storm_fraction = 0.95;
	r = tri_run(&p, &s, &o);
	tri_only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	ck_assert_int_eq(tri_count(&r, "pause-heavy"), 0);
	free(r.f);
}
END_TEST

START_TEST(paused_but_flowing_is_not_a_storm)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "pfc_rx_duration_us", 3, US(0.999));
	tri_set(&s, "tx_prio_packets", 3, 1);
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(tri_count(&r, "pfc-storm"), 0);
	f = tri_only(&r, "pause-heavy", 3, ND_SEV_WARN);
	ck_assert_ptr_nonnull(strstr(f->summary, "99.9 %"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* half the interval is not heavy yet; just over is */
	tri_set(&s, "pfc_rx_duration_us", 3, US(0.5));
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
	tri_set(&s, "pfc_rx_duration_us", 3, US(0.51));
	r = tri_run(&p, &s, NULL);
	tri_only(&r, "pause-heavy", 3, ND_SEV_WARN);
	free(r.f);
}
END_TEST

START_TEST(storm_unprovable_after_reset)
{
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "pfc_rx_duration_us", 3, US(0.999));
	tri_set(&s, "tx_prio_packets", 3, 0)->status = ND_DELTA_RESET;
	r = tri_run(&p, &s, NULL);
	/* tx packets have no delta: a storm cannot be proven, heavy pause can */
	ck_assert_int_eq(tri_count(&r, "pfc-storm"), 0);
	tri_only(&r, "pause-heavy", 3, ND_SEV_WARN);
	tri_only(&r, "counter-reset", -1, ND_SEV_INFO);
	free(r.f);

	/* and the pause duration itself reset: no PFC finding at all */
	tri_healthy(&s);
	tri_set(&s, "pfc_rx_duration_us", 3, 0)->status = ND_DELTA_RESET;
	tri_set(&s, "tx_prio_packets", 3, 0);
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(tri_count(&r, "pfc-storm") + tri_count(&r, "pause-heavy"), 0);
	free(r.f);
}
END_TEST

START_TEST(nic_storm_events)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "pause_storm_warnings", -1, 2);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "pfc-storm", -1, ND_SEV_WARN);
	ck_assert_uint_eq(tri_ev(f, "pause_storm_warnings", -1)->delta, 2);
	ck_assert_ptr_nonnull(strstr(f->action, "source"));
	free(r.f);

	tri_set(&s, "pause_storm_errors", -1, 1);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "pfc-storm", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(tri_ev(f, "pause_storm_errors", -1)->delta, 1);
	ck_assert_ptr_nonnull(tri_ev(f, "pause_storm_warnings", -1));
	ck_assert_ptr_nonnull(strstr(f->summary, "1 time:"));
	free(r.f);
}
END_TEST

START_TEST(lossless_drops)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "rx_buf_discards", 3, 40);
	tri_set(&s, "rx_cong_discards", 3, 2);
	r = tri_run(&p, &s, NULL);
	f = tri_only(&r, "lossless-drops", 3, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_uint_eq(tri_ev(f, "rx_buf_discards", 3)->delta, 40);
	ck_assert_uint_eq(tri_ev(f, "rx_cong_discards", 3)->delta, 2);
	ck_assert_ptr_nonnull(strstr(f->summary, "42 of its packets"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/*
	 * the same drops with PFC off on 3 are lossy traffic; with DCB unknown, unprovable. The
	 * PAUSE still coming in for 3 is the switch pausing a priority this port does not.
	 */
	p.dcb.pfc.pfc_en = 1 << 4;
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(tri_count(&r, "lossless-drops"), 0);
	f = tri_only(&r, "pause-unheeded", 3, ND_SEV_WARN);
	ck_assert_uint_eq(tri_ev(f, "pfc_rx_frames", 3)->delta, 1200);
	ck_assert_ptr_nonnull(strstr(f->summary, "1200 PAUSE frames"));
	ck_assert_ptr_nonnull(strstr(f->summary, "PFC on 4 only"));
	ck_assert_ptr_nonnull(strstr(f->action, "audit --peer"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);
	p.dcb_status = -EOPNOTSUPP;
	p.dcb.pfc.pfc_en = 1 << 3;
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(port_drops)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	tri_healthy(&s);
	tri_set(&s, "rx_nobuf_discards", -1, 500);
	tri_set(&s, "rx_no_wqe_discards", -1, 10);
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(r.n, 2);
	ck_assert_int_eq(tri_count(&r, "lossless-drops"), 2);
	f = &r.f[0];
	ck_assert_int_eq(f->severity, ND_SEV_WARN);
	ck_assert_int_eq(f->prio, -1);
	ck_assert_str_eq(f->ev[0].name, "rx_nobuf_discards");
	ck_assert_ptr_nonnull(strstr(f->summary, "500 packets (100/s); PFC is on priorities 3"));
	f = &r.f[1];
	ck_assert_int_eq(f->severity, ND_SEV_WARN);
	ck_assert_str_eq(f->ev[0].name, "rx_no_wqe_discards");
	ck_assert_ptr_nonnull(strstr(f->summary, "host"));
	free(r.f);
}
END_TEST

TCase *tcase_triage_pfc(void)
{
	TCase *tc = tcase_create("pfc");

	tcase_add_test(tc, pfc_storm);
	tcase_add_test(tc, storm_threshold);
	tcase_add_test(tc, paused_but_flowing_is_not_a_storm);
	tcase_add_test(tc, storm_unprovable_after_reset);
	tcase_add_test(tc, nic_storm_events);
	tcase_add_test(tc, lossless_drops);
	tcase_add_test(tc, port_drops);
	return tc;
}
