// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PFC in a shared-buffer switch, per ingress priority group (PG): a packet is charged to the
 * shared pool while its PG is under the threshold (static, or alpha x the free shared buffer as
 * shared-buffer ASICs do), else to the PG's headroom, and that is when PAUSE goes upstream.
 * With no headroom left it is dropped: the loss PFC exists to prevent, when headroom is too
 * small for the cable. Bytes leave the headroom first (as HPCC's switch model does), so RESUME
 * goes once the headroom is empty and the PG is xon-offset under the threshold.
 *
 * A PAUSE reaches the upstream port after the frame now on the wire, its own 84 bytes, the
 * cable, and the upstream's response time: the terms of the basic headroom model. It lasts
 * quanta x 512 bit times unless refreshed (at half time while the PG stays over) or resumed.
 */
#include "sim_core.h"

#define PFC_FRAME 64

uint64_t sim_pfc_threshold(const struct sim *s, const struct sim_node *n)
{
	const struct nd_sim_switch *sw = &s->sc->sw;

	if (sw->alpha <= 0)
		return sw->threshold;
	return (uint64_t)(sw->alpha * (double)(n->shared_size - n->shared_used));
}

static void send_pfc(struct sim *s, uint32_t in, uint16_t quanta)
{
	struct sim_port *port = &s->ports[in];
	uint64_t t = port->busy && port->busy_until > s->now ? port->busy_until : s->now;

	t += sim_ser_ps(port, PFC_FRAME + s->gap) + port->delay_ps +
	     s->ports[port->peer].response_ps;
	sim_push(s, t, EV_PFC, port->peer, quanta);
	if (quanta)
		port->pause_tx++;
}

static uint64_t quanta_ps(const struct sim_port *port, unsigned int quanta)
{
	return nd_pfc_quanta_ps(quanta, port->speed_bps / 1000000);
}

static void send_xoff(struct sim *s, uint32_t in)
{
	struct sim_port *port = &s->ports[in];
	struct sim_pg *pg = &port->pg[SIM_DATA];
	unsigned int quanta = s->sc->pfc.quanta;

	pg->xoff = true;
	pg->gen++;
	send_pfc(s, in, (uint16_t)quanta);
	sim_push(s, s->now + quanta_ps(port, quanta) / 2, EV_XOFF_REFRESH, in, pg->gen);
}

void sim_on_xoff_refresh(struct sim *s, uint32_t in, uint16_t gen)
{
	struct sim_port *port = &s->ports[in];
	struct sim_pg *pg = &port->pg[SIM_DATA];

	if (!pg->xoff || pg->gen != gen)
		return;
	send_pfc(s, in, (uint16_t)s->sc->pfc.quanta);
	sim_push(s, s->now + quanta_ps(port, s->sc->pfc.quanta) / 2, EV_XOFF_REFRESH, in, gen);
}

bool sim_pfc_admit(struct sim *s, uint32_t in, unsigned int bytes)
{
	struct sim_port *port = &s->ports[in];
	struct sim_node *n = &s->nodes[port->node];
	struct sim_pg *pg = &port->pg[SIM_DATA];

	if (pg->shared + bytes <= sim_pfc_threshold(s, n) &&
	    n->shared_used + bytes <= n->shared_size) {
		pg->shared += bytes;
		n->shared_used += bytes;
		return true;
	}
	/* a lossy priority drops over its threshold */
	if (!s->sc->pfc.on)
		return false;
	if (!pg->xoff)
		send_xoff(s, in);
	if (pg->hdrm + bytes > port->hdrm_limit)
		return false;
	pg->hdrm += bytes;
	return true;
}

void sim_pfc_release(struct sim *s, uint32_t in, unsigned int bytes)
{
	struct sim_port *port = &s->ports[in];
	struct sim_node *n = &s->nodes[port->node];
	struct sim_pg *pg = &port->pg[SIM_DATA];
	uint64_t from_hdrm = pg->hdrm < bytes ? pg->hdrm : bytes;

	pg->hdrm -= from_hdrm;
	pg->shared -= bytes - from_hdrm;
	n->shared_used -= bytes - from_hdrm;
	if (!pg->xoff || pg->hdrm)
		return;
	if (!pg->shared || pg->shared + s->sc->sw.xon_offset <= sim_pfc_threshold(s, n)) {
		pg->xoff = false;
		pg->gen++;
		send_pfc(s, in, 0);
	}
}

static void unpause(struct sim *s, struct sim_port *port)
{
	port->paused = false;
	port->paused_ps += s->now - port->pause_start;
}

void sim_on_pfc(struct sim *s, uint32_t pi, uint16_t quanta)
{
	struct sim_port *port = &s->ports[pi];

	if (!quanta) {
		if (port->paused)
			unpause(s, port);
		sim_kick(s, pi);
		return;
	}
	port->pause_rx++;
	port->pause_until = s->now + quanta_ps(port, quanta);
	if (!port->paused) {
		port->paused = true;
		port->pause_start = s->now;
	}
	port->pause_gen++;
	sim_push(s, port->pause_until, EV_PAUSE_END, pi, port->pause_gen);
}

void sim_on_pause_end(struct sim *s, uint32_t pi, uint16_t gen)
{
	struct sim_port *port = &s->ports[pi];

	if (!port->paused || port->pause_gen != gen)
		return;
	unpause(s, port);
	sim_kick(s, pi);
}

void sim_pfc_finish(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];

	if (port->paused)
		unpause(s, port);
}
