/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef ND_UNIT_H
#define ND_UNIT_H

#include <check.h>
#include <stdint.h>

Suite *suite_nl(void);
Suite *suite_dcbnl(void);
Suite *suite_sysfs(void);
Suite *suite_show(void);
Suite *suite_plan(void);
Suite *suite_ecn(void);
Suite *suite_lint(void);
Suite *suite_profile(void);
Suite *suite_headroom(void);
Suite *suite_model(void);
Suite *suite_print(void);
Suite *suite_sim(void);
Suite *suite_simref(void);
Suite *suite_peer(void);
Suite *suite_path(void);
Suite *suite_sim_scenario(void);
Suite *suite_counters(void);
Suite *suite_doctor(void);
Suite *suite_triage(void);
Suite *suite_gen_plan(void);
Suite *suite_gen_wire(void);
Suite *suite_gen_payload(void);
Suite *suite_gen_probe(void);
Suite *suite_gen_engine(void);
Suite *suite_gen_verdict(void);
Suite *suite_gen_coord(void);
Suite *suite_gen_mem(void);
Suite *suite_gen_gpu(void);
Suite *suite_gen_cuda(void);
Suite *suite_stop(void);
Suite *suite_report(void);

/* Root of the fixture trees (env ND_FIXTURES, default tests/fixtures). */
const char *unit_fixtures(void);
/* Point the rooted accessor at fixture tree @name (NODROP_SYSROOT), or back at the real root. */
void unit_use_fixture(const char *name);
void unit_no_root(void);
/* The next number of a seeded xorshift64 stream (*@state nonzero): random cases that rerun alike. */
uint64_t unit_rand(uint64_t *state);
/* The whole file @path, NUL-terminated (the test fails if it cannot be read); free() it. */
char *unit_read_file(const char *path);

#endif
