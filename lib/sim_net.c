// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The network: hosts and switches joined by links (a port at each end), routing (one switch, or
 * leaf-spine with ECMP by a per-flow hash), transmitters (store and forward: a packet reaches
 * the next node once its last bit has crossed the link) and the switch's forwarding step
 * (ingress accounting, route, egress queue, dequeue with ECN marking).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "sim.h"

#define PKT_POOL_START 4096

void sim_push(struct sim *s, uint64_t t, uint8_t kind, uint32_t ref, uint16_t arg)
{
	if (sim_evq_push(s->evq, t, kind, ref, arg) && !s->err)
		s->err = -ENOMEM;
}

uint32_t sim_pkt_alloc(struct sim *s)
{
	struct sim_pkt *pkt;
	uint32_t p, cap;

	if (s->free_pkt != SIM_NONE) {
		p = s->free_pkt;
		s->free_pkt = s->pkt[p].next;
		return p;
	}
	if (s->n_pkt == s->cap_pkt) {
		/* packets are indexes, so the pool may move; it only grows while queues do */
		cap = s->cap_pkt ? 2 * s->cap_pkt : PKT_POOL_START;
		pkt = cap > s->cap_pkt ? realloc(s->pkt, (size_t)cap * sizeof(*pkt)) : NULL;
		if (!pkt) {
			if (!s->err)
				s->err = -ENOMEM;
			return SIM_NONE;
		}
		s->pkt = pkt;
		s->cap_pkt = cap;
	}
	return s->n_pkt++;
}

void sim_pkt_free(struct sim *s, uint32_t p)
{
	s->pkt[p].next = s->free_pkt;
	s->free_pkt = p;
}

void sim_q_push(struct sim *s, struct sim_q *q, uint32_t p)
{
	s->pkt[p].next = SIM_NONE;
	if (q->n)
		s->pkt[q->tail].next = p;
	else
		q->head = p;
	q->tail = p;
	q->n++;
	q->bytes += s->pkt[p].bytes;
}

uint32_t sim_q_pop(struct sim *s, struct sim_q *q)
{
	uint32_t p = q->head;

	q->head = s->pkt[p].next;
	q->n--;
	q->bytes -= s->pkt[p].bytes;
	return p;
}

uint64_t sim_ser_ps(const struct sim_port *port, unsigned int bytes)
{
	return (uint64_t)bytes * 8 * SIM_PS_PER_S / port->speed_bps;
}

void sim_transmit(struct sim *s, uint32_t pi, uint32_t p)
{
	struct sim_port *port = &s->ports[pi];
	unsigned int bytes = s->pkt[p].bytes;
	uint64_t ser = sim_ser_ps(port, bytes + s->gap);

	port->busy = true;
	port->busy_until = s->now + ser;
	port->tx_bytes += bytes;
	s->pkt[p].in_port = port->peer;
	sim_push(s, s->now + ser, EV_TX_DONE, pi, 0);
	sim_push(s, s->now + ser + port->delay_ps, EV_ARRIVE, p, 0);
}

static uint32_t ecmp(const struct sim *s, uint32_t node, uint32_t hash)
{
	return (uint32_t)(sim_mix64(((uint64_t)node << 32) | hash) % s->sc->topo.spines);
}

/* The egress port of switch @n for packet @p: data goes to the flow's receiver, the rest back. */
static uint32_t route(const struct sim *s, const struct sim_node *n, const struct sim_pkt *p)
{
	const struct sim_flow *f = &s->flows[p->flow];
	const struct nd_sim_topo *t = &s->sc->topo;
	uint32_t dst = p->type == PKT_DATA ? f->dst : f->src, hpl = t->hosts_per_leaf;

	if (t->kind == ND_TOPO_SINGLE)
		return n->port0 + dst;
	if (n->tier == 1)
		return n->port0 + dst / hpl;
	if (dst / hpl == n->index)
		return n->port0 + dst % hpl;
	return n->port0 + hpl + ecmp(s, (uint32_t)(n - s->nodes), f->hash);
}

/* A switch port's next transmission: control first, then data unless paused or out of credit. */
static void switch_kick(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];
	struct sim_q *q = &port->q[SIM_DATA];
	struct sim_pkt *pkt;
	uint64_t qbytes;
	uint32_t p;

	if (port->busy)
		return;
	if (port->q[SIM_CTRL].n) {
		sim_transmit(s, pi, sim_q_pop(s, &port->q[SIM_CTRL]));
		return;
	}
	if (!q->n || port->paused)
		return;
	pkt = &s->pkt[q->head];
	if (s->fabric == ND_FABRIC_IB && !sim_ib_tx_ok(s, pi, pkt->bytes))
		return;
	qbytes = q->bytes;
	p = sim_q_pop(s, q);
	pkt = &s->pkt[p];
	if (s->fabric == ND_FABRIC_IB) {
		sim_ib_release(s, pkt->in_port, pkt->bytes);
		sim_ib_sent(s, pi, pkt->bytes);
	} else {
		/* RED at dequeue: the queue this packet waited in, itself included */
		if (s->sc->ecn.on && sim_ecn_mark(s, qbytes)) {
			pkt->ce = 1;
			port->ecn_marked++;
		}
		sim_pfc_release(s, pkt->in_port, pkt->bytes);
	}
	sim_transmit(s, pi, p);
}

