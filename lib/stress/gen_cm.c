// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm connection by IP address: the data source of each flow connects, the sink listens
 * (one CM id per rank, port chosen by the kernel and published at rendezvous). The ToS goes on
 * each id with RDMA_OPTION_ID_TOS once its address is resolved, so the lossless priority is
 * used from the very first packet. A connection request says in its private data which flow
 * and QP it is for; anything else is rejected.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>

#include "gen_rt.h"

#define RESOLVE_MS 5000

static int cm_fail(struct nd_engine *en, struct nd_qp *q, const char *what, int status,
		   struct nd_err *e)
{
	return nd_err_set(e, -ECONNREFUSED, "rdma_cm: flow %u QP %u (%s): %s%s%s", q->flow->id,
			  q->idx, en->dev->addr, what, status ? ": " : "",
			  status ? strerror(status < 0 ? -status : status) : "");
}

static int peer_sockaddr(const struct nd_gen_rank_info *pi, struct sockaddr_storage *ss)
{
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (inet_pton(AF_INET, pi->addr, &s4->sin_addr) == 1) {
		s4->sin_family = AF_INET;
		s4->sin_port = htons(pi->cm_port);
		return 0;
	}
	if (inet_pton(AF_INET6, pi->addr, &s6->sin6_addr) == 1) {
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(pi->cm_port);
		return 0;
	}
	return -EINVAL;
}

static void set_options(struct nd_engine *en, struct rdma_cm_id *id)
{
	uint8_t tos = (uint8_t)en->job->tos;
	uint8_t timeout = (uint8_t)en->job->qp_timeout;

	/* -1: leave rdma_cm's defaults (configfs default_roce_tos, the path's lifetime) */
	if (en->job->tos >= 0)
		rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_TOS, &tos, sizeof(tos));
	if (en->job->qp_timeout >= 0)
		rdma_set_option(id, RDMA_OPTION_ID, RDMA_OPTION_ID_ACK_TIMEOUT, &timeout,
				sizeof(timeout));
}

static struct rdma_conn_param conn_param(const struct nd_engine *en, const uint8_t *priv)
{
	struct rdma_conn_param p = { 0 };
	uint8_t rd = (uint8_t)(en->dev->attr.max_qp_rd_atom < 16 ? en->dev->attr.max_qp_rd_atom :
			       16);

	p.private_data = priv;
	p.private_data_len = priv ? ND_CM_PRIV_LEN : 0;
	p.responder_resources = rd;
	p.initiator_depth = rd;
	p.retry_count = 7;
	p.rnr_retry_count = 7;
	return p;
}

static int make_qp(struct nd_engine *en, struct nd_qp *q, struct rdma_cm_id *id,
		   struct nd_err *e)
{
	struct ibv_qp_init_attr a;

	if (id->verbs != en->dev->ctx)
		return cm_fail(en, q, "the route leaves through another RDMA device", 0, e);
	nd_ep_qp_attr(en, q, &a);
	if (rdma_create_qp(id, en->dev->pd, &a))
		return cm_fail(en, q, "rdma_create_qp", errno, e);
	q->qp = id->qp;
	q->id = id;
	id->context = q;
	return nd_ep_post_recvs(en, q, e);
}

static int start_connects(struct nd_engine *en, const struct nd_gen_rank_info *infos,
			  struct nd_err *e)
{
	struct sockaddr_storage ss;
	const struct nd_gen_ep *pe;
	struct rdma_cm_id *id;
	uint32_t peer;
	size_t i;

	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		pe = nd_ep_peer(en, q, infos, &peer);
		if (!pe)
			return nd_err_set(e, -EPROTO, "rank %u published no QP %u of flow %u", peer,
					  q->idx, q->flow->id);
		nd_ep_take_remote(q, pe);
		if (q->flow->src != en->rank)
			continue;	/* the sink accepts */
		if (peer_sockaddr(&infos[peer], &ss))
			return nd_err_set(e, -EPROTO, "rank %u published no usable address", peer);
		if (rdma_create_id(en->dev->cm_ch, &id, q, RDMA_PS_TCP))
			return cm_fail(en, q, "rdma_create_id", errno, e);
		q->id = id;
		if (rdma_resolve_addr(id, NULL, (struct sockaddr *)&ss, RESOLVE_MS))
			return cm_fail(en, q, "rdma_resolve_addr", errno, e);
	}
	return 0;
}

static struct nd_qp *find_sink(struct nd_engine *en, uint32_t flow, uint16_t idx)
{
	size_t i;

	for (i = 0; i < en->n_qps; i++) {
		struct nd_qp *q = &en->qps[i];

		if (q->flow->id == flow && q->idx == idx && q->flow->dst == en->rank && !q->id)
			return q;
	}
	return NULL;
}

