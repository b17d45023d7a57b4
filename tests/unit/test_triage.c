// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage rules over synthetic deltas: a healthy lossless port under load fires nothing, then each
 * rule's pattern fires it, with the thresholds on both sides.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodrop.h"
#include "unit.h"

#define T 5.0			/* seconds between the samples */
#define US(frac) ((uint64_t)((frac) * T * 1e6))

struct dset {
	struct nd_delta d[96];
	size_t n;
};

static struct nd_delta *put(struct dset *s, const char *name, int prio, uint64_t delta)
{
	struct nd_delta *d;

	ck_assert_uint_lt(s->n, sizeof(s->d) / sizeof(s->d[0]));
	d = &s->d[s->n++];
	memset(d, 0, sizeof(*d));
	snprintf(d->name, sizeof(d->name), "%s", name);
	d->prio = prio;
	d->mapped = true;
	d->value = 1000000 + delta;
	d->delta = delta;
	d->rate = (double)delta / T;
	d->status = ND_DELTA_OK;
	return d;
}

static void put_status(struct dset *s, const char *name, int prio, enum nd_delta_status st)
{
	struct nd_delta *d = put(s, name, prio, 0);

	d->status = st;
	d->rate = 0;
}

/* A nicsim/mlx5-like port: PFC on priority 3, ECN enables readable and on for 3. */
static void lossless_port(struct nd_port *p)
{
	memset(p, 0, sizeof(*p));
	strcpy(p->link.name, "eth2");
	strcpy(p->link.driver, "mlx5_core");
	p->link.mtu = 9000;
	p->dcb.have = ND_DCB_HAVE_PFC;
	p->dcb.pfc.pfc_cap = 8;
	p->dcb.pfc.pfc_en = 1 << 3;
	p->dcb.pfc.delay = 7;
	p->ecn.backend = ND_ECN_MLNX_SYSFS;
	p->ecn.have_enable = true;
	p->ecn.np_en = 1 << 3;
	p->ecn.rp_en = 1 << 3;
}

/* Lossless RoCE under load: PAUSE now and then, ECN marks answered by CNPs, nothing lost. */
static void healthy(struct dset *s)
{
	int p;

	memset(s, 0, sizeof(*s));
	for (p = 0; p < ND_PRIO_MAX; p++) {
		put(s, "tx_prio_packets", p, p == 3 ? 2000000 : 100);
		put(s, "rx_buf_discards", p, p == 1 ? 50 : 0);	/* lossy priority 1 */
		put(s, "rx_cong_discards", p, 0);
	}
	put(s, "pfc_rx_frames", 3, 1200);
	put(s, "pfc_rx_duration_us", 3, US(0.05));
	put(s, "pfc_tx_frames", 3, 300);
	put(s, "pause_storm_warnings", -1, 0);
	put(s, "pause_storm_errors", -1, 0);
	put(s, "rx_nobuf_discards", -1, 0);
	put(s, "rx_no_wqe_discards", -1, 0);
	put(s, "roce_rx_ecn_marked", -1, 300);
	put(s, "cnp_sent", -1, 120);
	put(s, "cnp_handled", -1, 80);
	put(s, "cnp_ignored", -1, 0);
	put(s, "seq_err_naks", -1, 0);
	put(s, "out_of_sequence", -1, 0);
	put(s, "duplicate_requests", -1, 0);
	put(s, "transport_retries", -1, 0);
	put(s, "rnr_naks_rcvd", -1, 20);	/* 4/s */
	put(s, "ib_xmit_wait", -1, 999);
	put(s, "ib_symbol_errors", -1, 9);
	put(s, "ib_xmit_discards", -1, 99);
	put(s, "rdma_tx_packets", -1, 4000000);
	put(s, "some_driver_counter", -1, 77)->mapped = false;
	/* priority 5's PFC was enabled between the samples: no delta, and nothing to explain */
	put_status(s, "pfc_rx_frames", 5, ND_DELTA_NEW);
}

