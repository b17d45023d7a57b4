// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop path (lib/path/) against a small model written here, apart from the library: 600
 * seeded random cases, each a job (stack, traffic class, SL, GID index, device filter, NCCL
 * version, odd values) x a port (GID table with VLANs and other netdevs, trust, DSCP map, ETS,
 * PFC, DCQCN enables) x a switch (unheard, or its DSCP map, PFC and max frame size), the
 * model's verdict, deciding step and packet values held against the library's. Then named
 * cases for each way a path breaks, and the job readers: env files with their errors, NCCL's
 * conf files, /proc/PID, the GID table from sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "nodrop.h"
#include "unit.h"

/* ---- a case, in the model's own terms ---- */

enum val_kind { V_UNSET, V_NUM, V_BIG, V_WORD, V_MINUS1, V_AUTO };

struct val {
	enum val_kind kind;
	int n;			/* V_NUM, V_BIG */
};

struct kgid {
	int kind;		/* 0 empty, 1 RoCE v1, 2 RoCE v2 */
	int fam;		/* 4, 6 (global), 0 (IPv6 link-local fe80::) */
	int where;		/* 0 this port, 1 a VLAN on it, 2 another netdev */
	int vid;
	int egress[8];		/* a VLAN's map, -1 unmapped */
};

struct kase {
	enum nd_stack stack;
	bool ib;
	struct val tc, sl, gid;
	int filter;		/* 0 none, 1 selects, 2 leaves out */
	bool disabled;		/* NCCL_IB_DISABLE=1 */
	bool v6, v1;		/* NCCL_IB_ADDR_FAMILY=AF_INET6, NCCL_IB_ROCE_VERSION_NUM=1 */
	int nccl_old;		/* 0 unknown, 1 2.18.3, 2 2.23.4 */
	int cm_tos;
	bool cm_v1;
	struct kgid g[8];
	int ng;
	bool dcb, trust_dscp, ets;
	int map[64];		/* -1 none */
	int pfc, prio_tc[8], tsa[8], bw[8];
	int ecn;		/* 0 none, 1 readable */
	int np, rp, cnp_dscp;
	int peer;		/* 0 not asked, 1 unheard, 2 heard */
	int pmap[64];		/* switch's DSCP map, -1 none */
	bool pmap_any;
	int ppfc;		/* -1 none, else bits */
	bool cee;
	int mfs;		/* 0 absent */
	int mtu;
	unsigned int accept;
};

static int pick(uint64_t *r, int n)
{
	return (int)(unit_rand(r) % (uint64_t)n);
}

static bool chance(uint64_t *r, int pct)
{
	return pick(r, 100) < pct;
}

static struct val rand_val(uint64_t *r, bool ucx, int max)
{
	struct val v = { V_UNSET, 0 };

	switch (pick(r, 10)) {
	case 0:
	case 1:
	case 2:
		break;
	case 3:
		v.kind = V_BIG;
		v.n = 256 + pick(r, 300);
		break;
	case 4:
		v.kind = V_WORD;
		break;
	case 5:
		v.kind = ucx ? V_AUTO : V_MINUS1;
		break;
	default:
		v.kind = V_NUM;
		v.n = pick(r, max + 1);
	}
	return v;
}

