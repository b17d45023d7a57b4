// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Planning the DCB structures and the DSCP map: buffers, ETS, maxrate and PFC, each one dcbnl
 * write that keeps the fields the profile leaves alone as the port has them; the DSCP APP
 * entries, adds before deletes, under the profile key they serve (trust or dscp-map).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "plan_int.h"

#define SET(p, f) ((p)->set & (1u << (f)))
#define OOM(e) nd_err_set(e, -ENOMEM, "out of memory while planning")

/* Drivers whose PFC change toggles the link (mlx5 and our mlx5-like test NIC). */
static bool pfc_flaps(const struct nd_port *port)
{
	return !strcmp(port->link.driver, "mlx5_core") || !strcmp(port->link.driver, "nicsim");
}

/* prio2buffer and the sizes: one DCB_BUFFER write for both. */
static int plan_buffer(struct nd_plan *plan, const struct nd_profile *w,
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

			s = nd_plan_add(plan, ND_STEP_BUFFER, idx, prio ? ND_F_BUF_PRIO : ND_F_BUF_SIZE);
			if (!s)
				return OOM(e);
			s->u.buffer = b;
			if (prio) {
				nd_fmt_u8s(s->from, sizeof(s->from), cur->buffer.prio2buffer);
				nd_fmt_u8s(s->to, sizeof(s->to), b.prio2buffer);
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
				nd_fmt_u64s(s->from + off, sizeof(s->from) - off, f);
				off = strlen(s->to);
				snprintf(s->to + off, sizeof(s->to) - off, "%s", prio ? "; size " : "");
				off = strlen(s->to);
				nd_fmt_u64s(s->to + off, sizeof(s->to) - off, t);
			}
		}
	}
	return 0;
}

/* prio-tc, TSA and bandwidth: one IEEE_ETS write, named by the first field that differs. */
static int plan_ets(struct nd_plan *plan, const struct nd_profile *w,
		    const struct nd_port *port, size_t idx, struct nd_err *e)
{
	const struct nd_dcb *cur = &port->dcb;
	struct nd_step *s;
	int i;

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
			s = nd_plan_add(plan, ND_STEP_ETS, idx, f);
			if (!s)
				return OOM(e);
			s->u.ets = ets;
			if (memcmp(ets.prio_tc, cur->ets.prio_tc, 8)) {
				nd_fmt_u8s(s->from, sizeof(s->from), cur->ets.prio_tc);
				nd_fmt_u8s(s->to, sizeof(s->to), ets.prio_tc);
			} else if (memcmp(ets.tc_tsa, cur->ets.tc_tsa, 8)) {
				s->field = ND_F_ETS_TSA;
				nd_fmt_tsas(s->from, sizeof(s->from), cur->ets.tc_tsa);
				nd_fmt_tsas(s->to, sizeof(s->to), ets.tc_tsa);
			} else {
				s->field = ND_F_ETS_BW;
				nd_fmt_u8s(s->from, sizeof(s->from), cur->ets.tc_tx_bw);
				nd_fmt_u8s(s->to, sizeof(s->to), ets.tc_tx_bw);
			}
		}
	}
	return 0;
}

static int plan_maxrate(struct nd_plan *plan, const struct nd_profile *w,
			const struct nd_port *port, size_t idx, struct nd_err *e)
{
	const struct nd_dcb *cur = &port->dcb;
	struct nd_step *s;

	if (SET(w, ND_F_MAXRATE) && cur->have & ND_DCB_HAVE_MAXRATE &&
	    memcmp(w->maxrate, cur->maxrate.tc_maxrate, sizeof(w->maxrate))) {
		s = nd_plan_add(plan, ND_STEP_MAXRATE, idx, ND_F_MAXRATE);
		if (!s)
			return OOM(e);
		memcpy(s->u.maxrate.tc_maxrate, w->maxrate, sizeof(w->maxrate));
		nd_fmt_u64s(s->from, sizeof(s->from), (const uint64_t *)cur->maxrate.tc_maxrate);
		nd_fmt_u64s(s->to, sizeof(s->to), w->maxrate);
	}
	return 0;
}

/* Priorities and cable length: one IEEE_PFC write; a changed pfc_en flaps mlx5 links. */
static int plan_pfc(struct nd_plan *plan, const struct nd_profile *w,
		    const struct nd_port *port, size_t idx, struct nd_err *e)
{
	const struct nd_dcb *cur = &port->dcb;
	struct nd_step *s;

	if ((SET(w, ND_F_PFC_EN) || SET(w, ND_F_PFC_DELAY)) && cur->have & ND_DCB_HAVE_PFC) {
		struct ieee_pfc pfc = cur->pfc;

		if (SET(w, ND_F_PFC_EN))
			pfc.pfc_en = w->pfc_en;
		if (SET(w, ND_F_PFC_DELAY))
			pfc.delay = w->pfc_delay;
		if (pfc.pfc_en != cur->pfc.pfc_en || pfc.delay != cur->pfc.delay) {
			s = nd_plan_add(plan, ND_STEP_PFC, idx, ND_F_PFC_EN);
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

int nd_plan_dcb(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		size_t idx, struct nd_err *e)
{
	int ret;

	ret = plan_buffer(plan, w, port, idx, e);
	if (!ret)
		ret = plan_ets(plan, w, port, idx, e);
	if (!ret)
		ret = plan_maxrate(plan, w, port, idx, e);
	if (!ret)
		ret = plan_pfc(plan, w, port, idx, e);
	return ret;
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
void nd_plan_wanted_dscp(const struct nd_profile *w, const struct nd_port *port, int want[64],
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

int nd_plan_app(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		size_t idx, struct nd_err *e)
{
	int want[ND_DSCP_MAX], have[ND_DSCP_MAX], d, pass;
	enum nd_field field;
	bool managed;
	struct nd_step *s;

	nd_plan_wanted_dscp(w, port, want, &managed);
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
			s = nd_plan_add(plan, del ? ND_STEP_APP_DEL : ND_STEP_APP_ADD, idx, field);
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