void sim_kick(struct sim *s, uint32_t pi)
{
	const struct sim_node *n = &s->nodes[s->ports[pi].node];

	if (n->sw)
		switch_kick(s, pi);
	else
		sim_host_kick(s, n->index);
}

void sim_on_tx_done(struct sim *s, uint32_t pi)
{
	s->ports[pi].busy = false;
	sim_kick(s, pi);
}

void sim_on_arrive(struct sim *s, uint32_t p)
{
	struct sim_pkt *pkt = &s->pkt[p];
	uint32_t in = pkt->in_port, out;
	const struct sim_node *n = &s->nodes[s->ports[in].node];
	bool data = pkt->type == PKT_DATA;

	if (!n->sw) {
		sim_host_rx(s, n->index, p);
		return;
	}
	/* control packets are a few bytes a flow: they bypass buffer accounting */
	if (data && !(s->fabric == ND_FABRIC_IB ? sim_ib_rx(s, in, pkt->bytes) :
		      sim_pfc_admit(s, in, pkt->bytes))) {
		s->ports[in].drops++;
		s->drops++;
		sim_pkt_free(s, p);
		return;
	}
	out = route(s, n, pkt);
	sim_q_push(s, &s->ports[out].q[data ? SIM_DATA : SIM_CTRL], p);
	if (!s->ports[out].busy)
		switch_kick(s, out);
}

/* ---- building the topology ---- */

unsigned int sim_topo_hosts(const struct nd_sim_topo *t)
{
	if (t->kind == ND_TOPO_SINGLE)
		return t->hosts;
	return t->leaves * t->hosts_per_leaf;
}

static void add_node(struct sim *s, bool sw, uint32_t index, uint32_t tier, uint32_t *port,
		     uint32_t n_ports)
{
	struct sim_node *n = &s->nodes[s->n_nodes];
	uint32_t k;

	for (k = 0; k < n_ports; k++)
		s->ports[*port + k].node = s->n_nodes;
	s->n_nodes++;
	n->sw = sw;
	n->index = index;
	n->tier = tier;
	n->port0 = *port;
	n->n_ports = n_ports;
	*port += n_ports;
}

static void link_ports(struct sim *s, uint32_t a, uint32_t b, const struct nd_sim_link *l)
{
	s->ports[a].peer = b;
	s->ports[b].peer = a;
	s->ports[a].speed_bps = s->ports[b].speed_bps = l->speed_bps;
	s->ports[a].delay_ps = s->ports[b].delay_ps = l->delay_ps;
}

static void wire(struct sim *s)
{
	const struct nd_sim_topo *t = &s->sc->topo;
	uint32_t h, l, sp, H = s->n_hosts, hpl = t->hosts_per_leaf, port = 0;
	const struct sim_node *leaf, *spine;

	for (h = 0; h < H; h++)
		add_node(s, false, h, 0, &port, 1);
	if (t->kind == ND_TOPO_SINGLE) {
		add_node(s, true, 0, 0, &port, H);
		for (h = 0; h < H; h++)
			link_ports(s, h, s->nodes[H].port0 + h, &t->host);
		return;
	}
	for (l = 0; l < t->leaves; l++)
		add_node(s, true, l, 0, &port, hpl + t->spines);
	for (sp = 0; sp < t->spines; sp++)
		add_node(s, true, sp, 1, &port, t->leaves);
	for (l = 0; l < t->leaves; l++) {
		leaf = &s->nodes[H + l];
		for (h = 0; h < hpl; h++)
			link_ports(s, l * hpl + h, leaf->port0 + h, &t->host);
		for (sp = 0; sp < t->spines; sp++) {
			spine = &s->nodes[H + t->leaves + sp];
			link_ports(s, leaf->port0 + hpl + sp, spine->port0 + l, &t->fabric);
		}
	}
}

/* Each lossless PG's headroom: the scenario's, or the basic model for its link. */
static int headroom_of(struct sim *s, struct sim_port *port, struct nd_err *e)
{
	struct nd_headroom h;
	int ret;

	if (s->sc->sw.headroom) {
		port->hdrm_limit = s->sc->sw.headroom;
		return 0;
	}
	ret = nd_headroom_required(port->speed_bps / 1000000, (double)port->delay_ps / 5000.0,
				   s->data_bytes, ND_HDRM_BASIC, &h, e);
	if (ret)
		return nd_err_wrap(e, "switch.headroom: auto");
	port->hdrm_limit = h.size;
	return 0;
}

