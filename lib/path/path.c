// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A job's RDMA packets followed from its variables to the switch, one step at a time, each
 * with the evidence it stands on: the GID its stack picks (RoCE v1 or v2, IPv4 or IPv6, VLAN,
 * netdev), the DSCP and ECN bits its traffic class puts on the wire, the NIC's trust and map
 * to a priority, that priority's traffic class and PFC, the switch's classification, PFC and
 * maximum frame size as it advertised them over LLDP, and DCQCN where CNPs come from and go.
 * The first step that breaks is the verdict; a step nothing could verify keeps the path from
 * being called lossless. InfiniBand is lossless by its link-level credits.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "path_int.h"

const char *nd_path_step_name(enum nd_path_step_id id)
{
	static const char *const names[ND_STEP_COUNT] = {
		[ND_STEP_JOB] = "job",
		[ND_STEP_GID] = "gid",
		[ND_STEP_WIRE] = "wire",
		[ND_STEP_TRUST] = "trust",
		[ND_STEP_TC] = "tc",
		[ND_STEP_PFC_NIC] = "pfc-nic",
		[ND_STEP_PFC_SWITCH] = "pfc-switch",
		[ND_STEP_CNP] = "cnp",
		[ND_STEP_CREDIT] = "credit",
	};

	return (unsigned int)id < ND_STEP_COUNT ? names[id] : "?";
}

const char *nd_step_status_name(enum nd_step_status s)
{
	static const char *const names[] = {
		[ND_STEP_OK] = "ok",
		[ND_STEP_NOTE] = "note",
		[ND_STEP_ACCEPTED] = "accepted",
		[ND_STEP_UNVERIFIED] = "unverified",
		[ND_STEP_BREAK] = "break",
		[ND_STEP_SKIPPED] = "skipped",
	};

	return (unsigned int)s < ND_ARRAY_SIZE(names) ? names[s] : "?";
}

const char *nd_path_verdict_name(enum nd_path_verdict v)
{
	static const char *const names[] = {
		[ND_PATH_LOSSLESS] = "lossless",
		[ND_PATH_BREAKS] = "breaks",
		[ND_PATH_UNVERIFIED] = "unverified",
		[ND_PATH_NOT_USED] = "not-used",
	};

	return (unsigned int)v < ND_ARRAY_SIZE(names) ? names[v] : "?";
}

/* What the steps share while they walk. */
struct walk {
	const struct nd_path_in *in;
	struct nd_path *out;
	const struct nd_gid *gid;	/* the GID in use, NULL when none */
	const char *dev;		/* the netdev */
	bool dcb;
	int dscp2prio[ND_DSCP_MAX];
	enum nd_trust trust;
};

static struct nd_path_step *step(struct walk *w, enum nd_path_step_id id)
{
	struct nd_path_step *st = &w->out->steps[w->out->n_steps++];

	st->id = id;
	st->status = ND_STEP_OK;
	return st;
}

static void skipped(struct nd_path_step *st, const char *why)
{
	st->status = ND_STEP_SKIPPED;
	SAY(st, "not reached: %s", why);
}

/* Unverified, or accepted where the site says so. */
static void unverified(struct walk *w, struct nd_path_step *st, unsigned int accept_bit,
		       const char *accept_name)
{
	if (w->in->accept & accept_bit) {
		st->status = ND_STEP_ACCEPTED;
		FIXIT(st, "accepted unverified (--accept-unverified %s)", accept_name);
	} else {
		st->status = ND_STEP_UNVERIFIED;
	}
}

/* The port's RoCE v2 IPv4 GID, else any RoCE v2 one, to suggest; -1 when none */
static int best_gid(const struct walk *w)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < w->in->n_gids; i++) {
			const struct nd_gid *g = &w->in->gids[i];

			if (g->type == ND_GID_ROCE_V2 && (pass || g->ipv4) &&
			    !strcmp(g->lower, w->dev))
				return (int)i;
		}
	return -1;
}

