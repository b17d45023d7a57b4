// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lints of a port (lib/apply/lint.c): one clean port that breaks no rule, then each rule broken
 * on purpose. Those across the cable are in test_lint_peer.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "test_lint.h"
#include "unit.h"

static struct dcb_app apps[ND_DSCP_MAX];

/* No LLDP agent in the fixture's /proc, whatever runs on the machine under test. */
static void clean_host(void)
{
	unit_use_fixture("lint-clean");
}

static void add_param(struct nd_ecn *ecn, const char *name, uint32_t value)
{
	snprintf(ecn->params[ecn->n_params].name, ND_ECN_NAME_MAX, "%s", name);
	ecn->params[ecn->n_params++].value = value;
}

/*
 * The recommended ConnectX RoCE set-up: RoCE ToS 106 (DSCP 26) -> priority 3 with PFC, its own
 * receive buffer, cable length 7 m; CNPs DSCP 48 -> priority 6 in a strict TC; ECN on for 3.
 */
void lint_clean_port(struct nd_port *p)
{
	struct nd_dcb *dcb = &p->dcb;
	unsigned int i;

	memset(p, 0, sizeof(*p));
	strcpy(p->link.name, "eth2");
	strcpy(p->link.driver, "mlx5_core");
	strcpy(p->link.bus_info, "0000:3b:00.0");
	p->link.mtu = 9000;
	dcb->have = ND_DCB_HAVE_ETS | ND_DCB_HAVE_PFC | ND_DCB_HAVE_BUFFER | ND_DCB_HAVE_DCBX |
		    ND_DCB_HAVE_APP;
	dcb->dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	dcb->pfc.pfc_cap = 8;
	dcb->pfc.pfc_en = 1 << 3;
	dcb->pfc.delay = 7;
	for (i = 0; i < ND_PRIO_MAX; i++) {
		dcb->ets.prio_tc[i] = (uint8_t)i;
		dcb->ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
		dcb->ets.tc_tx_bw[i] = i == 6 ? 0 : (i < 2 ? 15 : 14);
	}
	dcb->ets.tc_tsa[6] = IEEE_8021QAZ_TSA_STRICT;
	/* mlx5 in DSCP trust lists every DSCP: d -> d >> 3, so 26 -> 3 and 48 -> 6 */
	for (i = 0; i < ND_DSCP_MAX; i++) {
		apps[i].selector = IEEE_8021QAZ_APP_SEL_DSCP;
		apps[i].protocol = (uint16_t)i;
		apps[i].priority = (uint8_t)(i >> 3);
	}
	dcb->apps = apps;
	dcb->n_apps = ND_DSCP_MAX;
	dcb->buffer.prio2buffer[3] = 1;
	dcb->buffer.buffer_size[0] = 130944;
	dcb->buffer.buffer_size[1] = 130944;
	dcb->buffer.total_size = 261888;
	p->n_rdma = 1;
	strcpy(p->rdma[0].ibdev, "mlx5_0");
	p->rdma[0].port = 1;
	strcpy(p->rdma[0].link_layer, "Ethernet");
	p->rdma[0].active_mtu = 4096;
	p->rdma[0].max_mtu = 4096;
	p->rdma[0].roce.configured = true;
	p->rdma[0].roce.tos = 106;
	strcpy(p->rdma[0].roce.mode, "RoCE v2");
	p->ecn.backend = ND_ECN_MLNX_SYSFS;
	p->ecn.have_enable = true;
	p->ecn.np_en = 1 << 3;
	p->ecn.rp_en = 1 << 3;
	add_param(&p->ecn, "rp_time_reset", 300);
	add_param(&p->ecn, "np_cnp_dscp", 48);
	add_param(&p->ecn, "np_cnp_prio", 6);
}

static void give(struct nd_profile *prof, enum nd_field f, unsigned int line)
{
	prof->set |= 1u << f;
	snprintf(prof->loc[f].file, sizeof(prof->loc[f].file), "roce.yaml");
	prof->loc[f].line = line;
	prof->loc[f].col = 3;
}