/* A refused request's id can only be destroyed once its event is acked: *@drop. */
static int on_request(struct nd_engine *en, struct rdma_cm_event *ev, struct rdma_cm_id **drop,
		      struct nd_err *e)
{
	struct rdma_conn_param p = conn_param(en, NULL);
	uint32_t flow, src;
	struct nd_qp *q;
	uint16_t idx;
	int ret;

	if (nd_gen_cm_priv_decode(ev->param.conn.private_data, ev->param.conn.private_data_len,
				  &flow, &idx, &src) ||
	    !(q = find_sink(en, flow, idx)) || q->flow->src != src) {
		/* not ours (another job, a duplicate): refuse it, keep going */
		rdma_reject(ev->id, NULL, 0);
		*drop = ev->id;
		return 0;
	}
	set_options(en, ev->id);
	ret = make_qp(en, q, ev->id, e);
	if (ret)
		return ret;
	if (rdma_accept(ev->id, &p))
		return cm_fail(en, q, "rdma_accept", errno, e);
	return 0;
}

static int on_event(struct nd_engine *en, struct rdma_cm_event *ev, size_t *up,
		    struct rdma_cm_id **drop, struct nd_err *e)
{
	struct nd_qp *q = ev->id->context;
	uint8_t priv[ND_CM_PRIV_LEN];
	struct rdma_conn_param p;

	if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST)
		return on_request(en, ev, drop, e);
	if (!q)
		return 0;
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		set_options(en, ev->id);
		if (rdma_resolve_route(ev->id, RESOLVE_MS))
			return cm_fail(en, q, "rdma_resolve_route", errno, e);
		return 0;
	case RDMA_CM_EVENT_ROUTE_RESOLVED:
		if (make_qp(en, q, ev->id, e))
			return e->code;
		nd_gen_cm_priv_encode(priv, q->flow->id, q->idx, en->rank);
		p = conn_param(en, priv);
		if (rdma_connect(ev->id, &p))
			return cm_fail(en, q, "rdma_connect", errno, e);
		return 0;
	case RDMA_CM_EVENT_ESTABLISHED:
		q->connected = true;
		(*up)++;
		return 0;
	case RDMA_CM_EVENT_REJECTED:
		return cm_fail(en, q, "the peer rejected the connection", 0, e);
	default:
		return cm_fail(en, q, rdma_event_str(ev->event), ev->status, e);
	}
}

int nd_ep_connect_cm(struct nd_engine *en, const struct nd_gen_rank_info *infos,
		     struct nd_err *e)
{
	uint64_t until = nd_gen_now_ns() + (uint64_t)(en->rv->timeout_s * 1e9);
	struct pollfd pfd = { en->dev->cm_ch->fd, POLLIN, 0 };
	struct rdma_cm_id *drop;
	struct rdma_cm_event *ev;
	size_t up = 0;
	int ret;

	ret = start_connects(en, infos, e);
	while (!ret && up < en->n_qps) {
		if (en->local->stop && *en->local->stop)
			return nd_err_set(e, -EINTR, "interrupted while connecting");
		if (nd_gen_now_ns() > until)
			return nd_err_set(e, -ETIMEDOUT, "rdma_cm: %zu of %zu QPs connected within "
					  "%.0f s (a peer's address unreachable over RDMA?)", up,
					  en->n_qps, en->rv->timeout_s);
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (rdma_get_cm_event(en->dev->cm_ch, &ev))
			return nd_err_set(e, -errno, "rdma_get_cm_event: %s", strerror(errno));
		drop = NULL;
		ret = on_event(en, ev, &up, &drop, e);
		rdma_ack_cm_event(ev);
		if (drop)
			rdma_destroy_id(drop);
	}
	if (!ret)
		fcntl(en->dev->cm_ch->fd, F_SETFL, fcntl(en->dev->cm_ch->fd, F_GETFL) | O_NONBLOCK);
	return ret;
}

int nd_cm_poll(struct nd_engine *en, struct nd_err *e)
{
	struct rdma_cm_id *drop;
	struct rdma_cm_event *ev;
	struct nd_qp *q;
	uint32_t peer;
	int ret = 0;

	if (!en->dev->cm_ch)
		return 0;
	while (!ret && !rdma_get_cm_event(en->dev->cm_ch, &ev)) {
		drop = NULL;
		q = ev->id->context;
		if (q && (ev->event == RDMA_CM_EVENT_DISCONNECTED ||
			  ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL)) {
			q->connected = false;
			peer = q->flow->src == en->rank ? q->flow->dst : q->flow->src;
			if (!en->stopping)
				ret = nd_err_set(e, -ECONNRESET, "rank %u disconnected flow "
						 "%u QP %u mid-run (%s)", peer, q->flow->id,
						 q->idx, rdma_event_str(ev->event));
		} else if (ev->event == RDMA_CM_EVENT_CONNECT_REQUEST) {
			rdma_reject(ev->id, NULL, 0);
			drop = ev->id;
		}
		rdma_ack_cm_event(ev);
		if (drop)
			rdma_destroy_id(drop);
	}
	return ret;
}
