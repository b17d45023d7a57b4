// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Lints: consistency rules over one port's lossless state, shared by apply --dry-run (the state
 * the plan leads to) and audit (the state now). Each rule is one row {id, severity, check}; a check
 * appends findings that carry the values breaking the rule, the change that fixes it and, when a
 * profile gave the value involved, where. Rules that need state the port could not report (no
 * dcbnl, no RDMA port, no ECN interface) stay silent or say, as info, what could not be checked.
 *
 * RoCE traffic is followed as the NIC classifies it: the rdma_cm default ToS of each Ethernet RDMA
 * port (0 when no configfs group exists) -> DSCP = ToS >> 2 -> priority through the DSCP APP
 * entries when the port trusts DSCP. Under PCP trust the priority is the VLAN PCP the application
 * chooses, which no host setting reveals.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "lint.h"

static const char *const severity_names[] = {
	[ND_SEV_INFO] = "info",
	[ND_SEV_WARN] = "warning",
	[ND_SEV_ERROR] = "error",
};

const char *nd_severity_name(enum nd_severity sev)
{
	if ((unsigned int)sev < ND_ARRAY_SIZE(severity_names))
		return severity_names[sev];
	return "unknown";
}

bool lint_given(const struct lint_ctx *c, enum nd_field f)
{
	return c->profile && (c->profile->set & (1u << f));
}

struct nd_lint *lint_add(struct lint_ctx *c, const struct lint_rule *r, enum nd_severity sev,
			 enum nd_field f)
{
	struct nd_lint *l;

	if (c->err)
		return NULL;
	l = nd_append((void **)&c->v, &c->n, &c->cap, sizeof(*l));
	if (!l) {
		c->err = -ENOMEM;
		return NULL;
	}
	l->id = r->id;
	l->severity = sev;
	if (f < ND_F_COUNT && lint_given(c, f))
		l->loc = c->profile->loc[f];
	return l;
}

void lint_say(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}

/* The profile key a fix tells people to edit, e.g. "pfc.priorities". */
static const char *key(enum nd_field f)
{
	return nd_field_key(f);
}


/* ---- the rules ---- */

/*
 * roce-prio-not-lossless: with PFC on some priority, every RoCE flow's priority must have PFC.
 * error: trust dscp and the flow's DSCP maps to a priority without PFC, or to none at all.
 * warning: trust pcp (the priority is the VLAN PCP, not derivable here; PFC must cover it).
 * PFC off everywhere: the ECN-only design, no finding, unless ECN is known off too (warning:
 * nothing keeps RoCE from dropping).
 */
