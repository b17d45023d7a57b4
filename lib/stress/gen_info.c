// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What a rank publishes at rendezvous (its device, address and QP ends) and the rdma_cm private
 * data of a connection request. Both come from the network: a decoded endpoint must belong to a
 * flow the rank takes part in, appear once, and describe a buffer of sane size.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int nd_gen_info_encode(const struct nd_gen_rank_info *in, struct nd_wbuf *w)
{
	size_t i;

	nd_w_str(w, in->host);
	nd_w_str(w, in->boot_id);
	nd_w_str(w, in->dev);
	nd_w_u8(w, in->port);
	nd_w_u8(w, in->ib);
	nd_w_u16(w, in->lid);
	nd_w_bytes(w, in->gid, sizeof(in->gid));
	nd_w_u8(w, in->mtu);
	nd_w_str(w, in->addr);
	nd_w_u16(w, in->cm_port);
	nd_w_u32(w, in->slot_size);
	nd_w_u32(w, (uint32_t)in->n_eps);
	for (i = 0; i < in->n_eps; i++) {
		const struct nd_gen_ep *ep = &in->eps[i];

		nd_w_u32(w, ep->flow);
		nd_w_u16(w, ep->qp);
		nd_w_u32(w, ep->qpn);
		nd_w_u32(w, ep->psn);
		nd_w_u64(w, ep->addr);
		nd_w_u32(w, ep->rkey);
		nd_w_u32(w, ep->slots);
	}
	return w->oom ? -ENOMEM : 0;
}

static bool takes_part(const struct nd_gen_plan *plan, uint32_t flow, uint32_t rank)
{
	return flow < plan->n_flows &&
	       (plan->flows[flow].src == rank || plan->flows[flow].dst == rank);
}

static int ep_cmp(const void *a, const void *b)
{
	const struct nd_gen_ep *x = a, *y = b;

	if (x->flow != y->flow)
		return x->flow < y->flow ? -1 : 1;
	return x->qp < y->qp ? -1 : x->qp > y->qp;
}

static void get_ep(struct nd_rbuf *r, struct nd_gen_ep *ep)
{
	ep->flow = nd_r_u32(r);
	ep->qp = nd_r_u16(r);
	ep->qpn = nd_r_u32(r);
	ep->psn = nd_r_u32(r);
	ep->addr = nd_r_u64(r);
	ep->rkey = nd_r_u32(r);
	ep->slots = nd_r_u32(r);
}

int nd_gen_info_decode(struct nd_rbuf *r, const struct nd_gen_plan *plan,
		       const struct nd_stress_job *job, uint32_t rank,
		       struct nd_gen_rank_info *out)
{
	uint32_t qps = nd_gen_bulk_qps(job) + (nd_gen_probing(job) ? 1 : 0);
	const uint8_t *gid;
	size_t n, i, part;

	memset(out, 0, sizeof(*out));
	nd_r_str(r, out->host, sizeof(out->host));
	nd_r_str(r, out->boot_id, sizeof(out->boot_id));
	nd_r_str(r, out->dev, sizeof(out->dev));
	out->port = nd_r_u8(r);
	out->ib = nd_r_u8(r) != 0;
	out->lid = nd_r_u16(r);
	gid = nd_r_bytes(r, sizeof(out->gid));
	if (gid)
		memcpy(out->gid, gid, sizeof(out->gid));
	out->mtu = nd_r_u8(r);
	nd_r_str(r, out->addr, sizeof(out->addr));
	out->cm_port = nd_r_u16(r);
	out->slot_size = nd_r_u32(r);
	/* enum ibv_mtu is 1 (256) .. 5 (4096) */
	if (out->mtu < 1 || out->mtu > 5 || out->slot_size > ND_MSG_MAX + 64)
		r->bad = true;
	for (i = 0, part = 0; i < plan->n_flows; i++)
		part += takes_part(plan, (uint32_t)i, rank);
	n = nd_r_count(r, part * qps, 30);
	if (r->bad)
		return -EPROTO;
	out->eps = calloc(n ? n : 1, sizeof(*out->eps));
	if (!out->eps)
		return -ENOMEM;
	for (i = 0; i < n && !r->bad; i++) {
		get_ep(r, &out->eps[i]);
		if (!takes_part(plan, out->eps[i].flow, rank) || out->eps[i].qp >= qps ||
		    out->eps[i].slots > 2 * 16384u)
			r->bad = true;
	}
	out->n_eps = n;
	/* each QP end once: sorted, a duplicate sits next to its twin */
	qsort(out->eps, n, sizeof(*out->eps), ep_cmp);
	for (i = 1; i < n && !r->bad; i++)
		if (!ep_cmp(&out->eps[i - 1], &out->eps[i]))
			r->bad = true;
	if (r->bad || r->left) {
		nd_gen_info_free(out);
		return -EPROTO;
	}
	return 0;
}

void nd_gen_info_free(struct nd_gen_rank_info *in)
{
	free(in->eps);
	in->eps = NULL;
	in->n_eps = 0;
}

const struct nd_gen_ep *nd_gen_info_ep(const struct nd_gen_rank_info *in, uint32_t flow,
				       uint16_t qp)
{
	size_t i;

	for (i = 0; i < in->n_eps; i++)
		if (in->eps[i].flow == flow && in->eps[i].qp == qp)
			return &in->eps[i];
	return NULL;
}

void nd_gen_cm_priv_encode(uint8_t out[ND_CM_PRIV_LEN], uint32_t flow, uint16_t qp,
			   uint32_t src_rank)
{
	struct nd_wbuf w = { 0 };

	nd_w_u32(&w, ND_CM_MAGIC);
	nd_w_u32(&w, flow);
	nd_w_u16(&w, qp);
	nd_w_u16(&w, 0);
	nd_w_u32(&w, src_rank);
	memset(out, 0, ND_CM_PRIV_LEN);
	if (!w.oom)
		memcpy(out, w.p, ND_CM_PRIV_LEN);
	nd_wbuf_free(&w);
}

int nd_gen_cm_priv_decode(const void *p, size_t len, uint32_t *flow, uint16_t *qp,
			  uint32_t *src_rank)
{
	/* the CM pads private data (56 bytes for a REQ over RoCE): more is fine, less is not */
	struct nd_rbuf r = { p, len < ND_CM_PRIV_LEN ? len : ND_CM_PRIV_LEN, false };

	if (!p || len < ND_CM_PRIV_LEN || nd_r_u32(&r) != ND_CM_MAGIC)
		return -EPROTO;
	*flow = nd_r_u32(&r);
	*qp = nd_r_u16(&r);
	nd_r_u16(&r);
	*src_rank = nd_r_u32(&r);
	return r.bad ? -EPROTO : 0;
}