/* The profile that produced the clean port. */
static void clean_profile(struct nd_profile *prof)
{
	unsigned int i;

	memset(prof, 0, sizeof(*prof));
	snprintf(prof->name, sizeof(prof->name), "roce");
	for (i = 0; i < ND_DSCP_MAX; i++)
		prof->dscp2prio[i] = -1;
	prof->trust = ND_TRUST_DSCP;
	give(prof, ND_F_TRUST, 2);
	prof->dscp2prio[26] = 3;
	prof->dscp2prio[48] = 6;
	give(prof, ND_F_DSCP_MAP, 3);
	prof->pfc_en = 1 << 3;
	give(prof, ND_F_PFC_EN, 4);
	prof->pfc_delay = 7;
	give(prof, ND_F_PFC_DELAY, 5);
	prof->ecn_np = prof->ecn_rp = 1 << 3;
	give(prof, ND_F_ECN_NP, 6);
	give(prof, ND_F_ECN_RP, 7);
	prof->cnp_prio = 6;
	give(prof, ND_F_CNP_PRIO, 8);
	prof->cnp_dscp = 48;
	give(prof, ND_F_CNP_DSCP, 9);
	prof->roce_tos = 106;
	give(prof, ND_F_ROCE_TOS, 10);
	prof->mtu = 9000;
	give(prof, ND_F_MTU, 11);
}


static struct run lint(const struct nd_port *p, const struct nd_profile *prof)
{
	struct nd_err e = { 0 };
	struct run r;
	int i;

	r.n = nd_lint_port(p, prof, &r.v, &e);
	ck_assert_msg(r.n >= 0, "%s", e.msg);
	/* every finding says what and what to do, untruncated */
	for (i = 0; i < r.n; i++) {
		ck_assert_uint_gt(strlen(r.v[i].evidence), 0);
		ck_assert_uint_gt(strlen(r.v[i].fix), 0);
		ck_assert_msg(strlen(r.v[i].evidence) < sizeof(r.v[i].evidence) - 1, "%s",
			      r.v[i].evidence);
		ck_assert_msg(strlen(r.v[i].fix) < sizeof(r.v[i].fix) - 1, "%s", r.v[i].fix);
	}
	return r;
}

/* The one lint of rule @id; fails when there is none or more than one. */
static const struct nd_lint *only(const struct run *r, const char *id)
{
	const struct nd_lint *found = NULL;
	int i;

	for (i = 0; i < r->n; i++) {
		if (strcmp(r->v[i].id, id))
			continue;
		ck_assert_msg(!found, "%s twice: %s", id, r->v[i].evidence);
		found = &r->v[i];
	}
	ck_assert_msg(found, "no %s among %d lints%s%s", id, r->n, r->n ? ", first: " : "",
		      r->n ? r->v[0].id : "");
	return found;
}

/* The run has exactly @n lints, all of rule @id. */
static const struct nd_lint *just(const struct run *r, const char *id, int n)
{
	int i;

	for (i = 0; i < r->n; i++)
		ck_assert_msg(!strcmp(r->v[i].id, id), "unexpected %s: %s", r->v[i].id,
			      r->v[i].evidence);
	ck_assert_int_eq(r->n, n);
	return n ? &r->v[0] : NULL;
}

START_TEST(severity_names)
{
	ck_assert_str_eq(nd_severity_name(ND_SEV_INFO), "info");
	ck_assert_str_eq(nd_severity_name(ND_SEV_WARN), "warning");
	ck_assert_str_eq(nd_severity_name(ND_SEV_ERROR), "error");
	ck_assert_str_eq(nd_severity_name((enum nd_severity)9), "unknown");
}
END_TEST