static void gid_step(struct walk *w, const struct job_cfg *cfg)
{
	struct nd_path_step *st = step(w, ND_STEP_GID);
	const struct nd_rdma_port *rp = w->in->rdma;
	int idx = cfg->gid_index, best = best_gid(w);
	const struct nd_gid *g;
	char tag[32] = "untagged";

	w->out->gid_index = idx;
	if (idx < 0 || (size_t)idx >= w->in->n_gids || w->in->gids[idx].type == ND_GID_EMPTY) {
		path_mark(st, ND_STEP_BREAK);
		if (idx < 0)
			SAY(st, "%s: no GID of %s/%u fits", cfg->gid_how, rp->ibdev, rp->port);
		else if ((size_t)idx >= w->in->n_gids)
			SAY(st, "%s: index %d is past %s/%u's GID table (%zu entries): the queue "
			    "pair cannot connect", cfg->gid_how, idx, rp->ibdev, rp->port,
			    w->in->n_gids);
		else
			SAY(st, "%s: index %d of %s/%u is empty: the queue pair cannot connect",
			    cfg->gid_how, idx, rp->ibdev, rp->port);
		if (best >= 0)
			FIXIT(st, "use GID index %d (RoCE v2 %s on %s)", best,
			      w->in->gids[best].addr, w->in->gids[best].ndev);
		else
			FIXIT(st, "give %s an IP address: RoCE v2 GIDs follow the netdev's addresses",
			      w->dev);
		return;
	}
	g = &w->in->gids[idx];
	w->gid = g;
	w->out->vlan = g->vlan;
	if (g->vlan >= 0)
		snprintf(tag, sizeof(tag), "VLAN %d", g->vlan);
	SAY(st, "%s: index %d, %s %s %s on %s (%s)", cfg->gid_how, idx, nd_gid_type_name(g->type),
	    g->ipv4 ? "IPv4" : "IPv6", g->addr, g->ndev, tag);
	if (strcmp(g->lower, w->dev)) {
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "%s: index %d is %s on %s, not on %s: the packets leave through %s",
		    cfg->gid_how, idx, g->addr, g->ndev, w->dev, g->lower);
		if (best >= 0)
			FIXIT(st, "use GID index %d (RoCE v2 %s on %s)", best,
			      w->in->gids[best].addr, w->in->gids[best].ndev);
		else
			FIXIT(st, "pick a GID index on %s", w->dev);
	}
}

static void wire_step(struct walk *w, int *tc)
{
	struct nd_path_step *st = step(w, ND_STEP_WIRE);
	struct nd_path *o = w->out;
	int best = best_gid(w);

	if (!w->gid) {
		skipped(st, "no GID");
		return;
	}
	if (*tc < 0)	/* UCX's auto */
		*tc = w->gid->type == ND_GID_ROCE_V2 ? 106 : 0;
	o->tc = *tc;
	if (w->gid->type == ND_GID_ROCE_V1) {
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "RoCE v1: Ethernet frames (EtherType 0x8915) with no IP header: no DSCP for "
		    "the NIC's or the switch's map, no ECN bits for DCQCN");
		if (best >= 0)
			FIXIT(st, "use the RoCE v2 GID, index %d", best);
		else
			FIXIT(st, "set default_roce_mode \"RoCE v2\" and give %s an IP address", w->dev);
		return;
	}
	o->dscp = *tc >> 2;
	o->ecn = *tc & 3;
	SAY(st, "ToS %d: DSCP %d, ECN %s%s", *tc, o->dscp,
	    (const char *[]){ "00 (not ECT)", "01 (ECT(1))", "10 (ECT(0))", "11 (CE)" }[o->ecn],
	    w->gid->vlan >= 0 ? ", in an 802.1Q tag whose PCP is its priority" : ", untagged");
	if (o->ecn == 0) {
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "ToS %d: DSCP %d, ECN 00 (not ECT): a switch cannot mark these packets CE, "
		    "so DCQCN never slows the sender and congestion falls on PFC alone", *tc,
		    o->dscp);
		FIXIT(st, "send ToS %d (DSCP %d with ECT(0))", (*tc & ~3) | 2, o->dscp);
	} else if (o->ecn == 3) {
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "ToS %d: DSCP %d, ECN 11 (CE): every packet arrives marked congested, the "
		    "receiver answers each with a CNP and the sender crawls", *tc, o->dscp);
		FIXIT(st, "send ToS %d (DSCP %d with ECT(0))", (*tc & ~3) | 2, o->dscp);
	}
}

