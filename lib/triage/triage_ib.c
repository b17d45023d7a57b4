// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage's InfiniBand family: a port starved of credits (port_xmit_wait), and the PMA link
 * error counters past the thresholds ibqueryerrors documents.
 */
#include <inttypes.h>

#include "triage_int.h"

#define C_XMIT_WAIT		"ib_xmit_wait"

/*
 * IB PMA error counters and the thresholds ibqueryerrors documents (per interval here, per
 * "since last clear" there), but link_downed: one retrain in a few seconds drops everything in
 * flight and is worth an error on its own. X(name, threshold) for each, so the rule's table and
 * the family's counters are one list.
 */
#define LINK_ERRORS(X)				\
	X("ib_symbol_errors", 10)		\
	X("ib_link_error_recovery", 10)		\
	X("ib_link_downed", 1)			\
	X("ib_rcv_errors", 10)			\
	X("ib_local_link_integrity_errors", 10)	\
	X("ib_excessive_buffer_overrun_errors", 10)	\
	X("ib_rcv_remote_physical_errors", 100)	\
	X("ib_rcv_switch_relay_errors", 100)	\
	X("ib_xmit_discards", 100)		\
	X("ib_xmit_constraint_errors", 100)	\
	X("ib_rcv_constraint_errors", 100)	\
	X("ib_vl15_dropped", 100)

#define LINK_ERROR(name, threshold) { name, threshold },
#define NAME_OF(name, threshold) name,

static const struct {
	const char *name;
	uint64_t threshold;
} link_errors[] = { LINK_ERRORS(LINK_ERROR) };

/*
 * ib-credit-starvation, warning: port_xmit_wait grew by xmit_wait_ticks or more. A tick is
 * device-defined time with data to send and no credit (Quantum switches: 8 bytes' time on the
 * link), so ticks compare between ports of one kind and speed only, and no fraction of the
 * interval is claimed.
 */
static void check_xmit_wait(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *d = nd_tri_moved(c, C_XMIT_WAIT, -1);
	struct nd_finding *f;

	if (!d || d->delta < c->o->xmit_wait_ticks)
		return;
	f = nd_tri_add(c, r, r->severity, -1);
	if (!f)
		return;
	nd_tri_add_ev(f, d);
	SUMMARY(f, "port_xmit_wait grew by %" PRIu64 " ticks in %.2f s (%.0f/s, threshold %" PRIu64
		" per interval): the port had data to send and no credits", d->delta, c->t, d->rate,
		c->o->xmit_wait_ticks);
	ACTION(f, "credits run short downstream: compare PortXmitWait along the path "
	       "(perfquery, ibqueryerrors) to find where the wait starts: a slow receiver or a "
	       "congested switch egress; tick length depends on device and link speed, so compare "
	       "like ports");
}

/* ib-link-errors, error: a PMA error counter moved by its threshold (see link_errors). */
static void check_link_errors(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	struct nd_finding *f = NULL;
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(link_errors); i++) {
		const struct nd_delta *d = nd_tri_moved(c, link_errors[i].name, -1);

		if (!d || d->delta < link_errors[i].threshold)
			continue;
		if (!f)
			f = nd_tri_add(c, r, r->severity, -1);
		if (!f)
			return;
		nd_tri_add_ev(f, d);
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

static const struct nd_tri_rule rules[] = {
	{ "ib-credit-starvation", ND_SEV_WARN, check_xmit_wait },
	{ "ib-link-errors", ND_SEV_ERROR, check_link_errors },
};

static const char *const counters[] = {
	C_XMIT_WAIT, LINK_ERRORS(NAME_OF)
};

ND_TRI_FAMILY(ib);