static void check_roce_prio(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_ecn *ecn = &c->port->ecn;
	char on[32];
	size_t i;

	if (!c->dcb || !(c->port->dcb.have & ND_DCB_HAVE_PFC) || !c->n_flows)
		return;
	if (!c->pfc) {
		struct nd_lint *l;

		if (!ecn->have_enable || ecn->np_en || ecn->rp_en)
			return;
		l = lint_add(c, r, ND_SEV_WARN, ND_F_PFC_EN);
		if (!l)
			return;
		EVIDENCE(l, "PFC is off on every priority and ECN is off (no roce_np/roce_rp "
			 "enable set): RoCE traffic (%s ToS %d) runs lossy with no congestion "
			 "control", c->flows[0].who, c->flows[0].tos);
		FIX(l, "enable PFC on the RoCE priority (%s), or ECN on it (%s, %s) for an "
		    "ECN-only design", key(ND_F_PFC_EN), key(ND_F_ECN_NP), key(ND_F_ECN_RP));
		return;
	}
	nd_fmt_prios(on, sizeof(on), c->pfc);
	for (i = 0; i < c->n_flows; i++) {
		const struct flow *fl = &c->flows[i];
		struct nd_lint *l;

		if (c->trust == ND_TRUST_PCP) {
			l = lint_add(c, r, ND_SEV_WARN, ND_F_TRUST);
			if (!l)
				return;
			EVIDENCE(l, "trust is pcp: the priority of RoCE traffic (%s ToS %d, DSCP "
				 "%d) is the VLAN PCP the application sets, not derivable from "
				 "DSCP; PFC is on priorities %s", fl->who, fl->tos, fl->dscp, on);
			FIX(l, "make sure RoCE traffic carries a VLAN PCP with PFC (%s), or trust "
			    "DSCP (%s: dscp) and map DSCP %d to a PFC priority (%s)", on,
			    key(ND_F_TRUST), fl->dscp, key(ND_F_DSCP_MAP));
			continue;
		}
		if (fl->prio >= 0 && (c->pfc & (1u << fl->prio)))
			continue;
		l = lint_add(c, r, r->severity, lint_given(c, ND_F_PFC_EN) ? ND_F_PFC_EN :
			lint_given(c, ND_F_DSCP_MAP) ? ND_F_DSCP_MAP : ND_F_ROCE_TOS);
		if (!l)
			return;
		if (fl->prio < 0) {
			EVIDENCE(l, "RoCE traffic (%s ToS %d) carries DSCP %d, which the "
				 "DSCP map does not map (trust dscp): it gets the NIC's default "
				 "priority, not one of the PFC priorities %s", fl->who, fl->tos,
				 fl->dscp, on);
			if (fl->kernel_default)
				FIX(l, "set the RoCE ToS (%s) to a DSCP mapped to a PFC priority, "
				    "or map DSCP %d to one (%s: %d:%d)", key(ND_F_ROCE_TOS),
				    fl->dscp, key(ND_F_DSCP_MAP), fl->dscp, __builtin_ctz(c->pfc));
			else
				FIX(l, "map DSCP %d to a PFC priority (%s: %d:%d)", fl->dscp,
				    key(ND_F_DSCP_MAP), fl->dscp, __builtin_ctz(c->pfc));
			continue;
		}
		EVIDENCE(l, "RoCE traffic (%s ToS %d) -> DSCP %d -> priority %d (trust dscp), but "
			 "PFC is on priorities %s only", fl->who, fl->tos, fl->dscp, fl->prio, on);
		if (fl->kernel_default)
			FIX(l, "set the RoCE ToS (%s) to a DSCP that maps to a PFC priority, or "
			    "enable PFC on priority %d (%s)", key(ND_F_ROCE_TOS), fl->prio,
			    key(ND_F_PFC_EN));
		else
			FIX(l, "enable PFC on priority %d (%s), or map DSCP %d to a PFC priority "
			    "(%s)", fl->prio, key(ND_F_PFC_EN), fl->dscp, key(ND_F_DSCP_MAP));
	}
}

/* The priorities lossless RoCE is expected on: the ones derived, else the PFC ones. */
static uint8_t lossless_prios(const struct lint_ctx *c)
{
	return c->roce_prios ? c->roce_prios : c->pfc;
}

/*
 * ecn-not-on-lossless: on each priority RoCE rides (else each PFC priority), DCQCN must be on at
 * both ends. The roce_np enable is port-wide though exposed per priority: NP counts as on when
 * any of its bits is set; RP is per priority.
 * error: NP and RP both off (only PAUSE slows senders); warning: one of them off.
 * info (warning when the profile sets ECN enables): the backend has no enables to check.
 */
