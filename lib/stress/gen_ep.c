// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Endpoints: the QPs a rank has in the plan, where their buffers sit in the one memory region,
 * what the rank publishes about them, and plain-verbs connection (RESET -> INIT -> RTR -> RTS
 * with the peer's QP number, PSN and GID or LID). rdma_cm connection is in gen_cm.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "gen_rt.h"

/* Take @n bytes at the end of the region so far. */
static size_t take(size_t *total, size_t n)
{
	size_t at = *total;

	*total += nd_ep_align(n);
	return at;
}

static void layout_bulk(struct nd_engine *en, struct nd_qp *q, size_t *total)
{
	const struct nd_stress_job *job = en->job;
	uint32_t deep = job->validate ? job->tx_depth : 1;

	if (q->active) {
		q->lslots = deep;
		q->lbuf = take(total, (size_t)q->lslots * en->slot_size);
		return;
	}
	/* the passive end: a WRITE target or READ source, or SEND receive buffers */
	if (job->op != ND_OP_SEND) {
		/* twice the sender's window, so a slot is rarely rewritten before it is checked */
		q->xslots = job->validate ? 2 * job->tx_depth : 1;
		q->xbuf = take(total, (size_t)q->xslots * en->slot_size);
	}
	if (job->op == ND_OP_SEND || job->op == ND_OP_WRITE_IMM)
		q->rx_depth = job->tx_depth;
	if (job->op == ND_OP_SEND) {
		q->rxslots = deep;
		q->rxbuf = take(total, (size_t)q->rxslots * en->slot_size);
	}
}

static void layout_probe(struct nd_engine *en, struct nd_qp *q, size_t *total)
{
	size_t slot = nd_ep_align(nd_gen_probe_size(en->job));

	q->lslots = 1;
	q->lbuf = take(total, slot);
	q->rxslots = q->rx_depth = ND_PROBE_RX;
	q->rxbuf = take(total, slot * ND_PROBE_RX);
	/* WRITE latency: the peer writes here, and this end watches the last byte */
	if (en->job->latency && en->job->op == ND_OP_WRITE) {
		q->xslots = 1;
		q->xbuf = take(total, slot);
	}
}

static int count_qps(const struct nd_engine *en)
{
	uint32_t per = nd_gen_bulk_qps(en->job) + (nd_gen_probing(en->job) ? 1 : 0);
	size_t i, n = 0;

	for (i = 0; i < en->plan->n_flows; i++)
		if (en->plan->flows[i].src == en->rank || en->plan->flows[i].dst == en->rank)
			n += per;
	return (int)n;
}

int nd_ep_layout(struct nd_engine *en, size_t *bytes, struct nd_err *e)
{
	const struct nd_stress_job *job = en->job;
	uint32_t per = nd_gen_bulk_qps(job) + (nd_gen_probing(job) ? 1 : 0), k;
	size_t i, total = 0, n = (size_t)count_qps(en);

	en->slot_size = (uint32_t)nd_ep_align(nd_sizes_max(&job->sizes));
	en->qps = calloc(n ? n : 1, sizeof(*en->qps));
	if (!en->qps)
		return nd_err_set(e, -ENOMEM, "out of memory for %zu QPs", n);
	for (i = 0; i < en->plan->n_flows; i++) {
		const struct nd_gen_flow *f = &en->plan->flows[i];

		if (f->src != en->rank && f->dst != en->rank)
			continue;
		for (k = 0; k < per; k++) {
			struct nd_qp *q = &en->qps[en->n_qps++];

			q->flow = f;
			q->idx = (uint16_t)k;
			q->probe = k == nd_gen_bulk_qps(job);
			q->sink = f->dst == en->rank;
			/* the rank that posts the flow's work also sends its probes */
			q->active = nd_gen_flow_active(f, job->op) == en->rank;
			if (q->probe)
				layout_probe(en, q, &total);
			else
				layout_bulk(en, q, &total);
		}
	}
	*bytes = total;
	return 0;
}

static int cq_entries(const struct nd_engine *en)
{
	size_t i, n = 0;

	for (i = 0; i < en->n_qps; i++) {
		const struct nd_qp *q = &en->qps[i];

		n += q->rx_depth + (q->probe ? ND_PROBE_RX : q->active ? en->job->tx_depth : 0);
	}
	return (int)(n + 16);
}

void nd_ep_qp_attr(const struct nd_engine *en, const struct nd_qp *q,
		   struct ibv_qp_init_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = en->dev->cq;
	a->recv_cq = en->dev->cq;
	a->qp_type = IBV_QPT_RC;
	a->cap.max_send_wr = q->probe ? 2 * ND_PROBE_SIGNAL : q->active ? en->job->tx_depth : 1;
	a->cap.max_recv_wr = q->rx_depth ? q->rx_depth : 1;
	a->cap.max_send_sge = 1;
	a->cap.max_recv_sge = 1;
	/* inline needs the CPU to read the bytes: never from GPU memory */
	if (!en->mem->gpu && (q->active || q->probe))
		a->cap.max_inline_data = en->inline_max;
}

static int qp_init(struct nd_engine *en, struct nd_qp *q, struct nd_err *e)
{
	struct ibv_qp_init_attr ia;
	struct ibv_qp_attr a = { 0 };

	nd_ep_qp_attr(en, q, &ia);
	q->qp = ibv_create_qp(en->dev->pd, &ia);
	if (!q->qp)
		return nd_err_set(e, -errno, "%s: ibv_create_qp (send %u, receive %u, inline %u) "
				  "failed: %s", en->dev->name, ia.cap.max_send_wr,
				  ia.cap.max_recv_wr, ia.cap.max_inline_data, strerror(errno));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = en->dev->port;
	a.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			    IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
			  IBV_QP_ACCESS_FLAGS))
		return nd_err_set(e, -errno, "%s: QP to INIT failed: %s", en->dev->name,
				  strerror(errno));
	return 0;
}

