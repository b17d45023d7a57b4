// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Plans (order, content, idempotence), the planned-state overlay and the journal round trip. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply/journal.h"
#include "apply/plan.h"
#include "unit.h"

#define BIT(f) (1u << (f))

/* An mlx5-like port as the driver starts it: vendor TSA, PCP trust, no PFC, MTU 1500. */
static void fresh_port(struct nd_port *p, const char *name)
{
	int i;

	memset(p, 0, sizeof(*p));
	snprintf(p->link.name, sizeof(p->link.name), "%s", name);
	snprintf(p->link.driver, sizeof(p->link.driver), "mlx5_core");
	p->link.mtu = 1500;
	p->link.min_mtu = 68;
	p->link.max_mtu = 9978;
	p->dcb.have = ND_DCB_HAVE_ETS | ND_DCB_HAVE_PFC | ND_DCB_HAVE_MAXRATE |
		      ND_DCB_HAVE_BUFFER | ND_DCB_HAVE_DCBX | ND_DCB_HAVE_APP;
	p->dcb.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	p->dcb.pfc.pfc_cap = 8;
	p->dcb.pfc.delay = 7;
	p->dcb.ets.ets_cap = 8;
	for (i = 0; i < 8; i++) {
		p->dcb.ets.prio_tc[i] = (uint8_t)i;
		p->dcb.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_VENDOR;
		p->dcb.ets.tc_tx_bw[i] = 100;
	}
	p->dcb.buffer.buffer_size[0] = 131072;
	p->dcb.buffer.total_size = 262144;
}

static void lossless_profile(struct nd_profile *w)
{
	int i;

	memset(w, 0, sizeof(*w));
	snprintf(w->name, sizeof(w->name), "t");
	snprintf(w->loc[ND_F_MTU].file, sizeof(w->loc[0].file), "t.yaml");
	w->loc[ND_F_MTU].line = 3;
	w->loc[ND_F_MTU].col = 6;
	w->set = BIT(ND_F_MTU) | BIT(ND_F_PFC_EN) | BIT(ND_F_PFC_DELAY) | BIT(ND_F_ETS_PRIO_TC) |
		 BIT(ND_F_ETS_TSA) | BIT(ND_F_ETS_BW) | BIT(ND_F_DSCP_MAP) | BIT(ND_F_TRUST) |
		 BIT(ND_F_BUF_PRIO) | BIT(ND_F_BUF_SIZE);
	w->mtu = 9000;
	w->trust = ND_TRUST_DSCP;
	for (i = 0; i < ND_DSCP_MAX; i++)
		w->dscp2prio[i] = -1;
	w->dscp2prio[26] = 3;
	w->dscp2prio[48] = 6;
	w->pfc_en = 1 << 3;
	w->pfc_delay = 30;
	for (i = 0; i < 8; i++)
		w->tc_tsa[i] = IEEE_8021QAZ_TSA_STRICT;
	w->prio_tc[3] = 3;
	w->prio_tc[6] = 6;
	w->tc_tsa[0] = w->tc_tsa[3] = IEEE_8021QAZ_TSA_ETS;
	w->tc_bw[0] = 40;
	w->tc_bw[3] = 60;
	w->prio2buffer[3] = 1;
	w->buffer_size[0] = 131072;
	w->buffer_size[1] = 98304;
}

/* Bring @p to where @plan says, as the kernel would (for the idempotence check). */
static void run_on_copy(struct nd_port *p, const struct nd_profile *w)
{
	nd_profile_overlay(w, p);
}

