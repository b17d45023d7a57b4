/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Plans: what must change on a port to reach a desired state, as ordered, self-contained steps
 * (plan.c; the steps themselves in plan_step.h), and the states a plan goes between
 * (plan_state.c).
 */
#ifndef ND_PLAN_H
#define ND_PLAN_H

#include "nodrop.h"
#include "plan_step.h"

/*
 * Append to @plan the steps that take @port (index @idx) from its current state to @want.
 * Fails with -EINVAL and a "FILE:LINE:COL: ..." sentence when @want cannot fit this port
 * (an MTU above its maximum); nothing is appended then.
 */
int nd_plan_port(struct nd_plan *plan, const struct nd_profile *want, const struct nd_port *port,
		 size_t idx, struct nd_err *e);
/* Every field of @port's state as a profile: the pre-state to return to on rollback. */
void nd_state_to_profile(const struct nd_port *port, struct nd_profile *out);
/* @port as it will be once @want is applied (for lints on the planned state). */
void nd_profile_overlay(const struct nd_profile *want, struct nd_port *port);

#endif
