// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage rules over synthetic deltas: a healthy lossless port under load fires nothing, then each
 * rule's pattern fires it, with the thresholds on both sides. Here: the harness the rule
 * families' files share (test_triage.h) and the run as a whole (defaults, rule order, the
 * profile's lints, the counters the rules read); each family's rules in test_triage_FAMILY.c.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_triage.h"
#include "unit.h"

struct nd_delta *tri_put(struct dset *s, const char *name, int prio, uint64_t delta)
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
	struct nd_delta *d = tri_put(s, name, prio, 0);

	d->status = st;
	d->rate = 0;
}

/* A nicsim/mlx5-like port: PFC on priority 3, ECN enables readable and on for 3. */
void tri_lossless_port(struct nd_port *p)
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
void tri_healthy(struct dset *s)
{
	int p;

	memset(s, 0, sizeof(*s));
	for (p = 0; p < ND_PRIO_MAX; p++) {
		tri_put(s, "tx_prio_packets", p, p == 3 ? 2000000 : 100);
		tri_put(s, "rx_buf_discards", p, p == 1 ? 50 : 0);	/* lossy priority 1 */
		tri_put(s, "rx_cong_discards", p, 0);
	}
	tri_put(s, "pfc_rx_frames", 3, 1200);
	tri_put(s, "pfc_rx_duration_us", 3, US(0.05));
	tri_put(s, "pfc_tx_frames", 3, 300);
	tri_put(s, "pause_storm_warnings", -1, 0);
	tri_put(s, "pause_storm_errors", -1, 0);
	tri_put(s, "rx_nobuf_discards", -1, 0);
	tri_put(s, "rx_no_wqe_discards", -1, 0);
	tri_put(s, "roce_rx_ecn_marked", -1, 300);
	tri_put(s, "cnp_sent", -1, 120);
	tri_put(s, "cnp_handled", -1, 80);
	tri_put(s, "cnp_ignored", -1, 0);
	tri_put(s, "seq_err_naks", -1, 0);
	tri_put(s, "out_of_sequence", -1, 0);
	tri_put(s, "duplicate_requests", -1, 0);
	tri_put(s, "transport_retries", -1, 0);
	tri_put(s, "rnr_naks_rcvd", -1, 20);	/* 4/s */
	tri_put(s, "ib_xmit_wait", -1, 999);
	tri_put(s, "ib_symbol_errors", -1, 9);
	tri_put(s, "ib_xmit_discards", -1, 99);
	tri_put(s, "rdma_tx_packets", -1, 4000000);
	tri_put(s, "some_driver_counter", -1, 77)->mapped = false;
	/* priority 5's PFC was enabled between the samples: no delta, and nothing to explain */
	put_status(s, "pfc_rx_frames", 5, ND_DELTA_NEW);
}


struct run tri_run(const struct nd_port *p, const struct dset *s, const struct nd_triage_opts *o)
{
	struct nd_err e = { 0 };
	struct run r;

	r.n = nd_triage(p, s->d, s->n, T, o, &r.f, &e);
	ck_assert_msg(r.n >= 0, "nd_triage failed: %s", e.msg);
	return r;
}

const struct nd_finding *tri_find(const struct run *r, const char *id, int prio)
{
	int i;

	for (i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].id, id) && r->f[i].prio == prio)
			return &r->f[i];
	return NULL;
}

int tri_count(const struct run *r, const char *id)
{
	int i, n = 0;

	for (i = 0; i < r->n; i++)
		n += !strcmp(r->f[i].id, id);
	return n;
}

const struct nd_finding_ev *tri_ev(const struct nd_finding *f, const char *name, int prio)
{
	size_t i;

	for (i = 0; i < f->n_ev; i++)
		if (!strcmp(f->ev[i].name, name) && f->ev[i].prio == prio)
			return &f->ev[i];
	return NULL;
}

void tri_dump(const struct run *r)
{
	int i;

	for (i = 0; i < r->n; i++)
		fprintf(stderr, "  %s %s prio %d: %s\n", nd_severity_name(r->f[i].severity),
			r->f[i].id, r->f[i].prio, r->f[i].summary);
}

/* Exactly one finding of @id (on @prio), at @sev, with a summary and an action. */
const struct nd_finding *tri_only(const struct run *r, const char *id, int prio,
				  enum nd_severity sev)
{
	const struct nd_finding *f = tri_find(r, id, prio);

	if (!f || tri_count(r, id) != 1)
		tri_dump(r);
	ck_assert_msg(f, "no %s on prio %d", id, prio);
	ck_assert_int_eq(tri_count(r, id), 1);
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
struct nd_delta *tri_set(struct dset *s, const char *name, int prio, uint64_t delta)
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
void tri_drop(struct dset *s, const char *name, int prio)
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

	tri_lossless_port(&p);
	tri_healthy(&s);
	r = tri_run(&p, &s, NULL);
	if (r.n)
		tri_dump(&r);
	ck_assert_int_eq(r.n, 0);
	ck_assert_ptr_null(r.f);
	/* and with no counters at all: nothing to say */
	s.n = 0;
	r = tri_run(&p, &s, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(several_findings_in_rule_order)
{
	struct nd_port p;
	struct dset s;
	struct run r;

	tri_lossless_port(&p);
	p.dcb.pfc.pfc_en = 1 << 3 | 1 << 4;
	tri_healthy(&s);
	tri_put(&s, "pfc_rx_duration_us", 4, US(1));
	tri_set(&s, "tx_prio_packets", 4, 0);
	tri_set(&s, "pfc_rx_duration_us", 3, US(0.7));
	tri_set(&s, "rx_buf_discards", 4, 3);
	tri_set(&s, "seq_err_naks", -1, 3);
	r = tri_run(&p, &s, NULL);
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
	tri_lossless_port(&p);
	p.dcb.pfc.delay = 0;
	tri_healthy(&s);
	nd_triage_opts_init(&o);
	o.profile = &prof;
	r = tri_run(&p, &s, &o);
	f = tri_only(&r, "cable-length-unset", -1, ND_SEV_WARN);
	ck_assert_int_eq(f->n_ev, 0);
	ck_assert_str_eq(f->loc.file, "t.yaml");
	ck_assert_uint_eq(f->loc.line, 6);
	ck_assert_double_eq(f->interval_s, 0);
	ck_assert_int_eq(r.n, 1);
	free(r.f);

	/* a port the profile does not match is not linted */
	strcpy(p.link.name, "ib0");
	r = tri_run(&p, &s, &o);
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
	tcase_add_test(tc, several_findings_in_rule_order);
	tcase_add_test(tc, profile_lints_are_findings);
	tcase_add_test(tc, counter_names_are_canonical);
	tcase_add_test(tc, run_refuses_bad_input);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_triage_pfc());
	suite_add_tcase(s, tcase_triage_ecn());
	suite_add_tcase(s, tcase_triage_loss());
	suite_add_tcase(s, tcase_triage_ib());
	suite_add_tcase(s, tcase_triage_reset());
	return s;
}
