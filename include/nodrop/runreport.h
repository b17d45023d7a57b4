/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: run reports: stress measures and sim models the same fields. */
#ifndef NODROP_RUNREPORT_H
#define NODROP_RUNREPORT_H

#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nd_verdict {
	ND_VERDICT_NONE,	/* no verdict asked (sim what-if runs) */
	ND_VERDICT_LOSSLESS,	/* no loss indicator moved and all data validated */
	ND_VERDICT_LOSSY,	/* data was lost or resent: evidence says where */
	ND_VERDICT_FAILED,	/* the run itself failed: QP errors, timeouts, a peer died */
};

const char *nd_verdict_name(enum nd_verdict v);

/* Points of a distribution's CDF: the fractions nd_dist_cdf_fraction() gives, the last 1 (max). */
#define ND_DIST_CDF_POINTS 16

/* Percentiles of a latency or completion-time distribution, microseconds. */
struct nd_dist {
	uint64_t count;
	double p50_us, p99_us, p999_us, max_us, mean_us;
	double cdf_us[ND_DIST_CDF_POINTS];	/* the value at each fraction (for plots) */
};

/* The fraction of samples at or below cdf_us[@i]: 0.01, 0.05, 0.1, ..., 0.99, 0.999, 1. */
double nd_dist_cdf_fraction(size_t i);

struct nd_flow_result {
	char name[64];			/* "h1->h0" or "rank 3 -> rank 0" */
	char src[64], dst[64];
	double start_s;			/* when it started, from the run's start */
	char path[64];			/* sim: the nodes its data crosses, "h0 leaf0 spine1 ..." */
	uint64_t bytes, messages;
	uint64_t size;			/* bytes it was to carry; 0 when open-ended or not known */
	double gbps;			/* average goodput over the flow's active time */
	double fct_us;			/* completion time of a finite flow, 0 when not one */
	double slowdown;		/* fct over the ideal on an idle fabric, 0 when not known */
	double ceiling_gbps;		/* what the datapath model gives its path, 0 unknown */
	char limit[256];		/* which end and term set that ceiling */
	uint64_t retransmits;
	double *series_gbps;		/* throughput per series_dt_s, n_series points */
	size_t n_series;
	double series_dt_s;
};

/* Congestion signals per port (a NIC port in stress, a switch or host port in sim). */
struct nd_port_result {
	char name[64];
	double pause_fraction;		/* share of the run the port was paused (RoCE PFC) */
	uint64_t pause_frames;
	uint64_t ecn_marked, cnp_sent, cnp_handled;
	double credit_wait_fraction;	/* share of the run waiting for credits (IB xmit_wait) */
	uint64_t drops;
	/* sim switch ports: data queue depth, bytes, over the run's time (not measured in stress) */
	uint64_t queue_p50, queue_p99, queue_max;
};

/* One piece of evidence: a counter (or model quantity) that moved, and by how much. */
struct nd_evidence {
	char where[64];			/* port or host */
	char what[64];			/* canonical counter name */
	int prio;
	uint64_t delta;
};

struct nd_run_report {
	char kind[16];			/* "stress" or "sim" */
	char fabric[16];		/* "roce" or "ib" */
	char pattern[32];		/* "pair", "incast", "victim", "all-to-all", ... */
	double duration_s;
	struct nd_flow_result *flows;
	size_t n_flows;
	double aggregate_gbps;
	double jain;			/* Jain's fairness index over the flows' goodput */
	struct nd_dist latency;		/* probe or completion latency (stress) */
	struct nd_dist fct;		/* flow completion times (sim) */
	struct nd_port_result *ports;
	size_t n_ports;
	uint64_t drops, retransmits;
	enum nd_verdict verdict;
	char reason[256];
	struct nd_evidence *evidence;
	size_t n_evidence;
};

/* Jain's fairness index (sum x)^2 / (n * sum x^2); 1 for a single or empty set. */
double nd_jain(const double *x, size_t n);
/* Percentiles of @n samples (sorted in place). */
void nd_dist_of(double *samples_us, size_t n, struct nd_dist *out);
void nd_run_report_free(struct nd_run_report *r);

#ifdef __cplusplus
}
#endif

#endif