static void trust_step(struct walk *w, int sl)
{
	struct nd_path_step *st = step(w, ND_STEP_TRUST);
	struct nd_path *o = w->out;

	if (!w->gid) {
		skipped(st, "no GID");
		return;
	}
	if (!w->dcb) {
		unverified(w, st, 0, "");
		SAY(st, "%s reports no DCB (%s): its trust and priority map cannot be read", w->dev,
		    w->in->port->dcb_error[0] ? w->in->port->dcb_error : "dcbnl");
		FIXIT(st, "run it on a NIC whose driver has DCB (dcbnl)");
		return;
	}
	if (w->trust == ND_TRUST_DSCP) {
		if (o->dscp < 0) {
			skipped(st, "trust dscp, and RoCE v1 carries no DSCP");
			return;
		}
		o->prio = w->dscp2prio[o->dscp];
		if (o->prio < 0) {
			path_mark(st, ND_STEP_BREAK);
			SAY(st, "%s trusts DSCP and no APP entry maps DSCP %d: the driver's default "
			    "priority carries it, not one the port made lossless", w->dev, o->dscp);
			FIXIT(st, "map DSCP %d to the lossless priority (dscp-map in the profile, or "
			      "dcb app add dev %s dscp-prio %d:3)", o->dscp, w->dev, o->dscp);
			return;
		}
		SAY(st, "%s trusts DSCP: DSCP %d -> priority %d", w->dev, o->dscp, o->prio);
		return;
	}
	o->prio = sl & 7;
	SAY(st, "%s trusts PCP: the queue pair's SL %d is its priority %d", w->dev, sl, o->prio);
}

static void tc_step(struct walk *w)
{
	struct nd_path_step *st = step(w, ND_STEP_TC);
	const struct nd_dcb *dcb = &w->in->port->dcb;
	struct nd_path *o = w->out;
	unsigned int tc;

	if (o->prio < 0) {
		skipped(st, "no priority");
		return;
	}
	if (!(dcb->have & ND_DCB_HAVE_ETS)) {
		SAY(st, "priority %d: %s reports no ETS", o->prio, w->dev);
		return;
	}
	tc = dcb->ets.prio_tc[o->prio] % ND_PRIO_MAX;
	o->nic_tc = (int)tc;
	SAY(st, "priority %d -> TC %u (%s%s%u%%)", o->prio, tc, nd_tsa_name(dcb->ets.tc_tsa[tc]),
	    dcb->ets.tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS ? " " : ", ",
	    dcb->ets.tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS ? dcb->ets.tc_tx_bw[tc] : 0);
	if (dcb->ets.tc_tsa[tc] == IEEE_8021QAZ_TSA_ETS && !dcb->ets.tc_tx_bw[tc]) {
		path_mark(st, ND_STEP_NOTE);
		SAY(st, "priority %d -> TC %u, which ETS gives 0%%: it gets bandwidth only while "
		    "every other class is idle", o->prio, tc);
		FIXIT(st, "give TC %u a share (ets.bandwidth)", tc);
	}
}

static void pfc_nic_step(struct walk *w)
{
	struct nd_path_step *st = step(w, ND_STEP_PFC_NIC);
	const struct nd_dcb *dcb = &w->in->port->dcb;
	struct nd_path *o = w->out;
	char on[32];

	if (o->prio < 0) {
		skipped(st, "no priority");
		return;
	}
	if (!(dcb->have & ND_DCB_HAVE_PFC)) {
		unverified(w, st, 0, "");
		SAY(st, "%s reports no PFC", w->dev);
		return;
	}
	nd_fmt_prios(on, sizeof(on), dcb->pfc.pfc_en);
	if (dcb->pfc.pfc_en & (1u << o->prio)) {
		SAY(st, "%s has PFC on priority %d (PFC on %s)", w->dev, o->prio, on);
		return;
	}
	path_mark(st, ND_STEP_BREAK);
	SAY(st, "%s has no PFC on priority %d (PFC on %s): the NIC neither pauses it nor heeds "
	    "the switch's pauses for it", w->dev, o->prio, on);
	FIXIT(st, "enable PFC on priority %d (pfc.priorities in the profile, or dcb pfc set dev "
	      "%s prio-pfc %d:on)", o->prio, w->dev, o->prio);
}

/* The switch's priority for DSCP @dscp: 0 and its map, 1 no entry for it, 2 no DSCP map at all */
static int peer_dscp(const struct nd_peer *p, int dscp, int *prio)
{
	bool any = false;

	for (size_t i = 0; i < p->n_app; i++) {
		if (p->app[i].sel != ND_APP_SEL_DSCP)
			continue;
		any = true;
		if (p->app[i].protocol == dscp) {
			*prio = p->app[i].prio;
			return 0;
		}
	}
	return any ? 1 : 2;
}

