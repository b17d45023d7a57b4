// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage's PFC family: received PAUSE that holds a priority for (nearly) the whole interval,
 * the NIC's own pause-storm guard, drops on the priorities PFC should keep lossless, and PAUSE
 * the link partner sends for a priority this port does not pause (the two ends disagree).
 */
#include <inttypes.h>
#include <string.h>

#include "triage_int.h"

#define C_PFC_RX_FRAMES		"pfc_rx_frames"
#define C_PFC_RX_US		"pfc_rx_duration_us"
#define C_PRIO_TX_PACKETS	"tx_prio_packets"
#define C_STORM_WARN		"pause_storm_warnings"
#define C_STORM_ERROR		"pause_storm_errors"
#define C_PRIO_BUF_DISCARDS	"rx_buf_discards"
#define C_PRIO_CONG_DISCARDS	"rx_cong_discards"
#define C_PRIO_DISCARDS		"rx_prio_discards"
#define C_RX_DISCARDS		"rx_nobuf_discards"
#define C_OUT_OF_BUFFER		"rx_no_wqe_discards"

/* Per-priority drops: on a priority with PFC, each one is a failure of losslessness. */
static const char *const prio_discards[] = {
	C_PRIO_BUF_DISCARDS, C_PRIO_CONG_DISCARDS, C_PRIO_DISCARDS,
};

/* How much of the interval received PAUSE held priority @p, and whether that is a storm. */
struct pause {
	const struct nd_delta *dur, *frames, *tx;
	double frac;
	bool tx_still;		/* no priority-p packet left, or the driver does not count them */
	bool storm;
};

static bool pause_of(const struct nd_tri_ctx *c, int p, struct pause *s)
{
	memset(s, 0, sizeof(*s));
	s->dur = nd_tri_get(c, C_PFC_RX_US, p);
	if (!nd_tri_counted(s->dur) || c->t <= 0)
		return false;
	s->frames = nd_tri_get(c, C_PFC_RX_FRAMES, p);
	s->tx = nd_tri_get(c, C_PRIO_TX_PACKETS, p);
	s->frac = (double)s->dur->delta / (c->t * 1e6);
	/* without a tx counter the pause time alone decides; a tx counter without a delta cannot */
	s->tx_still = s->tx ? nd_tri_counted(s->tx) && !s->tx->delta : true;
	s->storm = s->frac >= c->o->storm_fraction && s->tx_still;
	return true;
}

/* A finding of rule @r on priority @p with the pause counters as its evidence; NULL when full. */
static struct nd_finding *pause_finding(struct nd_tri_ctx *c, const struct nd_tri_rule *r,
				       int p, const struct pause *s)
{
	struct nd_finding *f = nd_tri_add(c, r, r->severity, p);

	if (f) {
		nd_tri_add_ev(f, s->dur);
		nd_tri_add_ev(f, s->frames);
		nd_tri_add_ev(f, s->tx);
	}
	return f;
}

/* Priorities that received PAUSE all interval long and sent nothing (see pfc-storm below). */
static void pause_storms(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	struct nd_finding *f;
	struct pause s;
	int p;

	for (p = 0; p < ND_PRIO_MAX; p++) {
		if (!pause_of(c, p, &s) || !s.storm)
			continue;
		f = pause_finding(c, r, p, &s);
		if (!f)
			return;
		SUMMARY(f, "priority %d: received PAUSE held transmission for %.1f %% of %.2f s "
			"and %s: a peer is stuck sending XOFF (PFC storm)", p, s.frac * 100, c->t,
			s.tx ? "not one priority packet left" :
			"the driver counts no per-priority tx packets");
		ACTION(f, "follow the PAUSE upstream from the switch port facing %s, hop by hop, "
		       "to the host whose receiver is stuck (hung driver or application, PCIe "
		       "backpressure); turn on the switch's PFC watchdog for priority %d and, on "
		       "mlx5 hosts, ethtool --set-tunable IF pfc-prevention-tout 100",
		       c->port->link.name, p);
	}
}

