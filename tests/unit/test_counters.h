/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What the counters test files share: one suite, a test case from each file. */
#ifndef ND_TEST_COUNTERS_H
#define ND_TEST_COUNTERS_H

#include <check.h>

#include "counters/counters.h"

TCase *tcase_counters_diff(void);
TCase *tcase_counters_build(void);
TCase *tcase_counters_netlink(void);
TCase *tcase_counters_cli(void);
TCase *tcase_counters_drivers(void);

/* The maps the project ships (data/counters, next to the fixtures). */
const char *unit_counter_maps(void);
/* Point NODROP_SYSROOT at the fixture tree @name (NULL: none). */
void unit_counter_root(const char *name);
/* Every field of every counter of @got is @want's (test_counters_diff.c). */
void check_same_sample(const struct nd_sample *got, const struct nd_sample *want);

#endif
