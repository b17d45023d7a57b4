// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage: rules over one port's counter deltas and state -> findings (severity, the counters
 * that moved, what to do). Each rule is one row {id, severity, check}; a check reads counters by
 * their canonical names (nd_counter_info(), owned by the counter maps), so one rule serves every
 * driver. A counter the driver does not have is absent from the deltas and the rules that need it
 * stay silent instead of guessing; a counter without a delta this interval (reset, new) is the
 * counter-reset rule's to explain.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

/* ---- the canonical counters the rules read (names as the counter maps define them) ---- */

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
#define C_ECN_MARKED		"roce_rx_ecn_marked"
#define C_CNP_SENT		"cnp_sent"
#define C_CNP_HANDLED		"cnp_handled"
#define C_CNP_IGNORED		"cnp_ignored"
#define C_RNR_RCVD		"rnr_naks_rcvd"
#define C_RNR_SENT		"rnr_naks_sent"
#define C_RNR_EXCEEDED		"rnr_retry_exceeded"
#define C_XMIT_WAIT		"ib_xmit_wait"

/* Per-priority drops: on a priority with PFC, each one is a failure of losslessness. */
static const char *const prio_discards[] = {
	C_PRIO_BUF_DISCARDS, C_PRIO_CONG_DISCARDS, C_PRIO_DISCARDS,
};

/* RDMA transport counters that move only when a packet was lost, reordered or resent. */
static const char *const loss_counters[] = {
	"seq_err_naks",		/* NAK-sequence-error received: the responder saw a PSN gap */
	"out_of_sequence",	/* the responder received a PSN beyond the expected one */
	"duplicate_requests",	/* the responder received a PSN it had already acknowledged */
	"transport_retries",	/* ACK timeouts after which the requester resent */
	"retry_exceeded",	/* resends ran out: the QP went to error, the job saw it */
	"send_errors",		/* the device failed to transmit: the requester must resend */
};

/*
 * IB PMA error counters and the thresholds ibqueryerrors documents (per interval here, per
 * "since last clear" there), but link_downed: one retrain in a few seconds drops everything in
 * flight and is worth an error on its own.
 */
static const struct {
	const char *name;
	uint64_t threshold;
} link_errors[] = {
	{ "ib_symbol_errors", 10 },
	{ "ib_link_error_recovery", 10 },
	{ "ib_link_downed", 1 },
	{ "ib_rcv_errors", 10 },
	{ "ib_local_link_integrity_errors", 10 },
	{ "ib_excessive_buffer_overrun_errors", 10 },
	{ "ib_rcv_remote_physical_errors", 100 },
	{ "ib_rcv_switch_relay_errors", 100 },
	{ "ib_xmit_discards", 100 },
	{ "ib_xmit_constraint_errors", 100 },
	{ "ib_rcv_constraint_errors", 100 },
	{ "ib_vl15_dropped", 100 },
};

/* ---- defaults ---- */

void nd_triage_opts_init(struct nd_triage_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* SONiC's Mellanox rule: paused for more than 99 % of the poll interval */
	o->storm_fraction = 0.99;
	o->pause_heavy_fraction = 0.5;
	/* a lossless fabric loses nothing: one loss event is one too many */
	o->loss_events = 1;
	o->rnr_rate = 100;
	/* ibqueryerrors' PortXmitWait threshold */
	o->xmit_wait_ticks = 1000;
}

/* The single counters the rules read, for nd_triage_counters(). */
static const char *const singles[] = {
	C_PFC_RX_FRAMES, C_PFC_RX_US, C_PRIO_TX_PACKETS, C_STORM_WARN, C_STORM_ERROR,
	C_RX_DISCARDS, C_OUT_OF_BUFFER, C_ECN_MARKED, C_CNP_SENT, C_CNP_HANDLED, C_CNP_IGNORED,
	C_RNR_RCVD, C_RNR_SENT, C_RNR_EXCEEDED, C_XMIT_WAIT,
};

