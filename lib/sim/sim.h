/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The simulator's run loop (sim.c), on top of lib/sim/: a run in steps, for nd_sim_run() and the
 * unit tests, which poke between steps. It calls down into every part; the parts see only
 * sim_core.h, never this.
 */
#ifndef ND_SIM_H
#define ND_SIM_H

#include "sim_core.h"

int sim_setup(struct sim *s, const struct nd_scenario *sc, enum nd_fabric fabric,
	      struct nd_err *e);
/* Process events up to and including time @until; the clock then reads @until. */
void sim_loop(struct sim *s, uint64_t until);
/* Close open pauses and credit waits at the end of the run. */
void sim_finish(struct sim *s);
void sim_teardown(struct sim *s);

#endif
