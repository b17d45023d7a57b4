// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop path (lib/path/) against a small model written apart from the library
 * (test_path_model.c): 600 seeded random cases, each a job (stack, traffic class, SL, GID index,
 * device filter, NCCL version, odd values) x a port (GID table with VLANs and other netdevs,
 * trust, DSCP map, ETS, PFC, DCQCN enables) x a switch (unheard, or its DSCP map, PFC and max
 * frame size), the model's verdict, deciding step and packet values held against the library's.
 * Then named cases for each way a path breaks. What path reads: test_path_readers.c.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "test_path.h"
#include "unit.h"

/* ---- the case as the library's inputs ---- */

struct built {
	struct nd_port port;
	struct dcb_app apps[80];
	struct nd_gid gids[8];
	struct nd_peer_wait peer;
	struct nd_job job;
	char *env[16];
	char envbuf[16][80];
	struct nd_path_in in;
};

static const char *val_text(const struct val *v, char *buf, size_t len)
{
	switch (v->kind) {
	case V_NUM:
	case V_BIG:
		snprintf(buf, len, "%d", v->n);
		return buf;
	case V_WORD:
		return "abc";
	case V_MINUS1:
		return "-1";
	case V_AUTO:
		return "auto";
	default:
		return NULL;
	}
}

static void add_env(struct built *b, int *ne, const char *name, const char *value)
{
	if (!value)
		return;
	snprintf(b->envbuf[*ne], sizeof(b->envbuf[*ne]), "%s=%s", name, value);
	b->env[*ne] = b->envbuf[*ne];
	(*ne)++;
}