static void rand_case(uint64_t *r, struct kase *k)
{
	static const int lossless_tcs[] = { 106, 104, 107, 105, 26 << 2 | 1, 0, 96, 98 };

	memset(k, 0, sizeof(*k));
	k->stack = (enum nd_stack)pick(r, ND_STACK_COUNT);
	k->ib = chance(r, 8);
	k->tc = rand_val(r, k->stack == ND_STACK_UCX, 255);
	if (k->tc.kind == V_NUM && chance(r, 60))
		k->tc.n = lossless_tcs[pick(r, 8)];
	k->sl = rand_val(r, k->stack == ND_STACK_UCX, 7);
	if (k->sl.kind == V_BIG)
		k->sl.n = 16 + pick(r, 20);
	if (chance(r, 50)) {
		k->sl.kind = V_NUM;
		k->sl.n = 3;
	}
	k->gid = rand_val(r, k->stack == ND_STACK_UCX, 9);
	if (k->gid.kind == V_BIG)
		k->gid.kind = V_UNSET;
	k->filter = chance(r, 75) ? 0 : 1 + pick(r, 2);
	k->disabled = chance(r, 4);
	k->v6 = chance(r, 12);
	k->v1 = chance(r, 8);
	k->nccl_old = pick(r, 3);
	k->cm_tos = chance(r, 50) ? 106 : pick(r, 256);
	k->cm_v1 = chance(r, 10);
	k->ng = 2 + pick(r, 7);
	for (int i = 0; i < k->ng; i++) {
		struct kgid *g = &k->g[i];

		g->kind = chance(r, 15) ? 0 : 1 + pick(r, 2);
		g->fam = (int[]){ 4, 6, 0 }[pick(r, 3)];
		g->where = chance(r, 70) ? 0 : 1 + pick(r, 2);
		g->vid = 1 + pick(r, 4094);
		for (int p = 0; p < 8; p++)
			g->egress[p] = chance(r, 50) ? pick(r, 8) : -1;
	}
	if (chance(r, 60)) {	/* the usual table: fe80 v1, fe80 v2, IPv4 v1, IPv4 v2 */
		k->g[0] = (struct kgid){ .kind = 1, .fam = 0 };
		k->g[1] = (struct kgid){ .kind = 2, .fam = 0 };
		if (k->ng >= 4) {
			k->g[2] = (struct kgid){ .kind = 1, .fam = 4 };
			k->g[3] = (struct kgid){ .kind = 2, .fam = 4 };
		}
	}
	k->dcb = chance(r, 92);
	k->trust_dscp = chance(r, 75);
	for (int d = 0; d < 64; d++)
		k->map[d] = chance(r, 20) ? pick(r, 8) : -1;
	if (chance(r, 70))
		k->map[26] = chance(r, 80) ? 3 : pick(r, 8);
	k->ets = chance(r, 85);
	for (int p = 0; p < 8; p++) {
		k->prio_tc[p] = pick(r, 8);
		k->tsa[p] = chance(r, 80) ? IEEE_8021QAZ_TSA_ETS : IEEE_8021QAZ_TSA_STRICT;
		k->bw[p] = chance(r, 20) ? 0 : pick(r, 60);
	}
	k->pfc = chance(r, 70) ? 0x08 : pick(r, 256);
	k->ecn = chance(r, 75);
	k->np = chance(r, 75) ? 0x08 | pick(r, 256) : pick(r, 256);
	k->rp = chance(r, 75) ? 0x08 | pick(r, 256) : pick(r, 256);
	k->cnp_dscp = chance(r, 50) ? 48 : pick(r, 64);
	k->peer = pick(r, 3);
	for (int d = 0; d < 64; d++)
		k->pmap[d] = -1;
	k->pmap_any = chance(r, 70);
	if (k->pmap_any) {
		for (int d = 0; d < 64; d++)
			k->pmap[d] = chance(r, 10) ? pick(r, 8) : -1;
		if (chance(r, 80))
			k->pmap[26] = chance(r, 80) ? 3 : pick(r, 8);
		k->pmap[63] = pick(r, 8);	/* "any" means at least one entry */
	}
	k->ppfc = chance(r, 8) ? -1 : chance(r, 70) ? 0x08 : pick(r, 256);
	k->cee = chance(r, 20);
	k->mtu = (int[]){ 1500, 4200, 9000 }[pick(r, 3)];
	k->mfs = chance(r, 60) ? 0 : k->mtu + 10 + pick(r, 30);
	k->accept = (unsigned int)pick(r, 4);
}

/* ---- the model ---- */

struct expect {
	enum nd_path_verdict verdict;
	enum nd_path_step_id at;
	int tc, dscp, ecn, prio, nic_tc, switch_prio, gid;
};

