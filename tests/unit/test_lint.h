/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the lint test files share: the clean port that breaks no rule (test_lint.c) and the lints
 * of a run; one suite, the port's own lints in test_lint.c, those across the cable in
 * test_lint_peer.c.
 */
#ifndef ND_TEST_LINT_H
#define ND_TEST_LINT_H

#include <check.h>

#include "nodrop.h"

/* The lints of one run. */
struct run {
	struct nd_lint *v;
	int n;
};

TCase *tcase_lint_peer(void);

/*
 * The recommended ConnectX RoCE set-up: RoCE ToS 106 (DSCP 26) -> priority 3 with PFC, its own
 * receive buffer, cable length 7 m; CNPs DSCP 48 -> priority 6 in a strict TC; ECN on for 3.
 */
void lint_clean_port(struct nd_port *p);
/* How many lints of rule @id. */
int lint_count(const struct run *r, const char *id);

#endif
