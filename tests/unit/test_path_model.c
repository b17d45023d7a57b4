// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The path test's own model of lib/path/, written apart from the library: a random case drawn in
 * the model's terms (a job x a port x a switch, test_path.h) and what the model says of it (the
 * verdict, the deciding step and the packet's values). test_path.c holds the library to it.
 */
#include <stdbool.h>
#include <string.h>

#include "test_path.h"
#include "unit.h"

/* ---- a case, drawn ---- */

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

void path_rand_case(uint64_t *r, struct kase *k)
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

void path_model(const struct kase *k, struct expect *x)
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
