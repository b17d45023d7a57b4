/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: triage: findings from state and counter deltas (nodrop-triage(8)). */
#ifndef NODROP_TRIAGE_H
#define NODROP_TRIAGE_H

#include <nodrop/counters.h>
#include <nodrop/lint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ND_FINDING_EV_MAX 12

/* One counter behind a finding: how far it moved between the two samples. */
struct nd_finding_ev {
	char name[ND_CTR_NAME_MAX];	/* canonical counter name (nd_counter_info) */
	int prio;			/* 0..7, -1 not per priority */
	uint64_t delta;			/* 0 unless status is OK, WRAPPED or SATURATED */
	double rate;			/* per second */
	enum nd_delta_status status;
};

struct nd_finding {
	const char *id;			/* stable rule id, e.g. "pfc-storm", or a lint's id */
	enum nd_severity severity;
	char ifname[ND_IFNAMSIZ];
	int prio;			/* the priority it concerns, -1 the port as a whole */
	double interval_s;		/* the samples' time apart; 0 for a config lint */
	char summary[256];		/* one line: what happened, with the numbers */
	struct nd_finding_ev ev[ND_FINDING_EV_MAX];
	size_t n_ev;
	char action[320];		/* what to do */
	struct nd_loc loc;		/* config lints: the profile value involved, file "" if none */
};

/* Thresholds; nd_triage_opts_init() sets the defaults documented in nodrop-triage(8). */
struct nd_triage_opts {
	double storm_fraction;		/* rx pause time / interval that is a PFC storm: 0.99 */
	double pause_heavy_fraction;	/* above this (and not a storm): pause-heavy, 0.5 */
	uint64_t loss_events;		/* RDMA loss events per interval that are rdma-loss: 1 */
	double rnr_rate;		/* RNR NAKs per second that are an rnr-storm: 100 */
	uint64_t xmit_wait_ticks;	/* port_xmit_wait ticks per interval: 1000 */
	const struct nd_profile *profile;	/* also lint the ports it matches; NULL none */
	const char *maps;		/* counter map directory for nd_sampler_new(), NULL default */
};

void nd_triage_opts_init(struct nd_triage_opts *o);
/* Every canonical counter name some rule reads, NULL-terminated (checked against the maps). */
const char *const *nd_triage_counters(size_t *n);

/*
 * Run every rule over one port: its state (@port, for PFC priorities and ECN enables) and the
 * deltas of its counters over @interval_s seconds (@d, @n from nd_sample_diff()), plus the
 * config lints when @o->profile matches the port (@o NULL: the defaults). Returns the number of
 * findings in *@out (caller frees) or -errno. Pure: no kernel access but the lints' own.
 */
int nd_triage(const struct nd_port *port, const struct nd_delta *d, size_t n, double interval_s,
	      const struct nd_triage_opts *o, struct nd_finding **out, struct nd_err *e);

struct nd_triage_port {
	struct nd_port port;		/* the state read before the first sample */
	int status;			/* 0, or the negative errno of sampling it (see error) */
	char error[ND_ERR_MSG_MAX];
	double interval_s;		/* its own two samples apart */
	size_t n_counters;		/* counters in its second sample */
	size_t n_moved;			/* of them, how many moved */
};

struct nd_triage_report {
	double interval_s;		/* asked for */
	struct nd_triage_port *ports;
	size_t n;
	struct nd_finding *findings;	/* every port's, in port order */
	size_t n_findings;
};

/*
 * Read the state of the named netdevs (all but loopback when @n is 0), sample each one's
 * counters, sleep @seconds, sample again and triage each port. An unknown name fails with
 * -ENODEV before anything is sampled; a port that cannot be sampled is reported in its entry
 * (status, error) and the others go on. Returns 0 or -errno.
 */
int nd_triage_run(struct nd_ctx *ctx, const char *const *names, size_t n, double seconds,
		  const struct nd_triage_opts *o, struct nd_triage_report *r, struct nd_err *e);
void nd_triage_report_free(struct nd_triage_report *r);

#ifdef __cplusplus
}
#endif

#endif
