/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: the fabric simulator (nodrop-sim(8), nodrop-scenario(5)). */
#ifndef NODROP_SIM_H
#define NODROP_SIM_H

#include <nodrop/ecn.h>
#include <nodrop/headroom.h>
#include <nodrop/runreport.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * sim (nodrop-sim(8), scenarios in nodrop-scenario(5)): a discrete-event model of hosts, links
 * and shared-buffer switches with PFC, ECN/DCQCN and go-back-N (RoCE) or per-VL credits
 * (InfiniBand). Deterministic for a seed. Its result is a struct nd_run_report, as stress's is.
 */
enum nd_fabric {
	ND_FABRIC_ROCE,
	ND_FABRIC_IB,
	ND_FABRIC_COUNT
};

enum nd_topo {
	ND_TOPO_SINGLE,			/* every host on one switch */
	ND_TOPO_LEAF_SPINE,		/* two tiers, ECMP (a hash per flow) across spines */
};

enum nd_pattern {
	ND_PATTERN_PAIR,		/* host 2i -> host 2i+1 */
	ND_PATTERN_INCAST,		/* N senders -> one receiver */
	ND_PATTERN_VICTIM,		/* an incast, plus a flow to an idle host through it */
	ND_PATTERN_ALL_TO_ALL,
	ND_PATTERN_POISSON,		/* Poisson arrivals per host, sizes from a flow-size CDF */
	ND_PATTERN_COUNT
};

const char *nd_fabric_name(enum nd_fabric fabric);	/* "roce", "ib" */
const char *nd_pattern_name(enum nd_pattern pattern);	/* "pair", "incast", ... */

struct nd_sim_link {
	uint64_t speed_bps;
	uint64_t delay_ps;		/* propagation, one way (5 ns per metre of cable) */
};

/* A flow-size CDF point: P(size <= bytes) = pct %, linear between points. */
struct nd_cdf_point {
	double bytes, pct;
};

#define ND_SIM_HOSTS_MAX 4096
#define ND_SIM_FLOWS_MAX 1000000

struct nd_scenario {
	char name[64];
	char file[256];			/* the file it was read from, "" when built in code */
	uint64_t seed;
	enum nd_fabric fabric;		/* what runs without --compare */
	uint64_t duration_ps;
	unsigned int mtu;		/* payload bytes per packet (the RDMA path MTU) */
	unsigned int priority;		/* the data priority (InfiniBand: its VL), for names */
	unsigned int ack_every;		/* the receiver acknowledges every this many packets */
	uint64_t rto_ps;		/* go-back-N retransmission timeout */
	uint64_t series_ps;		/* per-flow throughput sample interval, 0: none */
	struct nd_sim_topo {
		enum nd_topo kind;
		unsigned int hosts;				/* single switch */
		unsigned int leaves, spines, hosts_per_leaf;	/* leaf-spine */
		struct nd_sim_link host, fabric;		/* host-switch, switch-switch */
	} topo;
	struct nd_sim_switch {
		uint64_t buffer;	/* shared buffer per switch, bytes */
		double alpha;		/* dynamic threshold: a PG may take alpha x the free buffer */
		uint64_t threshold;	/* static threshold per PG, bytes, when alpha is 0 */
		uint64_t headroom;	/* per lossless PG, bytes; 0: the basic model for its link */
		uint64_t xon_offset;	/* resume this far below the threshold */
	} sw;
	struct nd_sim_pfc {
		bool on;
		unsigned int quanta;	/* per PAUSE frame; re-sent at half time while congested */
		uint64_t response_ps;	/* a port's reaction time; UINT64_MAX: the quanta by speed */
	} pfc;
	struct nd_sim_ecn {
		bool on;
		uint64_t kmin, kmax;	/* egress queue bytes */
		double pmax;
	} ecn;
	struct nd_sim_dcqcn {
		bool on;
		double g, alpha;	/* alpha's EWMA gain; alpha before the first CNP */
		uint64_t timer_ps;	/* T: rate increase timer */
		uint64_t alpha_timer_ps;	/* K: alpha decays when no CNP came for this long */
		uint64_t cnp_interval_ps;	/* N: at most one CNP per flow per this (receiver) */
		uint64_t byte_counter;	/* B: rate increase every this many bytes sent; 0 none */
		unsigned int fast_recovery;	/* F: stages of fast recovery */
		uint64_t ai_bps, hai_bps, min_bps;
		/*
		 * 0: the paper's reaction point (every CNP cuts, alpha rises with each). Above 0,
		 * ConnectX's (mlx5 rp_rate_reduce_monitor_period): CNPs are noted, a cut comes at
		 * most once a period, and alpha moves once per alpha-timer, up if a CNP came in it.
		 */
		uint64_t reduce_period_ps;
		bool clamp;	/* every cut sets Rt = Rc (rp_clamp_tgt_rate); else only after a rise */
	} dcqcn;
	struct nd_sim_ib {
		uint32_t vl_buffer;	/* receive buffer per VL per switch port, bytes */
	} ib;
	struct nd_sim_workload {
		enum nd_pattern pattern;
		unsigned int senders;	/* incast, victim: this many hosts send to the receiver, */
		unsigned int first_sender;	/* from this one up, skipping the receiver */
		unsigned int receiver;
		unsigned int pairs;	/* pair */
		uint64_t size;		/* bytes per flow, 0: sends until the end */
		unsigned int victim_src, victim_dst;
		double load;		/* poisson: share of each host's link */
		struct nd_cdf_point *cdf;	/* poisson: flow sizes (nd_scenario_free frees) */
		size_t n_cdf;
		char cdf_file[256];
		uint64_t jitter_ps;	/* each flow starts at a random time below this */
		unsigned int max_flows;	/* poisson: refuse arrivals that need more flows */
	} wl;
};

