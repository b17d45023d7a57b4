// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * InfiniBand link-level flow control for the data VL, as the spec counts it: the receiver
 * advertises FCCL = ABR + free blocks (64 bytes each) modulo 4096, the sender keeps FCTBS (blocks
 * sent modulo 4096) and may send a packet of b blocks only if (FCCL - (FCTBS + b)) mod 4096 <=
 * 2048. A packet waits for credits; a buffer never overflows, so nothing is dropped. The time a
 * port has something to send and no credit is its credit wait (PortXmitWait). Host receivers
 * drain at line rate and always have room; control packets ride a VL with credit to spare.
 */
#include "sim_core.h"

#define IB_MOD 4096u

bool sim_ib_can_send(uint16_t fccl, uint16_t fctbs, unsigned int blocks)
{
	return ((unsigned int)fccl - ((unsigned int)fctbs + blocks)) % IB_MOD <= IB_MOD / 2;
}

void sim_wait_start(struct sim *s, struct sim_port *port)
{
	if (port->waiting)
		return;
	port->waiting = true;
	port->wait_start = s->now;
}

void sim_wait_stop(struct sim *s, struct sim_port *port)
{
	if (!port->waiting)
		return;
	port->waiting = false;
	port->wait_ps += s->now - port->wait_start;
}

bool sim_ib_tx_ok(struct sim *s, uint32_t pi, unsigned int bytes)
{
	struct sim_port *port = &s->ports[pi];

	if (sim_to_host(port) || sim_ib_can_send(port->fccl, port->fctbs, sim_ib_blocks(bytes)))
		return true;
	sim_wait_start(s, port);
	return false;
}

void sim_ib_sent(struct sim *s, uint32_t pi, unsigned int bytes)
{
	struct sim_port *port = &s->ports[pi];

	if (sim_to_host(port))
		return;
	port->fctbs = (uint16_t)((port->fctbs + sim_ib_blocks(bytes)) % IB_MOD);
	sim_wait_stop(s, port);
}

bool sim_ib_rx(struct sim *s, uint32_t in, unsigned int bytes)
{
	struct sim_port *port = &s->ports[in];
	unsigned int blocks = sim_ib_blocks(bytes);

	if (blocks > port->free_blocks)
		return false;
	port->free_blocks -= blocks;
	port->abr = (uint16_t)((port->abr + blocks) % IB_MOD);
	return true;
}

void sim_ib_release(struct sim *s, uint32_t in, unsigned int bytes)
{
	struct sim_port *port = &s->ports[in];
	uint16_t fccl;

	port->free_blocks += sim_ib_blocks(bytes);
	fccl = (uint16_t)((port->abr + port->free_blocks) % IB_MOD);
	/* the update carries the limit as of now; it lands after the cable */
	sim_push(s, s->now + port->delay_ps, EV_CREDIT, port->peer, fccl);
}

void sim_on_credit(struct sim *s, uint32_t pi, uint16_t fccl)
{
	s->ports[pi].fccl = fccl;
	if (!s->ports[pi].busy)
		sim_kick(s, pi);
}

void sim_ib_init_port(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];
	uint32_t blocks = s->sc->ib.vl_buffer / SIM_IB_BLOCK;

	/* a switch receiver advertises its VL buffer; its upstream starts with FCCL = that */
	if (s->nodes[port->node].sw)
		port->free_blocks = blocks;
	if (!sim_to_host(port))
		port->fccl = (uint16_t)(blocks % IB_MOD);
}
