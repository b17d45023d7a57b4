/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
#ifndef ND_UNIT_H
#define ND_UNIT_H

#include <check.h>

Suite *suite_nl(void);
Suite *suite_dcbnl(void);
Suite *suite_sysfs(void);
Suite *suite_show(void);
Suite *suite_plan(void);
Suite *suite_ecn(void);
Suite *suite_lint(void);
Suite *suite_profile(void);
Suite *suite_doctor(void);

/* Root of the fixture trees (env ND_FIXTURES, default tests/fixtures). */
const char *unit_fixtures(void);

#endif
