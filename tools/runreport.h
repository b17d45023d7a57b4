/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Printing run reports (struct nd_run_report), for `nodrop sim` and `nodrop stress` alike. */
#ifndef ND_RUNREPORT_H
#define ND_RUNREPORT_H

#include <stddef.h>

#include "nodrop.h"

enum {
	ND_RR_FLOWS = 1 << 0,		/* text: a line per flow (JSON always lists them) */
	ND_RR_ALL_PORTS = 1 << 1,	/* text: every port, not only those with a signal */
};

/* Prints more members into report @i's JSON object (or text block), e.g. the model's stats. */
typedef void (*nd_rr_extra_fn)(size_t i, void *data);

/* One report: a JSON object (member @key of the enclosing object, NULL at the top or in an
 * array), or a text block. */
void nd_print_run_report(const char *key, const struct nd_run_report *r, unsigned int flags,
			 nd_rr_extra_fn extra, size_t i, void *data);
/*
 * Several reports of one workload: side by side as text (a column per report, a row per
 * field), a JSON array of the reports.
 */
void nd_print_run_compare(const struct nd_run_report *const *r, size_t n, unsigned int flags,
			  nd_rr_extra_fn extra, void *data);

/* A distribution as "  LABEL: N, p50 .. us, ..." (text) or {count, p50_us, ...} under @key. */
void nd_print_dist(const char *key, const char *label, const struct nd_dist *d);

#endif