struct run {
	struct nd_finding *f;
	int n;
};

static struct run triage(const struct nd_port *p, const struct dset *s,
			 const struct nd_triage_opts *o)
{
	struct nd_err e = { 0 };
	struct run r;

	r.n = nd_triage(p, s->d, s->n, T, o, &r.f, &e);
	ck_assert_msg(r.n >= 0, "nd_triage failed: %s", e.msg);
	return r;
}

static const struct nd_finding *find(const struct run *r, const char *id, int prio)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].id, id) && r->f[i].prio == prio)
			return &r->f[i];
	return NULL;
}

static int count(const struct run *r, const char *id)
{
	int i, n = 0;

	for (i = 0; i < r->n; i++)
		n += !strcmp(r->f[i].id, id);
	return n;
}

static const struct nd_finding_ev *ev(const struct nd_finding *f, const char *name, int prio)
{
	size_t i;

	for (i = 0; i < f->n_ev; i++)
		if (!strcmp(f->ev[i].name, name) && f->ev[i].prio == prio)
			return &f->ev[i];
	return NULL;
}

static void dump(const struct run *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		fprintf(stderr, "  %s %s prio %d: %s\n", nd_severity_name(r->f[i].severity),
			r->f[i].id, r->f[i].prio, r->f[i].summary);
}

/* Exactly one finding of @id (on @prio), at @sev, with a summary and an action. */
static const struct nd_finding *only(const struct run *r, const char *id, int prio,
				     enum nd_severity sev)
{
	const struct nd_finding *f = find(r, id, prio);

	if (!f || count(r, id) != 1)
		dump(r);
	ck_assert_msg(f, "no %s on prio %d", id, prio);
	ck_assert_int_eq(count(r, id), 1);
	ck_assert_str_eq(f->ifname, "eth2");
	ck_assert_int_eq(f->severity, sev);
	if (f->n_ev)
		ck_assert_double_eq(f->interval_s, T);
	ck_assert_uint_gt(strlen(f->summary), 20);
	ck_assert_uint_gt(strlen(f->action), 20);
	/* no text cut short by its buffer */
	ck_assert_uint_lt(strlen(f->summary), sizeof(f->summary) - 1);
	ck_assert_uint_lt(strlen(f->action), sizeof(f->action) - 1);
	return f;
}

/* The delta that sets counter @name/@prio to @delta in @s (it must be there). */
static struct nd_delta *set(struct dset *s, const char *name, int prio, uint64_t delta)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->d[i].name, name) || s->d[i].prio != prio)
			continue;
		s->d[i].delta = delta;
		s->d[i].rate = (double)delta / T;
		s->d[i].status = ND_DELTA_OK;
		return &s->d[i];
	}
	ck_abort_msg("%s/%d not in the set", name, prio);
	return NULL;
}

/* Delete @name/@prio from @s: a driver that does not have that counter. */
static void drop(struct dset *s, const char *name, int prio)
{
	size_t i;

	for (i = 0; i < s->n; i++) {
		if (strcmp(s->d[i].name, name) || s->d[i].prio != prio)
			continue;
		memmove(&s->d[i], &s->d[i + 1], (s->n - i - 1) * sizeof(s->d[0]));
		s->n--;
		return;
	}
	ck_abort_msg("%s/%d not in the set", name, prio);
}

START_TEST(defaults)
{
	struct nd_triage_opts o;

	nd_triage_opts_init(&o);
	ck_assert_double_eq(o.storm_fraction, 0.99);
	ck_assert_double_eq(o.pause_heavy_fraction, 0.5);
	ck_assert_uint_eq(o.loss_events, 1);
	ck_assert_double_eq(o.rnr_rate, 100);
	ck_assert_uint_eq(o.xmit_wait_ticks, 1000);
	ck_assert_ptr_null(o.profile);
	ck_assert_ptr_null(o.maps);
}
END_TEST

