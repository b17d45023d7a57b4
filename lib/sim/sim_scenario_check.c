// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A scenario apart from its YAML: the defaults, the checks across keys that every run passes
 * (nd_sim_run takes scenarios built in code too), the names of its fabrics and patterns, and the
 * host count of its topology.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim_core.h"

static const char *const fabric_names[ND_FABRIC_COUNT] = {
	[ND_FABRIC_ROCE] = "roce",
	[ND_FABRIC_IB] = "ib",
};

static const char *const pattern_names[ND_PATTERN_COUNT] = {
	[ND_PATTERN_PAIR] = "pair",
	[ND_PATTERN_INCAST] = "incast",
	[ND_PATTERN_VICTIM] = "victim",
	[ND_PATTERN_ALL_TO_ALL] = "all-to-all",
	[ND_PATTERN_POISSON] = "poisson",
};

const char *nd_fabric_name(enum nd_fabric fabric)
{
	return (unsigned int)fabric < ND_FABRIC_COUNT ? fabric_names[fabric] : "unknown";
}

const char *nd_pattern_name(enum nd_pattern pattern)
{
	return (unsigned int)pattern < ND_PATTERN_COUNT ? pattern_names[pattern] : "unknown";
}

unsigned int sim_topo_hosts(const struct nd_sim_topo *t)
{
	if (t->kind == ND_TOPO_SINGLE)
		return t->hosts;
	return t->leaves * t->hosts_per_leaf;
}

void nd_scenario_init(struct nd_scenario *s)
{
	memset(s, 0, sizeof(*s));
	nd_strlcpy(s->name, "scenario", sizeof(s->name));
	s->seed = 1;
	s->fabric = ND_FABRIC_ROCE;
	s->duration_ps = 10 * 1000000000ULL;		/* 10 ms */
	s->mtu = 1024;
	s->priority = 3;
	s->ack_every = 16;
	s->rto_ps = 8000000000ULL;			/* 8 ms: a 32 MB queue drains at 40G */
	s->series_ps = 100 * 1000000ULL;		/* 100 us */
	s->topo.kind = ND_TOPO_SINGLE;
	s->topo.hosts = 9;
	s->topo.leaves = 2;
	s->topo.spines = 2;
	s->topo.hosts_per_leaf = 8;
	s->topo.host = (struct nd_sim_link){ 100000000000ULL, 1000000 };	/* 100G, 1 us */
	s->topo.fabric = (struct nd_sim_link){ 400000000000ULL, 1000000 };
	s->sw.buffer = 32 << 20;
	s->sw.alpha = 1.0 / 8;
	s->sw.xon_offset = 2048;
	s->pfc.on = true;
	s->pfc.quanta = 65535;
	s->pfc.response_ps = UINT64_MAX;
	/* the DCQCN paper's marking and reaction point */
	s->ecn.on = true;
	s->ecn.kmin = 5 * 1024;
	s->ecn.kmax = 200 * 1024;
	s->ecn.pmax = 0.01;
	s->dcqcn.on = true;
	s->dcqcn.g = 1.0 / 256;
	s->dcqcn.alpha = 1;
	s->dcqcn.timer_ps = s->dcqcn.alpha_timer_ps = 55 * 1000000ULL;
	s->dcqcn.cnp_interval_ps = 50 * 1000000ULL;
	s->dcqcn.byte_counter = 10 << 20;
	s->dcqcn.fast_recovery = 5;
	s->dcqcn.ai_bps = 40000000;
	s->dcqcn.hai_bps = 400000000;
	s->dcqcn.min_bps = 100000000;
	s->dcqcn.clamp = true;
	s->ib.vl_buffer = 64 * 1024;
	s->wl.pattern = ND_PATTERN_INCAST;
	s->wl.senders = 8;
	s->wl.pairs = 1;
	s->wl.victim_src = s->wl.victim_dst = UINT32_MAX;
	s->wl.load = 0.3;
	s->wl.max_flows = 100000;
}

void nd_scenario_free(struct nd_scenario *s)
{
	if (!s)
		return;
	free(s->wl.cdf);
	memset(s, 0, sizeof(*s));
}

#define BAD(...) nd_err_set(e, -EINVAL, __VA_ARGS__)

static int check_links(const struct nd_scenario *s, struct nd_err *e)
{
	const struct nd_sim_link *l[2] = { &s->topo.host, &s->topo.fabric };
	static const char *const names[2] = { "links.host", "links.fabric" };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (l[i]->speed_bps < 1000000 || l[i]->speed_bps > 1600000000000ULL)
			return BAD("%s.speed: %llu bit/s is out of range; give 1M..1600G", names[i],
				   (unsigned long long)l[i]->speed_bps);
		if (l[i]->delay_ps > 1000000000ULL)
			return BAD("%s.delay: over 1 ms (200 km of cable); give less", names[i]);
	}
	return 0;
}

static int check_topology(const struct nd_scenario *s, unsigned int hosts, struct nd_err *e)
{
	if (s->topo.kind == ND_TOPO_LEAF_SPINE &&
	    (!s->topo.leaves || !s->topo.spines || !s->topo.hosts_per_leaf))
		return BAD("topology: a leaf-spine needs leaves, spines and hosts-per-leaf of 1 or "
			   "more");
	if (hosts < 2 || hosts > ND_SIM_HOSTS_MAX)
		return BAD("topology: %u hosts; a fabric has 2..%d", hosts, ND_SIM_HOSTS_MAX);
	return check_links(s, e);
}

static int check_host(unsigned int h, unsigned int hosts, const char *key, struct nd_err *e)
{
	if (h < hosts)
		return 0;
	return BAD("workload.%s: host %u does not exist; the topology has hosts 0..%u", key, h,
		   hosts - 1);
}