START_TEST(clean_port_has_no_lints)
{
	struct nd_profile prof;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
	ck_assert_ptr_null(r.v);
	clean_profile(&prof);
	r = lint(&p, &prof);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(port_without_dcb_or_rdma)
{
	struct nd_port p;
	struct run r;

	memset(&p, 0, sizeof(p));
	strcpy(p.link.name, "veth0");
	p.link.mtu = 1500;
	p.dcb_status = -EOPNOTSUPP;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
	/* an InfiniBand port has no RoCE to follow */
	lint_clean_port(&p);
	strcpy(p.rdma[0].link_layer, "InfiniBand");
	p.link.mtu = 2044;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(roce_prio_without_pfc)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	/* DSCP 10 -> priority 1 on mlx5's default map: no PFC there */
	p.rdma[0].roce.tos = 40;
	p.ecn.rp_en |= 1 << 1;
	r = lint(&p, NULL);
	l = just(&r, "roce-prio-not-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_ERROR);
	ck_assert_str_eq(l->evidence, "RoCE traffic (mlx5_0/1 rdma_cm default ToS 40) -> DSCP 10 "
			 "-> priority 1 (trust dscp), but PFC is on priorities 3 only");
	ck_assert_str_eq(l->loc.file, "");
	free(r.v);
	/* the profile value involved is located */
	clean_profile(&prof);
	r = lint(&p, &prof);
	l = only(&r, "roce-prio-not-lossless");
	ck_assert_str_eq(l->loc.file, "roce.yaml");
	ck_assert_uint_eq(l->loc.line, 4);
	free(r.v);
}
END_TEST

START_TEST(roce_dscp_unmapped)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	/* only DSCP 26 and 48 mapped; ToS 0 is the kernel default when rdma_cm has no group */
	apps[0] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 };
	apps[1] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, 6, 48 };
	p.dcb.n_apps = 2;
	p.rdma[0].roce.configured = false;
	p.rdma[0].roce.tos = 0;
	r = lint(&p, NULL);
	l = just(&r, "roce-prio-not-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_ERROR);
	ck_assert_str_eq(l->evidence, "RoCE traffic (mlx5_0/1 kernel default ToS 0) carries DSCP "
			 "0, which the DSCP map does not map (trust dscp): it gets the NIC's "
			 "default priority, not one of the PFC priorities 3");
	free(r.v);
}
END_TEST

START_TEST(roce_trust_pcp)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.dcb.n_apps = 0;
	r = lint(&p, NULL);
	l = just(&r, "roce-prio-not-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "trust is pcp: the priority of RoCE traffic (mlx5_0/1 "
			 "rdma_cm default ToS 106, DSCP 26) is the VLAN PCP the application sets, "
			 "not derivable from DSCP; PFC is on priorities 3");
	free(r.v);
}
END_TEST

START_TEST(ecn_only_design)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	/* no PFC anywhere, ECN on: a deliberate lossy design, not a fault */
	lint_clean_port(&p);
	p.dcb.pfc.pfc_en = 0;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
	/* ... but with ECN off as well nothing keeps RoCE from dropping */
	p.ecn.np_en = p.ecn.rp_en = 0;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 2);
	l = only(&r, "roce-prio-not-lossless");
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "PFC is off on every priority and ECN is off (no "
			 "roce_np/roce_rp enable set): RoCE traffic (mlx5_0/1 rdma_cm default ToS "
			 "106) runs lossy with no congestion control");
	ck_assert_int_eq(only(&r, "ecn-not-on-lossless")->severity, ND_SEV_ERROR);
	free(r.v);
}
END_TEST