static void pfc_switch_step(struct walk *w)
{
	struct nd_path_step *st = step(w, ND_STEP_PFC_SWITCH);
	const struct nd_peer_wait *pw = w->in->peer;
	const struct nd_peer *p = pw ? &pw->peer : NULL;
	struct nd_path *o = w->out;
	unsigned int frame;
	char name[170], on[32];
	uint8_t bits;
	int sw = -1;

	if (o->prio < 0) {
		skipped(st, "no priority");
		return;
	}
	if (!pw || !pw->heard) {
		unverified(w, st, ND_PATH_ACCEPT_PEER, "peer");
		if (!pw)
			SAY(st, "the switch's side was not asked for (--peer listens for its LLDP)");
		else
			SAY(st, "nothing from the switch: %s", pw->err.msg);
		if (st->status == ND_STEP_UNVERIFIED)
			FIXIT(st, "listen for the switch's LLDP (--peer), have it send its DCB TLVs, "
			      "or accept it: --accept-unverified peer");
		return;
	}
	nd_peer_name(p, name, sizeof(name));
	switch (o->dscp >= 0 ? peer_dscp(p, o->dscp, &sw) : 2) {
	case 0:
		break;
	case 1:
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "%s maps DSCPs but not %d: it puts these packets on its port's default "
		    "priority", name, o->dscp);
		FIXIT(st, "map DSCP %d to priority %d on the switch port", o->dscp, o->prio);
		return;
	default:
		if (o->vlan < 0) {
			path_mark(st, ND_STEP_BREAK);
			SAY(st, "%s advertises no DSCP map, so it classifies by PCP, and these "
			    "frames are untagged: they take its port's default priority", name);
			FIXIT(st, "have the switch trust DSCP (DSCP %d -> priority %d), or send on "
			      "a VLAN", o->dscp, o->prio);
			return;
		}
		sw = o->prio;	/* PCP carries the NIC's priority */
	}
	o->switch_prio = sw;
	if (sw != o->prio) {
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "%s puts them on priority %d, the NIC on %d: the switch's pauses for "
		    "priority %d stop the NIC's queue %d, not theirs", name, sw, o->prio, sw, sw);
		FIXIT(st, "make both sides agree: DSCP %d -> priority %d at the switch, or move the "
		      "NIC's map", o->dscp, o->prio);
		return;
	}
	if (!nd_peer_pfc(p, &bits)) {
		unverified(w, st, ND_PATH_ACCEPT_PEER, "peer");
		SAY(st, "%s: priority %d, but it sent no PFC TLV", name, sw);
		return;
	}
	nd_fmt_prios(on, sizeof(on), bits);
	if (!(bits & (1u << sw))) {
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "%s has PFC on %s, not on priority %d: there the packets are dropped when "
		    "its buffer fills", name, on, sw);
		FIXIT(st, "enable PFC on priority %d at the switch port", sw);
		return;
	}
	frame = w->in->port->link.mtu + 18 + (o->vlan >= 0 ? 4 : 0);
	if (p->max_frame_present && p->max_frame < frame) {
		path_mark(st, ND_STEP_BREAK);
		SAY(st, "%s takes frames up to %u bytes; MTU %u sends %u: larger packets are "
		    "dropped there", name, p->max_frame, w->in->port->link.mtu, frame);
		FIXIT(st, "raise the switch port's MTU to at least %u", frame);
		return;
	}
	SAY(st, "%s: priority %d, PFC on %s%s", name, sw, on,
	    p->max_frame_present ? ", frames fit" : "");
}