static void boot_id(char *buf, size_t len)
{
	if (nd_sys_read(buf, len, "/proc/sys/kernel/random/boot_id") < 0)
		snprintf(buf, len, "unknown");
}

int nd_ep_create(struct nd_engine *en, struct nd_gen_rank_info *info, struct nd_err *e)
{
	struct nd_dev *d = en->dev;
	size_t i;
	int ret;

	ret = nd_dev_setup(d, cq_entries(en), e);
	if (!ret)
		ret = nd_mem_reg(en->mem, d->pd, e);
	if (ret)
		return ret;
	memset(info, 0, sizeof(*info));
	if (gethostname(info->host, sizeof(info->host) - 1))
		snprintf(info->host, sizeof(info->host), "unknown");
	boot_id(info->boot_id, sizeof(info->boot_id));
	nd_strlcpy(info->dev, d->name, sizeof(info->dev));
	info->port = d->port;
	info->ib = d->ib;
	info->lid = d->pattr.lid;
	memcpy(info->gid, d->gid.raw, sizeof(info->gid));
	info->mtu = (uint8_t)d->pattr.active_mtu;
	nd_strlcpy(info->addr, d->addr, sizeof(info->addr));
	info->cm_port = d->cm_port;
	info->slot_size = en->slot_size;
	info->eps = calloc(en->n_qps ? en->n_qps : 1, sizeof(*info->eps));
	if (!info->eps)
		return nd_err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];
		struct nd_gen_ep *ep = &info->eps[info->n_eps++];

		if (getrandom(&q->psn, sizeof(q->psn), 0) != sizeof(q->psn))
			q->psn = (uint32_t)nd_gen_now_ns();
		q->psn &= 0xffffff;
		if (en->job->connect == ND_CONN_VERBS) {
			ret = qp_init(en, q, e);
			if (ret)
				return ret;
			ep->qpn = q->qp->qp_num;
		}
		ep->flow = q->flow->id;
		ep->qp = q->idx;
		ep->psn = q->psn;
		if (q->xslots) {
			ep->addr = en->mem->nic_base + q->xbuf;
			ep->rkey = en->mem->mr->rkey;
			ep->slots = q->xslots;
		}
	}
	return 0;
}

