/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libnodrop: runs against a baseline. A stress or sim report (its JSON, as `nodrop stress -j`
 * and `nodrop sim -j` write it) becomes a list of headline numbers; a run is compared with the
 * median of one or more baseline runs of the same workload, and each number that got worse
 * past its limit is a regression.
 */
#ifndef NODROP_COMPARE_H
#define NODROP_COMPARE_H

#include <stdbool.h>
#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a number measures, and so which way is worse and which limit applies. */
enum nd_cmp_class {
	ND_CMP_THROUGHPUT,	/* Gb/s: lower is worse, by a share */
	ND_CMP_LATENCY,		/* microseconds: higher is worse, by a share */
	ND_CMP_CPU,		/* CPU seconds per GB: higher is worse, by a share */
	ND_CMP_FAIRNESS,	/* Jain's index: lower is worse, by an amount */
	ND_CMP_LOSS,		/* drops, retransmits, loss counters, bad payload: any rise */
	ND_CMP_VERDICT,		/* 0 lossless (or none), 1 lossy, 2 failed: any rise */
	ND_CMP_CLASS_COUNT,
};

/* "throughput", "latency", "cpu", "fairness", "loss", "verdict" */
const char *nd_cmp_class_name(enum nd_cmp_class c);
/* The class named @name, or -EINVAL. */
int nd_cmp_class_parse(const char *name);

struct nd_cmp_metric {
	char name[160];			/* "aggregate_gbps", "flow rank 1 -> rank 0 gbps", ... */
	enum nd_cmp_class cls;
	double value;
};

/* One report: a file holds one, or an array of them (`nodrop sim --compare`). */
struct nd_cmp_run {
	char file[256];
	size_t index;			/* its place in the file's array, 0 for a single report */
	char kind[16];			/* "stress" or "sim" */
	char fabric[16], pattern[32], verdict[16];
	char options[1024];		/* "key=value ..." of the traffic options (stress) or the
					 * scenario and seed (sim): runs must agree on them */
	char hosts[256];		/* the ranks' hosts, "a,b" (stress), "" (sim) */
	struct nd_cmp_metric *m;
	size_t n;
};

/*
 * Read the report(s) in @path. -EINVAL with "FILE: ..." for what is not a stress or sim report
 * (or JSON at all, with json-c's reason and the line), -ENOENT and the like when unreadable.
 */
int nd_cmp_load(const char *path, struct nd_cmp_run **runs, size_t *n, struct nd_err *e);
void nd_cmp_runs_free(struct nd_cmp_run *runs, size_t n);

/*
 * Whether @a and @b ran other workloads (kind, fabric, pattern, options, hosts): 0 when alike,
 * 1 with @why naming the first few differences ("--qps 1 vs 4; hosts a,b vs c,d").
 */
int nd_cmp_differs(const struct nd_cmp_run *a, const struct nd_cmp_run *b, char *why,
		   size_t len);

/* Limits: a throughput or latency number is worse past these (percent, or an amount). */
struct nd_cmp_limits {
	double throughput_pct;		/* default 10 */
	double latency_pct;		/* default 20 */
	double cpu_pct;			/* default 20 */
	double jain;			/* default 0.05 */
	unsigned int skip;		/* 1 << class: shown, never judged (noisy on this host) */
};

void nd_cmp_limits_init(struct nd_cmp_limits *l);

struct nd_cmp_row {
	char name[160];
	enum nd_cmp_class cls;
	double base;			/* the baseline runs' median (0 where none had it) */
	double run;
	double change_pct;		/* (run - base) / base, 0 when base is 0 */
	size_t n_base;			/* baseline runs that had the number */
	bool in_run;			/* false: only the baseline had it */
	bool worse;			/* past its limit the wrong way */
};

struct nd_cmp_result {
	struct nd_cmp_row *rows;
	size_t n;
	size_t n_worse;
};

/*
 * Compare @run with the median of @base (@n_base runs of the same workload: the caller checked
 * with nd_cmp_differs()). Rows in @run's order, then those only the baseline had.
 */
int nd_cmp_compare(const struct nd_cmp_run *const *base, size_t n_base,
		   const struct nd_cmp_run *run, const struct nd_cmp_limits *limits,
		   struct nd_cmp_result *out, struct nd_err *e);
void nd_cmp_result_free(struct nd_cmp_result *r);

#ifdef __cplusplus
}
#endif

#endif