static void check_ecn_enabled(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_ecn *ecn = &c->port->ecn;
	uint8_t want = lossless_prios(c);
	char list[32];
	unsigned int p;

	if (!c->n_flows || !want)
		return;
	if (!ecn->have_enable) {
		bool asked = lint_given(c, ND_F_ECN_NP) || lint_given(c, ND_F_ECN_RP);
		struct nd_lint *l = lint_add(c, r, asked ? ND_SEV_WARN : ND_SEV_INFO,
					lint_given(c, ND_F_ECN_NP) ? ND_F_ECN_NP : ND_F_ECN_RP);

		if (!l)
			return;
		EVIDENCE(l, "ECN on priorities %s could not be checked: %s (backend %s)",
			 nd_fmt_prios(list, sizeof(list), want),
			 ecn->note[0] ? ecn->note : "the driver shows no per-priority ECN enable",
			 nd_ecn_backend_name(ecn->backend));
		FIX(l, "check the NIC firmware's congestion control priorities (mlxconfig -d %s "
		    "query ROCE_CC_PRIO_MASK_P1 on ConnectX)",
		    c->port->link.bus_info[0] ? c->port->link.bus_info : "PCI-ADDRESS");
		return;
	}
	for (p = 0; p < ND_PRIO_MAX; p++) {
		bool np = ecn->np_en != 0, rp = ecn->rp_en & (1u << p);
		struct nd_lint *l;

		if (!(want & (1u << p)) || (np && rp))
			continue;
		l = lint_add(c, r, !np && !rp ? ND_SEV_ERROR : r->severity,
			!rp ? ND_F_ECN_RP : ND_F_ECN_NP);
		if (!l)
			return;
		if (!np && !rp)
			EVIDENCE(l, "priority %u carries lossless RoCE but ECN is off at "
				 "both ends (roce_np off on every priority, roce_rp/enable/%u = "
				 "0): DCQCN never slows senders, only PFC pauses them", p, p);
		else if (!np)
			EVIDENCE(l, "roce_np is off on every priority (its enable is port-wide, "
				 "though exposed per priority): this port sends no CNPs for "
				 "ECN-marked priority-%u traffic it receives", p);
		else
			EVIDENCE(l, "roce_rp/enable/%u = 0: this port ignores CNPs for its "
				 "priority-%u traffic and keeps sending at line rate", p, p);
		if (!np && !rp)
			FIX(l, "enable ECN on priority %u at the notification and reaction points "
			    "(%s, %s)", p, key(ND_F_ECN_NP), key(ND_F_ECN_RP));
		else
			FIX(l, "enable ECN on priority %u at the %s (%s)", p,
			    !np ? "notification point" : "reaction point",
			    !np ? key(ND_F_ECN_NP) : key(ND_F_ECN_RP));
	}
}

/* A CNP setting: the port's value when its backend shows it, else the profile's. */
static bool cnp_value(const struct lint_ctx *c, const char *param, enum nd_field f,
		      uint32_t *v, const char **from)
{
	if (!nd_ecn_param_get(&c->port->ecn, param, v)) {
		*from = param;
		return true;
	}
	if (lint_given(c, f)) {
		*v = f == ND_F_CNP_PRIO ? c->profile->cnp_prio : c->profile->cnp_dscp;
		*from = key(f);
		return true;
	}
	return false;
}

/*
 * cnp-prio-lossy-or-shared: CNPs should ride a priority of their own, in a strict TC; sharing the
 * data priority queues them behind the congestion they report, a weighted TC lets bulk traffic
 * delay or drop them. Warnings, each on its own:
 * - np_cnp_prio_mode != 0 and the profile sets no CNP priority: the NIC does not use np_cnp_prio
 *   (writing np_cnp_prio sets mode 0);
 * - the CNP priority (np_cnp_prio, else the profile's) is a RoCE data priority;
 * - the CNP priority sits in a TC whose ETS TSA is not strict;
 * - trust dscp and the CNP DSCP maps to a RoCE data priority (peers with the same map queue CNPs
 *   with the data).
 * Data priorities: those RoCE is derived to ride, else the PFC ones.
 */
