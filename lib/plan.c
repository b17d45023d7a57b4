// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From "what is" and "what should be" to ordered steps. The order is chosen so that a run cut
 * short is never worse than the start: DCBX ownership first, MTU up before anything depends on
 * it, buffers before the PFC that needs them, scheduling and PFC before the DSCP entries that
 * switch trust (mlx5, ice), RoCE marking last, MTU down last of all.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "plan.h"

#define SET(p, f) ((p)->set & (1u << (f)))

void nd_plan_free(struct nd_plan *plan)
{
	free(plan->steps);
	plan->steps = NULL;
	plan->n = 0;
}

size_t nd_plan_changes(const struct nd_plan *plan)
{
	size_t i, n = 0;

	for (i = 0; i < plan->n; i++)
		n += !plan->steps[i].skip;
	return n;
}

static struct nd_step *add(struct nd_plan *plan, enum nd_step_kind kind, size_t port,
			   enum nd_field field)
{
	struct nd_step *s = nd_push((void **)&plan->steps, &plan->n, sizeof(*s));

	if (!s)
		return NULL;
	s->kind = kind;
	s->port = port;
	s->field = field;
	return s;
}

/* "0:50 1:50 ..." for eight small values. */
static void fmt_u8s(char *buf, size_t len, const uint8_t *v)
{
	size_t off = 0;
	int i;

	for (i = 0; i < ND_PRIO_MAX; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%u", i ? " " : "", v[i]);
}

static void fmt_u64s(char *buf, size_t len, const uint64_t *v)
{
	size_t off = 0;
	int i;

	for (i = 0; i < ND_PRIO_MAX && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%" PRIu64, i ? " " : "", v[i]);
}

static void fmt_tsas(char *buf, size_t len, const uint8_t *v)
{
	size_t off = 0;
	int i;

	for (i = 0; i < ND_PRIO_MAX && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? " " : "",
					nd_tsa_name(v[i]));
}

/* "host ieee" for 0x09, as `dcb dcbx show` lists the mode's flags; "firmware" for none. */
static void fmt_dcbx(char *buf, size_t len, uint8_t dcbx)
{
	static const struct {
		uint8_t bit;
		const char *word;
	} flags[] = {
		{ DCB_CAP_DCBX_HOST, "host" }, { DCB_CAP_DCBX_LLD_MANAGED, "lld-managed" },
		{ DCB_CAP_DCBX_VER_CEE, "cee" }, { DCB_CAP_DCBX_VER_IEEE, "ieee" },
		{ DCB_CAP_DCBX_STATIC, "static" },
	};
	size_t i, off = 0;

	buf[0] = '\0';
	if (!(dcbx & (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED)))
		off += (size_t)snprintf(buf, len, "firmware");
	for (i = 0; i < ND_ARRAY_SIZE(flags) && off < len; i++)
		if (dcbx & flags[i].bit)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "",
						flags[i].word);
}

/* "0-7:0 8-15:1 26:3" for a DSCP map, "none" when empty. */
void nd_fmt_dscp_map(char *buf, size_t len, const int *map)
{
	size_t off = 0;
	int d = 0, end;

	buf[0] = '\0';
	while (d < ND_DSCP_MAX && off < len) {
		if (map[d] < 0) {
			d++;
			continue;
		}
		for (end = d; end + 1 < ND_DSCP_MAX && map[end + 1] == map[d]; end++)
			;
		if (end > d)
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d:%d", off ? " " : "", d,
						end, map[d]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d:%d", off ? " " : "", d,
						map[d]);
		d = end + 1;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

/* Drivers whose PFC change toggles the link (mlx5 and our mlx5-like test NIC). */
static bool pfc_flaps(const struct nd_port *port)
{
	return !strcmp(port->link.driver, "mlx5_core") || !strcmp(port->link.driver, "nicsim");
}

#define OOM(e) nd_err_set(e, -ENOMEM, "out of memory while planning")

static int plan_dcb_structs(struct nd_plan *plan, const struct nd_profile *w,
			    const struct nd_port *port, size_t idx, struct nd_err *e)
{
	const struct nd_dcb *cur = &port->dcb;
	struct nd_step *s;
	int i;

	if ((SET(w, ND_F_BUF_PRIO) || SET(w, ND_F_BUF_SIZE)) && cur->have & ND_DCB_HAVE_BUFFER) {
		struct dcbnl_buffer b = cur->buffer;

		if (SET(w, ND_F_BUF_PRIO))
			memcpy(b.prio2buffer, w->prio2buffer, sizeof(b.prio2buffer));
		if (SET(w, ND_F_BUF_SIZE))
			memcpy(b.buffer_size, w->buffer_size, sizeof(b.buffer_size));
		if (memcmp(&b, &cur->buffer, sizeof(b))) {
			bool prio = memcmp(b.prio2buffer, cur->buffer.prio2buffer,
					   sizeof(b.prio2buffer));
			bool size = memcmp(b.buffer_size, cur->buffer.buffer_size,
					   sizeof(b.buffer_size));
			uint64_t f[ND_PRIO_MAX], t[ND_PRIO_MAX];
			size_t off;

			s = add(plan, ND_STEP_BUFFER, idx, prio ? ND_F_BUF_PRIO : ND_F_BUF_SIZE);
			if (!s)
				return OOM(e);
			s->u.buffer = b;
			if (prio) {
				fmt_u8s(s->from, sizeof(s->from), cur->buffer.prio2buffer);
				fmt_u8s(s->to, sizeof(s->to), b.prio2buffer);
			}
			if (size) {
				for (i = 0; i < ND_PRIO_MAX; i++) {
					f[i] = cur->buffer.buffer_size[i];
					t[i] = b.buffer_size[i];
				}
				/* both in one step: "prio-buffer ...; size ..." */
				off = strlen(s->from);
				snprintf(s->from + off, sizeof(s->from) - off, "%s", prio ? "; size " : "");
				off = strlen(s->from);
				fmt_u64s(s->from + off, sizeof(s->from) - off, f);
				off = strlen(s->to);
				snprintf(s->to + off, sizeof(s->to) - off, "%s", prio ? "; size " : "");
				off = strlen(s->to);
				fmt_u64s(s->to + off, sizeof(s->to) - off, t);
			}
		}
	}
	if ((SET(w, ND_F_ETS_PRIO_TC) || SET(w, ND_F_ETS_TSA) || SET(w, ND_F_ETS_BW)) &&
	    cur->have & ND_DCB_HAVE_ETS) {
		struct ieee_ets ets = cur->ets;
		enum nd_field f = ND_F_ETS_PRIO_TC;

		if (SET(w, ND_F_ETS_PRIO_TC))
			memcpy(ets.prio_tc, w->prio_tc, sizeof(ets.prio_tc));
		if (SET(w, ND_F_ETS_TSA))
			memcpy(ets.tc_tsa, w->tc_tsa, sizeof(ets.tc_tsa));
		if (SET(w, ND_F_ETS_BW))
			memcpy(ets.tc_tx_bw, w->tc_bw, sizeof(ets.tc_tx_bw));
		/* drivers report strict/vendor TCs with bandwidth 100: compare what ETS TCs use */
		for (i = 0; i < ND_PRIO_MAX; i++)
			if (ets.tc_tsa[i] != IEEE_8021QAZ_TSA_ETS)
				ets.tc_tx_bw[i] = cur->ets.tc_tsa[i] == ets.tc_tsa[i] ?
						  cur->ets.tc_tx_bw[i] : ets.tc_tx_bw[i];
		if (memcmp(ets.prio_tc, cur->ets.prio_tc, 8) || memcmp(ets.tc_tsa, cur->ets.tc_tsa, 8) ||
		    memcmp(ets.tc_tx_bw, cur->ets.tc_tx_bw, 8)) {
			s = add(plan, ND_STEP_ETS, idx, f);
			if (!s)
				return OOM(e);
			s->u.ets = ets;
			if (memcmp(ets.prio_tc, cur->ets.prio_tc, 8)) {
				fmt_u8s(s->from, sizeof(s->from), cur->ets.prio_tc);
				fmt_u8s(s->to, sizeof(s->to), ets.prio_tc);
			} else if (memcmp(ets.tc_tsa, cur->ets.tc_tsa, 8)) {
				s->field = ND_F_ETS_TSA;
				fmt_tsas(s->from, sizeof(s->from), cur->ets.tc_tsa);
				fmt_tsas(s->to, sizeof(s->to), ets.tc_tsa);
			} else {
				s->field = ND_F_ETS_BW;
				fmt_u8s(s->from, sizeof(s->from), cur->ets.tc_tx_bw);
				fmt_u8s(s->to, sizeof(s->to), ets.tc_tx_bw);
			}
		}
	}
	if (SET(w, ND_F_MAXRATE) && cur->have & ND_DCB_HAVE_MAXRATE &&
	    memcmp(w->maxrate, cur->maxrate.tc_maxrate, sizeof(w->maxrate))) {
		s = add(plan, ND_STEP_MAXRATE, idx, ND_F_MAXRATE);
		if (!s)
			return OOM(e);
		memcpy(s->u.maxrate.tc_maxrate, w->maxrate, sizeof(w->maxrate));
		fmt_u64s(s->from, sizeof(s->from), (const uint64_t *)cur->maxrate.tc_maxrate);
		fmt_u64s(s->to, sizeof(s->to), w->maxrate);
	}
	if ((SET(w, ND_F_PFC_EN) || SET(w, ND_F_PFC_DELAY)) && cur->have & ND_DCB_HAVE_PFC) {
		struct ieee_pfc pfc = cur->pfc;

		if (SET(w, ND_F_PFC_EN))
			pfc.pfc_en = w->pfc_en;
		if (SET(w, ND_F_PFC_DELAY))
			pfc.delay = w->pfc_delay;
		if (pfc.pfc_en != cur->pfc.pfc_en || pfc.delay != cur->pfc.delay) {
			s = add(plan, ND_STEP_PFC, idx, ND_F_PFC_EN);
			if (!s)
				return OOM(e);
			s->u.pfc = pfc;
			if (pfc.pfc_en != cur->pfc.pfc_en) {
				nd_fmt_prios(s->from, sizeof(s->from), cur->pfc.pfc_en);
				nd_fmt_prios(s->to, sizeof(s->to), pfc.pfc_en);
				if (pfc.delay != cur->pfc.delay)
					snprintf(s->to + strlen(s->to), sizeof(s->to) - strlen(s->to),
						 ", cable-length %u", pfc.delay);
				if (pfc_flaps(port))
					snprintf(s->warning, sizeof(s->warning),
						 "changing PFC priorities flaps the link on %s",
						 port->link.driver);
			} else {
				s->field = ND_F_PFC_DELAY;
				snprintf(s->from, sizeof(s->from), "%u", cur->pfc.delay);
				snprintf(s->to, sizeof(s->to), "%u", pfc.delay);
			}
		}
	}
	return 0;
}

static bool any_dscp(const int *map)
{
	int d;

	for (d = 0; d < ND_DSCP_MAX; d++)
		if (map[d] >= 0)
			return true;
	return false;
}

/* The DSCP map the profile wants installed, or none (-1 everywhere) for PCP trust. */
static void wanted_dscp(const struct nd_profile *w, const struct nd_port *port, int want[64],
			bool *managed)
{
	int d;

	*managed = SET(w, ND_F_DSCP_MAP) || SET(w, ND_F_TRUST);
	for (d = 0; d < ND_DSCP_MAX; d++)
		want[d] = -1;
	if (!*managed)
		return;
	if (SET(w, ND_F_TRUST) && w->trust == ND_TRUST_PCP)
		return;	/* on these drivers any DSCP entry is DSCP trust: PCP means none */
	if (SET(w, ND_F_DSCP_MAP)) {
		memcpy(want, w->dscp2prio, sizeof(w->dscp2prio));
		return;
	}
	/* trust dscp without a map: keep the port's map, or install dscp>>3 as mlnx_qos does */
	nd_dcb_dscp_map(&port->dcb, want);
	if (any_dscp(want))
		return;
	for (d = 0; d < ND_DSCP_MAX; d++)
		want[d] = d >> 3;
}

/*
 * The profile key the DSCP entries serve, for messages and audit: "trust" when the profile sets
 * trust and the trust state itself changes (on these drivers, DSCP entries or none), else
 * "dscp-map" when it sets a map, else "trust".
 */
static enum nd_field dscp_field(const struct nd_profile *w, const int *want, const int *have)
{
	if (SET(w, ND_F_TRUST) && any_dscp(want) != any_dscp(have))
		return ND_F_TRUST;
	return SET(w, ND_F_DSCP_MAP) ? ND_F_DSCP_MAP : ND_F_TRUST;
}

static int plan_app(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		    size_t idx, struct nd_err *e)
{
	int want[ND_DSCP_MAX], have[ND_DSCP_MAX], d, pass;
	enum nd_field field;
	bool managed;
	struct nd_step *s;

	wanted_dscp(w, port, want, &managed);
	if (!managed || !(port->dcb.have & ND_DCB_HAVE_APP))
		return 0;
	nd_dcb_dscp_map(&port->dcb, have);
	field = dscp_field(w, want, have);
	/* adds first (a changed entry replaces the old one on mlx5), then deletes */
	for (pass = 0; pass < 2; pass++) {
		for (d = 0; d < ND_DSCP_MAX; d++) {
			bool del = pass == 1;

			if (want[d] == have[d] || (del ? have[d] < 0 : want[d] < 0))
				continue;
			s = add(plan, del ? ND_STEP_APP_DEL : ND_STEP_APP_ADD, idx, field);
			if (!s)
				return OOM(e);
			s->u.app.selector = IEEE_8021QAZ_APP_SEL_DSCP;
			s->u.app.protocol = (uint16_t)d;
			s->u.app.priority = (uint8_t)(del ? have[d] : want[d]);
			/* a delete of an entry the add above replaced may find it gone */
			s->tolerate_enoent = del && want[d] >= 0;
			if (have[d] >= 0)
				snprintf(s->from, sizeof(s->from), "dscp %d -> prio %d", d, have[d]);
			else
				snprintf(s->from, sizeof(s->from), "dscp %d unmapped", d);
			if (want[d] >= 0)
				snprintf(s->to, sizeof(s->to), "dscp %d -> prio %d", d, want[d]);
			else
				snprintf(s->to, sizeof(s->to), "dscp %d unmapped", d);
		}
	}
	return 0;
}

static int plan_ecn(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		    size_t idx, struct nd_err *e)
{
	static const struct {
		enum nd_field field;
		const char *param;
	} cnp[] = { { ND_F_CNP_DSCP, "np_cnp_dscp" }, { ND_F_CNP_PRIO, "np_cnp_prio" } };
	const struct nd_ecn *ecn = &port->ecn;
	struct nd_step *s;
	size_t i;
	int np, p;

	for (np = 1; np >= 0; np--) {
		enum nd_field f = np ? ND_F_ECN_NP : ND_F_ECN_RP;
		uint8_t want = np ? w->ecn_np : w->ecn_rp, have = np ? ecn->np_en : ecn->rp_en;

		if (!SET(w, f))
			continue;
		if (!ecn->have_enable) {
			s = add(plan, ND_STEP_ECN_ENABLE, idx, f);
			if (!s)
				return OOM(e);
			s->skip = true;
			snprintf(s->to, sizeof(s->to), "%s ", nd_field_key(f));
			nd_fmt_prios(s->to + strlen(s->to), sizeof(s->to) - strlen(s->to), want);
			snprintf(s->from, sizeof(s->from), "unknown");
			snprintf(s->warning, sizeof(s->warning), "%s",
				 ecn->note[0] ? ecn->note : "no per-priority ECN enables on this driver");
			continue;
		}
		for (p = 0; p < ND_PRIO_MAX; p++) {
			bool on = want & (1u << p);

			if (on == !!(have & (1u << p)))
				continue;
			s = add(plan, ND_STEP_ECN_ENABLE, idx, f);
			if (!s)
				return OOM(e);
			s->u.ecn_enable.np = np;
			s->u.ecn_enable.prio = (unsigned int)p;
			s->u.ecn_enable.on = on;
			snprintf(s->from, sizeof(s->from), "prio %d %s", p, on ? "off" : "on");
			snprintf(s->to, sizeof(s->to), "prio %d %s", p, on ? "on" : "off");
		}
	}
	/* CNP marking and DCQCN are parameters of the same backend */
	for (i = 0; i < ND_ARRAY_SIZE(cnp) + w->n_dcqcn; i++) {
		const char *name;
		uint32_t want, have;
		enum nd_field f;

		if (i < ND_ARRAY_SIZE(cnp)) {
			f = cnp[i].field;
			if (!SET(w, f))
				continue;
			name = cnp[i].param;
			want = f == ND_F_CNP_DSCP ? w->cnp_dscp : w->cnp_prio;
		} else {
			f = ND_F_DCQCN;
			name = w->dcqcn[i - ND_ARRAY_SIZE(cnp)].name;
			want = w->dcqcn[i - ND_ARRAY_SIZE(cnp)].value;
		}
		if (nd_ecn_param_get(ecn, name, &have) == 0 && have == want)
			continue;
		s = add(plan, ND_STEP_ECN_PARAM, idx, f);
		if (!s)
			return OOM(e);
		snprintf(s->u.param.name, sizeof(s->u.param.name), "%s", name);
		s->u.param.value = want;
		snprintf(s->to, sizeof(s->to), "%s %u", name, want);
		if (nd_ecn_param_get(ecn, name, &have) == 0) {
			snprintf(s->from, sizeof(s->from), "%s %u", name, have);
		} else {
			snprintf(s->from, sizeof(s->from), "%s unknown", name);
			s->skip = true;
			snprintf(s->warning, sizeof(s->warning), "%s",
				 ecn->note[0] ? ecn->note : "the ECN backend has no such parameter");
		}
	}
	return 0;
}

static int plan_roce(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		     size_t idx, struct nd_err *e)
{
	struct nd_step *s;
	size_t r;

	if (!SET(w, ND_F_ROCE_TOS) && !SET(w, ND_F_ROCE_MODE))
		return 0;
	for (r = 0; r < port->n_rdma; r++) {
		const struct nd_roce *cur = &port->rdma[r].roce;
		uint8_t tos = SET(w, ND_F_ROCE_TOS) ? w->roce_tos : (uint8_t)cur->tos;
		const char *mode = SET(w, ND_F_ROCE_MODE) ? w->roce_mode : cur->mode;

		if (strcmp(port->rdma[r].link_layer, "Ethernet"))
			continue;
		if (w->roce_reset) {
			if (!cur->configured)
				continue;
			s = add(plan, ND_STEP_ROCE_RESET, idx, ND_F_ROCE_TOS);
			if (!s)
				return OOM(e);
			s->u.roce.rdma = (unsigned int)r;
			snprintf(s->from, sizeof(s->from), "%s/%u tos %d mode %s",
				 port->rdma[r].ibdev, port->rdma[r].port, cur->tos, cur->mode);
			snprintf(s->to, sizeof(s->to), "kernel defaults");
			continue;
		}
		if (tos == cur->tos && !strcmp(mode, cur->mode))
			continue;
		s = add(plan, ND_STEP_ROCE, idx, SET(w, ND_F_ROCE_TOS) ? ND_F_ROCE_TOS :
									 ND_F_ROCE_MODE);
		if (!s)
			return OOM(e);
		s->u.roce.rdma = (unsigned int)r;
		s->u.roce.tos = tos;
		snprintf(s->u.roce.mode, sizeof(s->u.roce.mode), "%s", mode);
		snprintf(s->from, sizeof(s->from), "%s/%u tos %d mode %s%s", port->rdma[r].ibdev,
			 port->rdma[r].port, cur->tos, cur->mode,
			 cur->configured ? "" : " (kernel default)");
		snprintf(s->to, sizeof(s->to), "tos %u mode %s", tos, mode);
	}
	return 0;
}

static int plan_mtu(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		    size_t idx, struct nd_err *e)
{
	struct nd_step *s;

	if (!SET(w, ND_F_MTU) || w->mtu == port->link.mtu)
		return 0;
	s = add(plan, ND_STEP_MTU, idx, ND_F_MTU);
	if (!s)
		return OOM(e);
	s->u.mtu = w->mtu;
	snprintf(s->from, sizeof(s->from), "%u", port->link.mtu);
	snprintf(s->to, sizeof(s->to), "%u", w->mtu);
	return 0;
}

/* The DCB fields of a profile and the part of the driver's DCB reply each one needs. */
static const struct {
	enum nd_field field;
	enum nd_step_kind kind;
	unsigned int have;
	const char *what;
} dcb_fields[] = {
	{ ND_F_DCBX, ND_STEP_DCBX, ND_DCB_HAVE_DCBX, "DCBX mode" },
	{ ND_F_TRUST, ND_STEP_APP_ADD, ND_DCB_HAVE_APP, "APP table" },
	{ ND_F_DSCP_MAP, ND_STEP_APP_ADD, ND_DCB_HAVE_APP, "APP table" },
	{ ND_F_PFC_EN, ND_STEP_PFC, ND_DCB_HAVE_PFC, "PFC" },
	{ ND_F_PFC_DELAY, ND_STEP_PFC, ND_DCB_HAVE_PFC, "PFC" },
	{ ND_F_ETS_PRIO_TC, ND_STEP_ETS, ND_DCB_HAVE_ETS, "ETS" },
	{ ND_F_ETS_TSA, ND_STEP_ETS, ND_DCB_HAVE_ETS, "ETS" },
	{ ND_F_ETS_BW, ND_STEP_ETS, ND_DCB_HAVE_ETS, "ETS" },
	{ ND_F_BUF_PRIO, ND_STEP_BUFFER, ND_DCB_HAVE_BUFFER, "buffer" },
	{ ND_F_BUF_SIZE, ND_STEP_BUFFER, ND_DCB_HAVE_BUFFER, "buffer" },
	{ ND_F_MAXRATE, ND_STEP_MAXRATE, ND_DCB_HAVE_MAXRATE, "maxrate" },
};

/* @w's value of DCB field @f, as a person reads it. */
static void fmt_want(char *buf, size_t len, const struct nd_profile *w, enum nd_field f)
{
	uint64_t sizes[ND_PRIO_MAX];
	int i;

	switch (f) {
	case ND_F_DCBX:
		fmt_dcbx(buf, len, w->dcbx);
		break;
	case ND_F_TRUST:
		snprintf(buf, len, "%s", w->trust == ND_TRUST_DSCP ? "dscp" : "pcp");
		break;
	case ND_F_DSCP_MAP:
		nd_fmt_dscp_map(buf, len, w->dscp2prio);
		break;
	case ND_F_PFC_EN:
		nd_fmt_prios(buf, len, w->pfc_en);
		break;
	case ND_F_PFC_DELAY:
		snprintf(buf, len, "%u", w->pfc_delay);
		break;
	case ND_F_ETS_PRIO_TC:
		fmt_u8s(buf, len, w->prio_tc);
		break;
	case ND_F_ETS_TSA:
		fmt_tsas(buf, len, w->tc_tsa);
		break;
	case ND_F_ETS_BW:
		fmt_u8s(buf, len, w->tc_bw);
		break;
	case ND_F_BUF_PRIO:
		fmt_u8s(buf, len, w->prio2buffer);
		break;
	case ND_F_BUF_SIZE:
		for (i = 0; i < ND_PRIO_MAX; i++)
			sizes[i] = w->buffer_size[i];
		fmt_u64s(buf, len, sizes);
		break;
	default:
		fmt_u64s(buf, len, w->maxrate);
		break;
	}
}

/*
 * A DCB field the profile sets that this port cannot give: no DCB at all, or a driver reply
 * without that attribute (its read failed, or it has no such operation). Each is a skipped step
 * marked unsupported, so that audit reports it and apply refuses rather than planning around it.
 */
static int plan_unsupported(struct nd_plan *plan, const struct nd_profile *w,
			    const struct nd_port *port, size_t idx, struct nd_err *e)
{
	struct nd_step *s;
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(dcb_fields); i++) {
		if (!SET(w, dcb_fields[i].field) ||
		    (!port->dcb_status && port->dcb.have & dcb_fields[i].have))
			continue;
		s = add(plan, dcb_fields[i].kind, idx, dcb_fields[i].field);
		if (!s)
			return OOM(e);
		s->skip = true;
		snprintf(s->from, sizeof(s->from), "unknown");
		fmt_want(s->to, sizeof(s->to), w, dcb_fields[i].field);
		if (port->dcb_status == -EOPNOTSUPP) {
			s->unsupported = -EOPNOTSUPP;
			snprintf(s->warning, sizeof(s->warning), "not supported by this driver (%s "
				 "has no DCB)", port->link.driver[0] ? port->link.driver : "it");
		} else if (port->dcb_status) {
			s->unsupported = -EIO;
			snprintf(s->warning, sizeof(s->warning), "DCB could not be read: %.*s",
				 (int)sizeof(s->warning) - 32, port->dcb_error);
		} else {
			s->unsupported = -EIO;
			snprintf(s->warning, sizeof(s->warning), "reading the %s failed: the "
				 "driver left it out of its DCB reply (its read failed, or it has "
				 "none)", dcb_fields[i].what);
		}
	}
	return 0;
}

/* Reject what cannot fit this port before a single step is taken. */
static int check_fit(const struct nd_profile *w, const struct nd_port *port, struct nd_err *e)
{
	const struct nd_loc *l = &w->loc[ND_F_MTU];
	uint64_t total = 0;
	int i;

	if (SET(w, ND_F_MTU) && port->link.max_mtu && w->mtu > port->link.max_mtu)
		return nd_err_set(e, -EINVAL, "%s:%u:%u: mtu: %u is above %s's maximum %u; "
				  "use at most %u for this port", l->file, l->line, l->col,
				  w->mtu, port->link.name, port->link.max_mtu, port->link.max_mtu);
	if (SET(w, ND_F_MTU) && port->link.min_mtu && w->mtu < port->link.min_mtu)
		return nd_err_set(e, -EINVAL, "%s:%u:%u: mtu: %u is below %s's minimum %u",
				  l->file, l->line, l->col, w->mtu, port->link.name,
				  port->link.min_mtu);
	if (SET(w, ND_F_BUF_SIZE) && port->dcb.have & ND_DCB_HAVE_BUFFER) {
		l = &w->loc[ND_F_BUF_SIZE];
		for (i = 0; i < ND_PRIO_MAX; i++)
			total += w->buffer_size[i];
		if (port->dcb.buffer.total_size && total > port->dcb.buffer.total_size)
			return nd_err_set(e, -EINVAL, "%s:%u:%u: buffer.size: the buffers add up "
					  "to %" PRIu64 " bytes, %s has %u; shrink them",
					  l->file, l->line, l->col, total, port->link.name,
					  port->dcb.buffer.total_size);
	}
	return 0;
}

int nd_plan_port(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		 size_t idx, struct nd_err *e)
{
	size_t start = plan->n;
	struct nd_step *s;
	int ret;

	ret = check_fit(w, port, e);
	if (ret)
		return ret;
	ret = plan_unsupported(plan, w, port, idx, e);
	if (ret)
		return ret;
	/* the whole mode: "host" alone (0x01) is not "host ieee" (0x09), and mlx5 keeps either */
	if (SET(w, ND_F_DCBX) && !port->dcb_status && port->dcb.have & ND_DCB_HAVE_DCBX &&
	    port->dcb.dcbx != w->dcbx) {
		s = add(plan, ND_STEP_DCBX, idx, ND_F_DCBX);
		if (!s)
			return OOM(e);
		/* a mode without host or lld-managed is the firmware's: mlx5 takes 0 for it */
		s->u.dcbx = w->dcbx & (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED) ? w->dcbx : 0;
		fmt_dcbx(s->from, sizeof(s->from), port->dcb.dcbx);
		fmt_dcbx(s->to, sizeof(s->to), w->dcbx);
	}
	if (SET(w, ND_F_MTU) && w->mtu > port->link.mtu && (ret = plan_mtu(plan, w, port, idx, e)))
		goto fail;
	if (!port->dcb_status) {
		ret = plan_dcb_structs(plan, w, port, idx, e);
		if (ret)
			goto fail;
	}
	ret = plan_ecn(plan, w, port, idx, e);
	if (ret)
		goto fail;
	if (!port->dcb_status) {
		ret = plan_app(plan, w, port, idx, e);
		if (ret)
			goto fail;
	}
	ret = plan_roce(plan, w, port, idx, e);
	if (ret)
		goto fail;
	if (SET(w, ND_F_MTU) && w->mtu < port->link.mtu && (ret = plan_mtu(plan, w, port, idx, e)))
		goto fail;
	return 0;
fail:
	plan->n = start;
	return ret;
}

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

	wanted_dscp(w, port, want, &managed);
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