/* The NIC's own guard: this port sent PAUSE too long (see pfc-storm below). */
static void storm_guard(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *w, *er;
	struct nd_finding *f;

	w = nd_tri_moved(c, C_STORM_WARN, -1);
	er = nd_tri_moved(c, C_STORM_ERROR, -1);
	if (!w && !er)
		return;
	f = nd_tri_add(c, r, er ? ND_SEV_ERROR : ND_SEV_WARN, -1);
	if (!f)
		return;
	nd_tri_add_ev(f, er);
	nd_tri_add_ev(f, w);
	if (er)
		SUMMARY(f, "the NIC's pause-storm guard fired %" PRIu64 " time%s: this port sent "
			"PAUSE for longer than its prevention timeout and then stopped pausing, so "
			"its lossless priorities can drop", er->delta, er->delta == 1 ? "" : "s");
	else
		SUMMARY(f, "the NIC warned %" PRIu64 " time%s of a pause storm: this port sent "
			"PAUSE for over 85 %% of its prevention timeout without a break", w->delta,
			w->delta == 1 ? "" : "s");
	ACTION(f, "this host is the storm's source: its receive path stalls (check dmesg for "
	       "the driver's storm messages, the PCIe link width and speed, CPU and IOMMU load, "
	       "and the receiving application); keep pfc-prevention-tout set (ethtool "
	       "--show-tunable %s pfc-prevention-tout) so a stall cannot freeze the fabric",
	       c->port->link.name);
}

/*
 * pfc-storm, error: on priority p the received PAUSE held transmission for >= storm_fraction of
 * the interval while no priority-p packet left (the Mellanox rule of SONiC's PFC watchdog, which
 * also wants the queue non-empty; a host cannot see the switch queue, and a paused priority that
 * sends nothing in a whole interval is the same sign). Also the NIC's own storm guard (mlx5
 * tx_pause_storm_*): it counts the times this NIC sent PAUSE for longer than
 * pfc-prevention-tout (warning events at 85 % of it), so here the host is the source: error for
 * error events (the NIC stopped pausing: the lossless priorities may now drop), warning for
 * warning events alone.
 */
static void check_pfc_storm(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	pause_storms(c, r);
	storm_guard(c, r);
}

/*
 * pause-heavy, warning: received PAUSE held priority p for more than pause_heavy_fraction of the
 * interval without being a storm (traffic still left): the peer is congested on p.
 */
static void check_pause_heavy(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	struct nd_finding *f;
	struct pause s;
	int p;

	for (p = 0; p < ND_PRIO_MAX; p++) {
		if (!pause_of(c, p, &s) || s.storm || s.frac <= c->o->pause_heavy_fraction)
			continue;
		f = pause_finding(c, r, p, &s);
		if (!f)
			return;
		if (nd_tri_counted(s.tx) && s.tx->delta)
			SUMMARY(f, "priority %d: received PAUSE held transmission for %.1f %% "
				"of %.2f s (over %.0f %%), while %" PRIu64 " packets still left: "
				"the peer is congested, not stuck", p, s.frac * 100, c->t,
				c->o->pause_heavy_fraction * 100, s.tx->delta);
		else
			SUMMARY(f, "priority %d: received PAUSE held transmission for %.1f %% of "
				"%.2f s (over %.0f %%): the peer is congested on this priority", p,
				s.frac * 100, c->t, c->o->pause_heavy_fraction * 100);
		ACTION(f, "find the congested egress behind the switch port facing %s (its "
		       "priority-%d queue and ECN-marking counters): an incast or a slow "
		       "receiver; make sure ECN/DCQCN is on at both ends so senders slow down "
		       "before PAUSE does (nodrop audit: ecn-not-on-lossless)",
		       c->port->link.name, p);
	}
}

/* Drops on priority @p, which has PFC on: each one is a failure of losslessness. */
static void prio_drops(struct nd_tri_ctx *c, const struct nd_tri_rule *r, int p)
{
	const struct nd_delta *d;
	struct nd_finding *f = NULL;
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(prio_discards); i++) {
		d = nd_tri_moved(c, prio_discards[i], p);
		if (!d)
			continue;
		if (!f)
			f = nd_tri_add(c, r, r->severity, p);
		if (!f)
			return;
		nd_tri_add_ev(f, d);
		sum += d->delta;
	}
	if (!f)
		return;
	SUMMARY(f, "priority %d has PFC on, yet the NIC dropped %" PRIu64 " of its packets "
		"in %.2f s: PFC did not keep it lossless", p, sum, c->t);
	ACTION(f, "check the receive buffer and headroom of priority %d (nodrop show %s: "
	       "buffer, pfc delay = cable length), that the switch port honours PFC on "
	       "priority %d (its PFC counters for this port), and that no WRED/ECN drop "
	       "profile applies to it", p, c->port->link.name, p);
}

