/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the sim test files share: one suite (test_sim.c), a test case or two from each file. */
#ifndef ND_TEST_SIM_H
#define ND_TEST_SIM_H

#include <check.h>

#include "nodrop.h"
#include "unit.h"

#define US 1000000ULL		/* picoseconds */
#define MS 1000000000ULL

TCase *tcase_sim_core(void);
TCase *tcase_sim_flowctl(void);
TCase *tcase_sim_workload(void);
TCase *tcase_sim_determinism(void);

/* The path of shipped scenario file @name (profiles/scenarios/, or under ND_SHIPPED_PROFILES). */
const char *unit_sim_shipped(const char *name, char *buf, size_t size);
/* Two hosts on one switch, one flow between them. */
void unit_sim_pair(struct nd_scenario *s);
/* nd_sim_run(), which must succeed. */
void unit_sim_run(const struct nd_scenario *s, enum nd_fabric f, struct nd_run_report *r,
		  struct nd_sim_stats *st);
/* The report's port @name, which must be there. */
const struct nd_port_result *unit_sim_port(const struct nd_run_report *r, const char *name);

#endif
