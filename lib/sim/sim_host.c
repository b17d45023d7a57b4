// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The NIC: a ring of flows with data, served round robin, each paced at its DCQCN rate (line rate
 * without DCQCN); the port sends control packets first and data only when not paused and (on
 * InfiniBand) with credit. Reliable connected transport, go-back-N: the receiver takes packets
 * in order only, ACKs every ack_every and the last, NAKs the first gap once; the sender rewinds
 * to the NAK'd PSN, or to the oldest unacknowledged one when the retransmission timer finds no
 * progress. A flow completes when the sender sees its last ACK (HPCC's FCT). The network reaches
 * it through sim_host_ops.
 */
#include "sim_core.h"

static bool has_data(const struct sim_flow *f)
{
	return !f->done && (!f->npkts || f->snd_nxt < f->npkts);
}

static void ring_add(struct sim *s, struct sim_host *h, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	if (h->active == SIM_NONE) {
		f->next_active = f->prev_active = fi;
		h->active = fi;
	} else {
		/* just behind the cursor: last in this round */
		struct sim_flow *head = &s->flows[h->active];

		f->next_active = h->active;
		f->prev_active = head->prev_active;
		s->flows[head->prev_active].next_active = fi;
		head->prev_active = fi;
	}
	f->active = true;
	h->n_active++;
}

static void ring_del(struct sim *s, struct sim_host *h, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	if (!f->active)
		return;
	f->active = false;
	if (--h->n_active == 0) {
		h->active = SIM_NONE;
		return;
	}
	s->flows[f->prev_active].next_active = f->next_active;
	s->flows[f->next_active].prev_active = f->prev_active;
	if (h->active == fi)
		h->active = f->next_active;
}

static unsigned int payload_of(const struct sim *s, const struct sim_flow *f, uint32_t psn)
{
	if (f->npkts && psn == f->npkts - 1)
		return (unsigned int)(f->size - (uint64_t)psn * s->sc->mtu);
	return s->sc->mtu;
}

static void arm_rto(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	if (f->rto_armed)
		return;
	f->rto_armed = true;
	f->rto_una = f->snd_una;
	sim_push(s, s->now + s->sc->rto_ps, EV_RTO, fi, 0);
}

static void send_data(struct sim *s, uint32_t host, uint32_t fi, unsigned int bytes)
{
	uint32_t pi = s->hosts[host].port, p = sim_pkt_alloc(s);
	const struct nd_sim_dcqcn *cc = &s->sc->dcqcn;
	struct sim_flow *f = &s->flows[fi];
	struct sim_pkt *pkt;
	double rate;

	if (p == SIM_NONE)
		return;
	pkt = &s->pkt[p];
	pkt->flow = fi;
	pkt->psn = f->snd_nxt++;
	pkt->bytes = (uint16_t)bytes;
	pkt->type = PKT_DATA;
	pkt->ce = 0;
	s->packets++;
	if (s->fabric == ND_FABRIC_IB)
		sim_ib_sent(s, pi, bytes);
	rate = s->fabric == ND_FABRIC_ROCE && cc->on ? f->cc.rc : f->cc.line;
	f->next_tx = s->now + (uint64_t)((bytes + s->gap) * 8.0 * SIM_PS_PER_S / rate);
	if (s->fabric == ND_FABRIC_ROCE && cc->on)
		sim_dcqcn_sent(&f->cc, cc, bytes);
	arm_rto(s, fi);
	sim_transmit(s, pi, p);
}

static void host_kick(struct sim *s, uint32_t host)
{
	struct sim_host *h = &s->hosts[host];
	struct sim_port *port = &s->ports[h->port];
	uint64_t soonest = UINT64_MAX;
	struct sim_flow *f;
	unsigned int bytes;
	uint32_t fi, k;

	if (port->busy)
		return;
	if (port->q[SIM_CTRL].n) {
		sim_transmit(s, h->port, sim_q_pop(s, &port->q[SIM_CTRL]));
		return;
	}
	if (port->paused)
		return;
	fi = h->active;
	for (k = 0; k < h->n_active; k++, fi = f->next_active) {
		f = &s->flows[fi];
		if (!has_data(f))
			continue;
		if (f->next_tx > s->now) {
			if (f->next_tx < soonest)
				soonest = f->next_tx;
			continue;
		}
		bytes = payload_of(s, f, f->snd_nxt) + s->hdr;
		if (s->fabric == ND_FABRIC_IB && !sim_ib_tx_ok(s, h->port, bytes))
			return;
		h->active = f->next_active;
		send_data(s, host, fi, bytes);
		return;
	}
	if (soonest != UINT64_MAX && (!h->wake_at || soonest < h->wake_at)) {
		h->wake_at = soonest;
		sim_push(s, soonest, EV_WAKE, host, 0);
	}
}

static void send_ctrl(struct sim *s, uint32_t host, uint32_t fi, enum sim_pkt_type type,
		      uint32_t psn)
{
	uint32_t pi = s->hosts[host].port, p = sim_pkt_alloc(s);
	struct sim_pkt *pkt;

	if (p == SIM_NONE)
		return;
	pkt = &s->pkt[p];
	pkt->flow = fi;
	pkt->psn = psn;
	pkt->bytes = (uint16_t)(SIM_CTRL_PAYLOAD + s->hdr);
	pkt->type = (uint8_t)type;
	pkt->ce = 0;
	sim_q_push(s, &s->ports[pi].q[SIM_CTRL], p);
	if (!s->ports[pi].busy)
		host_kick(s, host);
}

static void finish_flow(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	f->done = true;
	f->done_at = s->now;
	ring_del(s, &s->hosts[f->src], fi);
}

/* An ACK or NAK for @psn: everything before it arrived. */
static void on_ack(struct sim *s, uint32_t fi, uint32_t psn, bool nak)
{
	struct sim_flow *f = &s->flows[fi];

	if (f->done)
		return;
	if (psn > f->snd_una)
		f->snd_una = psn;
	if (f->npkts && f->snd_una >= f->npkts) {
		finish_flow(s, fi);
		return;
	}
	if (nak && f->snd_nxt > psn) {
		f->retransmits += f->snd_nxt - psn;
		s->retransmits += f->snd_nxt - psn;
		f->snd_nxt = psn;
		host_kick(s, f->src);
	}
}

static void deliver(struct sim *s, uint32_t fi, unsigned int bytes)
{
	struct sim_flow *f = &s->flows[fi];
	unsigned int payload = bytes - s->hdr;
	size_t slot;

	f->rcv_nxt++;
	f->rx_bytes += payload;
	f->rx_pkts++;
	f->nack_sent = false;
	if (s->n_series) {
		slot = (size_t)(s->now / s->sc->series_ps);
		if (slot < s->n_series)
			s->series[(size_t)fi * s->n_series + slot] += payload;
	}
	if (f->npkts && f->rcv_nxt == f->npkts) {
		f->rx_done = true;
		f->rx_done_at = s->now;
		f->since_ack = 0;
		send_ctrl(s, f->dst, fi, PKT_ACK, f->rcv_nxt);
	} else if (++f->since_ack >= s->sc->ack_every) {
		f->since_ack = 0;
		send_ctrl(s, f->dst, fi, PKT_ACK, f->rcv_nxt);
	}
}

void sim_host_rx(struct sim *s, uint32_t p)
{
	/* copy out first: sending a reply may grow (move) the packet pool */
	struct sim_pkt pkt = s->pkt[p];
	struct sim_flow *f = &s->flows[pkt.flow];

	sim_pkt_free(s, p);
	switch (pkt.type) {
	case PKT_DATA:
		if (pkt.ce && s->fabric == ND_FABRIC_ROCE && s->sc->dcqcn.on &&
		    sim_np_on_ce(s, pkt.flow))
			send_ctrl(s, f->dst, pkt.flow, PKT_CNP, 0);
		if (pkt.psn == f->rcv_nxt) {
			deliver(s, pkt.flow, pkt.bytes);
		} else if (pkt.psn > f->rcv_nxt && !f->nack_sent) {
			f->nack_sent = true;
			send_ctrl(s, f->dst, pkt.flow, PKT_NACK, f->rcv_nxt);
		}
		break;
	case PKT_ACK:
	case PKT_NACK:
		on_ack(s, pkt.flow, pkt.psn, pkt.type == PKT_NACK);
		break;
	case PKT_CNP:
		sim_dcqcn_on_cnp(s, pkt.flow);
		break;
	}
}

void sim_host_kick(struct sim *s, uint32_t pi)
{
	host_kick(s, s->nodes[s->ports[pi].node].index);
}

const struct sim_node_ops sim_host_ops = {
	.kick = sim_host_kick,
	.rx = sim_host_rx,
};

void sim_on_wake(struct sim *s, uint32_t host)
{
	if (s->hosts[host].wake_at == s->now)
		s->hosts[host].wake_at = 0;
	host_kick(s, host);
}

void sim_on_start(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	f->next_tx = s->now;
	ring_add(s, &s->hosts[f->src], fi);
	if (!s->ports[s->hosts[f->src].port].busy)
		host_kick(s, f->src);
}

void sim_on_rto(struct sim *s, uint32_t fi)
{
	struct sim_flow *f = &s->flows[fi];

	f->rto_armed = false;
	if (f->done || f->snd_una >= f->snd_nxt)
		return;
	if (f->snd_una == f->rto_una) {
		f->retransmits += f->snd_nxt - f->snd_una;
		s->retransmits += f->snd_nxt - f->snd_una;
		f->snd_nxt = f->snd_una;
		host_kick(s, f->src);
	}
	arm_rto(s, fi);
}