static bool kg_v4(const struct kgid *g)
{
	return g->kind && g->fam == 4;
}

static int kg_ver(const struct kgid *g)
{
	return g->kind;
}

/* NCCL 2.21+ with NCCL_IB_GID_INDEX=-1: keep the entry of the wanted family, valid and version */
static int m_nccl_auto(const struct kase *k, bool v4, int ver)
{
	int cur = 0;

	for (int c = 1; c < k->ng; c++) {
		const struct kgid *a = &k->g[cur], *b = &k->g[c];
		bool b_ok = b->kind && b->fam != 0;
		bool a_ok = a->kind && a->fam != 0;

		if (kg_v4(b) == v4 && kg_v4(a) != v4)
			cur = c;
		else if (kg_v4(b) == v4 && b_ok && kg_ver(b) == ver && (kg_ver(a) != ver || !a_ok))
			cur = c;
	}
	return cur;
}

static int m_ucx_auto(const struct kase *k)
{
	for (int want = 0; want < 4; want++)
		for (int i = 0; i < k->ng; i++)
			if (k->g[i].kind == (want < 2 ? 2 : 1) && kg_v4(&k->g[i]) == !(want & 1))
				return i;
	return 0;
}

static int m_cm_gid(const struct kase *k)
{
	for (int v4 = 1; v4 >= 0; v4--)
		for (int i = 0; i < k->ng; i++)
			if (k->g[i].kind == (k->cm_v1 ? 1 : 2) && k->g[i].fam && kg_v4(&k->g[i]) == v4)
				return i;
	return -1;
}

struct mstep {
	enum nd_path_step_id id;
	int s;			/* 0 fine, 1 unverified, 2 break */
};

