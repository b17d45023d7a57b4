/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Scenario values (sim_value.c) for the scenario schema (sim_scenario.c), over profile_int.h's. */
#ifndef ND_SIM_VALUE_H
#define ND_SIM_VALUE_H

#include "profile/profile_int.h"

/* A real number in [lo, hi]: "0.125", "12.5%", "1/8"; @what names it in messages. */
int sv_real(struct pctx *c, const struct nd_ynode *v, const char *what, double lo, double hi,
	    double *out);
int sv_speed(struct pctx *c, const struct nd_ynode *v, uint64_t *bps);
int sv_duration(struct pctx *c, const struct nd_ynode *v, uint64_t *ps);
int sv_length(struct pctx *c, const struct nd_ynode *v, double *metres);
int sv_bool(struct pctx *c, const struct nd_ynode *v, bool *out);

#endif
