// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The simulator: a discrete-event model of a RoCE or InfiniBand fabric under a scenario's
 * workload (nd_sim_run, nd_scenario_*, nd_cdf_*, nd_fabric_name, nd_pattern_name). This file
 * runs one: build the fabric and the flows, pop events in time order until the scenario's
 * duration, and turn the state into a report. The loop is the hot path: a pop, a switch on the
 * event's kind, and the handler's pushes.
 *
 * Files call and include only down this list, lowest first (sim_core.h declares them in this
 * order, sim_value.h sim_value's, sim.h this file's, which no other file includes):
 *   sim_core       the types, the event queue and random numbers
 *   sim_value, sim_cdf, sim_scenario_check, sim_scenario, sim_nic
 *                  the scenario: values with units, flow-size CDFs, defaults, checks and
 *                  names, the YAML schema, and DCQCN from a host's NIC
 *   sim_tx         event pushes, packets, queues, a port's transmitter, and sim_kick, which
 *                  reaches a node through its struct sim_node_ops (as net_device_ops)
 *   sim_pfc, sim_ib, sim_ecn, sim_dcqcn
 *                  the flow-control and congestion parts; they never name a node kind: a port
 *                  they resume gets sim_kick, a CNP the NP wants is a return value to the host
 *   sim_host, sim_switch
 *                  the node kinds, each an ops table over the parts
 *   sim_net        the topology (nodes with their ops, links, buffers, port names) and the
 *                  link's events, which call the node's ops
 *   sim_workload   the flows
 *   sim_report     a finished run as a report
 *   sim            setup, the event loop and its dispatch, teardown
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim.h"

#define SEED_ECN 0x65636eULL	/* "ecn" */

static void dispatch(struct sim *s, const struct sim_ev *ev)
{
	switch (ev->kind) {
	case EV_TX_DONE:
		sim_on_tx_done(s, ev->ref);
		break;
	case EV_ARRIVE:
		sim_on_arrive(s, ev->ref, ev->arg);
		break;
	case EV_WAKE:
		sim_on_wake(s, ev->ref);
		break;
	case EV_PFC:
		sim_on_pfc(s, ev->ref, ev->arg);
		break;
	case EV_PAUSE_END:
		sim_on_pause_end(s, ev->ref, ev->arg);
		break;
	case EV_XOFF_REFRESH:
		sim_on_xoff_refresh(s, ev->ref, ev->arg);
		break;
	case EV_CREDIT:
		sim_on_credit(s, ev->ref, ev->arg);
		break;
	case EV_RATE_TIMER:
		sim_on_rate_timer(s, ev->ref, ev->arg);
		break;
	case EV_ALPHA_TIMER:
		sim_on_alpha_timer(s, ev->ref, ev->arg);
		break;
	case EV_RATE_CHECK:
		sim_on_rate_check(s, ev->ref);
		break;
	case EV_RTO:
		sim_on_rto(s, ev->ref);
		break;
	case EV_START:
		sim_on_start(s, ev->ref);
		break;
	}
}

void sim_loop(struct sim *s, uint64_t until)
{
	struct sim_ev ev;

	while (!s->err && sim_evq_pop(s->evq, until, &ev)) {
		s->now = ev.t;
		s->events++;
		dispatch(s, &ev);
	}
	s->now = until;
}

void sim_finish(struct sim *s)
{
	uint32_t i;

	s->now = s->end;
	for (i = 0; i < s->n_ports; i++) {
		if (s->ports[i].sw)
			sim_qdepth_note(s, i);	/* the time since its last change */
		sim_pfc_finish(s, i);
		sim_wait_stop(s, &s->ports[i]);
	}
}

void sim_teardown(struct sim *s)
{
	if (s->evq)
		sim_evq_free(s->evq);
	free(s->evq);
	sim_net_free(s);
	free(s->pkt);
	free(s->flows);
	free(s->series);
	memset(s, 0, sizeof(*s));
}

int sim_setup(struct sim *s, const struct nd_scenario *sc, enum nd_fabric fabric,
	      struct nd_err *e)
{
	int ret;

	memset(s, 0, sizeof(*s));
	if ((unsigned int)fabric >= ND_FABRIC_COUNT)
		return nd_err_set(e, -EINVAL, "unknown fabric %d; use roce or ib", (int)fabric);
	ret = nd_scenario_check(sc, e);
	if (ret)
		return ret;
	s->sc = sc;
	s->fabric = fabric;
	s->end = sc->duration_ps;
	s->hdr = fabric == ND_FABRIC_IB ? SIM_IB_HDR : SIM_ROCE_HDR;
	s->gap = fabric == ND_FABRIC_IB ? 0 : SIM_ETH_GAP;
	s->data_bytes = sc->mtu + s->hdr;
	s->free_pkt = SIM_NONE;
	sim_rng_seed(&s->rng_ecn, sim_mix64(sc->seed ^ SEED_ECN));
	s->evq = malloc(sizeof(*s->evq));
	ret = s->evq ? sim_evq_init(s->evq) : -ENOMEM;
	if (ret) {
		sim_teardown(s);
		return nd_err_set(e, ret, "out of memory for the event queue");
	}
	ret = sim_net_build(s, e);
	if (!ret)
		ret = sim_workload_build(s, e);
	if (ret)
		sim_teardown(s);
	return ret;
}

int nd_sim_run(const struct nd_scenario *sc, enum nd_fabric fabric, struct nd_run_report *r,
	       struct nd_sim_stats *st, struct nd_err *e)
{
	struct sim s;
	int ret;

	memset(r, 0, sizeof(*r));
	memset(st, 0, sizeof(*st));
	ret = sim_setup(&s, sc, fabric, e);
	if (ret)
		return ret;
	sim_loop(&s, s.end);
	if (s.err)
		ret = nd_err_set(e, s.err, "out of memory %.3f ms into the run",
				 (double)s.now / 1e9);
	if (!ret) {
		sim_finish(&s);
		ret = sim_report(&s, r, st, e);
	}
	sim_teardown(&s);
	return ret;
}