START_TEST(ecn_off_on_roce_prio)
{
	const struct nd_lint *l;
	struct nd_port p;
	char want[256];
	struct run r;

	lint_clean_port(&p);
	p.ecn.rp_en = 1 << 5;
	r = lint(&p, NULL);
	l = just(&r, "ecn-not-on-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "roce_rp/enable/3 = 0: this port ignores CNPs for its "
			 "priority-3 traffic and keeps sending at line rate");
	free(r.v);
	/* the NP enable is port-wide: any bit turns it on for priority 3 too */
	lint_clean_port(&p);
	p.ecn.np_en = 1 << 5;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
	p.ecn.np_en = 0;
	r = lint(&p, NULL);
	l = just(&r, "ecn-not-on-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_ptr_nonnull(strstr(l->evidence, "port-wide"));
	free(r.v);
	p.ecn.rp_en = 0;
	r = lint(&p, NULL);
	l = just(&r, "ecn-not-on-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_ERROR);
	ck_assert_str_eq(l->evidence, "priority 3 carries lossless RoCE but ECN is off at both "
			 "ends (roce_np off on every priority, roce_rp/enable/3 = 0): DCQCN never "
			 "slows senders, only PFC pauses them");
	snprintf(want, sizeof(want), "enable ECN on priority 3 at the notification and reaction "
		 "points (%s, %s)", nd_field_key(ND_F_ECN_NP), nd_field_key(ND_F_ECN_RP));
	ck_assert_str_eq(l->fix, want);
	free(r.v);
}
END_TEST

START_TEST(ecn_not_checkable)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.ecn.backend = ND_ECN_MLX5_DEBUGFS;
	p.ecn.have_enable = false;
	snprintf(p.ecn.note, sizeof(p.ecn.note), "upstream mlx5 has no per-priority ECN enable");
	r = lint(&p, NULL);
	l = just(&r, "ecn-not-on-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_INFO);
	ck_assert_str_eq(l->evidence, "ECN on priorities 3 could not be checked: upstream mlx5 has "
			 "no per-priority ECN enable (backend mlx5-debugfs)");
	ck_assert_ptr_nonnull(strstr(l->fix, "mlxconfig -d 0000:3b:00.0 query"));
	free(r.v);
	/* a profile that asks for ECN enables this port cannot show: worth a warning */
	clean_profile(&prof);
	r = lint(&p, &prof);
	l = just(&r, "ecn-not-on-lossless", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_uint_eq(l->loc.line, 6);
	free(r.v);
}
END_TEST

START_TEST(cnp_shares_data_prio)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.ecn.params[2].value = 3;	/* np_cnp_prio */
	r = lint(&p, NULL);
	l = just(&r, "cnp-prio-lossy-or-shared", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "CNPs leave on priority 3 (np_cnp_prio), which carries RoCE "
			 "data (priorities 3): they wait behind the congestion they report");
	free(r.v);
	/* the CNP DSCP classifies CNPs into the data priority at the receiver */
	lint_clean_port(&p);
	p.ecn.params[1].value = 26;	/* np_cnp_dscp */
	r = lint(&p, NULL);
	l = just(&r, "cnp-prio-lossy-or-shared", 1);
	ck_assert_str_eq(l->evidence, "CNP DSCP 26 (np_cnp_dscp) maps to priority 3 (trust dscp), "
			 "which carries RoCE data: receivers with this map queue CNPs with the "
			 "data");
	free(r.v);
}
END_TEST

START_TEST(cnp_not_strict)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.dcb.ets.tc_tsa[6] = IEEE_8021QAZ_TSA_ETS;
	r = lint(&p, NULL);
	l = just(&r, "cnp-prio-lossy-or-shared", 1);
	ck_assert_str_eq(l->evidence, "CNP priority 6 (np_cnp_prio) is in TC 6, scheduled ets, "
			 "not strict: bulk traffic in that TC delays CNPs");
	free(r.v);
}
END_TEST

START_TEST(cnp_prio_mode)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	add_param(&p.ecn, "np_cnp_prio_mode", 1);
	r = lint(&p, NULL);
	l = just(&r, "cnp-prio-lossy-or-shared", 1);
	ck_assert_str_eq(l->evidence, "np_cnp_prio_mode is 1: CNPs do not take the configured "
			 "np_cnp_prio");
	free(r.v);
	/* applying a CNP priority writes np_cnp_prio, which puts the mode back to 0 */
	clean_profile(&prof);
	r = lint(&p, &prof);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(cnp_from_profile)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	char want[256];
	struct run r;

	/* a backend that shows no CNP settings: the profile's value is judged */
	lint_clean_port(&p);
	p.ecn.n_params = 0;
	clean_profile(&prof);
	prof.cnp_prio = 3;
	r = lint(&p, &prof);
	l = only(&r, "cnp-prio-lossy-or-shared");
	snprintf(want, sizeof(want), "CNPs leave on priority 3 (%s), which carries RoCE data "
		 "(priorities 3): they wait behind the congestion they report",
		 nd_field_key(ND_F_CNP_PRIO));
	ck_assert_str_eq(l->evidence, want);
	ck_assert_uint_eq(l->loc.line, 8);
	free(r.v);
}
END_TEST