/* A RoCE switch's shared pool: its buffer less the headroom of its lossless PGs. */
static int shared_pool(struct sim *s, struct sim_node *n, struct nd_err *e)
{
	uint64_t reserved = 0;
	uint32_t k;
	int ret;

	for (k = 0; s->sc->pfc.on && k < n->n_ports; k++) {
		ret = headroom_of(s, &s->ports[n->port0 + k], e);
		if (ret)
			return ret;
		reserved += s->ports[n->port0 + k].hdrm_limit;
	}
	if (reserved >= s->sc->sw.buffer)
		return nd_err_set(e, -EINVAL, "switch.buffer: %llu bytes cannot hold the headroom "
				  "of its %u ports (%llu bytes); give a bigger buffer or a smaller "
				  "switch.headroom", (unsigned long long)s->sc->sw.buffer,
				  n->n_ports, (unsigned long long)reserved);
	n->shared_size = s->sc->sw.buffer - reserved;
	return 0;
}

static int setup_ports(struct sim *s, struct nd_err *e)
{
	const struct nd_sim_pfc *pfc = &s->sc->pfc;
	struct sim_port *port;
	uint64_t mbps;
	uint32_t i;
	int ret;

	for (i = 0; i < s->n_ports; i++) {
		port = &s->ports[i];
		mbps = port->speed_bps / 1000000;
		port->q[SIM_DATA].head = port->q[SIM_CTRL].head = SIM_NONE;
		port->to_host = s->nodes[port->node].sw && !s->nodes[s->ports[port->peer].node].sw;
		port->response_ps = pfc->response_ps;
		if (pfc->response_ps != UINT64_MAX)
			continue;
		if (!nd_pfc_response_quanta(mbps) && pfc->on && s->fabric == ND_FABRIC_ROCE)
			return nd_err_set(e, -EINVAL, "pfc.response: auto knows no pause quanta for "
					  "%llu Mb/s links; give the response time, like 2us",
					  (unsigned long long)mbps);
		port->response_ps = nd_pfc_quanta_ps(nd_pfc_response_quanta(mbps), mbps);
	}
	for (i = 0; i < s->n_nodes; i++) {
		if (!s->nodes[i].sw || s->fabric != ND_FABRIC_ROCE)
			continue;
		ret = shared_pool(s, &s->nodes[i], e);
		if (ret)
			return ret;
	}
	if (s->fabric == ND_FABRIC_IB)
		for (i = 0; i < s->n_ports; i++)
			sim_ib_init_port(s, i);
	return 0;
}

int sim_net_build(struct sim *s, struct nd_err *e)
{
	const struct nd_sim_topo *t = &s->sc->topo;
	uint32_t switches, ports, h;

	s->n_hosts = sim_topo_hosts(t);
	if (t->kind == ND_TOPO_SINGLE) {
		switches = 1;
		ports = 2 * s->n_hosts;
	} else {
		switches = t->leaves + t->spines;
		ports = 2 * s->n_hosts + 2 * t->leaves * t->spines;
	}
	s->nodes = calloc(s->n_hosts + switches, sizeof(*s->nodes));
	s->ports = calloc(ports, sizeof(*s->ports));
	s->hosts = calloc(s->n_hosts, sizeof(*s->hosts));
	if (!s->nodes || !s->ports || !s->hosts)
		return nd_err_set(e, -ENOMEM, "out of memory for a fabric of %u hosts", s->n_hosts);
	s->n_ports = ports;
	s->free_pkt = SIM_NONE;
	wire(s);
	for (h = 0; h < s->n_hosts; h++) {
		s->hosts[h].port = h;
		s->hosts[h].active = SIM_NONE;
	}
	return setup_ports(s, e);
}

void sim_net_free(struct sim *s)
{
	free(s->nodes);
	free(s->ports);
	free(s->hosts);
	free(s->pkt);
	s->nodes = NULL;
	s->ports = NULL;
	s->hosts = NULL;
	s->pkt = NULL;
}

static void node_name(const struct sim *s, uint32_t node, char *buf, size_t size)
{
	const struct sim_node *n = &s->nodes[node];

	if (!n->sw)
		snprintf(buf, size, "h%u", n->index);
	else if (s->sc->topo.kind == ND_TOPO_SINGLE)
		snprintf(buf, size, "sw%u", n->index);
	else
		snprintf(buf, size, "%s%u", n->tier ? "spine" : "leaf", n->index);
}

void sim_port_name(const struct sim *s, uint32_t pi, char *buf, size_t size)
{
	char a[24], b[24];

	node_name(s, s->ports[pi].node, a, sizeof(a));
	if (!s->nodes[s->ports[pi].node].sw) {
		nd_strlcpy(buf, a, size);
		return;
	}
	node_name(s, s->ports[s->ports[pi].peer].node, b, sizeof(b));
	snprintf(buf, size, "%s/%s", a, b);
}
