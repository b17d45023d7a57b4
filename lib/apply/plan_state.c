// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A port's state as a profile, and a profile laid over a port: the journal's pre-state and
 * post-state, and the planned state apply's lints look at.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "plan.h"
#include "plan_int.h"

#define SET(p, f) ((p)->set & (1u << (f)))

void nd_state_to_profile(const struct nd_port *port, struct nd_profile *p)
{
	const struct nd_dcb *dcb = &port->dcb;
	size_t i;

	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s pre-state", port->link.name);
	p->set |= 1u << ND_F_MTU;
	p->mtu = port->link.mtu;
	if (!port->dcb_status) {
		if (dcb->have & ND_DCB_HAVE_DCBX) {
			p->set |= 1u << ND_F_DCBX;
			p->dcbx = dcb->dcbx;
		}
		if (dcb->have & ND_DCB_HAVE_APP) {
			p->set |= 1u << ND_F_DSCP_MAP;
			nd_dcb_dscp_map(dcb, p->dscp2prio);
		}
		if (dcb->have & ND_DCB_HAVE_PFC) {
			p->set |= 1u << ND_F_PFC_EN | 1u << ND_F_PFC_DELAY;
			p->pfc_en = dcb->pfc.pfc_en;
			p->pfc_delay = dcb->pfc.delay;
		}
		if (dcb->have & ND_DCB_HAVE_ETS) {
			p->set |= 1u << ND_F_ETS_PRIO_TC | 1u << ND_F_ETS_TSA | 1u << ND_F_ETS_BW;
			memcpy(p->prio_tc, dcb->ets.prio_tc, sizeof(p->prio_tc));
			memcpy(p->tc_tsa, dcb->ets.tc_tsa, sizeof(p->tc_tsa));
			memcpy(p->tc_bw, dcb->ets.tc_tx_bw, sizeof(p->tc_bw));
		}
		if (dcb->have & ND_DCB_HAVE_BUFFER) {
			p->set |= 1u << ND_F_BUF_PRIO | 1u << ND_F_BUF_SIZE;
			memcpy(p->prio2buffer, dcb->buffer.prio2buffer, sizeof(p->prio2buffer));
			memcpy(p->buffer_size, dcb->buffer.buffer_size, sizeof(p->buffer_size));
		}
		if (dcb->have & ND_DCB_HAVE_MAXRATE) {
			p->set |= 1u << ND_F_MAXRATE;
			memcpy(p->maxrate, dcb->maxrate.tc_maxrate, sizeof(p->maxrate));
		}
	}
	if (port->ecn.have_enable) {
		p->set |= 1u << ND_F_ECN_NP | 1u << ND_F_ECN_RP;
		p->ecn_np = port->ecn.np_en;
		p->ecn_rp = port->ecn.rp_en;
	}
	for (i = 0; i < port->ecn.n_params && i < ND_ECN_PARAM_MAX; i++) {
		p->dcqcn[p->n_dcqcn++] = port->ecn.params[i];
		p->set |= 1u << ND_F_DCQCN;
	}
	for (i = 0; i < port->n_rdma; i++) {
		if (strcmp(port->rdma[i].link_layer, "Ethernet"))
			continue;
		p->set |= 1u << ND_F_ROCE_TOS | 1u << ND_F_ROCE_MODE;
		p->roce_tos = (uint8_t)port->rdma[i].roce.tos;
		snprintf(p->roce_mode, sizeof(p->roce_mode), "%s", port->rdma[i].roce.mode);
		p->roce_reset = !port->rdma[i].roce.configured;
		break;
	}
}

void nd_profile_overlay(const struct nd_profile *w, struct nd_port *port)
{
	struct nd_plan plan = { 0 };
	struct nd_err ignored = { 0 };
	int want[ND_DSCP_MAX], d;
	struct dcb_app *apps;
	size_t i, n = 0;
	bool managed;

	nd_plan_wanted_dscp(w, port, want, &managed);
	if (nd_plan_port(&plan, w, port, 0, &ignored))
		return;
	for (i = 0; i < plan.n; i++) {
		const struct nd_step *s = &plan.steps[i];

		if (s->skip)
			continue;
		switch (s->kind) {
		case ND_STEP_DCBX:
			port->dcb.dcbx = s->u.dcbx;
			break;
		case ND_STEP_MTU:
			port->link.mtu = s->u.mtu;
			break;
		case ND_STEP_BUFFER:
			port->dcb.buffer = s->u.buffer;
			break;
		case ND_STEP_ETS:
			port->dcb.ets = s->u.ets;
			break;
		case ND_STEP_MAXRATE:
			port->dcb.maxrate = s->u.maxrate;
			break;
		case ND_STEP_PFC:
			port->dcb.pfc = s->u.pfc;
			break;
		case ND_STEP_ECN_ENABLE: {
			uint8_t *bits = s->u.ecn_enable.np ? &port->ecn.np_en : &port->ecn.rp_en;

			if (s->u.ecn_enable.on)
				*bits |= (uint8_t)(1u << s->u.ecn_enable.prio);
			else
				*bits &= (uint8_t)~(1u << s->u.ecn_enable.prio);
			break;
		}
		case ND_STEP_ECN_PARAM:
			for (d = 0; (size_t)d < port->ecn.n_params; d++)
				if (!strcmp(port->ecn.params[d].name, s->u.param.name))
					port->ecn.params[d].value = s->u.param.value;
			break;
		case ND_STEP_ROCE:
			port->rdma[s->u.roce.rdma].roce.tos = s->u.roce.tos;
			snprintf(port->rdma[s->u.roce.rdma].roce.mode,
				 sizeof(port->rdma[s->u.roce.rdma].roce.mode), "%s", s->u.roce.mode);
			port->rdma[s->u.roce.rdma].roce.configured = true;
			break;
		case ND_STEP_ROCE_RESET:
		case ND_STEP_APP_ADD:
		case ND_STEP_APP_DEL:
			break;
		}
	}
	nd_plan_free(&plan);
	/* the APP table as it will be: the other selectors kept, DSCP entries as wanted */
	apps = calloc(port->dcb.n_apps + ND_DSCP_MAX + 1, sizeof(*apps));
	if (!apps)
		return;
	for (i = 0; i < port->dcb.n_apps; i++)
		if (!managed || port->dcb.apps[i].selector != IEEE_8021QAZ_APP_SEL_DSCP)
			apps[n++] = port->dcb.apps[i];
	for (d = 0; managed && d < ND_DSCP_MAX; d++)
		if (want[d] >= 0)
			apps[n++] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, (uint8_t)want[d],
						      (uint16_t)d };
	port->dcb.apps = apps;
	port->dcb.n_apps = n;
}
