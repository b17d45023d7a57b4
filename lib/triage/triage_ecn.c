// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage's ECN family: the notification point that sends no CNP for ECN-marked packets, and
 * the reaction point that ignores the CNPs it gets.
 */
#include <inttypes.h>

#include "triage_int.h"

#define C_ECN_MARKED		"roce_rx_ecn_marked"
#define C_CNP_SENT		"cnp_sent"
#define C_CNP_HANDLED		"cnp_handled"
#define C_CNP_IGNORED		"cnp_ignored"

/* " (roce_np enable is off on every priority)" and the like, from the port's ECN state. */
static void ecn_state(const struct nd_tri_ctx *c, bool np, char *buf, size_t len)
{
	const struct nd_ecn *ecn = &c->port->ecn;
	uint8_t en = np ? ecn->np_en : ecn->rp_en;
	char list[32];

	if (!ecn->have_enable) {
		buf[0] = '\0';
		return;
	}
	if (!en)
		nd_tri_say(buf, len, " (roce_%s enable is off on every priority)",
			   np ? "np" : "rp");
	else
		nd_tri_say(buf, len, " (roce_%s enable is on for priorities %s)", np ? "np" : "rp",
			   nd_fmt_prios(list, sizeof(list), en));
}

/*
 * ecn-without-cnp, error: ECN-marked RoCE packets arrived and the NIC sent no CNP (a driver that
 * does not count CNPs sent gives no finding): the notification point is off or misconfigured.
 */
static void check_ecn_without_cnp(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *mk = nd_tri_moved(c, C_ECN_MARKED, -1);
	const struct nd_delta *cnp = nd_tri_get(c, C_CNP_SENT, -1);
	struct nd_finding *f;
	char st[80];

	if (!mk || !nd_tri_counted(cnp) || cnp->delta)
		return;
	f = nd_tri_add(c, r, r->severity, -1);
	if (!f)
		return;
	nd_tri_add_ev(f, mk);
	nd_tri_add_ev(f, cnp);
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
static void check_cnp_ignored(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	const struct nd_delta *ig = nd_tri_moved(c, C_CNP_IGNORED, -1);
	const struct nd_delta *h = nd_tri_get(c, C_CNP_HANDLED, -1);
	bool none = nd_tri_counted(h) && !h->delta;
	struct nd_finding *f;
	char st[80];

	if (!ig)
		return;
	f = nd_tri_add(c, r, none ? ND_SEV_ERROR : r->severity, -1);
	if (!f)
		return;
	nd_tri_add_ev(f, ig);
	nd_tri_add_ev(f, h);
	ecn_state(c, false, st, sizeof(st));
	SUMMARY(f, "%" PRIu64 " CNPs arrived and were ignored (%.0f/s)%s: this port does not slow "
		"down when the fabric asks it to%s", ig->delta, ig->rate,
		none ? ", none handled" : "", st);
	ACTION(f, "enable the reaction point for the priorities RoCE sends on (%s in a profile, "
	       "then nodrop apply; MLNX_OFED: /sys/class/net/%s/ecn/roce_rp/enable/PRIO)",
	       nd_field_key(ND_F_ECN_RP), c->port->link.name);
}

static const struct nd_tri_rule rules[] = {
	{ "ecn-without-cnp", ND_SEV_ERROR, check_ecn_without_cnp },
	{ "cnp-ignored", ND_SEV_WARN, check_cnp_ignored },
};

static const char *const counters[] = {
	C_ECN_MARKED, C_CNP_SENT, C_CNP_HANDLED, C_CNP_IGNORED,
};

ND_TRI_FAMILY(ecn);
