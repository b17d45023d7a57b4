/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Printing apply/audit/rollback reports (text, JSON, JUnit). */
#ifndef ND_REPORT_H
#define ND_REPORT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "nodrop.h"

/*
 * Changes (apply, rollback) or drift (@audit) per port, lints, the outcome. An audit's field the
 * port would not give is unverified: a finding unless @accept (a bit per enum nd_field) names it.
 */
void nd_print_report(const struct nd_report *r, const struct nd_profile *profile, bool audit,
		     uint32_t accept);
/* Any lint at error severity; apply: any field it cannot write; @audit: drift or unverified */
bool nd_report_has_errors(const struct nd_report *r, bool audit, uint32_t accept);
/* JUnit XML for CI: a testsuite per port, a testcase per profile field and per lint. */
int nd_write_junit(const char *path, const struct nd_report *r, const struct nd_profile *p,
		   uint32_t accept);
/* A JUnit file with one errored test case named after @profile, for a run that checked nothing. */
int nd_write_junit_error(const char *path, const char *profile, const char *msg);

/* The one PROFILE operand of apply and audit, loaded; an exit code after a message on failure. */
/* Load the one PROFILE operand; on error it is printed and also left in @e. */
int nd_cli_profile(const char *cmd, int argc, char **argv, struct nd_profile *p,
		   struct nd_err *e);

/* @s as XML text, the five characters that matter escaped, control characters dropped. */
void nd_xml_escape(FILE *f, const char *s);

/* Up to this many --dev options. */
#define ND_DEVS_MAX 256

struct nd_devs {
	const char *v[ND_DEVS_MAX];
	size_t n;
};

/* Collect one --dev; ND_EXIT_USAGE after a message when there are too many. */
int nd_devs_add(struct nd_devs *devs, const char *cmd, const char *dev);

#endif
