// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The network as built from the scenario's topology: hosts and switches, each with the ops of
 * its kind, joined by links (a port at each end); each port's PFC response and headroom, each
 * RoCE switch's shared pool, InfiniBand's initial credits; and the names the report gives ports.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim_core.h"

/*
 * The link's events, most of the loop's, reach the node through its ops; the two kinds there are
 * get direct calls (the kernel's INDIRECT_CALL_2): a plain indirect call here cost 5 % of a RoCE
 * incast's run time. The node's kind comes with the port (and an arrival's with its event), not
 * from the node: at 4096 hosts the packet, its port and the node were three dependent cache
 * misses before the handler began.
 */
static const struct sim_node_ops *kind_ops(bool sw)
{
	return sw ? &sim_switch_ops : &sim_host_ops;
}

void sim_on_tx_done(struct sim *s, uint32_t pi)
{
	struct sim_port *port = &s->ports[pi];

	port->busy = false;
	SIM_INDIRECT_CALL_2(kind_ops(port->sw)->kick, sim_switch_kick, sim_host_kick, s, pi);
}

void sim_on_arrive(struct sim *s, uint32_t p, bool sw)
{
	SIM_INDIRECT_CALL_2(kind_ops(sw)->rx, sim_switch_rx, sim_host_rx, s, p);
}

/* ---- building it ---- */

static void add_node(struct sim *s, bool sw, uint32_t index, uint32_t tier, uint32_t *port,
		     uint32_t n_ports)
{
	struct sim_node *n = &s->nodes[s->n_nodes];
	uint32_t k;

	for (k = 0; k < n_ports; k++)
		s->ports[*port + k].node = s->n_nodes;
	s->n_nodes++;
	n->sw = sw;
	n->ops = sw ? &sim_switch_ops : &sim_host_ops;
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

/* The last link's headroom: a fabric has a few kinds of link, a big one thousands of ports. */
struct hdrm_memo {
	uint64_t speed_bps, delay_ps, size;
};

/* Each lossless PG's headroom: the scenario's, or the basic model for its link. */
static int headroom_of(struct sim *s, struct sim_port *port, struct hdrm_memo *m,
		       struct nd_err *e)
{
	struct nd_headroom h;
	int ret;

	if (s->sc->sw.headroom) {
		port->hdrm_limit = s->sc->sw.headroom;
		return 0;
	}
	if (m->size && m->speed_bps == port->speed_bps && m->delay_ps == port->delay_ps) {
		port->hdrm_limit = m->size;
		return 0;
	}
	ret = nd_headroom_required(port->speed_bps / 1000000, (double)port->delay_ps / 5000.0,
				   s->data_bytes, ND_HDRM_BASIC, &h, e);
	if (ret)
		return nd_err_wrap(e, "switch.headroom: auto");
	port->hdrm_limit = h.size;
	*m = (struct hdrm_memo){ port->speed_bps, port->delay_ps, h.size };
	return 0;
}

/* A RoCE switch's shared pool: its buffer less the headroom of its lossless PGs. */
static int shared_pool(struct sim *s, struct sim_node *n, struct hdrm_memo *m, struct nd_err *e)
{
	uint64_t reserved = 0;
	uint32_t k;
	int ret;

	for (k = 0; s->sc->pfc.on && k < n->n_ports; k++) {
		ret = headroom_of(s, &s->ports[n->port0 + k], m, e);
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
	struct hdrm_memo memo = { 0 };
	struct sim_port *port;
	uint64_t mbps;
	uint32_t i;
	int ret;

	for (i = 0; i < s->n_ports; i++) {
		port = &s->ports[i];
		mbps = port->speed_bps / 1000000;
		port->q[SIM_DATA].head = port->q[SIM_CTRL].head = SIM_NONE;
		port->sw = s->nodes[port->node].sw;
		port->peer_sw = s->nodes[s->ports[port->peer].node].sw;
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
		ret = shared_pool(s, &s->nodes[i], &memo, e);
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
	wire(s);
	for (h = 0; h < s->n_hosts; h++) {
		s->hosts[h].port = h;
		s->hosts[h].active = SIM_NONE;
	}
	return setup_ports(s, e);
}

void sim_net_free(struct sim *s)
{
	if (s->ports)
		sim_qdepth_free(s);
	free(s->nodes);
	free(s->ports);
	free(s->hosts);
	s->nodes = NULL;
	s->ports = NULL;
	s->hosts = NULL;
}

/* A node's name as a prefix and a number: h3, sw0, leaf1, spine2. */
static const char *node_kind(const struct sim *s, uint32_t node)
{
	const struct sim_node *n = &s->nodes[node];

	if (!n->sw)
		return "h";
	if (s->sc->topo.kind == ND_TOPO_SINGLE)
		return "sw";
	return n->tier ? "spine" : "leaf";
}

/* A host's port by its host, a switch's by both ends (leaf1/spine2), in one snprintf. */
void sim_port_name(const struct sim *s, uint32_t pi, char *buf, size_t size)
{
	uint32_t node = s->ports[pi].node, peer = s->ports[s->ports[pi].peer].node;

	if (!s->nodes[node].sw)
		snprintf(buf, size, "h%u", s->nodes[node].index);
	else
		snprintf(buf, size, "%s%u/%s%u", node_kind(s, node), s->nodes[node].index,
			 node_kind(s, peer), s->nodes[peer].index);
}

/* The nodes flow @fi's data crosses, "h0 leaf0 spine1 leaf1 h15": which way ECMP sent it. */
void sim_flow_path(const struct sim *s, uint32_t fi, char *buf, size_t size)
{
	uint32_t node = s->ports[s->ports[s->hosts[s->flows[fi].src].port].peer].node;
	size_t len = (size_t)snprintf(buf, size, "h%u", s->flows[fi].src);

	while (len < size) {
		const struct sim_node *n = &s->nodes[node];

		len += (size_t)snprintf(buf + len, size - len, " %s%u", node_kind(s, node), n->index);
		if (!n->sw)
			break;
		node = s->ports[s->ports[sim_switch_route(s, n, fi, true)].peer].node;
	}
}