START_TEST(plan_order_is_safe)
{
	static const enum nd_step_kind want[] = {
		ND_STEP_MTU, ND_STEP_BUFFER, ND_STEP_ETS, ND_STEP_PFC, ND_STEP_APP_ADD,
		ND_STEP_APP_ADD,
	};
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w;
	struct nd_port p;
	size_t i;

	fresh_port(&p, "eth2");
	lossless_profile(&w);
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, sizeof(want) / sizeof(want[0]));
	for (i = 0; i < plan.n; i++)
		ck_assert_msg(plan.steps[i].kind == want[i], "step %zu is %d, want %d", i,
			      plan.steps[i].kind, want[i]);
	/* buffers before the PFC that needs them, DSCP entries (trust) after PFC */
	ck_assert_uint_eq(plan.steps[1].u.buffer.prio2buffer[3], 1);
	ck_assert_uint_eq(plan.steps[1].u.buffer.total_size, 262144);	/* read-modify-write */
	ck_assert_uint_eq(plan.steps[3].u.pfc.pfc_en, 0x08);
	ck_assert_uint_eq(plan.steps[3].u.pfc.delay, 30);
	ck_assert_uint_eq(plan.steps[3].u.pfc.pfc_cap, 8);
	ck_assert_str_eq(plan.steps[3].warning, "changing PFC priorities flaps the link on mlx5_core");
	ck_assert_str_eq(plan.steps[3].from, "none");
	ck_assert_str_eq(plan.steps[3].to, "3, cable-length 30");
	ck_assert_uint_eq(plan.steps[4].u.app.protocol, 26);
	ck_assert_uint_eq(plan.steps[4].u.app.priority, 3);
	ck_assert_uint_eq(plan.steps[4].u.app.selector, IEEE_8021QAZ_APP_SEL_DSCP);
	ck_assert_uint_eq(nd_plan_changes(&plan), plan.n);
	nd_plan_free(&plan);
}
END_TEST

START_TEST(plan_then_overlay_is_idempotent)
{
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w;
	struct nd_port p;

	fresh_port(&p, "eth2");
	lossless_profile(&w);
	run_on_copy(&p, &w);
	/* strict TCs read back 100 on mlx5: not drift */
	p.dcb.ets.tc_tx_bw[1] = 100;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_msg(plan.n == 0, "%zu steps left, first %d %s -> %s", plan.n,
		      plan.n ? (int)plan.steps[0].kind : -1, plan.n ? plan.steps[0].from : "",
		      plan.n ? plan.steps[0].to : "");
	nd_plan_free(&plan);
	free(p.dcb.apps);
}
END_TEST

START_TEST(plan_refuses_what_does_not_fit)
{
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w;
	struct nd_port p;

	fresh_port(&p, "eth2");
	lossless_profile(&w);
	w.mtu = 9979;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "t.yaml:3:6: mtu: 9979 is above eth2's maximum 9978; use at most "
				"9978 for this port");
	ck_assert_uint_eq(plan.n, 0);
	w.mtu = 9000;
	w.buffer_size[1] = 200000;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), -EINVAL);
	ck_assert_msg(strstr(e.msg, "the buffers add up to 331072 bytes, eth2 has 262144"), "%s",
		      e.msg);
	ck_assert_uint_eq(plan.n, 0);
}
END_TEST

START_TEST(plan_trust_pcp_deletes_dscp_entries)
{
	struct dcb_app apps[] = {
		{ IEEE_8021QAZ_APP_SEL_ETHERTYPE, 4, 0x8906 },
		{ IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 },
		{ IEEE_8021QAZ_APP_SEL_DSCP, 6, 48 },
	};
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w = { 0 };
	struct nd_port p;
	size_t i;

	fresh_port(&p, "eth2");
	p.dcb.apps = apps;
	p.dcb.n_apps = 3;
	w.set = BIT(ND_F_TRUST);
	w.trust = ND_TRUST_PCP;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 2);
	for (i = 0; i < plan.n; i++) {
		ck_assert_int_eq(plan.steps[i].kind, ND_STEP_APP_DEL);
		ck_assert_uint_eq(plan.steps[i].u.app.selector, IEEE_8021QAZ_APP_SEL_DSCP);
		ck_assert(!plan.steps[i].tolerate_enoent);
	}
	nd_plan_free(&plan);
}
END_TEST

START_TEST(plan_changed_dscp_adds_then_deletes)
{
	struct dcb_app apps[] = { { IEEE_8021QAZ_APP_SEL_DSCP, 4, 26 } };
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w;
	struct nd_port p;

	fresh_port(&p, "eth2");
	p.dcb.apps = apps;
	p.dcb.n_apps = 1;
	lossless_profile(&w);
	w.set = BIT(ND_F_DSCP_MAP);
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	/* add 26:3 and 48:6, then delete 26:4 (mlx5 replaced it already: ENOENT is fine) */
	ck_assert_uint_eq(plan.n, 3);
	ck_assert_int_eq(plan.steps[0].kind, ND_STEP_APP_ADD);
	ck_assert_int_eq(plan.steps[2].kind, ND_STEP_APP_DEL);
	ck_assert_uint_eq(plan.steps[2].u.app.priority, 4);
	ck_assert(plan.steps[2].tolerate_enoent);
	nd_plan_free(&plan);
}
END_TEST