/* Defaults (see nodrop-scenario(5)): 8:1 incast on one switch at 100G, RoCE, PFC+ECN+DCQCN. */
void nd_scenario_init(struct nd_scenario *s);
/*
 * Load a scenario file; errors say "FILE:LINE:COL: KEY: what is wrong; what to do". A CDF file
 * is found relative to the scenario's directory. On error @s holds nothing to free.
 */
int nd_scenario_load(const char *path, struct nd_scenario *s, struct nd_err *e);
/* The same from memory; @dir resolves a relative CDF path (NULL: CDF files are refused). */
int nd_scenario_parse(const char *buf, size_t len, const char *name, const char *dir,
		      struct nd_scenario *s, struct nd_err *e);
/*
 * Checks across keys (hosts exist, ranges hold); the parser runs it too. The buffer against
 * each port's headroom needs the links: nd_sim_run() checks that.
 */
int nd_scenario_check(const struct nd_scenario *s, struct nd_err *e);
void nd_scenario_free(struct nd_scenario *s);
/*
 * Set @s's DCQCN from a NIC's parameters as nd_ecn_read() read them on port @dev (ConnectX
 * units: us, Mb/s, 64 bytes, 1024ths): rp_time_reset -> timer, rp_byte_reset -> byte-counter,
 * rp_threshold -> fast-recovery, rp_ai_rate/rp_hai_rate/rp_min_rate -> ai/hai/min-rate,
 * rp_dce_tcp_g -> g = (1024 - v) / 1024, rp_dce_tcp_rtt -> alpha-timer, rp_initial_alpha_value
 * -> alpha, rp_rate_reduce_monitor_period -> rate-reduce-period, rp_clamp_tgt_rate ->
 * clamp-target-rate, np_min_time_between_cnps -> cnp-interval; with MLNX_OFED's per-priority
 * enables, DCQCN runs only if both points are on for the scenario's priority. @note gets what
 * the model leaves out ("" when nothing). -ENOENT when the port exposes no parameter the model
 * takes, -EINVAL when they make a scenario nd_scenario_check() refuses; @s is then unchanged.
 */
int nd_scenario_dcqcn_from_nic(struct nd_scenario *s, const struct nd_ecn *ecn, const char *dev,
			       char *note, size_t len, struct nd_err *e);

/* A flow-size CDF file: "BYTES PERCENT" per line, '#' comments; *@pts is the caller's to free. */
int nd_cdf_load(const char *path, struct nd_cdf_point **pts, size_t *n, struct nd_err *e);
/* Mean flow size of a CDF with linear interpolation between its points. */
double nd_cdf_mean(const struct nd_cdf_point *pts, size_t n);

/* Percentiles of a unitless distribution (FCT slowdowns). */
struct nd_sim_pct {
	uint64_t count;
	double p50, p95, p99, max, mean;
};

#define ND_SIM_BUCKETS 5

/* The model's own numbers, beside the report. */
struct nd_sim_stats {
	uint64_t seed;
	uint64_t events;		/* events the loop processed */
	uint64_t flows, flows_done;
	uint64_t packets;		/* data packets sent, retransmissions included */
	struct nd_sim_pct slowdown;	/* completed flows, FCT over the idle-fabric ideal */
	struct nd_sim_bucket {
		uint64_t lo, hi;	/* flows of lo <= size < hi bytes (hi 0: no bound) */
		struct nd_sim_pct slowdown;
	} buckets[ND_SIM_BUCKETS];
};

struct nd_run_report;

/*
 * Run @s with the flow control of @fabric: RoCE (PFC, ECN/DCQCN, go-back-N) or InfiniBand
 * (credits per VL, never a drop). Fills @r (nd_run_report_free() frees it) and @st. Returns 0,
 * -EINVAL for a scenario nd_scenario_check() refuses, or -ENOMEM.
 */
int nd_sim_run(const struct nd_scenario *s, enum nd_fabric fabric, struct nd_run_report *r,
	       struct nd_sim_stats *st, struct nd_err *e);

#ifdef __cplusplus
}
#endif

#endif