const char *const *nd_triage_counters(size_t *n)
{
	static const char *names[ND_ARRAY_SIZE(singles) + ND_ARRAY_SIZE(prio_discards) +
				 ND_ARRAY_SIZE(loss_counters) + ND_ARRAY_SIZE(link_errors) + 1];
	size_t i, k = 0;

	for (i = 0; i < ND_ARRAY_SIZE(singles); i++)
		names[k++] = singles[i];
	for (i = 0; i < ND_ARRAY_SIZE(prio_discards); i++)
		names[k++] = prio_discards[i];
	for (i = 0; i < ND_ARRAY_SIZE(loss_counters); i++)
		names[k++] = loss_counters[i];
	for (i = 0; i < ND_ARRAY_SIZE(link_errors); i++)
		names[k++] = link_errors[i].name;
	names[k] = NULL;
	if (n)
		*n = k;
	return names;
}

/* ---- the rule engine ---- */

struct tri_ctx {
	const struct nd_port *port;
	const struct nd_delta *d;
	size_t n;
	double t;			/* interval, seconds */
	const struct nd_triage_opts *o;
	bool pfc_known;			/* the driver reported PFC state */
	uint8_t pfc;			/* PFC-enabled priorities */
	struct nd_finding *v;
	size_t n_f, cap;
	int err;
};

struct tri_rule {
	const char *id;
	enum nd_severity severity;	/* the usual one; a check may raise or lower it */
	void (*check)(struct tri_ctx *c, const struct tri_rule *r);
};

/* A delta that says how far the counter moved (a reset or new counter does not). */
static bool counted(const struct nd_delta *d)
{
	return d && (d->status == ND_DELTA_OK || d->status == ND_DELTA_WRAPPED ||
		     d->status == ND_DELTA_SATURATED);
}

static const struct nd_delta *get(const struct tri_ctx *c, const char *name, int prio)
{
	return nd_delta_find(c->d, c->n, name, prio);
}

/* The counter when it moved this interval, else NULL. */
static const struct nd_delta *moved(const struct tri_ctx *c, const char *name, int prio)
{
	const struct nd_delta *d = get(c, name, prio);

	return counted(d) && d->delta ? d : NULL;
}

static struct nd_finding *add(struct tri_ctx *c, const struct tri_rule *r, enum nd_severity sev,
			      int prio)
{
	struct nd_finding *f;

	if (c->err)
		return NULL;
	f = nd_append((void **)&c->v, &c->n_f, &c->cap, sizeof(*f));
	if (!f) {
		c->err = -ENOMEM;
		return NULL;
	}
	f->id = r->id;
	f->severity = sev;
	nd_strlcpy(f->ifname, c->port->link.name, sizeof(f->ifname));
	f->prio = prio;
	f->interval_s = c->t;
	return f;
}

static void add_ev(struct nd_finding *f, const struct nd_delta *d)
{
	struct nd_finding_ev *ev;

	if (!d || f->n_ev >= ND_FINDING_EV_MAX)
		return;
	ev = &f->ev[f->n_ev++];
	nd_strlcpy(ev->name, d->name, sizeof(ev->name));
	ev->prio = d->prio;
	ev->delta = d->delta;
	ev->rate = d->rate;
	ev->status = d->status;
}