static void check_cnp(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct ieee_ets *ets = &c->port->dcb.ets;
	uint8_t data = lossless_prios(c);
	const char *from, *dfrom;
	uint32_t prio, dscp, mode;
	struct nd_lint *l;
	char list[32];

	if (!c->n_flows)
		return;
	/* a profile that sets the CNP priority writes np_cnp_prio, which resets the mode */
	if (!nd_ecn_param_get(&c->port->ecn, "np_cnp_prio_mode", &mode) && mode &&
	    !lint_given(c, ND_F_CNP_PRIO)) {
		l = lint_add(c, r, r->severity, ND_F_CNP_PRIO);
		if (!l)
			return;
		EVIDENCE(l, "np_cnp_prio_mode is %u: CNPs do not take the configured np_cnp_prio",
			 mode);
		FIX(l, "set the CNP priority (%s): writing np_cnp_prio puts np_cnp_prio_mode back "
		    "to 0", key(ND_F_CNP_PRIO));
	} else if (cnp_value(c, "np_cnp_prio", ND_F_CNP_PRIO, &prio, &from) &&
		   prio < ND_PRIO_MAX) {
		if (data & (1u << prio)) {
			l = lint_add(c, r, r->severity, ND_F_CNP_PRIO);
			if (!l)
				return;
			EVIDENCE(l, "CNPs leave on priority %u (%s), which carries RoCE data "
				 "(priorities %s): they wait behind the congestion they report",
				 prio, from, nd_fmt_prios(list, sizeof(list), data));
			FIX(l, "give CNPs a priority of their own in a strict TC (%s, e.g. 6)",
			    key(ND_F_CNP_PRIO));
		} else if (c->dcb && (c->port->dcb.have & ND_DCB_HAVE_ETS) &&
			   ets->tc_tsa[ets->prio_tc[prio] % ND_PRIO_MAX] !=
			   IEEE_8021QAZ_TSA_STRICT) {
			unsigned int tc = ets->prio_tc[prio] % ND_PRIO_MAX;

			l = lint_add(c, r, r->severity, lint_given(c, ND_F_ETS_TSA) ? ND_F_ETS_TSA :
				ND_F_ETS_PRIO_TC);
			if (!l)
				return;
			EVIDENCE(l, "CNP priority %u (%s) is in TC %u, scheduled %s, not strict: "
				 "bulk traffic in that TC delays CNPs", prio, from, tc,
				 nd_tsa_name(ets->tc_tsa[tc]));
			FIX(l, "make TC %u strict (%s) or move priority %u to a strict TC (%s)", tc,
			    key(ND_F_ETS_TSA), prio, key(ND_F_ETS_PRIO_TC));
		}
	}
	if (c->dcb && c->trust == ND_TRUST_DSCP &&
	    cnp_value(c, "np_cnp_dscp", ND_F_CNP_DSCP, &dscp, &dfrom) && dscp < ND_DSCP_MAX &&
	    c->dscp2prio[dscp] >= 0 && (data & (1u << c->dscp2prio[dscp]))) {
		l = lint_add(c, r, r->severity, ND_F_CNP_DSCP);
		if (!l)
			return;
		EVIDENCE(l, "CNP DSCP %u (%s) maps to priority %d (trust dscp), which carries "
			 "RoCE data: receivers with this map queue CNPs with the data", dscp, dfrom,
			 c->dscp2prio[dscp]);
		FIX(l, "use a CNP DSCP that maps to the CNP priority (%s, %s; e.g. 48 -> 6)",
		    key(ND_F_CNP_DSCP), key(ND_F_DSCP_MAP));
	}
}

/*
 * mtu-too-small-for-roce, per Ethernet RDMA port whose MTUs verbs reported:
 * error: netdev MTU < active_mtu + 96 (the state drops RoCE to a smaller MTU, e.g. a plan lowering
 * the netdev MTU); warning: netdev MTU < max_mtu + 96 (the netdev MTU caps RoCE below what the
 * port supports, as 1500 caps it at 1024).
 */
