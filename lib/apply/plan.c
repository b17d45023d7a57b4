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

#include "core/internal.h"
#include "plan.h"
#include "plan_int.h"

#define SET(p, f) ((p)->set & (1u << (f)))
#define OOM(e) nd_err_set(e, -ENOMEM, "out of memory while planning")

static int plan_mtu(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		    size_t idx, struct nd_err *e)
{
	struct nd_step *s;

	if (!SET(w, ND_F_MTU) || w->mtu == port->link.mtu)
		return 0;
	s = nd_plan_add(plan, ND_STEP_MTU, idx, ND_F_MTU);
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
		nd_fmt_dcbx(buf, len, w->dcbx);
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
		nd_fmt_u8s(buf, len, w->prio_tc);
		break;
	case ND_F_ETS_TSA:
		nd_fmt_tsas(buf, len, w->tc_tsa);
		break;
	case ND_F_ETS_BW:
		nd_fmt_u8s(buf, len, w->tc_bw);
		break;
	case ND_F_BUF_PRIO:
		nd_fmt_u8s(buf, len, w->prio2buffer);
		break;
	case ND_F_BUF_SIZE:
		for (i = 0; i < ND_PRIO_MAX; i++)
			sizes[i] = w->buffer_size[i];
		nd_fmt_u64s(buf, len, sizes);
		break;
	default:
		nd_fmt_u64s(buf, len, w->maxrate);
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
		s = nd_plan_add(plan, dcb_fields[i].kind, idx, dcb_fields[i].field);
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
		s = nd_plan_add(plan, ND_STEP_DCBX, idx, ND_F_DCBX);
		if (!s)
			return OOM(e);
		/* a mode without host or lld-managed is the firmware's: mlx5 takes 0 for it */
		s->u.dcbx = w->dcbx & (DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_LLD_MANAGED) ? w->dcbx : 0;
		nd_fmt_dcbx(s->from, sizeof(s->from), port->dcb.dcbx);
		nd_fmt_dcbx(s->to, sizeof(s->to), w->dcbx);
	}
	if (SET(w, ND_F_MTU) && w->mtu > port->link.mtu && (ret = plan_mtu(plan, w, port, idx, e)))
		goto fail;
	if (!port->dcb_status) {
		ret = nd_plan_dcb(plan, w, port, idx, e);
		if (ret)
			goto fail;
	}
	ret = nd_plan_ecn(plan, w, port, idx, e);
	if (ret)
		goto fail;
	if (!port->dcb_status) {
		ret = nd_plan_app(plan, w, port, idx, e);
		if (ret)
			goto fail;
	}
	ret = nd_plan_roce(plan, w, port, idx, e);
	if (ret)
		goto fail;
	if (SET(w, ND_F_MTU) && w->mtu < port->link.mtu && (ret = plan_mtu(plan, w, port, idx, e)))
		goto fail;
	return 0;
fail:
	plan->n = start;
	return ret;
}