static void model(const struct kase *k, struct expect *x)
{
	struct mstep st[ND_STEP_COUNT];
	int n = 0, tc = 0, sl = 0, gi = -1, job = 0, vlan = -1, prio = -1;
	bool have_gid = false, nccl = k->stack == ND_STACK_NCCL;

	x->tc = x->dscp = x->ecn = x->prio = x->nic_tc = x->switch_prio = x->gid = -1;
	if ((nccl && k->disabled) || (k->stack != ND_STACK_RDMA_CM && k->filter == 2)) {
		x->verdict = ND_PATH_NOT_USED;
		x->at = ND_STEP_JOB;
		return;
	}
	/* 1: the job's values */
	if (k->stack == ND_STACK_RDMA_CM) {
		tc = k->cm_tos;
		gi = m_cm_gid(k);
	} else {
		switch (k->tc.kind) {
		case V_UNSET:
		case V_MINUS1:
			tc = nccl ? 0 : -1;
			break;
		case V_AUTO:
			tc = -1;
			break;
		case V_NUM:
			tc = k->tc.n;
			break;
		case V_BIG:
			tc = k->tc.n % 256;
			job = 2;
			break;
		case V_WORD:
			tc = 0;
			job = 2;
		}
		sl = k->sl.kind == V_NUM ? k->sl.n : k->sl.kind == V_BIG ? k->sl.n : 0;
		if (k->sl.kind == V_BIG || k->sl.kind == V_WORD)
			job = 2;
		if (k->gid.kind == V_NUM) {
			gi = k->gid.n;
		} else if (k->gid.kind == V_WORD) {
			job = 2;
			gi = nccl ? 0 : m_ucx_auto(k);
		} else if (nccl && k->nccl_old == 1) {
			gi = k->gid.kind == V_MINUS1 ? m_nccl_auto(k, !k->v6, k->v1 ? 1 : 2) : 0;
		} else {
			gi = nccl ? m_nccl_auto(k, !k->v6, k->v1 ? 1 : 2) : m_ucx_auto(k);
		}
	}
	if (k->ng == 0)
		gi = -1;
	st[n++] = (struct mstep){ ND_STEP_JOB, job };
	if (k->ib) {
		st[n++] = (struct mstep){ ND_STEP_GID, 0 };
		st[n++] = (struct mstep){ ND_STEP_WIRE, 0 };
		st[n++] = (struct mstep){ ND_STEP_CREDIT, 0 };
		goto verdict;
	}
	/* 2: the GID */
	x->gid = gi;
	if (gi < 0 || gi >= k->ng || !k->g[gi].kind) {
		st[n++] = (struct mstep){ ND_STEP_GID, 2 };
	} else {
		have_gid = true;
		vlan = k->g[gi].where == 1 ? k->g[gi].vid : -1;
		st[n++] = (struct mstep){ ND_STEP_GID, k->g[gi].where == 2 ? 2 : 0 };
	}
	/* 3: the wire */
	if (have_gid) {
		int s = 0;

		if (tc < 0)
			tc = k->g[gi].kind == 2 ? 106 : 0;
		x->tc = tc;
		if (k->g[gi].kind == 1) {
			s = 2;
		} else {
			x->dscp = tc >> 2;
			x->ecn = tc & 3;
			s = x->ecn == 0 || x->ecn == 3 ? 2 : 0;
		}
		if (k->stack == ND_STACK_RDMA_CM && vlan >= 0) {
			static const int t[16] = { 0, 0, 0, 0, 2, 2, 2, 2, 6, 6, 6, 6, 4, 4, 4, 4 };
			int e = k->g[gi].egress[t[(tc & 0x1e) >> 1]];

			sl = e < 0 ? 0 : e;
		}
		st[n++] = (struct mstep){ ND_STEP_WIRE, s };
	} else {
		st[n++] = (struct mstep){ ND_STEP_WIRE, 0 };
	}
	/* 4: trust */
	if (!have_gid) {
		st[n++] = (struct mstep){ ND_STEP_TRUST, 0 };
	} else if (!k->dcb) {
		st[n++] = (struct mstep){ ND_STEP_TRUST, 1 };
	} else if (k->trust_dscp) {
		if (x->dscp < 0) {
			st[n++] = (struct mstep){ ND_STEP_TRUST, 0 };
		} else {
			prio = k->map[x->dscp];
			st[n++] = (struct mstep){ ND_STEP_TRUST, prio < 0 ? 2 : 0 };
		}
	} else {
		prio = sl & 7;
		st[n++] = (struct mstep){ ND_STEP_TRUST, 0 };
	}
	x->prio = prio;
	/* 5: TC */
	if (prio >= 0 && k->ets)
		x->nic_tc = k->prio_tc[prio];
	st[n++] = (struct mstep){ ND_STEP_TC, 0 };
	/* 6: PFC at the NIC */
	st[n++] = (struct mstep){ ND_STEP_PFC_NIC, prio >= 0 && !(k->pfc >> prio & 1) ? 2 : 0 };
	/* 7: the switch */
	if (prio < 0) {
		st[n++] = (struct mstep){ ND_STEP_PFC_SWITCH, 0 };
	} else if (k->peer < 2) {
		st[n++] = (struct mstep){ ND_STEP_PFC_SWITCH, k->accept & ND_PATH_ACCEPT_PEER ? 0 : 1 };
	} else {
		int sw = -1, s = 0;

		if (x->dscp >= 0 && k->pmap_any) {
			sw = k->pmap[x->dscp];
			if (sw < 0)
				s = 2;
		} else if (vlan < 0) {
			s = 2;
		} else {
			sw = prio;
		}
		if (!s) {
			x->switch_prio = sw;
			if (sw != prio)
				s = 2;
			else if (k->ppfc < 0)
				s = k->accept & ND_PATH_ACCEPT_PEER ? 0 : 1;
			else if (!(k->ppfc >> sw & 1))
				s = 2;
			else if (k->mfs && k->mfs < k->mtu + 18 + (vlan >= 0 ? 4 : 0))
				s = 2;
		}
		st[n++] = (struct mstep){ ND_STEP_PFC_SWITCH, s };
	}
	/* 8: CNPs */
	if (prio < 0 || x->dscp < 0)
		st[n++] = (struct mstep){ ND_STEP_CNP, 0 };
	else if (!k->ecn)
		st[n++] = (struct mstep){ ND_STEP_CNP, k->accept & ND_PATH_ACCEPT_ECN ? 0 : 1 };
	else
		st[n++] = (struct mstep){ ND_STEP_CNP, (k->np >> prio & 1) && (k->rp >> prio & 1) ?
					  0 : 2 };
verdict:
	x->verdict = ND_PATH_LOSSLESS;
	x->at = ND_STEP_COUNT;
	for (int i = 0; i < n; i++)
		if (st[i].s == 2) {
			x->verdict = ND_PATH_BREAKS;
			x->at = st[i].id;
			return;
		}
	for (int i = 0; i < n; i++)
		if (st[i].s == 1) {
			x->verdict = ND_PATH_UNVERIFIED;
			x->at = st[i].id;
			return;
		}
}

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

		rand_case(&r, &k);
		model(&k, &x);
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

	model(k, &x);
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

