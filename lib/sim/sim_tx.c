// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Sending, which every part of the model shares: event pushes, the packet pool, a port's
 * transmitter (store and forward: a packet reaches the next node once its last bit has crossed
 * the link) and sim_kick; the FIFO queues are inline in sim_core.h. A node is reached only through
 * its struct sim_node_ops, so the parts and node kinds above call down into this file and never
 * the other way.
 */
#include <errno.h>
#include <stdlib.h>

#include "sim_core.h"

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
	sim_push(s, s->now + ser + port->delay_ps, EV_ARRIVE, p, port->peer_sw);
}

void sim_kick(struct sim *s, uint32_t pi)
{
	s->nodes[s->ports[pi].node].ops->kick(s, pi);
}