START_TEST(plan_trust_dscp_without_map_installs_default)
{
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w = { 0 };
	struct nd_port p;

	fresh_port(&p, "eth2");
	w.set = BIT(ND_F_TRUST);
	w.trust = ND_TRUST_DSCP;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 64);
	ck_assert_uint_eq(plan.steps[26].u.app.priority, 3);
	ck_assert_uint_eq(plan.steps[63].u.app.priority, 7);
	nd_plan_free(&plan);
}
END_TEST

START_TEST(plan_ecn_without_backend_is_skipped)
{
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w = { 0 };
	struct nd_port p;

	fresh_port(&p, "eth2");
	snprintf(p.ecn.note, sizeof(p.ecn.note), "not readable on this driver");
	w.set = BIT(ND_F_ECN_NP) | BIT(ND_F_CNP_DSCP);
	w.ecn_np = 1 << 3;
	w.cnp_dscp = 48;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 2);
	ck_assert(plan.steps[0].skip && plan.steps[1].skip);
	ck_assert_str_eq(plan.steps[0].warning, "not readable on this driver");
	ck_assert_uint_eq(nd_plan_changes(&plan), 0);
	nd_plan_free(&plan);
}
END_TEST

START_TEST(plan_roce_and_reset)
{
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w = { 0 };
	struct nd_port p;

	fresh_port(&p, "veth0");
	p.dcb_status = -EOPNOTSUPP;
	p.n_rdma = 1;
	snprintf(p.rdma[0].ibdev, sizeof(p.rdma[0].ibdev), "rxe0");
	p.rdma[0].port = 1;
	snprintf(p.rdma[0].link_layer, sizeof(p.rdma[0].link_layer), "Ethernet");
	snprintf(p.rdma[0].roce.mode, sizeof(p.rdma[0].roce.mode), "RoCE v2");
	w.set = BIT(ND_F_ROCE_TOS) | BIT(ND_F_PFC_EN);
	w.roce_tos = 106;
	w.pfc_en = 8;
	/* no DCB on the port: the PFC part is reported as unsupported, the RoCE part planned */
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 2);
	ck_assert_uint_eq(nd_plan_changes(&plan), 1);
	ck_assert(plan.steps[0].skip);
	ck_assert_int_eq(plan.steps[0].unsupported, -EOPNOTSUPP);
	ck_assert_int_eq(plan.steps[1].kind, ND_STEP_ROCE);
	ck_assert_uint_eq(plan.steps[1].u.roce.tos, 106);
	ck_assert_str_eq(plan.steps[1].u.roce.mode, "RoCE v2");
	nd_plan_free(&plan);
	/* the pre-state of a port whose rdma_cm group did not exist: remove it on rollback */
	p.rdma[0].roce.configured = false;
	nd_state_to_profile(&p, &w);
	ck_assert(w.roce_reset);
	p.rdma[0].roce.configured = true;
	p.rdma[0].roce.tos = 106;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 1);
	ck_assert_int_eq(plan.steps[0].kind, ND_STEP_ROCE_RESET);
	nd_plan_free(&plan);
}
END_TEST

/* DCBX is the whole mode: host alone (0x01) or host ieee static (0x19) is not host ieee. */
START_TEST(plan_dcbx_whole_mode)
{
	static const struct {
		uint8_t have, want, sent;
		const char *from, *to;
	} cases[] = {
		{ 0x01, 0x09, 0x09, "host", "host ieee" },
		{ 0x19, 0x09, 0x09, "host ieee static", "host ieee" },
		{ 0x09, 0x01, 0x01, "host ieee", "host" },
		/* a journalled firmware mode goes back as 0, which mlx5 reads as "firmware" */
		{ 0x09, 0x08, 0x00, "host ieee", "firmware ieee" },
		{ 0x09, 0x09, 0, NULL, NULL },
	};
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w = { 0 };
	struct nd_port p;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fresh_port(&p, "eth2");
		p.dcb.dcbx = cases[i].have;
		w.set = BIT(ND_F_DCBX);
		w.dcbx = cases[i].want;
		ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
		if (!cases[i].from) {
			ck_assert_uint_eq(plan.n, 0);
			continue;
		}
		ck_assert_uint_eq(plan.n, 1);
		ck_assert_int_eq(plan.steps[0].kind, ND_STEP_DCBX);
		ck_assert_uint_eq(plan.steps[0].u.dcbx, cases[i].sent);
		ck_assert_str_eq(plan.steps[0].from, cases[i].from);
		ck_assert_str_eq(plan.steps[0].to, cases[i].to);
		nd_plan_free(&plan);
	}
}
END_TEST