static void cnp_step(struct walk *w)
{
	struct nd_path_step *st = step(w, ND_STEP_CNP);
	const struct nd_ecn *ecn = &w->in->port->ecn;
	struct nd_path *o = w->out;
	uint32_t v;
	int cp = -1;

	if (o->prio < 0 || o->dscp < 0) {
		skipped(st, o->prio < 0 ? "no priority" : "RoCE v1 has no ECN");
		return;
	}
	if (ecn->backend == ND_ECN_NONE || !ecn->have_enable) {
		unverified(w, st, ND_PATH_ACCEPT_ECN, "ecn");
		SAY(st, "DCQCN's per-priority enables on %s cannot be read (%s)", w->dev,
		    ecn->backend == ND_ECN_NONE ? (ecn->note[0] ? ecn->note : "no backend") :
		    nd_ecn_backend_name(ecn->backend));
		return;
	}
	if (!(ecn->np_en & (1u << o->prio)) || !(ecn->rp_en & (1u << o->prio))) {
		bool np = !(ecn->np_en & (1u << o->prio));

		path_mark(st, ND_STEP_BREAK);
		SAY(st, "DCQCN's %s is off on priority %d at %s: %s", np ? "notification point" :
		    "reaction point", o->prio, w->dev, np ? "CE-marked packets it receives get no "
		    "CNP back" : "CNPs do not slow its sender");
		FIXIT(st, "enable ECN %s on priority %d (ecn.%s in the profile)", np ? "np" : "rp",
		      o->prio, np ? "np" : "rp");
		return;
	}
	if (w->trust == ND_TRUST_DSCP && !nd_ecn_param_get(ecn, "np_cnp_dscp", &v) && v < 64)
		cp = w->dscp2prio[v];
	else if (!nd_ecn_param_get(ecn, "np_cnp_prio", &v) && v < 8)
		cp = (int)v;
	o->cnp_prio = cp;
	if (cp >= 0)
		SAY(st, "DCQCN on priority %d at both points; this port's CNPs leave on priority %d",
		    o->prio, cp);
	else
		SAY(st, "DCQCN on priority %d at both points", o->prio);
}

static void ib_steps(struct walk *w, const struct job_cfg *cfg)
{
	struct nd_path_step *st;

	st = step(w, ND_STEP_GID);
	SAY(st, "InfiniBand: addressed by LID inside the subnet, by GID (%s) across it",
	    cfg->gid_how);
	st = step(w, ND_STEP_WIRE);
	w->out->sl = cfg->sl;
	if (cfg->sl < 0)
		SAY(st, "the SL of the subnet manager's path record");
	else
		SAY(st, "SL %d in the LRH", cfg->sl);
	st = step(w, ND_STEP_CREDIT);
	SAY(st, "InfiniBand: link-level credit flow control on every data VL, so no switch drops "
	    "for want of buffer; the subnet manager's SL2VL table puts the SL on its VL");
}

int nd_path_follow(const struct nd_path_in *in, struct nd_path *out, struct nd_err *e)
{
	struct walk w = { .in = in, .out = out };
	struct job_cfg cfg;
	int tc;

	if (!in->port || !in->rdma || !in->job || (unsigned int)in->stack >= ND_STACK_COUNT)
		return nd_err_set(e, -EINVAL, "path: a port, its RDMA port and a job are needed");
	memset(out, 0, sizeof(*out));
	out->stack = in->stack;
	out->tc = out->sl = out->gid_index = out->dscp = out->ecn = out->vlan = -1;
	out->prio = out->nic_tc = out->switch_prio = out->cnp_prio = -1;
	out->at = -1;
	out->infiniband = !strcmp(in->rdma->link_layer, "InfiniBand");
	w.dev = in->port->link.name;
	w.dcb = in->port->dcb_status == 0;
	if (w.dcb) {
		w.trust = nd_dcb_trust(&in->port->dcb, NULL);
		nd_dcb_dscp_map(&in->port->dcb, w.dscp2prio);
		for (size_t i = 0; i < ND_DSCP_MAX; i++)
			if (w.dscp2prio[i] >= ND_PRIO_MAX)
				w.dscp2prio[i] = -1;
	}
	if (!path_job_step(in, step(&w, ND_STEP_JOB), &cfg)) {
		out->verdict = ND_PATH_NOT_USED;
		out->at = 0;
		return 0;
	}
	out->sl = cfg.sl;
	if (out->infiniband) {
		ib_steps(&w, &cfg);
	} else {
		tc = cfg.tc;
		gid_step(&w, &cfg);
		wire_step(&w, &tc);
		trust_step(&w, cfg.sl);
		tc_step(&w);
		pfc_nic_step(&w);
		pfc_switch_step(&w);
		cnp_step(&w);
	}
	out->verdict = ND_PATH_LOSSLESS;
	for (size_t i = 0; i < out->n_steps; i++) {
		if (out->steps[i].status == ND_STEP_BREAK) {
			out->verdict = ND_PATH_BREAKS;
			out->at = (int)i;
			break;
		}
		if (out->steps[i].status == ND_STEP_UNVERIFIED && out->at < 0) {
			out->verdict = ND_PATH_UNVERIFIED;
			out->at = (int)i;
		}
	}
	return 0;
}