static void build(const struct kase *k, struct built *b)
{
	const char *pre = k->stack == ND_STACK_UCX ? "UCX_IB_" : "NCCL_IB_";
	char name[40], buf[32];
	struct nd_err e = { 0 };
	int ne = 0;

	memset(b, 0, sizeof(*b));
	snprintf(b->port.link.name, sizeof(b->port.link.name), "eth0");
	b->port.link.mtu = (unsigned int)k->mtu;
	b->port.n_rdma = 1;
	snprintf(b->port.rdma[0].ibdev, sizeof(b->port.rdma[0].ibdev), "mlx5_0");
	b->port.rdma[0].port = 1;
	snprintf(b->port.rdma[0].link_layer, 16, "%s", k->ib ? "InfiniBand" : "Ethernet");
	b->port.rdma[0].roce.configured = true;
	b->port.rdma[0].roce.tos = k->cm_tos;
	snprintf(b->port.rdma[0].roce.mode, 16, "%s", k->cm_v1 ? "IB/RoCE v1" : "RoCE v2");
	b->port.dcb_status = k->dcb ? 0 : -EOPNOTSUPP;
	if (k->dcb) {
		struct nd_dcb *d = &b->port.dcb;

		d->have = ND_DCB_HAVE_PFC | ND_DCB_HAVE_TRUST | (k->ets ? ND_DCB_HAVE_ETS : 0);
		d->pfc.pfc_en = (uint8_t)k->pfc;
		d->n_trust = 1;
		d->trust[0] = k->trust_dscp ? IEEE_8021QAZ_APP_SEL_DSCP : ND_DCB_APP_SEL_PCP;
		for (int p = 0; p < 8; p++) {
			d->ets.prio_tc[p] = (uint8_t)k->prio_tc[p];
			d->ets.tc_tsa[p] = (uint8_t)k->tsa[p];
			d->ets.tc_tx_bw[p] = (uint8_t)k->bw[p];
		}
		d->apps = b->apps;
		for (int dscp = 0; dscp < 64; dscp++)
			if (k->map[dscp] >= 0)
				b->apps[d->n_apps++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP,
					(uint8_t)k->map[dscp], (uint16_t)dscp };
	}
	if (k->ecn) {
		b->port.ecn.backend = ND_ECN_MLNX_SYSFS;
		b->port.ecn.have_enable = true;
		b->port.ecn.np_en = (uint8_t)k->np;
		b->port.ecn.rp_en = (uint8_t)k->rp;
		snprintf(b->port.ecn.params[0].name, ND_ECN_NAME_MAX, "np_cnp_dscp");
		b->port.ecn.params[0].value = (uint32_t)k->cnp_dscp;
		b->port.ecn.n_params = 1;
	}
	for (int i = 0; i < k->ng; i++) {
		const struct kgid *g = &k->g[i];
		struct nd_gid *o = &b->gids[i];

		o->index = (unsigned int)i;
		o->vlan = -1;
		memset(o->egress_qos, -1, sizeof(o->egress_qos));
		if (!g->kind)
			continue;
		o->type = g->kind == 1 ? ND_GID_ROCE_V1 : ND_GID_ROCE_V2;
		if (g->fam == 4) {
			o->raw[10] = o->raw[11] = 0xff;
			o->raw[12] = 198;
			o->raw[13] = 18;
			o->raw[15] = (uint8_t)(i + 1);
			o->ipv4 = true;
		} else {
			o->raw[0] = g->fam ? 0x20 : 0xfe;
			o->raw[1] = g->fam ? 0x01 : 0x80;
			o->raw[15] = (uint8_t)(i + 1);
		}
		snprintf(o->addr, sizeof(o->addr), "addr%d", i);
		snprintf(o->ndev, sizeof(o->ndev), "%s", g->where == 0 ? "eth0" : g->where == 1 ?
			 "eth0.v" : "eth1");
		snprintf(o->lower, sizeof(o->lower), "%s", g->where == 2 ? "eth1" : "eth0");
		if (g->where == 1) {
			o->vlan = g->vid;
			for (int p = 0; p < 8; p++)
				o->egress_qos[p] = (int8_t)g->egress[p];
		}
	}
	if (k->peer) {
		struct nd_peer *p = &b->peer.peer;

		snprintf(b->peer.ifname, sizeof(b->peer.ifname), "eth0");
		b->peer.heard = k->peer == 2;
		snprintf(b->peer.err.msg, sizeof(b->peer.err.msg), "no LLDP frame in 31000 ms");
		snprintf(p->sys_name, sizeof(p->sys_name), "leaf12");
		snprintf(p->port_id, sizeof(p->port_id), "Ethernet1/3");
		for (int d = 0; d < 64; d++)
			if (k->pmap[d] >= 0)
				p->app[p->n_app++] = (struct nd_peer_app){ (uint8_t)k->pmap[d],
									   ND_APP_SEL_DSCP,
									   (uint16_t)d };
		p->app[p->n_app++] = (struct nd_peer_app){ 3, ND_APP_SEL_UDP, 4791 };
		if (k->ppfc >= 0 && !k->cee) {
			p->pfc.present = true;
			p->pfc.enable = (uint8_t)k->ppfc;
		} else if (k->ppfc >= 0) {
			p->cee.pfc_hdr.present = p->cee.pfc_hdr.enabled = true;
			p->cee.pfc_enable = (uint8_t)k->ppfc;
		}
		p->max_frame_present = k->mfs > 0;
		p->max_frame = (uint16_t)k->mfs;
	}
	snprintf(name, sizeof(name), "%s", k->stack == ND_STACK_UCX ? "UCX_IB_TRAFFIC_CLASS" :
		 "NCCL_IB_TC");
	if (k->stack != ND_STACK_RDMA_CM) {
		add_env(b, &ne, name, val_text(&k->tc, buf, sizeof(buf)));
		snprintf(name, sizeof(name), "%sSL", pre);
		add_env(b, &ne, name, val_text(&k->sl, buf, sizeof(buf)));
		snprintf(name, sizeof(name), "%sGID_INDEX", pre);
		add_env(b, &ne, name, val_text(&k->gid, buf, sizeof(buf)));
	}
	if (k->filter)
		add_env(b, &ne, k->stack == ND_STACK_UCX ? "UCX_NET_DEVICES" : "NCCL_IB_HCA",
			k->filter == 1 ? (k->stack == ND_STACK_UCX ? "mlx5_0:1" : "mlx5") :
			(k->stack == ND_STACK_UCX ? "mlx5_1:1" : "^=mlx5_0"));
	if (k->disabled)
		add_env(b, &ne, "NCCL_IB_DISABLE", "1");
	if (k->v6)
		add_env(b, &ne, "NCCL_IB_ADDR_FAMILY", "AF_INET6");
	if (k->v1)
		add_env(b, &ne, "NCCL_IB_ROCE_VERSION_NUM", "1");
	ck_assert_int_eq(nd_job_from_env(&b->job, b->env, "test", &e), 0);
	snprintf(b->job.nccl_version, sizeof(b->job.nccl_version), "%s",
		 (const char *[]){ "", "2.18.3", "2.23.4" }[k->nccl_old]);
	b->in = (struct nd_path_in){ .port = &b->port, .rdma = &b->port.rdma[0], .gids = b->gids,
				     .n_gids = (size_t)k->ng, .peer = k->peer ? &b->peer : NULL,
				     .job = &b->job, .stack = k->stack, .accept = k->accept };
}