/* The DSCP entries are reported under the key the profile wrote: trust, or dscp-map. */
START_TEST(plan_dscp_steps_name_the_profile_key)
{
	struct dcb_app apps[] = { { IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 } };
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w;
	struct nd_port p;
	int i;

	/* trust: pcp alone, on a port in DSCP trust */
	fresh_port(&p, "eth2");
	p.dcb.apps = apps;
	p.dcb.n_apps = 1;
	memset(&w, 0, sizeof(w));
	w.set = BIT(ND_F_TRUST);
	w.trust = ND_TRUST_PCP;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 1);
	ck_assert_int_eq(plan.steps[0].field, ND_F_TRUST);
	nd_plan_free(&plan);
	/* trust: dscp and a map on a port in PCP trust: the trust changes */
	lossless_profile(&w);
	w.set = BIT(ND_F_TRUST) | BIT(ND_F_DSCP_MAP);
	p.dcb.n_apps = 0;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 2);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(plan.steps[i].field, ND_F_TRUST);
	nd_plan_free(&plan);
	/* the same on a port already in DSCP trust with another map: the map changes */
	p.dcb.n_apps = 1;
	apps[0].priority = 5;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, 3);	/* 26:3 and 48:6 added, 26:5 deleted */
	for (i = 0; i < 3; i++)
		ck_assert_int_eq(plan.steps[i].field, ND_F_DSCP_MAP);
	nd_plan_free(&plan);
}
END_TEST

/* What the port cannot give is a step marked unsupported, one per field, never planned around. */
START_TEST(plan_unsupported_fields)
{
	struct nd_plan plan = { 0 };
	struct nd_err e = { 0 };
	struct nd_profile w;
	struct nd_port p;
	size_t i, dcb_fields = 0;

	lossless_profile(&w);
	w.set |= BIT(ND_F_DCBX) | BIT(ND_F_MAXRATE);
	w.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	for (i = 0; i < ND_F_COUNT; i++)
		dcb_fields += (w.set & BIT(i)) && i != ND_F_MTU;
	/* no DCB at all: every DCB field, the MTU still planned */
	fresh_port(&p, "eth0");
	p.dcb_status = -EOPNOTSUPP;
	snprintf(p.link.driver, sizeof(p.link.driver), "virtio_net");
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	ck_assert_uint_eq(plan.n, dcb_fields + 1);
	ck_assert_uint_eq(nd_plan_changes(&plan), 1);
	for (i = 0; i < dcb_fields; i++) {
		ck_assert_int_eq(plan.steps[i].unsupported, -EOPNOTSUPP);
		ck_assert_str_eq(plan.steps[i].warning,
				 "not supported by this driver (virtio_net has no DCB)");
	}
	ck_assert_str_eq(plan.steps[3].to, "3");	/* pfc.priorities, as wanted */
	nd_plan_free(&plan);
	/* a reply without PFC (the driver's getter failed): PFC alone, as a failed read */
	fresh_port(&p, "eth2");
	p.dcb.have &= ~(unsigned int)ND_DCB_HAVE_PFC;
	ck_assert_int_eq(nd_plan_port(&plan, &w, &p, 0, &e), 0);
	for (i = 0; i < plan.n; i++) {
		const struct nd_step *s = &plan.steps[i];

		if (s->field == ND_F_PFC_EN || s->field == ND_F_PFC_DELAY) {
			ck_assert_int_eq(s->unsupported, -EIO);
			ck_assert_msg(strstr(s->warning, "reading the PFC failed"), "%s", s->warning);
		} else {
			ck_assert_int_eq(s->unsupported, 0);
		}
	}
	nd_plan_free(&plan);
}
END_TEST