const struct nd_gen_ep *nd_ep_peer(const struct nd_engine *en, const struct nd_qp *q,
				   const struct nd_gen_rank_info *infos, uint32_t *rank)
{
	*rank = q->flow->src == en->rank ? q->flow->dst : q->flow->src;
	return nd_gen_info_ep(&infos[*rank], q->flow->id, q->idx);
}

/* What the peer exposes is what this end writes to or reads from. */
void nd_ep_take_remote(struct nd_qp *q, const struct nd_gen_ep *pe)
{
	q->raddr = pe->addr;
	q->rkey = pe->rkey;
	q->rslots = pe->slots ? pe->slots : 1;
}

static int to_rtr_rts(struct nd_engine *en, struct nd_qp *q, const struct nd_gen_rank_info *pi,
		      const struct nd_gen_ep *pe, struct nd_err *e)
{
	const struct nd_stress_job *job = en->job;
	uint8_t rd = (uint8_t)(en->dev->attr.max_qp_rd_atom < 16 ? en->dev->attr.max_qp_rd_atom :
			       16);
	struct ibv_qp_attr a = { 0 };

	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = pi->mtu < en->dev->pattr.active_mtu ? (enum ibv_mtu)pi->mtu :
		     en->dev->pattr.active_mtu;
	a.dest_qp_num = pe->qpn;
	a.rq_psn = pe->psn;
	a.max_dest_rd_atomic = rd;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = en->dev->port;
	if (en->dev->ib) {
		a.ah_attr.dlid = pi->lid;
		a.ah_attr.sl = (uint8_t)(job->sl > 0 ? job->sl : 0);
	} else {
		a.ah_attr.is_global = 1;
		memcpy(a.ah_attr.grh.dgid.raw, pi->gid, 16);
		a.ah_attr.grh.sgid_index = (uint8_t)en->dev->gid_index;
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.grh.traffic_class = (uint8_t)(job->tos > 0 ? job->tos : 0);
	}
	if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			  IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
			  IBV_QP_MIN_RNR_TIMER))
		return nd_err_set(e, -errno, "%s: QP %u to RTR (peer %s on %s) failed: %s",
				  en->dev->name, q->qp->qp_num, pi->dev, pi->host, strerror(errno));
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	/*
	 * 4.096 us << 17: 0.5 s, what rdma_cm gives RoCE QPs (packet lifetime 16, plus one). A
	 * shorter ACK timeout resends data a paused (lossless) link was only holding back, and
	 * those resends would read as loss.
	 */
	a.timeout = (uint8_t)(job->qp_timeout >= 0 ? job->qp_timeout : 17);
	a.retry_cnt = 7;
	a.rnr_retry = 7;	/* forever: a slow receiver is congestion, not an error */
	a.sq_psn = q->psn;
	a.max_rd_atomic = rd;
	if (ibv_modify_qp(q->qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
			  IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return nd_err_set(e, -errno, "%s: QP %u to RTS failed: %s", en->dev->name,
				  q->qp->qp_num, strerror(errno));
	return 0;
}

int nd_ep_connect_verbs(struct nd_engine *en, const struct nd_gen_rank_info *infos,
			struct nd_err *e)
{
	const struct nd_gen_ep *pe;
	uint32_t peer;
	size_t i;
	int ret;

	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		pe = nd_ep_peer(en, q, infos, &peer);
		if (!pe)
			return nd_err_set(e, -EPROTO, "rank %u published no QP %u of flow %u",
					  peer, q->idx, q->flow->id);
		if (infos[peer].ib != en->dev->ib)
			return nd_err_set(e, -EINVAL, "rank %u (%s) is on %s and this rank on %s: "
					  "one fabric per job", peer, infos[peer].host,
					  infos[peer].ib ? "InfiniBand" : "Ethernet",
					  en->dev->ib ? "InfiniBand" : "Ethernet");
		nd_ep_take_remote(q, pe);
		ret = nd_ep_post_recvs(en, q, e);
		if (!ret)
			ret = to_rtr_rts(en, q, &infos[peer], pe, e);
		if (ret)
			return ret;
		q->connected = true;
	}
	return 0;
}