static void check_mtu(struct lint_ctx *c, const struct lint_rule *r)
{
	unsigned int mtu = c->port->link.mtu;
	size_t i;

	for (i = 0; i < c->port->n_rdma; i++) {
		const struct nd_rdma_port *rp = &c->port->rdma[i];
		unsigned int path = rp->active_mtu, fit = nd_roce_mtu_for(mtu);
		struct nd_lint *l;

		if (strcmp(rp->link_layer, "Ethernet") || !mtu)
			continue;
		if (path && mtu < path + ND_ROCE_HDR_BYTES) {
			l = lint_add(c, r, r->severity, ND_F_MTU);
			if (!l)
				return;
			EVIDENCE(l, "%s/%u: netdev MTU %u < RoCE MTU %u + %u (%s) = %u: RoCE drops "
				 "to %u-byte packets", rp->ibdev, rp->port, mtu, path,
				 ND_ROCE_HDR_BYTES, ND_ROCE_HDR_TEXT, path + ND_ROCE_HDR_BYTES,
				 fit);
		} else if (rp->max_mtu > path && mtu < rp->max_mtu + ND_ROCE_HDR_BYTES) {
			path = rp->max_mtu;
			l = lint_add(c, r, ND_SEV_WARN, ND_F_MTU);
			if (!l)
				return;
			EVIDENCE(l, "%s/%u: netdev MTU %u caps RoCE at %u-byte packets; the port "
				 "supports %u, which needs MTU >= %u + %u (%s) = %u", rp->ibdev,
				 rp->port, mtu, fit, path, path, ND_ROCE_HDR_BYTES,
				 ND_ROCE_HDR_TEXT, path + ND_ROCE_HDR_BYTES);
		} else {
			continue;
		}
		FIX(l, "set the netdev MTU (%s) to at least %u, or to 9000 with jumbo frames end "
		    "to end", key(ND_F_MTU), path + ND_ROCE_HDR_BYTES);
	}
}

/*
 * trust-pcp-with-dscp-map (profile only), warning: trust pcp and a DSCP map together. mlx5 and ice
 * switch a port to DSCP trust on the first DSCP APP entry, so the map overrides the trust.
 */
static void check_trust_map(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_profile *p = c->profile;
	unsigned int d, n = 0;
	struct nd_lint *l;

	if (!lint_given(c, ND_F_TRUST) || !lint_given(c, ND_F_DSCP_MAP) || p->trust != ND_TRUST_PCP)
		return;
	for (d = 0; d < ND_DSCP_MAX; d++)
		n += p->dscp2prio[d] >= 0;
	if (!n)
		return;
	l = lint_add(c, r, r->severity, ND_F_DSCP_MAP);
	if (!l)
		return;
	EVIDENCE(l, "%s is pcp but %s maps %u DSCP value%s: on mlx5 and ice the first DSCP APP "
		 "entry switches the port to DSCP trust", key(ND_F_TRUST), key(ND_F_DSCP_MAP), n,
		 n == 1 ? "" : "s");
	FIX(l, "remove %s, or set %s to dscp", key(ND_F_DSCP_MAP), key(ND_F_TRUST));
}

/*
 * pfc-buffer, error, where the driver reports its receive buffers (with at least one size):
 * - a PFC priority maps to a buffer of size 0 (or beyond the 8): no room for the data in flight
 *   after PAUSE;
 * - a PFC priority shares its buffer with a priority without PFC: that traffic fills the lossless
 *   buffer's headroom and PAUSE cannot stop it.
 * PFC priorities sharing one buffer among themselves is allowed: they pause together, which is a
 * design choice (mlx5's own default puts them all in buffer 1), not a fault.
 */