START_TEST(journal_round_trip)
{
	char path[] = "/tmp/nd-journal-XXXXXX", file[64];
	struct nd_journal j = { 0 }, back;
	struct nd_journal_port jp[2];
	struct dcb_app apps[] = { { IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 } };
	struct nd_err e = { 0 };
	struct nd_port p;

	ck_assert_ptr_nonnull(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/journal.json", path);
	fresh_port(&p, "eth2");
	p.dcb.apps = apps;
	p.dcb.n_apps = 1;
	p.dcb.maxrate.tc_maxrate[6] = 25000000;
	p.ecn.n_params = 1;
	snprintf(p.ecn.params[0].name, sizeof(p.ecn.params[0].name), "rp_time_reset");
	p.ecn.params[0].value = 300;
	memset(jp, 0, sizeof(jp));
	snprintf(jp[0].ifname, sizeof(jp[0].ifname), "eth2");
	nd_state_to_profile(&p, &jp[0].pre);
	p.dcb.pfc.pfc_en = 1 << 3;
	nd_state_to_profile(&p, &jp[0].post);
	fresh_port(&p, "eth3");
	snprintf(jp[1].ifname, sizeof(jp[1].ifname), "eth3");
	nd_state_to_profile(&p, &jp[1].pre);
	nd_state_to_profile(&p, &jp[1].post);
	j.ports = jp;
	j.pid = 4242;
	j.time = 1700000000;
	j.n = 2;
	snprintf(j.status, sizeof(j.status), "in-progress");
	snprintf(j.profile, sizeof(j.profile), "roce.yaml");
	ck_assert_int_eq(nd_journal_save(file, &j, &e), 0);
	ck_assert_int_eq(nd_journal_load(file, &back, &e), 0);
	ck_assert_str_eq(back.status, "in-progress");
	ck_assert_int_eq(back.pid, 4242);
	ck_assert_int_eq(back.time, 1700000000);
	ck_assert_uint_eq(back.ports[0].pre.pfc_en, 0);
	ck_assert_uint_eq(back.ports[0].post.pfc_en, 1 << 3);
	ck_assert_uint_eq(back.n, 2);
	ck_assert_str_eq(back.ports[1].ifname, "eth3");
	ck_assert_uint_eq(back.ports[0].pre.set, jp[0].pre.set);
	ck_assert_int_eq(back.ports[0].pre.dscp2prio[26], 3);
	ck_assert_int_eq(back.ports[0].pre.dscp2prio[27], -1);
	ck_assert_uint_eq(back.ports[0].pre.maxrate[6], 25000000);
	ck_assert_uint_eq(back.ports[0].pre.n_dcqcn, 1);
	ck_assert_str_eq(back.ports[0].pre.dcqcn[0].name, "rp_time_reset");
	ck_assert_uint_eq(back.ports[0].pre.buffer_size[0], 131072);
	ck_assert_mem_eq(back.ports[0].pre.tc_tsa, jp[0].pre.tc_tsa, 8);
	nd_journal_free(&back);
	unlink(file);
	rmdir(path);
}
END_TEST

START_TEST(journal_damaged_or_missing)
{
	char path[] = "/tmp/nd-journal-XXXXXX", file[64];
	static const char *const bad[] = {
		"{", "[]", "{\"version\": 2}",
		"{\"version\":1,\"status\":\"applied\",\"profile\":\"p\",\"ports\":[{\"ifname\":\"eth0\"}]}",
		"{\"version\":1,\"status\":\"applied\",\"profile\":\"p\",\"ports\":[{\"ifname\":"
		"\"aaaaaaaaaaaaaaaaaaaaaaaaa\",\"state\":{}}]}",
	};
	struct nd_journal j;
	struct nd_err e = { 0 };
	size_t i;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/journal.json", path);
	ck_assert_int_eq(nd_journal_load(file, &j, &e), -ENOENT);
	ck_assert_msg(strstr(e.msg, "no journal at"), "%s", e.msg);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		f = fopen(file, "w");
		fputs(bad[i], f);
		fclose(f);
		ck_assert_int_eq(nd_journal_load(file, &j, &e), -EBADMSG);
		ck_assert_msg(!strncmp(e.msg, file, strlen(file)) && !strstr(e.msg, ":0:0:"),
			      "%s", e.msg);
		ck_assert_ptr_null(j.ports);
	}
	unlink(file);
	rmdir(path);
}
END_TEST

