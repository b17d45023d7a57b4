/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the planner's files share and the rest of apply does not see: the per-part planners
 * that plan.c runs (plan_dcb.c, plan_roce.c), and the DSCP map a profile wants, which
 * plan_state.c reads too. They build on the steps of plan_step.h and call nothing in plan.c.
 */
#ifndef ND_PLAN_INT_H
#define ND_PLAN_INT_H

#include "nodrop.h"
#include "plan_step.h"

/* The DSCP map @w wants on @port (-1: none); @managed: does @w say anything about it? */
void nd_plan_wanted_dscp(const struct nd_profile *w, const struct nd_port *port, int want[64],
			 bool *managed);
/* Each appends @port's steps (index @idx) towards @w (plan_dcb.c, plan_roce.c). */
int nd_plan_dcb(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		size_t idx, struct nd_err *e);
int nd_plan_app(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		size_t idx, struct nd_err *e);
int nd_plan_ecn(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		size_t idx, struct nd_err *e);
int nd_plan_roce(struct nd_plan *plan, const struct nd_profile *w, const struct nd_port *port,
		 size_t idx, struct nd_err *e);

#endif