static void check_buffer(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct dcbnl_buffer *b = &c->port->dcb.buffer;
	enum nd_field f = lint_given(c, ND_F_BUF_PRIO) ? ND_F_BUF_PRIO : ND_F_BUF_SIZE;
	uint8_t reported = 0;
	unsigned int p, q;
	char list[32];

	if (!c->dcb || !c->pfc || !(c->port->dcb.have & ND_DCB_HAVE_BUFFER))
		return;
	for (q = 0; q < DCBX_MAX_BUFFERS; q++)
		if (b->buffer_size[q])
			break;
	if (q == DCBX_MAX_BUFFERS)
		return;		/* the driver gives no sizes at all: nothing to judge */
	for (p = 0; p < ND_PRIO_MAX; p++) {
		unsigned int buf = b->prio2buffer[p];
		uint8_t lossy = 0;
		struct nd_lint *l;

		if (!(c->pfc & (1u << p)))
			continue;
		if (buf >= DCBX_MAX_BUFFERS || !b->buffer_size[buf]) {
			l = lint_add(c, r, r->severity, f);
			if (!l)
				return;
			EVIDENCE(l, "PFC priority %u maps to receive buffer %u, %s: no room for "
				 "the data in flight after PAUSE", p, buf,
				 buf >= DCBX_MAX_BUFFERS ? "which does not exist" :
				 "whose size is 0");
			FIX(l, "map priority %u to a sized buffer (%s) or size buffer %u (%s)", p,
			    key(ND_F_BUF_PRIO), buf, key(ND_F_BUF_SIZE));
			continue;
		}
		if (reported & (1u << buf))
			continue;
		for (q = 0; q < ND_PRIO_MAX; q++)
			if (b->prio2buffer[q] == buf && !(c->pfc & (1u << q)))
				lossy |= (uint8_t)(1u << q);
		if (!lossy)
			continue;
		reported |= (uint8_t)(1u << buf);
		l = lint_add(c, r, r->severity, ND_F_BUF_PRIO);
		if (!l)
			return;
		EVIDENCE(l, "receive buffer %u holds PFC priority %u and priorities %s without "
			 "PFC: their traffic fills the lossless headroom and PAUSE cannot stop "
			 "it", buf, p, nd_fmt_prios(list, sizeof(list), lossy));
		FIX(l, "give the PFC priorities a buffer of their own (%s, e.g. %u:1) and size it "
		    "(%s)", key(ND_F_BUF_PRIO), p, key(ND_F_BUF_SIZE));
	}
}

/* cable-length-unset, warning: PFC on some priority and ieee_pfc.delay (cable length) is 0. */
static void check_cable(struct lint_ctx *c, const struct lint_rule *r)
{
	struct nd_lint *l;
	char on[32];

	if (!c->dcb || !c->pfc || c->port->dcb.pfc.delay)
		return;
	l = lint_add(c, r, r->severity, lint_given(c, ND_F_PFC_DELAY) ? ND_F_PFC_DELAY : ND_F_PFC_EN);
	if (!l)
		return;
	EVIDENCE(l, "PFC is on priorities %s but the cable length (ieee_pfc.delay) is 0 m: the "
		 "NIC cannot size the headroom for data in flight after PAUSE",
		 nd_fmt_prios(on, sizeof(on), c->pfc));
	FIX(l, "set %s to the cable length in metres (mlx5 uses it to size headroom)",
	    key(ND_F_PFC_DELAY));
}

/* The first DCB field the profile sets, ND_F_COUNT when none. */
static enum nd_field profile_dcb_field(const struct lint_ctx *c)
{
	static const enum nd_field dcb_fields[] = {
		ND_F_DCBX, ND_F_TRUST, ND_F_DSCP_MAP, ND_F_PFC_EN, ND_F_PFC_DELAY,
		ND_F_ETS_PRIO_TC, ND_F_ETS_TSA, ND_F_ETS_BW, ND_F_BUF_PRIO, ND_F_BUF_SIZE,
		ND_F_MAXRATE,
	};
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(dcb_fields); i++)
		if (lint_given(c, dcb_fields[i]))
			return dcb_fields[i];
	return ND_F_COUNT;
}

/*
 * dcbx-not-host: something other than the host owns DCB and can overwrite what is set here:
 * DCBX mode LLD_MANAGED (firmware or an agent), or an LLDP agent process (lldpad, lldpd) running.
 * error when the profile sets DCB fields (the apply would be undone), else warning.
 */