static void follow(struct built *b, struct nd_path *p)
{
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_path_follow(&b->in, p, &e), 0);
}

static enum nd_path_step_id at_id(const struct nd_path *p)
{
	return p->at >= 0 ? p->steps[p->at].id : ND_STEP_COUNT;
}

START_TEST(random_cases)
{
	uint64_t r = 0x36a7b0c5d1e2f309ull;
	int tally[4] = { 0 }, at[ND_STEP_COUNT + 1] = { 0 };
	static struct built b;

	for (int i = 0; i < 600; i++) {
		struct kase k;
		struct expect x;
		struct nd_path p;
		uint64_t seed = r;

		path_rand_case(&r, &k);
		path_model(&k, &x);
		build(&k, &b);
		follow(&b, &p);
		if (p.verdict != x.verdict || at_id(&p) != x.at || (p.verdict != ND_PATH_NOT_USED &&
		    (p.prio != x.prio || p.switch_prio != x.switch_prio || p.nic_tc != x.nic_tc ||
		     (!k.ib && (p.dscp != x.dscp || p.ecn != x.ecn || p.gid_index != x.gid ||
				p.tc != x.tc))))) {
			fprintf(stderr, "case %d (state %#llx): model %s at %s prio %d sw %d tc %d "
				"dscp %d ecn %d gid %d ntc %d; library %s at %s prio %d sw %d tc %d "
				"dscp %d ecn %d gid %d ntc %d\n", i, (unsigned long long)seed,
				nd_path_verdict_name(x.verdict), nd_path_step_name(x.at), x.prio,
				x.switch_prio, x.tc, x.dscp, x.ecn, x.gid, x.nic_tc,
				nd_path_verdict_name(p.verdict), nd_path_step_name(at_id(&p)),
				p.prio, p.switch_prio, p.tc, p.dscp, p.ecn, p.gid_index, p.nic_tc);
			for (size_t s = 0; s < p.n_steps; s++)
				fprintf(stderr, "  %s %s: %s\n", nd_path_step_name(p.steps[s].id),
					nd_step_status_name(p.steps[s].status), p.steps[s].evidence);
			ck_abort_msg("the library and the model disagree on case %d", i);
		}
		/* every step that breaks says how to fix it */
		if (p.verdict == ND_PATH_BREAKS)
			ck_assert_msg(p.steps[p.at].fix[0], "case %d: a break without a fix", i);
		tally[p.verdict]++;
		at[at_id(&p)]++;
		nd_job_free(&b.job);
	}
	fprintf(stderr, "path: 600 random cases: %d lossless, %d break, %d unverified, %d not "
		"used; breaks and unverified by step:", tally[0], tally[1], tally[2], tally[3]);
	for (int s = 0; s < ND_STEP_COUNT; s++)
		fprintf(stderr, " %s %d", nd_path_step_name((enum nd_path_step_id)s), at[s]);
	fprintf(stderr, "\n");
	/* the draw reaches every outcome and every step that can decide one */
	for (int v = 0; v < 4; v++)
		ck_assert_int_gt(tally[v], 10);
	for (int s = ND_STEP_JOB; s <= ND_STEP_CNP; s++)
		if (s != ND_STEP_TC)
			ck_assert_msg(at[s] > 3, "step %s decided only %d cases",
				      nd_path_step_name((enum nd_path_step_id)s), at[s]);
}
END_TEST

/* ---- named cases: one per way a path breaks ---- */