/* Only the checks below format into these, with their own literal formats. */
static void say(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

#define SUMMARY(f, ...) say((f)->summary, sizeof((f)->summary), __VA_ARGS__)
#define ACTION(f, ...) say((f)->action, sizeof((f)->action), __VA_ARGS__)

/* ---- PFC ---- */

/* How much of the interval received PAUSE held priority @p, and whether that is a storm. */
struct pause {
	const struct nd_delta *dur, *frames, *tx;
	double frac;
	bool tx_still;		/* no priority-p packet left, or the driver does not count them */
	bool storm;
};

static bool pause_of(const struct tri_ctx *c, int p, struct pause *s)
{
	memset(s, 0, sizeof(*s));
	s->dur = get(c, C_PFC_RX_US, p);
	if (!counted(s->dur) || c->t <= 0)
		return false;
	s->frames = get(c, C_PFC_RX_FRAMES, p);
	s->tx = get(c, C_PRIO_TX_PACKETS, p);
	s->frac = (double)s->dur->delta / (c->t * 1e6);
	/* without a tx counter the pause time alone decides; a tx counter without a delta cannot */
	s->tx_still = s->tx ? counted(s->tx) && !s->tx->delta : true;
	s->storm = s->frac >= c->o->storm_fraction && s->tx_still;
	return true;
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
static void check_pfc_storm(struct tri_ctx *c, const struct tri_rule *r)
{
	const struct nd_delta *w, *er;
	struct nd_finding *f;
	struct pause s;
	int p;

	for (p = 0; p < ND_PRIO_MAX; p++) {
		if (!pause_of(c, p, &s) || !s.storm)
			continue;
		f = add(c, r, r->severity, p);
		if (!f)
			return;
		add_ev(f, s.dur);
		add_ev(f, s.frames);
		add_ev(f, s.tx);
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
	w = moved(c, C_STORM_WARN, -1);
	er = moved(c, C_STORM_ERROR, -1);
	if (!w && !er)
		return;
	f = add(c, r, er ? ND_SEV_ERROR : ND_SEV_WARN, -1);
	if (!f)
		return;
	add_ev(f, er);
	add_ev(f, w);
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
 * pause-heavy, warning: received PAUSE held priority p for more than pause_heavy_fraction of the
 * interval without being a storm (traffic still left): the peer is congested on p.
 */
static void check_pause_heavy(struct tri_ctx *c, const struct tri_rule *r)
{
	struct nd_finding *f;
	struct pause s;
	int p;

	for (p = 0; p < ND_PRIO_MAX; p++) {
		if (!pause_of(c, p, &s) || s.storm || s.frac <= c->o->pause_heavy_fraction)
			continue;
		f = add(c, r, r->severity, p);
		if (!f)
			return;
		add_ev(f, s.dur);
		add_ev(f, s.frames);
		add_ev(f, s.tx);
		if (counted(s.tx) && s.tx->delta)
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

/*
 * lossless-drops. error: a per-priority discard counter moved on a priority with PFC on (the port
 * state says which). warning: port-level drops, with the PFC priorities as context: the port's
 * receive buffer was full (no priority known), or no receive WQE/buffer was posted (the host
 * fell behind, not the wire).
 */
static void check_lossless_drops(struct tri_ctx *c, const struct tri_rule *r)
{
	const struct nd_delta *d;
	struct nd_finding *f;
	char on[32];
	uint64_t sum;
	size_t i;
	int p;

	nd_fmt_prios(on, sizeof(on), c->pfc);
	for (p = 0; p < ND_PRIO_MAX && c->pfc_known; p++) {
		if (!(c->pfc & (1u << p)))
			continue;
		for (i = 0, sum = 0, f = NULL; i < ND_ARRAY_SIZE(prio_discards); i++) {
			d = moved(c, prio_discards[i], p);
			if (!d)
				continue;
			if (!f)
				f = add(c, r, r->severity, p);
			if (!f)
				return;
			add_ev(f, d);
			sum += d->delta;
		}
		if (!f)
			continue;
		SUMMARY(f, "priority %d has PFC on, yet the NIC dropped %" PRIu64 " of its packets "
			"in %.2f s: PFC did not keep it lossless", p, sum, c->t);
		ACTION(f, "check the receive buffer and headroom of priority %d (nodrop show %s: "
		       "buffer, pfc delay = cable length), that the switch port honours PFC on "
		       "priority %d (its PFC counters for this port), and that no WRED/ECN drop "
		       "profile applies to it", p, c->port->link.name, p);
	}
	d = moved(c, C_RX_DISCARDS, -1);
	if (d) {
		f = add(c, r, ND_SEV_WARN, -1);
		if (!f)
			return;
		add_ev(f, d);
		SUMMARY(f, "the port's receive buffer dropped %" PRIu64 " packets (%.0f/s); PFC is "
			"on priorities %s", d->delta, d->rate, c->pfc_known ? on : "unknown");
		ACTION(f, "see which priorities lost them (nodrop counters %s, per-priority "
		       "discards): drops on a priority without PFC are lossy traffic by design; "
		       "RoCE there means a classification error (nodrop triage --profile: "
		       "roce-prio-not-lossless)", c->port->link.name);
	}
	d = moved(c, C_OUT_OF_BUFFER, -1);
	if (d) {
		f = add(c, r, ND_SEV_WARN, -1);
		if (!f)
			return;
		add_ev(f, d);
		SUMMARY(f, "%" PRIu64 " packets dropped (%.0f/s) because no receive buffer or WQE "
			"was posted: the host, not the fabric, fell behind", d->delta, d->rate);
		ACTION(f, "the receiver consumes too slowly: post receive WQEs earlier and deeper "
		       "(or use an SRQ), spread receive queues over more cores (ethtool -L %s, IRQ "
		       "affinity), enlarge the ring (ethtool -G %s rx N)", c->port->link.name,
		       c->port->link.name);
	}
}

/* ---- ECN / DCQCN ---- */

/* " (roce_np enable is off on every priority)" and the like, from the port's ECN state. */
static void ecn_state(const struct tri_ctx *c, bool np, char *buf, size_t len)
{
	const struct nd_ecn *ecn = &c->port->ecn;
	uint8_t en = np ? ecn->np_en : ecn->rp_en;
	char list[32];

	if (!ecn->have_enable) {
		buf[0] = '\0';
		return;
	}
	if (!en)
		say(buf, len, " (roce_%s enable is off on every priority)", np ? "np" : "rp");
	else
		say(buf, len, " (roce_%s enable is on for priorities %s)", np ? "np" : "rp",
		    nd_fmt_prios(list, sizeof(list), en));
}

/*
 * ecn-without-cnp, error: ECN-marked RoCE packets arrived and the NIC sent no CNP (a driver that
 * does not count CNPs sent gives no finding): the notification point is off or misconfigured.
 */
static void check_ecn_without_cnp(struct tri_ctx *c, const struct tri_rule *r)
{
	const struct nd_delta *mk = moved(c, C_ECN_MARKED, -1), *cnp = get(c, C_CNP_SENT, -1);
	struct nd_finding *f;
	char st[80];

	if (!mk || !counted(cnp) || cnp->delta)
		return;
	f = add(c, r, r->severity, -1);
	if (!f)
		return;
	add_ev(f, mk);
	add_ev(f, cnp);
	ecn_state(c, true, st, sizeof(st));
	SUMMARY(f, "%" PRIu64 " ECN-marked RoCE packets arrived (%.0f/s) and not one CNP was sent: "
		"the notification point is off or misconfigured%s", mk->delta, mk->rate, st);
	ACTION(f, "enable the notification point for the RoCE priority (%s in a profile, then "
	       "nodrop apply; MLNX_OFED: /sys/class/net/%s/ecn/roce_np/enable/PRIO), so senders "
	       "get CNPs and slow down before the switch must pause or drop",
	       nd_field_key(ND_F_ECN_NP), c->port->link.name);
}

/*
 * cnp-ignored: CNPs arrived and the reaction point ignored them. error when it handled none
 * (reaction point off), warning when it handled some (off on some priorities only).
 */
static void check_cnp_ignored(struct tri_ctx *c, const struct tri_rule *r)
{
	const struct nd_delta *ig = moved(c, C_CNP_IGNORED, -1), *h = get(c, C_CNP_HANDLED, -1);
	bool none = counted(h) && !h->delta;
	struct nd_finding *f;
	char st[80];

	if (!ig)
		return;
	f = add(c, r, none ? ND_SEV_ERROR : r->severity, -1);
	if (!f)
		return;
	add_ev(f, ig);
	add_ev(f, h);
	ecn_state(c, false, st, sizeof(st));
	SUMMARY(f, "%" PRIu64 " CNPs arrived and were ignored (%.0f/s)%s: this port does not slow "
		"down when the fabric asks it to%s", ig->delta, ig->rate,
		none ? ", none handled" : "", st);
	ACTION(f, "enable the reaction point for the priorities RoCE sends on (%s in a profile, "
	       "then nodrop apply; MLNX_OFED: /sys/class/net/%s/ecn/roce_rp/enable/PRIO)",
	       nd_field_key(ND_F_ECN_RP), c->port->link.name);
}

/* ---- RDMA transport ---- */

/*
 * rdma-loss, error: the transport's loss counters (sequence errors, out-of-sequence and duplicate
 * requests, ACK timeouts, retries) together moved by at least loss_events: a fabric that should
 * be lossless lost or delayed packets. Every counter that moved is evidence.
 */
static void check_rdma_loss(struct tri_ctx *c, const struct tri_rule *r)
{
	const struct nd_delta *hit[ND_ARRAY_SIZE(loss_counters)];
	struct nd_finding *f;
	uint64_t sum = 0;
	size_t i, k = 0;

	for (i = 0; i < ND_ARRAY_SIZE(loss_counters); i++) {
		const struct nd_delta *d = moved(c, loss_counters[i], -1);

		if (d) {
			hit[k++] = d;
			sum += d->delta;
		}
	}
	if (!k || sum < c->o->loss_events)
		return;
	f = add(c, r, r->severity, -1);
	if (!f)
		return;
	for (i = 0; i < k; i++)
		add_ev(f, hit[i]);
	SUMMARY(f, "the RDMA transport counted %" PRIu64 " loss and retransmission events in "
		"%.2f s: packets were dropped or resent on a fabric meant to be lossless", sum,
		c->t);
	ACTION(f, "find the drop: nodrop triage on the peer and the switch ports between "
	       "(discards, PFC on the RoCE priority); check RoCE rides a PFC priority (nodrop "
	       "triage --profile: roce-prio-not-lossless); ACK timeouts without sequence errors "
	       "mean a QP timeout too short for the path");
}

/*
 * rnr-storm: RNR NAKs (received or sent) at rnr_rate per second or more, warning: a receiver
 * posts its buffers too late and senders wait min_rnr_timer each time. error when RNR retries ran
 * out: a QP went to error.
 */
static void check_rnr(struct tri_ctx *c, const struct tri_rule *r)
{
	const struct nd_delta *rx = moved(c, C_RNR_RCVD, -1), *tx = moved(c, C_RNR_SENT, -1);
	const struct nd_delta *ex = moved(c, C_RNR_EXCEEDED, -1);
	double rate = (rx ? rx->rate : 0) + (tx ? tx->rate : 0);
	struct nd_finding *f;

	if (!ex && (rate < c->o->rnr_rate || (!rx && !tx)))
		return;
	f = add(c, r, ex ? ND_SEV_ERROR : r->severity, -1);
	if (!f)
		return;
	add_ev(f, ex);
	add_ev(f, rx);
	add_ev(f, tx);
	if (ex)
		SUMMARY(f, "RNR retries ran out %" PRIu64 " time%s (%.0f RNR NAKs/s): a receiver "
			"never posted a buffer in time and its peer's QP went to error", ex->delta,
			ex->delta == 1 ? "" : "s", rate);
	else
		SUMMARY(f, "%.0f RNR NAKs per second (threshold %.0f): receivers had no receive "
			"WQE posted and senders waited min_rnr_timer each time", rate,
			c->o->rnr_rate);
	ACTION(f, "post receive WQEs ahead of the sender (deeper receive queues or an SRQ, "
	       "re-post before processing); raising min_rnr_timer or rnr_retry only hides it");
}

/* ---- InfiniBand ---- */

/*
 * ib-credit-starvation, warning: port_xmit_wait grew by xmit_wait_ticks or more. A tick is
 * device-defined time with data to send and no credit (Quantum switches: 8 bytes' time on the
 * link), so ticks compare between ports of one kind and speed only, and no fraction of the
 * interval is claimed.
 */
static void check_xmit_wait(struct tri_ctx *c, const struct tri_rule *r)
{
	const struct nd_delta *d = moved(c, C_XMIT_WAIT, -1);
	struct nd_finding *f;

	if (!d || d->delta < c->o->xmit_wait_ticks)
		return;
	f = add(c, r, r->severity, -1);
	if (!f)
		return;
	add_ev(f, d);
	SUMMARY(f, "port_xmit_wait grew by %" PRIu64 " ticks in %.2f s (%.0f/s, threshold %" PRIu64
		" per interval): the port had data to send and no credits", d->delta, c->t, d->rate,
		c->o->xmit_wait_ticks);
	ACTION(f, "credits run short downstream: compare PortXmitWait along the path "
	       "(perfquery, ibqueryerrors) to find where the wait starts: a slow receiver or a "
	       "congested switch egress; tick length depends on device and link speed, so compare "
	       "like ports");
}

/* ib-link-errors, error: a PMA error counter moved by its threshold (see link_errors). */
static void check_link_errors(struct tri_ctx *c, const struct tri_rule *r)
{
	struct nd_finding *f = NULL;
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(link_errors); i++) {
		const struct nd_delta *d = moved(c, link_errors[i].name, -1);

		if (!d || d->delta < link_errors[i].threshold)
			continue;
		if (!f)
			f = add(c, r, r->severity, -1);
		if (!f)
			return;
		add_ev(f, d);
	}
	if (!f)
		return;
	SUMMARY(f, "%zu link error counter%s crossed the ibqueryerrors thresholds in %.2f s "
		"(link_downed: 1, symbol and receive errors: 10, discards and constraint errors: "
		"100)", f->n_ev, f->n_ev == 1 ? "" : "s", c->t);
	ACTION(f, "a physical-layer fault: check the cable and transceivers (mlxlink -m for BER "
	       "and FEC), reseat or replace them, and clear the counters after the fix (perfquery "
	       "-x -R); link_downed means the link retrained and dropped what was in flight");
}

/* ---- counters themselves ---- */

/*
 * counter-reset, info: counters that went backwards without wrapping (driver reload, a clear):
 * they have no delta this interval, and the rules that need them stayed silent.
 */
static void check_reset(struct tri_ctx *c, const struct tri_rule *r)
{
	struct nd_finding *f = NULL;
	size_t i, k = 0;

	for (i = 0; i < c->n; i++) {
		if (c->d[i].status != ND_DELTA_RESET)
			continue;
		if (!f)
			f = add(c, r, r->severity, -1);
		if (!f)
			return;
		add_ev(f, &c->d[i]);
		k++;
	}
	if (!f)
		return;
	SUMMARY(f, "%zu counter%s went backwards without wrapping (driver reload or a clear): no "
		"delta for %s this interval, so the rules that read %s stayed silent", k,
		k == 1 ? "" : "s", k == 1 ? "it" : "them", k == 1 ? "it" : "them");
	ACTION(f, "run nodrop triage again; if it repeats, find what resets them (dmesg for a "
	       "driver reload, perfquery -R or a monitoring agent clearing counters)");
}

static const struct tri_rule rules[] = {
	{ "pfc-storm", ND_SEV_ERROR, check_pfc_storm },
	{ "pause-heavy", ND_SEV_WARN, check_pause_heavy },
	{ "lossless-drops", ND_SEV_ERROR, check_lossless_drops },
	{ "ecn-without-cnp", ND_SEV_ERROR, check_ecn_without_cnp },
	{ "cnp-ignored", ND_SEV_WARN, check_cnp_ignored },
	{ "rdma-loss", ND_SEV_ERROR, check_rdma_loss },
	{ "rnr-storm", ND_SEV_WARN, check_rnr },
	{ "ib-credit-starvation", ND_SEV_WARN, check_xmit_wait },
	{ "ib-link-errors", ND_SEV_ERROR, check_link_errors },
	{ "counter-reset", ND_SEV_INFO, check_reset },
};

/* The config lints of a port the profile matches, as findings with no counter evidence. */
static int add_lints(struct tri_ctx *c, struct nd_err *e)
{
	const struct nd_profile *p = c->o->profile;
	struct nd_lint *lints;
	int n, i;

	if (!p || !nd_profile_matches(p, c->port))
		return 0;
	n = nd_lint_port(c->port, p, &lints, e);
	if (n < 0)
		return n;
	for (i = 0; i < n && !c->err; i++) {
		struct tri_rule r = { lints[i].id, lints[i].severity, NULL };
		struct nd_finding *f = add(c, &r, lints[i].severity, -1);

		if (!f)
			break;
		f->interval_s = 0;
		nd_strlcpy(f->summary, lints[i].evidence, sizeof(f->summary));
		nd_strlcpy(f->action, lints[i].fix, sizeof(f->action));
		f->loc = lints[i].loc;
	}
	free(lints);
	return 0;
}

int nd_triage(const struct nd_port *port, const struct nd_delta *d, size_t n, double interval_s,
	      const struct nd_triage_opts *o, struct nd_finding **out, struct nd_err *e)
{
	struct tri_ctx c = { .port = port, .d = d, .n = n, .t = interval_s, .o = o };
	struct nd_triage_opts def;
	size_t i;
	int ret;

	*out = NULL;
	if (!o) {
		nd_triage_opts_init(&def);
		c.o = &def;
	}
	c.pfc_known = port->dcb_status == 0 && (port->dcb.have & ND_DCB_HAVE_PFC);
	c.pfc = c.pfc_known ? port->dcb.pfc.pfc_en : 0;
	for (i = 0; i < ND_ARRAY_SIZE(rules) && !c.err; i++)
		rules[i].check(&c, &rules[i]);
	if (!c.err) {
		ret = add_lints(&c, e);
		if (ret) {
			free(c.v);
			return ret;
		}
	}
	if (c.err) {
		free(c.v);
		return nd_err_set(e, c.err, "%s: cannot triage: out of memory", port->link.name);
	}
	*out = c.v;
	return (int)c.n_f;
}

/* ---- sampling every port twice ---- */

static int sleep_until(const struct timespec *deadline)
{
	int ret;

	do
		ret = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline, NULL);
	while (ret == EINTR);
	return -ret;
}

static int append(struct nd_triage_report *r, struct nd_finding *f, size_t n, struct nd_err *e)
{
	struct nd_finding *grown;

	if (!n)
		return 0;
	grown = realloc(r->findings, (r->n_findings + n) * sizeof(*grown));
	if (!grown)
		return nd_err_set(e, -ENOMEM, "cannot triage: out of memory");
	memcpy(grown + r->n_findings, f, n * sizeof(*f));
	r->findings = grown;
	r->n_findings += n;
	return 0;
}

/* Second sample, deltas and rules for port @i, whose first sample is @a. */
static int finish_port(struct nd_sampler *s, struct nd_triage_report *r, size_t i,
		       const struct nd_sample *a, const struct nd_triage_opts *o, struct nd_err *e)
{
	struct nd_triage_port *tp = &r->ports[i];
	struct nd_sample b = { 0 };
	struct nd_finding *f = NULL;
	struct nd_delta *d = NULL;
	struct nd_err pe = { 0 };
	size_t n = 0, k;
	int ret;

	ret = nd_sample_port(s, tp->port.link.name, &b, &pe);
	if (ret) {
		tp->status = ret;
		nd_strlcpy(tp->error, pe.msg, sizeof(tp->error));
		return 0;
	}
	ret = nd_sample_diff(a, &b, &d, &n, e);
	if (ret)
		goto out;
	tp->interval_s = (double)(b.t_ns - a->t_ns) / 1e9;
	tp->n_counters = b.n;
	for (k = 0; k < n; k++)
		tp->n_moved += counted(&d[k]) && d[k].delta;
	ret = nd_triage(&tp->port, d, n, tp->interval_s, o, &f, e);
	if (ret >= 0)
		ret = append(r, f, (size_t)ret, e);
out:
	free(f);
	free(d);
	nd_sample_free(&b);
	return ret;
}

int nd_triage_run(struct nd_ctx *ctx, const char *const *names, size_t n, double seconds,
		  const struct nd_triage_opts *o, struct nd_triage_report *r, struct nd_err *e)
{
	struct nd_sample *first = NULL;
	struct nd_sampler *s = NULL;
	bool *taken = NULL;		/* first[i] holds a sample to free */
	struct nd_triage_opts def;
	struct nd_port *ports = NULL;
	struct timespec deadline;
	size_t count = 0, i;
	int ret;

	memset(r, 0, sizeof(*r));
	r->interval_s = seconds;
	if (!(seconds > 0 && seconds <= 86400))
		return nd_err_set(e, -EINVAL, "the interval must be more than 0 and at most 86400 "
				  "seconds, not %g", seconds);
	if (!o) {
		nd_triage_opts_init(&def);
		o = &def;
	}
	ret = nd_ports_read(ctx, names, n, &ports, &count, e);
	if (ret)
		return ret;
	r->ports = calloc(count ? count : 1, sizeof(*r->ports));
	first = calloc(count ? count : 1, sizeof(*first));
	taken = calloc(count ? count : 1, sizeof(*taken));
	if (!r->ports || !first || !taken) {
		nd_ports_free(ports, count);
		ret = nd_err_set(e, -ENOMEM, "cannot triage: out of memory");
		goto out;
	}
	/* the report owns each port's state from here on */
	for (i = 0; i < count; i++)
		r->ports[i].port = ports[i];
	r->n = count;
	free(ports);
	ret = nd_sampler_new(&s, o->maps, e);
	if (ret)
		goto out;
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	deadline.tv_sec += (time_t)seconds;
	deadline.tv_nsec += (long)((seconds - (double)(time_t)seconds) * 1e9);
	if (deadline.tv_nsec >= 1000000000L) {
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
	for (i = 0; i < count; i++) {
		struct nd_err pe = { 0 };

		r->ports[i].status = nd_sample_port(s, r->ports[i].port.link.name, &first[i], &pe);
		nd_strlcpy(r->ports[i].error, pe.msg, sizeof(r->ports[i].error));
		taken[i] = !r->ports[i].status;
	}
	ret = sleep_until(&deadline);
	if (ret) {
		nd_err_set(e, ret, "cannot wait %g s between samples: %s", seconds, strerror(-ret));
		goto out;
	}
	for (i = 0; i < count && !ret; i++)
		if (!r->ports[i].status)
			ret = finish_port(s, r, i, &first[i], o, e);
out:
	for (i = 0; taken && i < count; i++)
		if (taken[i])
			nd_sample_free(&first[i]);
	free(taken);
	free(first);
	if (s)
		nd_sampler_free(s);
	if (ret)
		nd_triage_report_free(r);
	return ret;
}

void nd_triage_report_free(struct nd_triage_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		nd_dcb_free(&r->ports[i].port.dcb);
	free(r->ports);
	free(r->findings);
	memset(r, 0, sizeof(*r));
}
