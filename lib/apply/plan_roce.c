// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Planning what RoCE needs beyond DCB: per-priority ECN enables, CNP marking and DCQCN
 * parameters of the port's ECN backend (what it cannot read or write is a skipped step that
 * says why), and the rdma_cm default ToS and mode of each RoCE port in configfs.
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

/* Per-priority ECN enables, notification point then reaction point: a step per priority. */
static int plan_ecn_enables(struct nd_plan *plan, const struct nd_profile *w,
			    const struct nd_port *port, size_t idx, struct nd_err *e)
{
	const struct nd_ecn *ecn = &port->ecn;
	struct nd_step *s;
	int np, p;

	for (np = 1; np >= 0; np--) {
		enum nd_field f = np ? ND_F_ECN_NP : ND_F_ECN_RP;
		uint8_t want = np ? w->ecn_np : w->ecn_rp, have = np ? ecn->np_en : ecn->rp_en;

		if (!SET(w, f))
			continue;
		if (!ecn->have_enable) {
			s = nd_plan_add(plan, ND_STEP_ECN_ENABLE, idx, f);
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
			s = nd_plan_add(plan, ND_STEP_ECN_ENABLE, idx, f);
			if (!s)
				return OOM(e);
			s->u.ecn_enable.np = np;
			s->u.ecn_enable.prio = (unsigned int)p;
			s->u.ecn_enable.on = on;
			snprintf(s->from, sizeof(s->from), "prio %d %s", p, on ? "off" : "on");
			snprintf(s->to, sizeof(s->to), "prio %d %s", p, on ? "on" : "off");
		}
	}
	return 0;
}

/* CNP marking and DCQCN are parameters of the same backend: a step per parameter. */
static int plan_ecn_params(struct nd_plan *plan, const struct nd_profile *w,
			   const struct nd_port *port, size_t idx, struct nd_err *e)
{
	static const struct {
		enum nd_field field;
		const char *param;
	} cnp[] = { { ND_F_CNP_DSCP, "np_cnp_dscp" }, { ND_F_CNP_PRIO, "np_cnp_prio" } };
	const struct nd_ecn *ecn = &port->ecn;
	struct nd_step *s;
	size_t i;

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
		s = nd_plan_add(plan, ND_STEP_ECN_PARAM, idx, f);
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

int nd_plan_ecn(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		size_t idx, struct nd_err *e)
{
	int ret = plan_ecn_enables(plan, w, port, idx, e);

	return ret ? ret : plan_ecn_params(plan, w, port, idx, e);
}

int nd_plan_roce(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
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
			s = nd_plan_add(plan, ND_STEP_ROCE_RESET, idx, ND_F_ROCE_TOS);
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
		s = nd_plan_add(plan, ND_STEP_ROCE, idx, SET(w, ND_F_ROCE_TOS) ? ND_F_ROCE_TOS :
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