/* A two-port journal spoiled by case @bad (0: none), written as a damaged one would be. */
static void save_spoiled(const char *file, int bad)
{
	struct nd_journal j = { 0 };
	struct nd_journal_port jp[2];
	struct nd_err e = { 0 };
	struct nd_port p;

	memset(jp, 0, sizeof(jp));
	fresh_port(&p, "eth2");
	snprintf(jp[0].ifname, sizeof(jp[0].ifname), "eth2");
	nd_state_to_profile(&p, &jp[0].pre);
	nd_state_to_profile(&p, &jp[0].post);
	snprintf(jp[1].ifname, sizeof(jp[1].ifname), "eth3");
	jp[1].pre = jp[0].pre;
	jp[1].post = jp[0].post;
	j.ports = jp;
	j.n = 2;
	snprintf(j.status, sizeof(j.status), "applied");
	snprintf(j.profile, sizeof(j.profile), "roce.yaml");
	switch (bad) {
	case 1:
		jp[0].pre.mtu = 0;
		break;
	case 2:
		jp[1].pre.cnp_prio = 9;
		break;
	case 3:
		jp[0].post.set |= BIT(ND_F_ROCE_MODE);
		snprintf(jp[0].post.roce_mode, sizeof(jp[0].post.roce_mode), "RoCE v3");
		break;
	case 4:
		jp[1].pre.prio_tc[3] = 8;
		break;
	case 5:
		snprintf(jp[1].pre.dcqcn[0].name, sizeof(jp[1].pre.dcqcn[0].name), "rp_bogus");
		jp[1].pre.n_dcqcn = 1;
		break;
	case 6:
		jp[0].pre.set |= 1u << 31;
		break;
	case 7:
		snprintf(jp[1].ifname, sizeof(jp[1].ifname), "eth2");
		break;
	case 8:
		snprintf(jp[1].ifname, sizeof(jp[1].ifname), "../eth3");
		break;
	case 9:
		j.n = 0;
		break;
	case 10:
		snprintf(j.status, sizeof(j.status), "applyed");
		break;
	case 11:
		snprintf(jp[0].ifname, sizeof(jp[0].ifname), "eth\0332");
		break;
	}
	ck_assert_int_eq(nd_journal_save(file, &j, &e), 0);
}

/*
 * A journal holding what no port holds is refused when it is loaded, before rollback reads or
 * writes a port, and the message names the file, the port and the field (no profile's empty
 * "file:line:column" from planning).
 */
START_TEST(journal_refuses_what_no_port_holds)
{
	static const char *const want[] = {
		NULL,
		"port eth2: pre-state mtu 0 is below 68, the smallest an IPv4 link takes; the "
		"journal is damaged: restore the ports by hand or with nodrop apply",
		"port eth3: pre-state cnp_prio 9 is out of range (0..7)",
		"port eth2: post-state roce_mode 'RoCE v3' is neither",
		"port eth3: pre-state prio_tc[3] 8 is out of range (0..7)",
		"port eth3: pre-state dcqcn has 'rp_bogus', not a DCQCN parameter",
		"port eth2: pre-state set ",
		"port eth2: listed twice",
		"ports[1]: ifname '../eth3' is not a network device name",
		"status applied but no port",
		"status 'applyed' is none of started, in-progress, applied, rolled-back",
		"ports[0]: ifname 'eth?2' is not a network device name",
	};
	char path[] = "/tmp/nd-journal-XXXXXX", file[64];
	struct nd_err e = { 0 };
	struct nd_journal j;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/journal.json", path);
	save_spoiled(file, 0);
	ck_assert_int_eq(nd_journal_load(file, &j, &e), 0);
	ck_assert_uint_eq(j.n, 2);
	nd_journal_free(&j);
	for (i = 1; i < sizeof(want) / sizeof(want[0]); i++) {
		save_spoiled(file, (int)i);
		memset(&e, 0, sizeof(e));
		ck_assert_msg(nd_journal_load(file, &j, &e) == -EINVAL, "case %zu: %d %s", i,
			      e.code, e.msg);
		ck_assert_int_eq(e.code, -EINVAL);
		ck_assert_msg(!strncmp(e.msg, file, strlen(file)), "case %zu: %s", i, e.msg);
		ck_assert_msg(strstr(e.msg, want[i]), "case %zu: %s", i, e.msg);
		ck_assert_msg(!strstr(e.msg, ":0:0:"), "case %zu: %s", i, e.msg);
		ck_assert_ptr_null(j.ports);
		ck_assert_uint_eq(j.n, 0);
	}
	unlink(file);
	rmdir(path);
}
END_TEST