static void check_dcbx(struct lint_ctx *c, const struct lint_rule *r)
{
	enum nd_field f = profile_dcb_field(c);
	enum nd_severity sev = f < ND_F_COUNT ? ND_SEV_ERROR : r->severity;
	const struct nd_dcb *dcb = &c->port->dcb;
	struct nd_lldp_agent a;
	struct nd_lint *l;

	if (!c->dcb)
		return;
	if ((dcb->have & ND_DCB_HAVE_DCBX) && (dcb->dcbx & DCB_CAP_DCBX_LLD_MANAGED)) {
		l = lint_add(c, r, sev, f);
		if (!l)
			return;
		EVIDENCE(l, "DCBX mode is 0x%02x (LLD_MANAGED): firmware or an LLDP agent owns DCB "
			 "and can overwrite PFC, ETS and APP settings made by the host", dcb->dcbx);
		FIX(l, "set %s to host, and turn off the NIC's firmware LLDP agent where it has "
		    "one (ice: ethtool --set-priv-flags %s fw-lldp-agent off; i40e: "
		    "disable-fw-lldp on)", key(ND_F_DCBX), c->port->link.name);
	}
	/* best effort: an unreadable /proc hides agents, it does not fail the lint run */
	if (nd_lldp_agent_find(&a) != 1)
		return;
	l = lint_add(c, r, sev, f);
	if (!l)
		return;
	EVIDENCE(l, "%s is running (pid %s): it %s", a.comm, a.pid, a.does);
	FIX(l, "stop %s (systemctl stop %s) or configure it to leave DCB on %s alone", a.comm,
	    a.comm, c->port->link.name);
}

/*
 * headroom-short (warning): a lossless priority's receive buffer is smaller than the headroom
 * the basic model (nodrop-headroom(8)) needs for the port's speed, cable length (pfc delay) and
 * MTU: what arrives after PAUSE would not fit. Needs the driver's buffer sizes, a known speed
 * and a cable length; the model is stated, since vendors size headroom differently.
 */
static void check_headroom(struct lint_ctx *c, const struct lint_rule *r)
{
	const struct nd_port *p = c->port;
	const struct dcbnl_buffer *b = &p->dcb.buffer;
	struct nd_err ignored = { 0 };
	struct nd_headroom h;
	struct nd_lint *l;
	unsigned int prio;
	uint8_t done = 0;

	if (!c->dcb || !c->pfc || !p->dcb.pfc.delay || p->link.speed_mbps <= 0 ||
	    !(p->dcb.have & ND_DCB_HAVE_BUFFER) || !b->total_size)
		return;
	if (nd_headroom_required((uint64_t)p->link.speed_mbps, p->dcb.pfc.delay, p->link.mtu,
				 ND_HDRM_BASIC, &h, &ignored))
		return;	/* a speed the model has no response time for: nothing to compare */
	for (prio = 0; prio < ND_PRIO_MAX; prio++) {
		unsigned int buf = b->prio2buffer[prio];

		if (!(c->pfc & (1u << prio)) || buf >= DCBX_MAX_BUFFERS || done & (1u << buf))
			continue;
		done |= (uint8_t)(1u << buf);
		if (!b->buffer_size[buf] || b->buffer_size[buf] >= h.size)
			continue;	/* size 0 is pfc-buffer's finding */
		l = lint_add(c, r, r->severity, lint_given(c, ND_F_BUF_SIZE) ? ND_F_BUF_SIZE : ND_F_PFC_DELAY);
		if (!l)
			return;
		EVIDENCE(l, "buffer %u (lossless priority %u) holds %u B; the basic headroom model "
			 "needs %llu B at %lld Mb/s, %u m of cable, MTU %u", buf, prio,
			 b->buffer_size[buf], (unsigned long long)h.size,
			 (long long)p->link.speed_mbps, p->dcb.pfc.delay, p->link.mtu);
		FIX(l, "give buffer %u at least %llu B (%s), or check the cable length; "
		    "nodrop headroom --speed %lldM --cable %um --mtu %u shows each term", buf,
		    (unsigned long long)h.size, key(ND_F_BUF_SIZE), (long long)p->link.speed_mbps,
		    p->dcb.pfc.delay, p->link.mtu);
	}
}