/* A good RoCE v2 host: NCCL_IB_TC=106, GID 3 (IPv4 v2), trust DSCP 26 -> 3, PFC 3, switch alike */
static void good(struct kase *k)
{
	memset(k, 0, sizeof(*k));
	k->stack = ND_STACK_NCCL;
	k->tc = (struct val){ V_NUM, 106 };
	k->ng = 4;
	k->g[0] = (struct kgid){ .kind = 1, .fam = 0 };
	k->g[1] = (struct kgid){ .kind = 2, .fam = 0 };
	k->g[2] = (struct kgid){ .kind = 1, .fam = 4 };
	k->g[3] = (struct kgid){ .kind = 2, .fam = 4 };
	k->dcb = k->trust_dscp = k->ets = true;
	for (int d = 0; d < 64; d++)
		k->map[d] = k->pmap[d] = -1;
	k->map[26] = k->pmap[26] = 3;
	k->map[48] = k->pmap[48] = 6;
	k->pmap_any = true;
	k->prio_tc[3] = 3;
	k->tsa[3] = IEEE_8021QAZ_TSA_ETS;
	k->bw[0] = k->bw[3] = 50;
	k->pfc = k->ppfc = 0x08;
	k->ecn = 1;
	k->np = k->rp = 0x08;
	k->cnp_dscp = 48;
	k->peer = 2;
	k->mtu = 4200;
	k->mfs = 9216;
	k->cm_tos = 106;
}

/* The library's verdict for @k, which must match the model's, and the deciding step's text. */
static const struct nd_path_step *named(const struct kase *k, enum nd_path_verdict v,
					enum nd_path_step_id at, struct nd_path *p)
{
	static struct built b;
	struct expect x;

	path_model(k, &x);
	build(k, &b);
	follow(&b, p);
	nd_job_free(&b.job);
	ck_assert_msg(p->verdict == v && at_id(p) == at, "want %s at %s, got %s at %s (%s)",
		      nd_path_verdict_name(v), nd_path_step_name(at),
		      nd_path_verdict_name(p->verdict), nd_path_step_name(at_id(p)),
		      p->at >= 0 ? p->steps[p->at].evidence : "");
	ck_assert_int_eq(x.verdict, v);
	ck_assert_int_eq(x.at, at);
	return p->at >= 0 ? &p->steps[p->at] : NULL;
}

#define HAS(st, s) ck_assert_msg(strstr((st)->evidence, s) || strstr((st)->fix, s), \
				 "\"%s\" not in \"%s\" / \"%s\"", s, (st)->evidence, (st)->fix)