/* The parser from memory: a journal is one JSON object and nothing after it. */
START_TEST(journal_parse_from_memory)
{
	static const char trailing[] = "{\"version\": 2, \"status\": \"started\", \"profile\": "
		"\"p\", \"pid\": 1, \"time\": 0, \"ports\": []}";
	char buf[sizeof(trailing) + 8];
	struct nd_err e = { 0 };
	struct nd_journal j;

	ck_assert_int_eq(nd_journal_parse(trailing, strlen(trailing), "mem.json", &j, &e), 0);
	ck_assert_str_eq(j.status, "started");
	nd_journal_free(&j);
	snprintf(buf, sizeof(buf), "%s \n", trailing);
	ck_assert_int_eq(nd_journal_parse(buf, strlen(buf), "mem.json", &j, &e), 0);
	nd_journal_free(&j);
	snprintf(buf, sizeof(buf), "%s {}", trailing);
	ck_assert_int_eq(nd_journal_parse(buf, strlen(buf), "mem.json", &j, &e), -EBADMSG);
	ck_assert_msg(strstr(e.msg, "mem.json: not valid JSON: more follows"), "%s", e.msg);
	/* not NUL-terminated: the length decides */
	ck_assert_int_eq(nd_journal_parse(trailing, strlen(trailing) - 1, "mem.json", &j, &e),
			 -EBADMSG);
	ck_assert_msg(strstr(e.msg, "it ends too soon"), "%s", e.msg);
	ck_assert_ptr_null(j.ports);
}
END_TEST

/* An apply that writes nothing puts the previous journal back byte for byte, or none. */
START_TEST(journal_begin_and_abandon)
{
	char path[] = "/tmp/nd-journal-XXXXXX", file[64], back[64];
	static const char old[] = "{\"version\": 1, \"not\": \"ours\"";
	struct nd_journal_prev prev;
	struct nd_err e = { 0 };
	struct nd_journal j;
	size_t n;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(path));
	snprintf(file, sizeof(file), "%s/journal.json", path);
	ck_assert_int_eq(nd_journal_begin(file, "p.yaml", &prev, &e), 0);
	ck_assert_int_eq(nd_journal_load(file, &j, &e), 0);
	ck_assert_str_eq(j.status, "started");
	ck_assert_str_eq(j.profile, "p.yaml");
	ck_assert_int_eq(j.pid, getpid());
	ck_assert_uint_eq(j.n, 0);
	nd_journal_free(&j);
	ck_assert_int_eq(nd_journal_abandon(file, &prev, &e), 0);
	ck_assert_int_eq(access(file, F_OK), -1);
	f = fopen(file, "w");
	fputs(old, f);
	fclose(f);
	ck_assert_int_eq(nd_journal_begin(file, "p.yaml", &prev, &e), 0);
	ck_assert_int_eq(nd_journal_load(file, &j, &e), 0);
	ck_assert_str_eq(j.status, "started");
	nd_journal_free(&j);
	ck_assert_int_eq(nd_journal_abandon(file, &prev, &e), 0);
	ck_assert_ptr_null(prev.text);
	f = fopen(file, "r");
	n = fread(back, 1, sizeof(back), f);
	fclose(f);
	ck_assert_uint_eq(n, strlen(old));
	ck_assert_mem_eq(back, old, n);
	unlink(file);
	rmdir(path);
}
END_TEST

Suite *suite_plan(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, plan_order_is_safe);
	tcase_add_test(tc, plan_then_overlay_is_idempotent);
	tcase_add_test(tc, plan_refuses_what_does_not_fit);
	tcase_add_test(tc, plan_trust_pcp_deletes_dscp_entries);
	tcase_add_test(tc, plan_changed_dscp_adds_then_deletes);
	tcase_add_test(tc, plan_trust_dscp_without_map_installs_default);
	tcase_add_test(tc, plan_ecn_without_backend_is_skipped);
	tcase_add_test(tc, plan_roce_and_reset);
	tcase_add_test(tc, plan_dcbx_whole_mode);
	tcase_add_test(tc, plan_dscp_steps_name_the_profile_key);
	tcase_add_test(tc, plan_unsupported_fields);
	tcase_add_test(tc, journal_round_trip);
	tcase_add_test(tc, journal_begin_and_abandon);
	tcase_add_test(tc, journal_damaged_or_missing);
	tcase_add_test(tc, journal_refuses_what_no_port_holds);
	tcase_add_test(tc, journal_parse_from_memory);
	suite_add_tcase(s, tc);
	return s;
}