/* The port's receive buffer was full: no priority known, the PFC ones as context. */
static void buffer_drops(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *d = nd_tri_moved(c, C_RX_DISCARDS, -1);
	struct nd_finding *f;
	char on[32];

	if (!d)
		return;
	f = nd_tri_add(c, r, ND_SEV_WARN, -1);
	if (!f)
		return;
	nd_fmt_prios(on, sizeof(on), c->pfc);
	nd_tri_add_ev(f, d);
	SUMMARY(f, "the port's receive buffer dropped %" PRIu64 " packets (%.0f/s); PFC is "
		"on priorities %s", d->delta, d->rate, c->pfc_known ? on : "unknown");
	ACTION(f, "see which priorities lost them (nodrop counters %s, per-priority "
	       "discards): drops on a priority without PFC are lossy traffic by design; "
	       "RoCE there means a classification error (nodrop triage --profile: "
	       "roce-prio-not-lossless)", c->port->link.name);
}

/* No receive WQE or buffer was posted: the host fell behind, not the wire. */
static void host_drops(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *d = nd_tri_moved(c, C_OUT_OF_BUFFER, -1);
	struct nd_finding *f;

	if (!d)
		return;
	f = nd_tri_add(c, r, ND_SEV_WARN, -1);
	if (!f)
		return;
	nd_tri_add_ev(f, d);
	SUMMARY(f, "%" PRIu64 " packets dropped (%.0f/s) because no receive buffer or WQE "
		"was posted: the host, not the fabric, fell behind", d->delta, d->rate);
	ACTION(f, "the receiver consumes too slowly: post receive WQEs earlier and deeper "
	       "(or use an SRQ), spread receive queues over more cores (ethtool -L %s, IRQ "
	       "affinity), enlarge the ring (ethtool -G %s rx N)", c->port->link.name,
	       c->port->link.name);
}

/*
 * lossless-drops. error: a per-priority discard counter moved on a priority with PFC on (the port
 * state says which). warning: port-level drops, with the PFC priorities as context: the port's
 * receive buffer was full (no priority known), or no receive WQE/buffer was posted (the host
 * fell behind, not the wire).
 */
static void check_lossless_drops(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	int p;

	for (p = 0; p < ND_PRIO_MAX && c->pfc_known; p++)
		if (c->pfc & (1u << p))
			prio_drops(c, r, p);
	buffer_drops(c, r);
	host_drops(c, r);
}

/*
 * pause-unheeded. warning: PAUSE frames came in for a priority this port has no PFC on: the
 * switch pauses a priority the NIC does not stop for, so its frames there keep coming into a
 * paused queue, and the priority the job needs lossless is likely not the one the switch
 * protects. The two ends disagree on PFC; audit --peer shows the switch's side.
 */
static void check_pause_unheeded(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *d;
	struct nd_finding *f;
	char on[32];
	int p;

	for (p = 0; p < ND_PRIO_MAX && c->pfc_known; p++) {
		if (c->pfc & (1u << p) || !(d = nd_tri_moved(c, C_PFC_RX_FRAMES, p)))
			continue;
		f = nd_tri_add(c, r, r->severity, p);
		if (!f)
			return;
		nd_tri_add_ev(f, d);
		nd_tri_add_ev(f, nd_tri_get(c, C_PFC_RX_US, p));
		nd_fmt_prios(on, sizeof(on), c->pfc);
		SUMMARY(f, "priority %d: the link partner sent %" PRIu64 " PAUSE frames (%.0f/s) "
			"but this port has PFC on %s only: it does not stop for them, so the two "
			"ends disagree on which priorities are lossless", p, d->delta, d->rate,
			c->pfc ? on : "no priority");
		ACTION(f, "make PFC the same on both ends: nodrop audit --peer PROFILE shows what "
		       "the switch port advertises; enable PFC on %d here (pfc.priorities) or "
		       "disable it on the switch port", p);
	}
}

static const struct nd_tri_rule rules[] = {
	{ "pfc-storm", ND_SEV_ERROR, check_pfc_storm },
	{ "pause-heavy", ND_SEV_WARN, check_pause_heavy },
	{ "lossless-drops", ND_SEV_ERROR, check_lossless_drops },
	{ "pause-unheeded", ND_SEV_WARN, check_pause_unheeded },
};

static const char *const counters[] = {
	C_PFC_RX_FRAMES, C_PFC_RX_US, C_PRIO_TX_PACKETS, C_STORM_WARN, C_STORM_ERROR,
	C_RX_DISCARDS, C_OUT_OF_BUFFER, C_PRIO_BUF_DISCARDS, C_PRIO_CONG_DISCARDS, C_PRIO_DISCARDS,
};

ND_TRI_FAMILY(pfc);
