// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lints across the cable: the port's lossless state against what its link partner advertised
 * over LLDP (struct nd_peer_wait, from nd_peer_listen()). A finding names the switch port as
 * the switch names itself ("leaf12 Ethernet1/3"). The NIC's side is what lint.c reads: PFC
 * priorities, trust and the DSCP map, and the RoCE flows followed to their priority; the
 * switch's is IEEE 802.1Qaz where it sent it, else CEE DCBX.
 *
 *   peer-unheard        nothing heard in the wait: the link cannot be verified (error, or info
 *                       where the site accepts it)
 *   peer-pfc-mismatch   a priority RoCE rides (or the NIC makes lossless) without PFC at the
 *                       switch (error); PFC at the switch on a priority the NIC does not pause
 *                       for (warning: the NIC ignores the switch's PAUSE there)
 *   peer-willing        the NIC lets an agent negotiate (DCBX lld-managed) and the switch is not
 *                       willing: the NIC will take the switch's PFC, not the profile's (warning)
 *   peer-dscp-mismatch  the switch maps a RoCE flow's DSCP to another priority (error), or
 *                       advertises DSCP entries without one for it (warning)
 *   peer-max-frame      the switch port takes smaller frames than the NIC's MTU sends (error)
 *   peer-ets-starved    the switch gives the RoCE priority's traffic class no ETS share (warning)
 */
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "lint.h"

static void check_unheard(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_peer_wait *w = c->peer;
	struct nd_lint *l;

	if (w->heard)
		return;
	l = lint_add(c, r, c->accept_unheard ? ND_SEV_INFO : r->severity, ND_F_COUNT);
	if (!l)
		return;
	EVIDENCE(l, "%.200s", w->err.msg);
	if (c->accept_unheard)
		FIX(l, "accepted unverified (--accept-unverified peer)");
	else
		FIX(l, "have the switch send LLDP with its DCB TLVs on this port (ice/i40e: turn "
		    "the NIC firmware's LLDP agent off), or accept it: --accept-unverified peer");
}

static void check_pfc(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_peer *p = &c->peer->peer;
	uint8_t sw, want = c->roce_prios | c->pfc, missing, extra;
	char name[170];
	struct nd_lint *l;

	if (!c->peer->heard || !nd_peer_pfc(p, &sw) || !want)
		return;
	nd_peer_name(p, name, sizeof(name));
	missing = want & ~sw;
	extra = sw & ~c->pfc & (uint8_t)(c->dcb ? 0xff : 0);
	if (missing && (l = lint_add(c, r, r->severity, ND_F_PFC_EN))) {
		EVIDENCE(l, "%s has PFC on priorities 0x%02x, the NIC wants 0x%02x lossless: 0x%02x "
			 "is paused here and dropped there", name, sw, want, missing);
		FIX(l, "enable PFC on those priorities on the switch port (or move the NIC's %s to "
		    "match)", nd_field_key(ND_F_PFC_EN));
	}
	if (extra && (l = lint_add(c, r, ND_SEV_WARN, ND_F_PFC_EN))) {
		EVIDENCE(l, "%s pauses priorities 0x%02x the NIC has no PFC on: the NIC ignores those "
			 "PAUSE frames", name, extra);
		FIX(l, "make %s the same on both ends", nd_field_key(ND_F_PFC_EN));
	}
}

static void check_willing(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_peer *p = &c->peer->peer;
	const struct nd_port *port = c->port;
	uint8_t sw;
	char name[170];
	struct nd_lint *l;

	if (!c->peer->heard || !c->dcb || !(port->dcb.have & ND_DCB_HAVE_DCBX) ||
	    !(port->dcb.dcbx & DCB_CAP_DCBX_LLD_MANAGED) || !nd_peer_pfc(p, &sw))
		return;
	if ((p->pfc.present ? p->pfc.willing : p->cee.pfc_hdr.willing) || sw == c->pfc)
		return;
	nd_peer_name(p, name, sizeof(name));
	l = lint_add(c, r, r->severity, ND_F_DCBX);
	if (!l)
		return;
	EVIDENCE(l, "the NIC's DCBX is lld-managed and %s is not willing: an agent on the NIC "
		 "will take its PFC 0x%02x over this port's 0x%02x", name, sw, c->pfc);
	FIX(l, "set %s to host (nodrop owns the configuration) or set the switch to the "
	    "profile's PFC", nd_field_key(ND_F_DCBX));
}

static void check_dscp(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_peer *p = &c->peer->peer;
	char name[170];
	size_t i, k;

	if (!c->peer->heard || !p->app_present)
		return;
	nd_peer_name(p, name, sizeof(name));
	for (i = 0; i < c->n_flows; i++) {
		const struct flow *fl = &c->flows[i];
		bool any = false, found = false;
		struct nd_lint *l = NULL;

		if (fl->prio < 0)
			continue;
		for (k = 0; k < p->n_app; k++) {
			if (p->app[k].sel != ND_APP_SEL_DSCP)
				continue;
			any = true;
			if (p->app[k].protocol != fl->dscp)
				continue;
			found = true;
			if (p->app[k].prio != fl->prio &&
			    (l = lint_add(c, r, r->severity, ND_F_DSCP_MAP))) {
				EVIDENCE(l, "%s: %s sends DSCP %d on priority %d here, %s maps it to "
					 "priority %u", fl->who, c->port->link.name, fl->dscp,
					 fl->prio, name, p->app[k].prio);
				FIX(l, "map DSCP %d to priority %d on the switch (or change %s)",
				    fl->dscp, fl->prio, nd_field_key(ND_F_DSCP_MAP));
			}
		}
		if (any && !found && (l = lint_add(c, r, ND_SEV_WARN, ND_F_DSCP_MAP))) {
			EVIDENCE(l, "%s: DSCP %d rides priority %d here; %s maps other DSCPs and not "
				 "this one", fl->who, fl->dscp, fl->prio, name);
			FIX(l, "add DSCP %d -> %d to the switch's DSCP map", fl->dscp, fl->prio);
		}
	}
}

static void check_max_frame(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_peer *p = &c->peer->peer;
	/*
	 * The NIC's largest frame: MTU, Ethernet header and FCS, and a VLAN tag where the port
	 * trusts PCP (a priority rides only in a tag); DSCP-trusted RoCE goes untagged.
	 */
	bool tagged = !c->dcb || c->trust == ND_TRUST_PCP;
	unsigned int over = 14 + 4 + (tagged ? 4 : 0), frame = c->port->link.mtu + over;
	char name[170];
	struct nd_lint *l;

	if (!c->peer->heard || !p->max_frame_present || p->max_frame >= frame)
		return;
	nd_peer_name(p, name, sizeof(name));
	l = lint_add(c, r, r->severity, ND_F_MTU);
	if (!l)
		return;
	EVIDENCE(l, "%s takes frames up to %u bytes; MTU %u sends up to %u (%s): larger RoCE "
		 "packets are dropped at the switch", name, p->max_frame, c->port->link.mtu, frame,
		 tagged ? "with a VLAN tag, as PCP trust needs" : "untagged, as DSCP trust sends");
	FIX(l, "raise the switch port's MTU to at least %u, or lower %s to %u", frame,
	    nd_field_key(ND_F_MTU), p->max_frame > over ? p->max_frame - over : 0);
}

static void check_ets(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_peer *p = &c->peer->peer;
	char name[170];
	int prio;

	if (!c->peer->heard || !p->ets.present)
		return;
	nd_peer_name(p, name, sizeof(name));
	for (prio = 0; prio < ND_PRIO_MAX; prio++) {
		unsigned int tc = p->ets.prio_tc[prio] & 7;
		struct nd_lint *l;

		if (!(c->roce_prios & (1u << prio)) || p->ets.tsa[tc] != IEEE_8021QAZ_TSA_ETS ||
		    p->ets.tc_bw[tc])
			continue;
		l = lint_add(c, r, r->severity, ND_F_ETS_BW);
		if (!l)
			return;
		EVIDENCE(l, "%s puts priority %d (RoCE) in traffic class %u with 0 %% of the link "
			 "under ETS: it sends only when no other class has traffic", name, prio, tc);
		FIX(l, "give traffic class %u a share on the switch port", tc);
	}
}

static const struct lint_rule peer_rules[] = {
	{ "peer-unheard", ND_SEV_ERROR, check_unheard },
	{ "peer-pfc-mismatch", ND_SEV_ERROR, check_pfc },
	{ "peer-willing", ND_SEV_WARN, check_willing },
	{ "peer-dscp-mismatch", ND_SEV_ERROR, check_dscp },
	{ "peer-max-frame", ND_SEV_ERROR, check_max_frame },
	{ "peer-ets-starved", ND_SEV_WARN, check_ets },
};

int nd_lint_peer(const struct nd_port *port, const struct nd_profile *profile,
		 const struct nd_peer_wait *peer, bool accept_unheard, struct nd_lint **lints,
		 struct nd_err *e)
{
	struct lint_ctx c;

	*lints = NULL;
	lint_ctx_init(&c, port, profile);
	c.peer = peer;
	c.accept_unheard = accept_unheard;
	return lint_run(&c, peer_rules, ND_ARRAY_SIZE(peer_rules), lints, e);
}