START_TEST(healthy_port_has_no_findings)
{
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	r = triage(&p, &s, NULL);
	if (r.n)
		dump(&r);
	ck_assert_int_eq(r.n, 0);
	ck_assert_ptr_null(r.f);
	/* and with no counters at all: nothing to say */
	s.n = 0;
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(pfc_storm)
{
	const struct nd_finding *f;
	const struct nd_finding_ev *d;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "pfc_rx_duration_us", 3, US(0.995));
	set(&s, "tx_prio_packets", 3, 0);
	r = triage(&p, &s, NULL);
	f = only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	ck_assert_int_eq(count(&r, "pause-heavy"), 0);
	ck_assert_int_eq(r.n, 1);
	d = ev(f, "pfc_rx_duration_us", 3);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->delta, US(0.995));
	ck_assert_double_eq_tol(d->rate, 995000, 1);
	ck_assert_ptr_nonnull(ev(f, "tx_prio_packets", 3));
	ck_assert_uint_eq(ev(f, "tx_prio_packets", 3)->delta, 0);
	ck_assert_ptr_nonnull(ev(f, "pfc_rx_frames", 3));
	ck_assert_ptr_nonnull(strstr(f->summary, "99.5 %"));
	ck_assert_ptr_nonnull(strstr(f->action, "pfc-prevention-tout"));
	free(r.f);

	/* a pause duration a little over the interval (samples are not instantaneous) is a storm */
	set(&s, "pfc_rx_duration_us", 3, US(1.002));
	r = triage(&p, &s, NULL);
	only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	free(r.f);

	/* a driver without per-priority tx packets: the pause time alone decides */
	drop(&s, "tx_prio_packets", 3);
	r = triage(&p, &s, NULL);
	f = only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	ck_assert_ptr_null(ev(f, "tx_prio_packets", 3));
	free(r.f);
}
END_TEST

START_TEST(storm_threshold)
{
	struct nd_triage_opts o;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "tx_prio_packets", 3, 0);
	set(&s, "pfc_rx_duration_us", 3, US(0.98));
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(count(&r, "pfc-storm"), 0);
	only(&r, "pause-heavy", 3, ND_SEV_WARN);
	free(r.f);

	nd_triage_opts_init(&o);
	o.storm_fraction = 0.95;
	r = triage(&p, &s, &o);
	only(&r, "pfc-storm", 3, ND_SEV_ERROR);
	ck_assert_int_eq(count(&r, "pause-heavy"), 0);
	free(r.f);
}
END_TEST

START_TEST(paused_but_flowing_is_not_a_storm)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "pfc_rx_duration_us", 3, US(0.999));
	set(&s, "tx_prio_packets", 3, 1);
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(count(&r, "pfc-storm"), 0);
	f = only(&r, "pause-heavy", 3, ND_SEV_WARN);
	ck_assert_ptr_nonnull(strstr(f->summary, "99.9 %"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* half the interval is not heavy yet; just over is */
	set(&s, "pfc_rx_duration_us", 3, US(0.5));
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
	set(&s, "pfc_rx_duration_us", 3, US(0.51));
	r = triage(&p, &s, NULL);
	only(&r, "pause-heavy", 3, ND_SEV_WARN);
	free(r.f);
}
END_TEST

START_TEST(storm_unprovable_after_reset)
{
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "pfc_rx_duration_us", 3, US(0.999));
	set(&s, "tx_prio_packets", 3, 0)->status = ND_DELTA_RESET;
	r = triage(&p, &s, NULL);
	/* tx packets have no delta: a storm cannot be proven, heavy pause can */
	ck_assert_int_eq(count(&r, "pfc-storm"), 0);
	only(&r, "pause-heavy", 3, ND_SEV_WARN);
	only(&r, "counter-reset", -1, ND_SEV_INFO);
	free(r.f);

	/* and the pause duration itself reset: no PFC finding at all */
	healthy(&s);
	set(&s, "pfc_rx_duration_us", 3, 0)->status = ND_DELTA_RESET;
	set(&s, "tx_prio_packets", 3, 0);
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(count(&r, "pfc-storm") + count(&r, "pause-heavy"), 0);
	free(r.f);
}
END_TEST