static int check_incast(const struct nd_sim_workload *w, unsigned int hosts, struct nd_err *e)
{
	int ret = check_host(w->receiver, hosts, "receiver", e);
	uint64_t last = (uint64_t)w->first_sender + w->senders - 1;

	/* the receiver, when among them, is skipped: one host further */
	last += w->receiver >= w->first_sender && w->receiver <= last;
	if (!ret && last >= hosts)
		ret = BAD("workload.senders: %u senders from host %u, skipping the receiver, need "
			  "hosts up to %llu; the topology has 0..%u", w->senders, w->first_sender,
			  (unsigned long long)last, hosts - 1);
	return ret;
}

static int check_victim(const struct nd_sim_workload *w, unsigned int hosts, struct nd_err *e)
{
	int ret;

	if (w->victim_src == UINT32_MAX || w->victim_dst == UINT32_MAX)
		return BAD("workload.victim: give the victim flow's src and dst hosts");
	ret = check_host(w->victim_src, hosts, "victim.src", e);
	if (!ret)
		ret = check_host(w->victim_dst, hosts, "victim.dst", e);
	if (!ret && (w->victim_dst == w->victim_src || w->victim_dst == w->receiver))
		ret = BAD("workload.victim.dst: host %u; the victim goes to a host other than its "
			  "source and the incast's receiver", w->victim_dst);
	return ret ? ret : check_incast(w, hosts, e);
}

static int check_workload(const struct nd_scenario *s, unsigned int hosts, struct nd_err *e)
{
	const struct nd_sim_workload *w = &s->wl;

	switch (w->pattern) {
	case ND_PATTERN_PAIR:
		if (2ULL * w->pairs > hosts)
			return BAD("workload.pairs: %u pairs need %u hosts; the topology has %u",
				   w->pairs, 2 * w->pairs, hosts);
		return 0;
	case ND_PATTERN_INCAST:
		return check_incast(w, hosts, e);
	case ND_PATTERN_VICTIM:
		return check_victim(w, hosts, e);
	case ND_PATTERN_ALL_TO_ALL:
		if ((uint64_t)hosts * (hosts - 1) > ND_SIM_FLOWS_MAX)
			return BAD("workload: all-to-all on %u hosts is over %d flows", hosts,
				   ND_SIM_FLOWS_MAX);
		return 0;
	case ND_PATTERN_POISSON:
		if (w->n_cdf < 2 || !w->cdf)
			return BAD("workload.cdf: a poisson workload needs a flow-size CDF file");
		if (!(w->load > 0 && w->load <= 1))
			return BAD("workload.load: give a share of the host link in (0, 1]");
		return 0;
	default:
		return BAD("workload.pattern: unknown pattern %d", (int)w->pattern);
	}
}

static int check_fc(const struct nd_scenario *s, struct nd_err *e)
{
	const struct nd_sim_dcqcn *d = &s->dcqcn;

	if (!s->sw.buffer)
		return BAD("switch.buffer: 0 bytes; give the switch a buffer like 32M");
	if (s->sw.alpha <= 0 && !s->sw.threshold)
		return BAD("switch: give alpha (a dynamic threshold) or threshold (a static one)");
	if (s->pfc.quanta < 1 || s->pfc.quanta > 65535)
		return BAD("pfc.quanta: %u; a PAUSE frame holds 1..65535", s->pfc.quanta);
	if (s->ecn.kmax < s->ecn.kmin)
		return BAD("ecn.kmax: %llu bytes is below kmin (%llu); kmax is the upper threshold",
			   (unsigned long long)s->ecn.kmax, (unsigned long long)s->ecn.kmin);
	if (!(s->ecn.pmax >= 0 && s->ecn.pmax <= 1))
		return BAD("ecn.pmax: give a probability 0..1");
	if (!(d->g > 0 && d->g <= 1) || !(d->alpha >= 0 && d->alpha <= 1))
		return BAD("dcqcn: g must be in (0, 1] and alpha in [0, 1]");
	if (!d->timer_ps || !d->alpha_timer_ps)
		return BAD("dcqcn: timer and alpha-timer must be above 0");
	if (d->min_bps > s->topo.host.speed_bps)
		return BAD("dcqcn.min-rate: above the host link speed");
	if (s->ib.vl_buffer < sim_ib_blocks(s->mtu + SIM_IB_HDR) * SIM_IB_BLOCK ||
	    s->ib.vl_buffer > SIM_IB_CREDIT_MAX * SIM_IB_BLOCK)
		return BAD("infiniband.vl-buffer: %u bytes; give room for one packet (%u) up to "
			   "the 2048 credits of 64 bytes the 12-bit counters allow (131072)",
			   s->ib.vl_buffer, sim_ib_blocks(s->mtu + SIM_IB_HDR) * SIM_IB_BLOCK);
	return 0;
}

int nd_scenario_check(const struct nd_scenario *s, struct nd_err *e)
{
	unsigned int hosts = sim_topo_hosts(&s->topo);
	int ret;

	if (!s->duration_ps || s->duration_ps > 10 * SIM_PS_PER_S)
		return BAD("duration: give 1ps..10s of simulated time");
	if (s->mtu < 64 || s->mtu > 4096)
		return BAD("mtu: %u bytes; the RDMA path MTU is 64..4096", s->mtu);
	if (!s->ack_every || !s->rto_ps)
		return BAD("ack-every and rto must be above 0");
	if (s->series_ps && s->series_ps < SIM_PS_PER_S / 1000000)
		return BAD("series: under 1us; give 1us or more, or 0 for none");
	ret = check_topology(s, hosts, e);
	if (!ret)
		ret = check_fc(s, e);
	if (!ret)
		ret = check_workload(s, hosts, e);
	return ret;
}