/* ---- the job's readers ---- */

static char *tmpfile_with(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/nd-path-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

START_TEST(env_files)
{
	struct nd_job job;
	struct nd_err e = { 0 };
	const char *origin;
	char *path, conf[64], want[128];

	path = tmpfile_with("# a job script's exports\n\nexport NCCL_IB_TC=106\n"
			    "NCCL_IB_HCA='=mlx5_0,mlx5_1'\n  UCX_NET_DEVICES=\"mlx5_0:1\"\r\n"
			    "NCCL_IB_TC=98\n");
	ck_assert_int_eq(nd_job_from_file(&job, path, &e), 0);
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_TC", &origin), "98");
	snprintf(want, sizeof(want), "%s:6", path);
	ck_assert_str_eq(origin, want);
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_HCA", NULL), "=mlx5_0,mlx5_1");
	ck_assert_str_eq(nd_job_get(&job, "UCX_NET_DEVICES", NULL), "mlx5_0:1");
	ck_assert_ptr_null(nd_job_get(&job, "NCCL_IB_SL", NULL));
	/* NCCL's conf file fills in what the job leaves unset, never over it */
	snprintf(conf, sizeof(conf), "%s", tmpfile_with("NCCL_IB_TC=0\nNCCL_IB_SL=3\n"));
	ck_assert_int_eq(nd_job_read_nccl_conf(&job, conf, &e), 0);
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_TC", NULL), "98");
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_SL", &origin), "3");
	snprintf(want, sizeof(want), "%s:2", conf);
	ck_assert_str_eq(origin, want);
	nd_job_free(&job);
	unlink(conf);
	unlink(path);

	/* bad lines are named by file, line and column */
	path = tmpfile_with("NCCL_IB_TC=106\n  9LIVES=1\n");
	ck_assert_int_eq(nd_job_from_file(&job, path, &e), -EINVAL);
	snprintf(want, sizeof(want), "%s:2:3: expected NAME=VALUE", path);
	ck_assert_msg(strstr(e.msg, want), "%s", e.msg);
	unlink(path);
	path = tmpfile_with("NCCL_IB_TC=\"106\n");
	ck_assert_int_eq(nd_job_from_file(&job, path, &e), -EINVAL);
	snprintf(want, sizeof(want), "%s:1:12: the quote", path);
	ck_assert_msg(strstr(e.msg, want), "%s", e.msg);
	unlink(path);
	ck_assert_int_eq(nd_job_from_file(&job, "/nonexistent/job.env", &e), -ENOENT);
	ck_assert_msg(strstr(e.msg, "/nonexistent/job.env: cannot read it"), "%s", e.msg);
}
END_TEST

START_TEST(from_pid)
{
	struct nd_job job;
	struct nd_err e = { 0 };
	char want[64];

	unit_no_root();
	setenv("NCCL_IB_TC", "106", 1);
	ck_assert_int_eq(nd_job_from_pid(&job, getpid(), &e), 0);
	/* /proc/PID/environ is the environment the process started with */
	snprintf(want, sizeof(want), "pid %d (", (int)getpid());
	ck_assert_ptr_nonnull(strstr(job.source, want));
	ck_assert_str_eq(job.root + strlen(job.root) - 5, "/root");
	nd_job_free(&job);
	unsetenv("NCCL_IB_TC");
	ck_assert_int_eq(nd_job_from_pid(&job, 999999999, &e), -ESRCH);
	ck_assert_msg(strstr(e.msg, "no such process"), "%s", e.msg);
}
END_TEST

static void put_file(const char *root, const char *path, const char *text)
{
	char full[512], cmd[600];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", full);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(full, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(gid_table)
{
	char root[] = "/tmp/nd-gids-XXXXXX", cmd[128];
	const char *d = "/sys/class/infiniband/rxe0/ports/1";
	struct nd_gid *g;
	struct nd_err e = { 0 };
	char p[200];
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/gids/0", d);
	put_file(root, p, "fe80:0000:0000:0000:5054:00ff:fe12:3456\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/types/0", d);
	put_file(root, p, "IB/RoCE v1\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/ndevs/0", d);
	put_file(root, p, "eth0\n");
	snprintf(p, sizeof(p), "%s/gids/1", d);
	put_file(root, p, "0000:0000:0000:0000:0000:0000:0000:0000\n");
	snprintf(p, sizeof(p), "%s/gids/2", d);
	put_file(root, p, "0000:0000:0000:0000:0000:ffff:c612:6401\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/types/2", d);
	put_file(root, p, "RoCE v2\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/ndevs/2", d);
	put_file(root, p, "eth0.100\n");
	put_file(root, "/proc/net/vlan/eth0.100", "eth0.100  VID: 100\t REORDER_HDR: 1  "
		 "dev->priv_flags: 1021\n         total frames received            0\n"
		 "Device: eth0\nINGRESS priority mappings: 0:0  1:0  2:0  3:0  4:0  5:0  6:0 7:0\n"
		 " EGRESS priority mappings: 2:3 6:6 \n");
	setenv("NODROP_SYSROOT", root, 1);
	nd_sysroot_reset();
	ck_assert_int_eq(nd_gids_read("rxe0", 1, &g, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(g[0].type, ND_GID_ROCE_V1);
	ck_assert(!g[0].ipv4);
	ck_assert_str_eq(g[0].ndev, "eth0");
	ck_assert_int_eq(g[0].vlan, -1);
	ck_assert_int_eq(g[1].type, ND_GID_EMPTY);
	ck_assert_int_eq(g[2].type, ND_GID_ROCE_V2);
	ck_assert(g[2].ipv4);
	ck_assert_str_eq(g[2].addr, "198.18.100.1");
	ck_assert_int_eq(g[2].vlan, 100);
	ck_assert_str_eq(g[2].lower, "eth0");
	ck_assert_int_eq(g[2].egress_qos[2], 3);
	ck_assert_int_eq(g[2].egress_qos[6], 6);
	ck_assert_int_eq(g[2].egress_qos[0], -1);
	free(g);
	ck_assert_int_eq(nd_gids_read("mlx5_9", 1, &g, &n, &e), -ENOENT);
	ck_assert_msg(strstr(e.msg, "mlx5_9/1: cannot read its GID table"), "%s", e.msg);
	unit_no_root();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *suite_path(void)
{
	Suite *s = suite_create("path");
	TCase *tc = tcase_create("path");

	tcase_add_test(tc, random_cases);
	tcase_add_test(tc, named_breaks);
	tcase_add_test(tc, env_files);
	tcase_add_test(tc, from_pid);
	tcase_add_test(tc, gid_table);
	suite_add_tcase(s, tc);
	return s;
}