START_TEST(mtu_below_roce_mtu)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.link.mtu = 4191;
	clean_profile(&prof);
	prof.mtu = 4191;
	r = lint(&p, &prof);
	l = just(&r, "mtu-too-small-for-roce", 1);
	ck_assert_int_eq(l->severity, ND_SEV_ERROR);
	ck_assert_str_eq(l->evidence, "mlx5_0/1: netdev MTU 4191 < RoCE MTU 4096 + 96 (GRH 40 + "
			 "UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4) = 4192: RoCE drops to "
			 "2048-byte packets");
	ck_assert_ptr_nonnull(strstr(l->fix, "at least 4192"));
	ck_assert_uint_eq(l->loc.line, 11);
	free(r.v);
	/* the kernel's own threshold is exact */
	p.link.mtu = 4192;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(mtu_caps_roce)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	/* a live port at MTU 1500: the kernel already runs RoCE at 1024 */
	lint_clean_port(&p);
	p.link.mtu = 1500;
	p.rdma[0].active_mtu = 1024;
	r = lint(&p, NULL);
	l = just(&r, "mtu-too-small-for-roce", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "mlx5_0/1: netdev MTU 1500 caps RoCE at 1024-byte packets; "
			 "the port supports 4096, which needs MTU >= 4096 + 96 (GRH 40 + UDP 8 + "
			 "BTH 12 + XRC 4 + AtomicETH 28 + ICRC 4) = 4192");
	free(r.v);
	/* nothing known from verbs: nothing judged */
	p.rdma[0].active_mtu = p.rdma[0].max_mtu = 0;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(trust_pcp_with_map)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	clean_profile(&prof);
	prof.trust = ND_TRUST_PCP;
	r = lint(&p, &prof);
	l = just(&r, "trust-pcp-with-dscp-map", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_ptr_nonnull(strstr(l->evidence, "maps 2 DSCP values: on mlx5 and ice the first "
				     "DSCP APP entry switches the port to DSCP trust"));
	ck_assert_str_eq(l->loc.file, "roce.yaml");
	ck_assert_uint_eq(l->loc.line, 3);
	free(r.v);
	/* trust pcp alone is fine */
	prof.set &= ~(1u << ND_F_DSCP_MAP);
	r = lint(&p, &prof);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(pfc_buffer_zero)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.dcb.buffer.buffer_size[1] = 0;
	r = lint(&p, NULL);
	l = just(&r, "pfc-buffer", 1);
	ck_assert_int_eq(l->severity, ND_SEV_ERROR);
	ck_assert_str_eq(l->evidence, "PFC priority 3 maps to receive buffer 1, whose size is 0: "
			 "no room for the data in flight after PAUSE");
	free(r.v);
	/* a driver that reports no sizes at all is not judged */
	memset(p.dcb.buffer.buffer_size, 0, sizeof(p.dcb.buffer.buffer_size));
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(pfc_buffer_shared_with_lossy)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.dcb.buffer.prio2buffer[3] = 0;
	r = lint(&p, NULL);
	l = just(&r, "pfc-buffer", 1);
	ck_assert_str_eq(l->evidence, "receive buffer 0 holds PFC priority 3 and priorities "
			 "0,1,2,4,5,6,7 without PFC: their traffic fills the lossless headroom and "
			 "PAUSE cannot stop it");
	free(r.v);
	/* PFC priorities may share a buffer among themselves */
	lint_clean_port(&p);
	p.dcb.pfc.pfc_en |= 1 << 4;
	p.dcb.buffer.prio2buffer[4] = 1;
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

START_TEST(cable_length_unset)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.dcb.pfc.delay = 0;
	r = lint(&p, NULL);
	l = just(&r, "cable-length-unset", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "PFC is on priorities 3 but the cable length "
			 "(ieee_pfc.delay) is 0 m: the NIC cannot size the headroom for data in "
			 "flight after PAUSE");
	free(r.v);
}
END_TEST

int lint_count(const struct run *r, const char *id)
{
	int i, n = 0;

	for (i = 0; i < r->n; i++)
		n += !strcmp(r->v[i].id, id);
	return n;
}

START_TEST(headroom_short)
{
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.link.speed_mbps = 100000;
	p.dcb.pfc.delay = 300;
	/* 300 m at 100G, MTU 9000: the basic model needs 80,716 B; buffer 1 has 130,944 */
	r = lint(&p, NULL);
	ck_assert_int_eq(lint_count(&r, "headroom-short"), 0);
	free(r.v);
	p.dcb.buffer.buffer_size[1] = 65536;
	r = lint(&p, NULL);
	l = just(&r, "headroom-short", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "buffer 1 (lossless priority 3) holds 65536 B; the basic "
			 "headroom model needs 80716 B at 100000 Mb/s, 300 m of cable, MTU 9000");
	ck_assert_msg(strstr(l->fix, "nodrop headroom --speed 100000M --cable 300m --mtu 9000"),
		      "%s", l->fix);
	free(r.v);
	/* an unknown speed (link down) or no cable length: nothing to compare against */
	p.link.speed_mbps = -1;
	r = lint(&p, NULL);
	ck_assert_int_eq(lint_count(&r, "headroom-short"), 0);
	free(r.v);
}
END_TEST