int nd_ep_repost(struct nd_engine *en, struct nd_qp *q, uint32_t slot)
{
	size_t sz = q->probe ? nd_ep_align(nd_gen_probe_size(en->job)) : en->slot_size;
	struct ibv_sge sge = {
		.addr = en->mem->nic_base + q->rxbuf + (slot % (q->rxslots ? q->rxslots : 1)) * sz,
		.length = (uint32_t)(q->probe ? nd_gen_probe_size(en->job) : en->slot_size),
		.lkey = en->mem->mr->lkey,
	};
	struct ibv_recv_wr wr = { 0 }, *bad;

	wr.wr_id = ND_WR_ID(q - en->qps, q->probe ? ND_WR_PROBE_RECV : ND_WR_RECV, slot);
	/* a WRITE with immediate consumes a receive but puts no bytes in it */
	wr.sg_list = q->rxslots ? &sge : NULL;
	wr.num_sge = q->rxslots ? 1 : 0;
	return ibv_post_recv(q->qp, &wr, &bad) ? -errno : 0;
}

int nd_ep_post_recvs(struct nd_engine *en, struct nd_qp *q, struct nd_err *e)
{
	uint32_t i;
	int ret;

	for (i = 0; i < q->rx_depth; i++) {
		ret = nd_ep_repost(en, q, i);
		if (ret)
			return nd_err_set(e, ret, "%s: posting receive %u of %u failed: %s",
					  en->dev->name, i, q->rx_depth, strerror(-ret));
	}
	return 0;
}

int nd_ep_fill(struct nd_engine *en, struct nd_err *e)
{
	const struct nd_stress_job *job = en->job;
	uint32_t s, slots, ss = en->slot_size;
	size_t i, buf;
	int ret = 0;

	if (!job->validate)
		return 0;
	for (i = 0; i < en->n_qps && !ret; i++) {
		struct nd_qp *q = &en->qps[i];
		bool src = q->active && job->op != ND_OP_READ;
		bool rsrc = !q->active && job->op == ND_OP_READ;

		if (q->probe || (!src && !rsrc))
			continue;
		/* READ sources: slot s holds "seq" s for its whole size */
		buf = src ? q->lbuf : q->xbuf;
		slots = src ? q->lslots : q->xslots;
		for (s = 0; s < slots && !ret; s++) {
			nd_pl_fill(en->scratch, ss, q->flow->id, q->idx, (uint16_t)s, s, ss);
			ret = nd_mem_put(en->mem, buf + (size_t)s * ss, en->scratch, ss);
		}
	}
	return ret ? nd_err_set(e, ret, "filling the payload patterns failed: %s",
				strerror(-ret)) : 0;
}

bool nd_ep_rate_limit(struct nd_engine *en)
{
	struct ibv_qp_rate_limit_attr rl = { 0 };
	size_t i, limited = 0;

	rl.rate_limit = (uint32_t)(en->job->rate_gbps * 1e6 / en->job->qps);
	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		if (!q->active || q->probe)
			continue;
		if (ibv_modify_qp_rate_limit(q->qp, &rl))
			return false;
		limited++;
	}
	return limited > 0;
}

void nd_ep_destroy(struct nd_engine *en)
{
	size_t i;

	for (i = 0; en->qps && i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		if (q->id) {
			if (q->connected)
				rdma_disconnect(q->id);
			if (q->qp)
				rdma_destroy_qp(q->id);
			rdma_destroy_id(q->id);
		} else if (q->qp) {
			ibv_destroy_qp(q->qp);
		}
		free(q->sig);
		free(q->lsize);
	}
	free(en->qps);
	en->qps = NULL;
	en->n_qps = 0;
}