START_TEST(named_breaks)
{
	const struct nd_path_step *st;
	struct nd_path p;
	struct kase k;

	good(&k);
	ck_assert_ptr_null(named(&k, ND_PATH_LOSSLESS, ND_STEP_COUNT, &p));
	ck_assert_int_eq(p.gid_index, 3);
	ck_assert_int_eq(p.dscp, 26);
	ck_assert_int_eq(p.prio, 3);
	ck_assert_int_eq(p.switch_prio, 3);
	ck_assert_int_eq(p.cnp_prio, 6);

	/* NCCL_IB_TC unset: traffic class 0, DSCP 0, not ECT */
	good(&k);
	k.tc.kind = V_UNSET;
	st = named(&k, ND_PATH_BREAKS, ND_STEP_WIRE, &p);
	HAS(st, "not ECT");
	HAS(st, "send ToS 2");
	ck_assert_str_eq(p.steps[0].status == ND_STEP_OK ? "ok" : "?", "ok");
	ck_assert_ptr_nonnull(strstr(p.steps[0].evidence, "NCCL's default traffic class 0"));

	/* ECN bits not ECT: 104 is DSCP 26 without ECT */
	good(&k);
	k.tc.n = 104;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_WIRE, &p), "send ToS 106");

	/* NCCL_IB_TC=300 and "abc": a finding naming the variable */
	good(&k);
	k.tc = (struct val){ V_BIG, 300 };
	st = named(&k, ND_PATH_BREAKS, ND_STEP_JOB, &p);
	HAS(st, "NCCL_IB_TC=\"300\"");
	HAS(st, "carries 44");
	good(&k);
	k.tc.kind = V_WORD;
	st = named(&k, ND_PATH_BREAKS, ND_STEP_JOB, &p);
	HAS(st, "NCCL_IB_TC=\"abc\"");
	HAS(st, "strtoll reads 0");
	k.stack = ND_STACK_UCX;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_JOB, &p), "does not start");

	/* a GID index that picks RoCE v1 */
	good(&k);
	k.gid = (struct val){ V_NUM, 2 };
	st = named(&k, ND_PATH_BREAKS, ND_STEP_WIRE, &p);
	HAS(st, "RoCE v1");
	HAS(st, "index 3");
	/* the wrong VLAN: a GID on another netdev */
	good(&k);
	k.g[3].where = 2;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_GID, &p), "leave through eth1");
	/* an index past the table */
	good(&k);
	k.gid = (struct val){ V_NUM, 7 };
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_GID, &p), "past");
	/* NCCL before 2.21 takes index 0: the link-local RoCE v1 GID */
	good(&k);
	k.nccl_old = 1;
	named(&k, ND_PATH_BREAKS, ND_STEP_WIRE, &p);
	ck_assert_int_eq(p.gid_index, 0);

	/* the NIC's map puts DSCP 26 nowhere; PFC on 3 at the NIC, 4 at the switch */
	good(&k);
	k.map[26] = -1;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_TRUST, &p), "no APP entry maps DSCP 26");
	good(&k);
	k.pfc = 0x10;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_PFC_NIC, &p), "no PFC on priority 3");
	good(&k);
	k.ppfc = 0x10;
	st = named(&k, ND_PATH_BREAKS, ND_STEP_PFC_SWITCH, &p);
	HAS(st, "leaf12 Ethernet1/3 has PFC on 4");
	/* the switch trusts PCP while the hosts mark DSCP, untagged */
	good(&k);
	for (int d = 0; d < 64; d++)
		k.pmap[d] = -1;
	k.pmap_any = false;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_PFC_SWITCH, &p), "classifies by PCP");
	/* ... tagged, it works: PCP carries priority 3 */
	k.g[3].where = 1;
	k.g[3].vid = 100;
	named(&k, ND_PATH_LOSSLESS, ND_STEP_COUNT, &p);
	ck_assert_int_eq(p.vlan, k.g[3].vid);
	/* a switch DSCP map that puts 26 elsewhere */
	good(&k);
	k.pmap[26] = 1;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_PFC_SWITCH, &p), "puts them on priority 1");
	/* the switch port's frames smaller than the MTU's */
	good(&k);
	k.mfs = 1518;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_PFC_SWITCH, &p), "at least 4218");
	/* nothing heard, and the site accepting it */
	good(&k);
	k.peer = 1;
	HAS(named(&k, ND_PATH_UNVERIFIED, ND_STEP_PFC_SWITCH, &p), "no LLDP frame");
	k.accept = ND_PATH_ACCEPT_PEER;
	named(&k, ND_PATH_LOSSLESS, ND_STEP_COUNT, &p);
	ck_assert_int_eq(p.steps[6].status, ND_STEP_ACCEPTED);
	/* DCQCN's notification point off */
	good(&k);
	k.np = 0;
	HAS(named(&k, ND_PATH_BREAKS, ND_STEP_CNP, &p), "notification point is off");
	/* NCCL_IB_HCA leaves the device out: not used */
	good(&k);
	k.filter = 2;
	named(&k, ND_PATH_NOT_USED, ND_STEP_JOB, &p);
	ck_assert_ptr_nonnull(strstr(p.steps[0].evidence, "leaves mlx5_0/1 out"));
	/* UCX's auto traffic class is 106 on RoCE v2 */
	good(&k);
	k.stack = ND_STACK_UCX;
	k.tc.kind = V_UNSET;
	named(&k, ND_PATH_LOSSLESS, ND_STEP_COUNT, &p);
	ck_assert_int_eq(p.tc, 106);
	/* InfiniBand: credits */
	good(&k);
	k.ib = true;
	k.tc.kind = V_UNSET;
	named(&k, ND_PATH_LOSSLESS, ND_STEP_COUNT, &p);
	ck_assert_int_eq(p.steps[p.n_steps - 1].id, ND_STEP_CREDIT);
}
END_TEST

Suite *suite_path(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("path");

	tcase_add_test(tc, random_cases);
	tcase_add_test(tc, named_breaks);
	suite_add_tcase(s, tc);
	suite_add_tcase(s, tcase_path_readers());
	return s;
}