START_TEST(dcbx_lld_managed)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	lint_clean_port(&p);
	p.dcb.dcbx = DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE;
	r = lint(&p, NULL);
	l = just(&r, "dcbx-not-host", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "DCBX mode is 0x0a (LLD_MANAGED): firmware or an LLDP agent "
			 "owns DCB and can overwrite PFC, ETS and APP settings made by the host");
	free(r.v);
	/* a profile that sets DCB would be undone: error */
	clean_profile(&prof);
	r = lint(&p, &prof);
	l = just(&r, "dcbx-not-host", 1);
	ck_assert_int_eq(l->severity, ND_SEV_ERROR);
	/* located at the first DCB setting the firmware would undo */
	ck_assert_uint_eq(l->loc.line, 2);
	free(r.v);
}
END_TEST

START_TEST(lldp_agent_running)
{
	struct nd_profile prof;
	const struct nd_lint *l;
	struct nd_port p;
	struct run r;

	unit_use_fixture("lint-lldpad");
	lint_clean_port(&p);
	r = lint(&p, NULL);
	l = just(&r, "dcbx-not-host", 1);
	ck_assert_int_eq(l->severity, ND_SEV_WARN);
	ck_assert_str_eq(l->evidence, "lldpad is running (pid 731): it negotiates DCBX with the "
			 "switch and writes PFC, ETS and APP through dcbnl");
	ck_assert_str_eq(l->fix, "stop lldpad (systemctl stop lldpad) or configure it to leave "
			 "DCB on eth2 alone");
	free(r.v);
	clean_profile(&prof);
	r = lint(&p, &prof);
	ck_assert_int_eq(just(&r, "dcbx-not-host", 1)->severity, ND_SEV_ERROR);
	free(r.v);
	unit_use_fixture("lint-lldpd");
	r = lint(&p, NULL);
	ck_assert_ptr_nonnull(strstr(just(&r, "dcbx-not-host", 1)->evidence, "lldpd is running"));
	free(r.v);
	/* no /proc under the root: nothing found, nothing failed */
	unit_use_fixture("ecn-none");
	r = lint(&p, NULL);
	ck_assert_int_eq(r.n, 0);
}
END_TEST

Suite *suite_lint(void)
{
	Suite *s = suite_create("lint");
	TCase *tc = tcase_create("rules");

	tcase_add_checked_fixture(tc, clean_host, unit_no_root);
	tcase_add_test(tc, severity_names);
	tcase_add_test(tc, clean_port_has_no_lints);
	tcase_add_test(tc, port_without_dcb_or_rdma);
	tcase_add_test(tc, roce_prio_without_pfc);
	tcase_add_test(tc, roce_dscp_unmapped);
	tcase_add_test(tc, roce_trust_pcp);
	tcase_add_test(tc, ecn_only_design);
	tcase_add_test(tc, ecn_off_on_roce_prio);
	tcase_add_test(tc, ecn_not_checkable);
	tcase_add_test(tc, cnp_shares_data_prio);
	tcase_add_test(tc, cnp_not_strict);
	tcase_add_test(tc, cnp_prio_mode);
	tcase_add_test(tc, cnp_from_profile);
	tcase_add_test(tc, mtu_below_roce_mtu);
	tcase_add_test(tc, mtu_caps_roce);
	tcase_add_test(tc, trust_pcp_with_map);
	tcase_add_test(tc, pfc_buffer_zero);
	tcase_add_test(tc, pfc_buffer_shared_with_lossy);
	tcase_add_test(tc, cable_length_unset);
	tcase_add_test(tc, headroom_short);
	tcase_add_test(tc, dcbx_lld_managed);
	tcase_add_test(tc, lldp_agent_running);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_lint_peer());
	return s;
}