static const struct lint_rule rules[] = {
	{ "roce-prio-not-lossless", ND_SEV_ERROR, check_roce_prio },
	{ "ecn-not-on-lossless", ND_SEV_WARN, check_ecn_enabled },
	{ "cnp-prio-lossy-or-shared", ND_SEV_WARN, check_cnp },
	{ "mtu-too-small-for-roce", ND_SEV_ERROR, check_mtu },
	{ "trust-pcp-with-dscp-map", ND_SEV_WARN, check_trust_map },
	{ "pfc-buffer", ND_SEV_ERROR, check_buffer },
	{ "cable-length-unset", ND_SEV_WARN, check_cable },
	{ "headroom-short", ND_SEV_WARN, check_headroom },
	{ "dcbx-not-host", ND_SEV_WARN, check_dcbx },
};

/* The RoCE flows of the port: each Ethernet RDMA port's rdma_cm default; else the profile's ToS. */
static void find_flows(struct lint_ctx *c)
{
	const struct nd_port *port = c->port;
	size_t i;

	for (i = 0; i < port->n_rdma && c->n_flows < ND_ARRAY_SIZE(c->flows); i++) {
		const struct nd_rdma_port *rp = &port->rdma[i];
		struct flow *fl;

		if (strcmp(rp->link_layer, "Ethernet"))
			continue;
		fl = &c->flows[c->n_flows++];
		fl->tos = rp->roce.tos;
		fl->kernel_default = !rp->roce.configured;
		snprintf(fl->who, sizeof(fl->who), "%s/%u %s", rp->ibdev, rp->port,
			 fl->kernel_default ? "kernel default" : "rdma_cm default");
	}
	if (!c->n_flows && lint_given(c, ND_F_ROCE_TOS)) {
		c->flows[0].tos = c->profile->roce_tos;
		snprintf(c->flows[0].who, sizeof(c->flows[0].who), "profile %s",
			 key(ND_F_ROCE_TOS));
		c->n_flows = 1;
	}
	for (i = 0; i < c->n_flows; i++) {
		struct flow *fl = &c->flows[i];

		fl->dscp = (fl->tos >> 2) & 0x3f;
		fl->prio = c->dcb && c->trust == ND_TRUST_DSCP ? c->dscp2prio[fl->dscp] : -1;
		if (fl->prio >= 0)
			c->roce_prios |= (uint8_t)(1u << fl->prio);
	}
}

void lint_ctx_init(struct lint_ctx *c, const struct nd_port *port,
		   const struct nd_profile *profile)
{
	size_t i;

	memset(c, 0, sizeof(*c));
	c->port = port;
	c->profile = profile;
	c->dcb = port->dcb_status == 0;
	if (c->dcb) {
		if (port->dcb.have & ND_DCB_HAVE_PFC)
			c->pfc = port->dcb.pfc.pfc_en;
		c->trust = nd_dcb_trust(&port->dcb, NULL);
		nd_dcb_dscp_map(&port->dcb, c->dscp2prio);
		/* an entry naming no real priority classifies nothing the rules can follow */
		for (i = 0; i < ND_DSCP_MAX; i++)
			if (c->dscp2prio[i] >= ND_PRIO_MAX)
				c->dscp2prio[i] = -1;
	}
	find_flows(c);
}

int lint_run(struct lint_ctx *c, const struct lint_rule *set, size_t n, struct nd_lint **lints,
	     struct nd_err *e)
{
	for (size_t i = 0; i < n && !c->err; i++)
		set[i].check(c, &set[i]);
	if (c->err) {
		free(c->v);
		return nd_err_set(e, c->err, "%s: cannot run lints: out of memory",
				  c->port->link.name);
	}
	*lints = c->v;
	return (int)c->n;
}

int nd_lint_port(const struct nd_port *port, const struct nd_profile *profile,
		 struct nd_lint **lints, struct nd_err *e)
{
	struct lint_ctx c;

	*lints = NULL;
	lint_ctx_init(&c, port, profile);
	return lint_run(&c, rules, ND_ARRAY_SIZE(rules), lints, e);
}