START_TEST(nic_storm_events)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "pause_storm_warnings", -1, 2);
	r = triage(&p, &s, NULL);
	f = only(&r, "pfc-storm", -1, ND_SEV_WARN);
	ck_assert_uint_eq(ev(f, "pause_storm_warnings", -1)->delta, 2);
	ck_assert_ptr_nonnull(strstr(f->action, "source"));
	free(r.f);

	set(&s, "pause_storm_errors", -1, 1);
	r = triage(&p, &s, NULL);
	f = only(&r, "pfc-storm", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(ev(f, "pause_storm_errors", -1)->delta, 1);
	ck_assert_ptr_nonnull(ev(f, "pause_storm_warnings", -1));
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

	lossless_port(&p);
	healthy(&s);
	set(&s, "rx_buf_discards", 3, 40);
	set(&s, "rx_cong_discards", 3, 2);
	r = triage(&p, &s, NULL);
	f = only(&r, "lossless-drops", 3, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_uint_eq(ev(f, "rx_buf_discards", 3)->delta, 40);
	ck_assert_uint_eq(ev(f, "rx_cong_discards", 3)->delta, 2);
	ck_assert_ptr_nonnull(strstr(f->summary, "42 of its packets"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/*
	 * the same drops with PFC off on 3 are lossy traffic; with DCB unknown, unprovable. The
	 * PAUSE still coming in for 3 is the switch pausing a priority this port does not.
	 */
	p.dcb.pfc.pfc_en = 1 << 4;
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(count(&r, "lossless-drops"), 0);
	f = only(&r, "pause-unheeded", 3, ND_SEV_WARN);
	ck_assert_uint_eq(ev(f, "pfc_rx_frames", 3)->delta, 1200);
	ck_assert_ptr_nonnull(strstr(f->summary, "1200 PAUSE frames"));
	ck_assert_ptr_nonnull(strstr(f->summary, "PFC on 4 only"));
	ck_assert_ptr_nonnull(strstr(f->action, "audit --peer"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);
	p.dcb_status = -EOPNOTSUPP;
	p.dcb.pfc.pfc_en = 1 << 3;
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(port_drops)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "rx_nobuf_discards", -1, 500);
	set(&s, "rx_no_wqe_discards", -1, 10);
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 2);
	ck_assert_int_eq(count(&r, "lossless-drops"), 2);
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

START_TEST(ecn_without_cnp)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "cnp_sent", -1, 0);
	p.ecn.np_en = 0;
	r = triage(&p, &s, NULL);
	f = only(&r, "ecn-without-cnp", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(ev(f, "roce_rx_ecn_marked", -1)->delta, 300);
	ck_assert_uint_eq(ev(f, "cnp_sent", -1)->delta, 0);
	ck_assert_ptr_nonnull(strstr(f->summary, "roce_np enable is off on every priority"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* no marks, or a driver that does not count CNPs sent: nothing to conclude */
	set(&s, "roce_rx_ecn_marked", -1, 0);
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
	set(&s, "roce_rx_ecn_marked", -1, 300);
	drop(&s, "cnp_sent", -1);
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(cnp_ignored)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "cnp_ignored", -1, 30);
	r = triage(&p, &s, NULL);
	f = only(&r, "cnp-ignored", -1, ND_SEV_WARN);
	ck_assert_uint_eq(ev(f, "cnp_ignored", -1)->delta, 30);
	ck_assert_uint_eq(ev(f, "cnp_handled", -1)->delta, 80);
	free(r.f);

	/* none handled at all: the reaction point is off */
	set(&s, "cnp_handled", -1, 0);
	p.ecn.rp_en = 0;
	r = triage(&p, &s, NULL);
	f = only(&r, "cnp-ignored", -1, ND_SEV_ERROR);
	ck_assert_ptr_nonnull(strstr(f->summary, "none handled"));
	ck_assert_ptr_nonnull(strstr(f->summary, "roce_rp enable is off"));
	free(r.f);
}
END_TEST

START_TEST(rdma_loss)
{
	const struct nd_finding *f;
	struct nd_triage_opts o;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	/* netem loss between two soft-RoCE hosts, as seen on the requester */
	set(&s, "seq_err_naks", -1, 230);
	set(&s, "duplicate_requests", -1, 3);
	set(&s, "transport_retries", -1, 231);
	r = triage(&p, &s, NULL);
	f = only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 3);
	ck_assert_uint_eq(ev(f, "seq_err_naks", -1)->delta, 230);
	ck_assert_double_eq_tol(ev(f, "seq_err_naks", -1)->rate, 46, 1e-9);
	ck_assert_uint_eq(ev(f, "duplicate_requests", -1)->delta, 3);
	ck_assert_uint_eq(ev(f, "transport_retries", -1)->delta, 231);
	ck_assert_ptr_null(ev(f, "out_of_sequence", -1));	/* did not move */
	ck_assert_ptr_nonnull(strstr(f->summary, "464 loss"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* each counter alone is enough */
	healthy(&s);
	set(&s, "out_of_sequence", -1, 1);
	r = triage(&p, &s, NULL);
	only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	free(r.f);
	healthy(&s);
	set(&s, "transport_retries", -1, 1);
	r = triage(&p, &s, NULL);
	only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	free(r.f);

	/* under a raised threshold */
	nd_triage_opts_init(&o);
	o.loss_events = 10;
	set(&s, "transport_retries", -1, 9);
	r = triage(&p, &s, &o);
	ck_assert_int_eq(r.n, 0);
	set(&s, "transport_retries", -1, 10);
	r = triage(&p, &s, &o);
	only(&r, "rdma-loss", -1, ND_SEV_ERROR);
	free(r.f);
}
END_TEST

START_TEST(rnr_storm)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "rnr_naks_rcvd", -1, 499);	/* 99.8/s */
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
	put(&s, "rnr_naks_sent", -1, 1);		/* together 100/s */
	r = triage(&p, &s, NULL);
	f = only(&r, "rnr-storm", -1, ND_SEV_WARN);
	ck_assert_uint_eq(f->n_ev, 2);
	free(r.f);

	/* a QP ran out of RNR retries: an error whatever the rate */
	healthy(&s);
	put(&s, "rnr_retry_exceeded", -1, 1);
	r = triage(&p, &s, NULL);
	f = only(&r, "rnr-storm", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(ev(f, "rnr_retry_exceeded", -1)->delta, 1);
	free(r.f);
}
END_TEST

START_TEST(ib_credit_starvation)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "ib_xmit_wait", -1, 1000);
	r = triage(&p, &s, NULL);
	f = only(&r, "ib-credit-starvation", -1, ND_SEV_WARN);
	ck_assert_double_eq(ev(f, "ib_xmit_wait", -1)->rate, 200);
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

	lossless_port(&p);
	healthy(&s);
	set(&s, "ib_symbol_errors", -1, 10);
	r = triage(&p, &s, NULL);
	f = only(&r, "ib-link-errors", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 1);
	free(r.f);

	/* one link_downed suffices; a saturated counter counts with what it shows */
	healthy(&s);
	put(&s, "ib_link_downed", -1, 1);
	set(&s, "ib_xmit_discards", -1, 100)->status = ND_DELTA_SATURATED;
	r = triage(&p, &s, NULL);
	f = only(&r, "ib-link-errors", -1, ND_SEV_ERROR);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_int_eq(ev(f, "ib_xmit_discards", -1)->status, ND_DELTA_SATURATED);
	ck_assert_ptr_nonnull(strstr(f->summary, "2 link error counters"));
	free(r.f);
}
END_TEST

START_TEST(counter_reset)
{
	const struct nd_finding *f;
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	/* a driver reload: the loss counter went backwards; rdma-loss cannot see it */
	set(&s, "seq_err_naks", -1, 0)->status = ND_DELTA_RESET;
	set(&s, "cnp_sent", -1, 0)->status = ND_DELTA_RESET;
	r = triage(&p, &s, NULL);
	f = only(&r, "counter-reset", -1, ND_SEV_INFO);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_int_eq(ev(f, "seq_err_naks", -1)->status, ND_DELTA_RESET);
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

	lossless_port(&p);
	healthy(&s);
	/* port_xmit_wait stood at its maximum before and after: starvation cannot show */
	set(&s, "ib_xmit_wait", -1, 0)->status = ND_DELTA_SATURATED;
	r = triage(&p, &s, NULL);
	f = only(&r, "counter-saturated", -1, ND_SEV_INFO);
	ck_assert_uint_eq(f->n_ev, 1);
	ck_assert_int_eq(ev(f, "ib_xmit_wait", -1)->status, ND_DELTA_SATURATED);
	ck_assert_ptr_nonnull(strstr(f->summary, "1 counter stands at its maximum"));
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* a 4-bit counter that reached 15 from 8: 7 seen, under the rule's 10, yet said */
	healthy(&s);
	put(&s, "ib_local_link_integrity_errors", -1, 7)->status = ND_DELTA_SATURATED;
	set(&s, "ib_symbol_errors", -1, 0)->status = ND_DELTA_SATURATED;
	r = triage(&p, &s, NULL);
	f = only(&r, "counter-saturated", -1, ND_SEV_INFO);
	ck_assert_uint_eq(f->n_ev, 2);
	ck_assert_ptr_nonnull(strstr(f->summary, "2 counters stand at their maximum"));
	ck_assert_int_eq(count(&r, "ib-link-errors"), 0);
	ck_assert_int_eq(r.n, 1);
	free(r.f);
}
END_TEST

START_TEST(wrapped_counter_counts)
{
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	healthy(&s);
	set(&s, "rx_no_wqe_discards", -1, 16)->status = ND_DELTA_WRAPPED;
	r = triage(&p, &s, NULL);
	only(&r, "lossless-drops", -1, ND_SEV_WARN);
	free(r.f);
}
END_TEST

START_TEST(several_findings_in_rule_order)
{
	struct nd_port p;
	struct dset s;
	struct run r;

	lossless_port(&p);
	p.dcb.pfc.pfc_en = 1 << 3 | 1 << 4;
	healthy(&s);
	put(&s, "pfc_rx_duration_us", 4, US(1));
	set(&s, "tx_prio_packets", 4, 0);
	set(&s, "pfc_rx_duration_us", 3, US(0.7));
	set(&s, "rx_buf_discards", 4, 3);
	set(&s, "seq_err_naks", -1, 3);
	r = triage(&p, &s, NULL);
	ck_assert_int_eq(r.n, 4);
	ck_assert_str_eq(r.f[0].id, "pfc-storm");
	ck_assert_int_eq(r.f[0].prio, 4);
	ck_assert_str_eq(r.f[1].id, "pause-heavy");
	ck_assert_int_eq(r.f[1].prio, 3);
	ck_assert_str_eq(r.f[2].id, "lossless-drops");
	ck_assert_int_eq(r.f[2].prio, 4);
	ck_assert_str_eq(r.f[3].id, "rdma-loss");
	free(r.f);
}
END_TEST

START_TEST(profile_lints_are_findings)
{
	static const char yaml[] = "name: t\nports:\n  names: [\"eth*\"]\npfc:\n"
				   "  priorities: [3]\n  cable-length: 7\n";
	struct nd_triage_opts o;
	struct nd_profile prof;
	const struct nd_finding *f;
	struct nd_err e = { 0 };
	struct nd_port p;
	struct dset s;
	struct run r;

	/* no LLDP agent in the fixture's /proc, whatever runs on the machine under test */
	unit_use_fixture("lint-clean");
	ck_assert_int_eq(nd_profile_parse(yaml, sizeof(yaml) - 1, "t.yaml", ".", &prof, &e), 0);
	lossless_port(&p);
	p.dcb.pfc.delay = 0;
	healthy(&s);
	nd_triage_opts_init(&o);
	o.profile = &prof;
	r = triage(&p, &s, &o);
	f = only(&r, "cable-length-unset", -1, ND_SEV_WARN);
	ck_assert_int_eq(f->n_ev, 0);
	ck_assert_str_eq(f->loc.file, "t.yaml");
	ck_assert_uint_eq(f->loc.line, 6);
	ck_assert_double_eq(f->interval_s, 0);
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* a port the profile does not match is not linted */
	strcpy(p.link.name, "ib0");
	r = triage(&p, &s, &o);
	ck_assert_int_eq(r.n, 0);
	nd_profile_free(&prof);
	unit_no_root();
}
END_TEST

/* The names the rules read are the ones the counter maps define. */
START_TEST(counter_names_are_canonical)
{
	const char *const *names;
	size_t n, i;

	names = nd_triage_counters(&n);
	ck_assert_uint_gt(n, 30);
	ck_assert_ptr_null(names[n]);
	for (i = 0; i < n; i++)
		ck_assert_msg(nd_counter_info(names[i]), "triage reads '%s', which no counter "
			      "map defines", names[i]);
}
END_TEST

START_TEST(run_refuses_bad_input)
{
	const char *nosuch[] = { "nosuchdev0" };
	struct nd_triage_report rep;
	struct nd_err e = { 0 };
	struct nd_ctx *ctx;

	ck_assert_int_eq(nd_ctx_new(&ctx, &e), 0);
	ck_assert_int_eq(nd_triage_run(ctx, nosuch, 1, 0, NULL, &rep, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "interval"));
	ck_assert_int_eq(nd_triage_run(ctx, nosuch, 1, 1, NULL, &rep, &e), -ENODEV);
	ck_assert_ptr_nonnull(strstr(e.msg, "nosuchdev0"));
	ck_assert_uint_eq(rep.n, 0);
	ck_assert_uint_eq(rep.n_findings, 0);
	nd_ctx_free(ctx);
}
END_TEST

Suite *suite_triage(void)
{
	Suite *s = suite_create("triage");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, healthy_port_has_no_findings);
	tcase_add_test(tc, pfc_storm);
	tcase_add_test(tc, storm_threshold);
	tcase_add_test(tc, paused_but_flowing_is_not_a_storm);
	tcase_add_test(tc, storm_unprovable_after_reset);
	tcase_add_test(tc, nic_storm_events);
	tcase_add_test(tc, lossless_drops);
	tcase_add_test(tc, port_drops);
	tcase_add_test(tc, ecn_without_cnp);
	tcase_add_test(tc, cnp_ignored);
	tcase_add_test(tc, rdma_loss);
	tcase_add_test(tc, rnr_storm);
	tcase_add_test(tc, ib_credit_starvation);
	tcase_add_test(tc, ib_link_errors);
	tcase_add_test(tc, counter_reset);
	tcase_add_test(tc, counter_saturated);
	tcase_add_test(tc, wrapped_counter_counts);
	tcase_add_test(tc, several_findings_in_rule_order);
	tcase_add_test(tc, profile_lints_are_findings);
	tcase_add_test(tc, counter_names_are_canonical);
	tcase_add_test(tc, run_refuses_bad_input);
	suite_add_tcase(s, tc);
	return s;
}
