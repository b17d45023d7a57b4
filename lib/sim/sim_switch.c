// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The switch, as a node kind: ingress accounting (PFC's priority groups, or InfiniBand's VL
 * buffer), routing (one switch, or leaf-spine with ECMP by a per-flow hash), an egress queue per
 * class, and dequeue with ECN marking.
 */
#include "sim_core.h"

static uint32_t ecmp(const struct sim *s, uint32_t node, uint32_t hash)
{
	return (uint32_t)(sim_mix64(((uint64_t)node << 32) | hash) % s->sc->topo.spines);
}

/* The egress port of switch @n toward flow @fi's receiver (@data) or back to its sender. */
uint32_t sim_switch_route(const struct sim *s, const struct sim_node *n, uint32_t fi, bool data)
{
	const struct sim_flow *f = &s->flows[fi];
	const struct nd_sim_topo *t = &s->sc->topo;
	uint32_t dst = data ? f->dst : f->src, hpl = t->hosts_per_leaf;

	if (t->kind == ND_TOPO_SINGLE)
		return n->port0 + dst;
	if (n->tier == 1)
		return n->port0 + dst / hpl;
	if (dst / hpl == n->index)
		return n->port0 + dst % hpl;
	return n->port0 + hpl + ecmp(s, (uint32_t)(n - s->nodes), f->hash);
}

/* A switch port's next transmission: control first, then data unless paused or out of credit. */
void sim_switch_kick(struct sim *s, uint32_t pi)
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
	sim_qdepth_note(s, pi);
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

void sim_switch_rx(struct sim *s, uint32_t p)
{
	struct sim_pkt *pkt = &s->pkt[p];
	uint32_t in = pkt->in_port, out;
	const struct sim_node *n = &s->nodes[s->ports[in].node];
	bool data = pkt->type == PKT_DATA;

	/* control packets are a few bytes a flow: they bypass buffer accounting */
	if (data && !(s->fabric == ND_FABRIC_IB ? sim_ib_rx(s, in, pkt->bytes) :
		      sim_pfc_admit(s, in, pkt->bytes))) {
		s->ports[in].drops++;
		s->drops++;
		sim_pkt_free(s, p);
		return;
	}
	out = sim_switch_route(s, n, pkt->flow, data);
	if (data) {
		struct sim_port *o = &s->ports[out];

		sim_qdepth_note(s, out);
		sim_q_push(s, &o->q[SIM_DATA], p);
		if (o->q[SIM_DATA].bytes > o->qd_max)
			o->qd_max = o->q[SIM_DATA].bytes;
	} else {
		sim_q_push(s, &s->ports[out].q[SIM_CTRL], p);
	}
	if (!s->ports[out].busy)
		sim_switch_kick(s, out);
}

const struct sim_node_ops sim_switch_ops = {
	.kick = sim_switch_kick,
	.rx = sim_switch_rx,
};
