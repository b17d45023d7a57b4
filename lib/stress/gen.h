/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The traffic generator's pure parts, shared by its files and the unit tests: the plan (who sends
 * to whom), the byte codec for everything that crosses the network, payload patterns, latency
 * histograms, a rank's results and the verdict over all of them. Nothing here touches a device.
 */
#ifndef ND_GEN_H
#define ND_GEN_H

#include "core/internal.h"

/* ---- plan: the flows of a pattern over nranks processes ---- */

struct nd_gen_flow {
	uint32_t id;
	uint32_t src, dst;		/* ranks; data moves src -> dst */
	bool victim;			/* the victim pattern's uncongested flow */
};

struct nd_gen_plan {
	struct nd_gen_flow *flows;
	size_t n_flows;
	uint32_t nranks;
	char label[40];			/* "incast 3:1" */
};

/* The flows of @job's pattern over @nranks ranks; -EINVAL (and why) when they do not fit. */
int nd_gen_plan_build(const struct nd_stress_job *job, uint32_t nranks, struct nd_gen_plan *p,
		      struct nd_err *e);
void nd_gen_plan_free(struct nd_gen_plan *p);
/* The rank that posts a flow's work requests: the data sink for READ, else the source. */
uint32_t nd_gen_flow_active(const struct nd_gen_flow *f, enum nd_op op);

/* ---- byte codec: little endian, bounds-checked; a short or bad read sets @bad for good ---- */

struct nd_wbuf {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

void nd_w_u8(struct nd_wbuf *w, uint8_t v);
void nd_w_u16(struct nd_wbuf *w, uint16_t v);
void nd_w_u32(struct nd_wbuf *w, uint32_t v);
void nd_w_u64(struct nd_wbuf *w, uint64_t v);
void nd_w_f64(struct nd_wbuf *w, double v);
void nd_w_bytes(struct nd_wbuf *w, const void *p, size_t n);
/* u16 length + bytes */
void nd_w_str(struct nd_wbuf *w, const char *s);
void nd_wbuf_free(struct nd_wbuf *w);

struct nd_rbuf {
	const uint8_t *p;
	size_t left;
	bool bad;
};

uint8_t nd_r_u8(struct nd_rbuf *r);
uint16_t nd_r_u16(struct nd_rbuf *r);
uint32_t nd_r_u32(struct nd_rbuf *r);
uint64_t nd_r_u64(struct nd_rbuf *r);
/* A finite double in [@min, @max], else bad. */
double nd_r_f64(struct nd_rbuf *r, double min, double max);
const uint8_t *nd_r_bytes(struct nd_rbuf *r, size_t n);
/* A string of printable characters shorter than @cap, copied terminated into @dst. */
void nd_r_str(struct nd_rbuf *r, char *dst, size_t cap);
/* A count no larger than @max and than what is left could hold at @min_each bytes apiece. */
size_t nd_r_count(struct nd_rbuf *r, size_t max, size_t min_each);

/* ---- the job on the wire: one table of fields, so the coordinator names what differs ---- */

int nd_gen_job_encode(const struct nd_stress_job *job, struct nd_wbuf *w);
int nd_gen_job_decode(struct nd_rbuf *r, struct nd_stress_job *job);
/* 0 when equal; else 1 and "the first differing option: ours vs theirs" in @what. */
int nd_gen_job_diff(const struct nd_stress_job *a, const struct nd_stress_job *b, char *what,
		    size_t len);

/* ---- payload: a header per message and a body generated from (flow, QP, slot) ---- */

#define ND_PL_MAGIC 0x4e44504cu	/* "NDPL" */
#define ND_PL_HDR 32

struct nd_pl_hdr {
	uint32_t magic;
	uint32_t flow;
	uint64_t seq;
	uint32_t len;
	uint16_t qp;
	uint16_t slot;
	uint32_t pad;
	uint32_t csum;			/* of the fields above */
};

enum nd_pl_check {
	ND_PL_OK,
	ND_PL_CORRUPT,			/* header checksum, identity, length or body wrong */
	ND_PL_MISORDERED,		/* intact, but not the sequence number expected */
	ND_PL_OVERRUN,			/* a later message rewrote the slot first: no error */
};

/* Fill a whole slot: the body pattern and a header for @seq and @len. */
void nd_pl_fill(uint8_t *slot, uint32_t slot_size, uint32_t flow, uint16_t qp, uint16_t slotno,
		uint64_t seq, uint32_t len);
/* Rewrite only the header of a filled slot (the body depends on the slot, not the message). */
void nd_pl_stamp(uint8_t *slot, uint32_t flow, uint16_t qp, uint16_t slotno, uint64_t seq,
		 uint32_t len);
/*
 * Check a received message of @len bytes that should be @seq of (flow, qp) in slot @slotno.
 * @nslots: how many slots share the target (a later seq in the same slot is an overrun).
 * @len_at_least: READ sees a prefix of a slot filled for its whole size.
 */
enum nd_pl_check nd_pl_check(const uint8_t *msg, uint32_t len, uint32_t flow, uint16_t qp,
			     uint16_t slotno, uint64_t seq, uint32_t nslots, bool len_at_least);
/* The header of a message, decoded; false when it is not one (magic or checksum wrong). */
bool nd_pl_header(const uint8_t *msg, uint32_t len, struct nd_pl_hdr *h);

/* ---- endpoints: what each rank publishes so its peers can connect ---- */

/* One QP end: a flow's QP @qp (== job->qps for the probe QP) on this rank. */
struct nd_gen_ep {
	uint32_t flow;
	uint16_t qp;
	uint32_t qpn, psn;		/* plain verbs */
	uint64_t addr;			/* its exposed buffer (WRITE target, READ source) */
	uint32_t rkey;
	uint32_t slots;
};

struct nd_gen_rank_info {
	char host[64];
	char boot_id[40];
	char dev[64];
	uint8_t port;
	bool ib;			/* InfiniBand link layer: LIDs and SLs, no GIDs */
	uint16_t lid;
	uint8_t gid[16];
	uint8_t mtu;			/* enum ibv_mtu */
	char addr[64];			/* rdma_cm: where this rank listens */
	uint16_t cm_port;
	uint32_t slot_size;
	struct nd_gen_ep *eps;
	size_t n_eps;
};

int nd_gen_info_encode(const struct nd_gen_rank_info *in, struct nd_wbuf *w);
/* Decode and check against the plan: only QPs of flows the rank takes part in, each once. */
int nd_gen_info_decode(struct nd_rbuf *r, const struct nd_gen_plan *plan,
		       const struct nd_stress_job *job, uint32_t rank,
		       struct nd_gen_rank_info *out);
void nd_gen_info_free(struct nd_gen_rank_info *in);
const struct nd_gen_ep *nd_gen_info_ep(const struct nd_gen_rank_info *in, uint32_t flow,
				       uint16_t qp);

/* rdma_cm private data of a connection request: which flow and QP it is for. */
#define ND_CM_MAGIC 0x4e44434du	/* "NDCM" */
#define ND_CM_PRIV_LEN 16

void nd_gen_cm_priv_encode(uint8_t out[ND_CM_PRIV_LEN], uint32_t flow, uint16_t qp,
			   uint32_t src_rank);
int nd_gen_cm_priv_decode(const void *p, size_t len, uint32_t *flow, uint16_t *qp,
			  uint32_t *src_rank);

/* ---- latency histogram: log-linear buckets of nanoseconds, mergeable across ranks ---- */

#define ND_HIST_SUB 128		/* buckets per power of two: 0.8 % resolution */
#define ND_HIST_BUCKETS (64 * ND_HIST_SUB)

struct nd_hist {
	uint64_t *b;			/* ND_HIST_BUCKETS counts; NULL before a sample */
	uint64_t count;
	uint64_t max_ns;
	double sum_ns;
};

int nd_hist_add(struct nd_hist *h, uint64_t ns);
int nd_hist_merge(struct nd_hist *to, const struct nd_hist *from);
void nd_hist_dist(const struct nd_hist *h, struct nd_dist *d);
void nd_hist_free(struct nd_hist *h);
/* sparse on the wire: (bucket, count) pairs */
void nd_hist_encode(const struct nd_hist *h, struct nd_wbuf *w);
int nd_hist_decode(struct nd_rbuf *r, struct nd_hist *h);
/* The value a bucket stands for (its lower bound), and the bucket of a value. */
uint64_t nd_hist_value(size_t bucket);
size_t nd_hist_bucket(uint64_t ns);

/* ---- a rank's results, as it sends them to rank 0 ---- */

struct nd_gen_flow_stats {
	uint32_t flow;
	uint64_t bytes, messages;
	uint64_t t_first_ns, t_last_ns;	/* from this rank's start */
	uint64_t *series;		/* bytes completed per interval */
	size_t n_series;
};

/* Per QP: what a data source completed and what its sink found, for WRITE's end-of-run check. */
struct nd_gen_qp_check {
	uint32_t flow;
	uint16_t qp;
	bool sink;			/* from the sink: max_seq; from the source: completed */
	uint64_t value;			/* sink: highest seq + 1; source: messages done */
};

struct nd_gen_step_stats {
	uint64_t messages, bytes;
	uint64_t t_begin_ns, t_end_ns;	/* 0, 0 when this rank posted nothing in it */
};

/* One counter delta of the rank's port, as rank 0 needs it for the verdict. */
struct nd_gen_ctr {
	char name[ND_CTR_NAME_MAX];
	int prio;
	uint64_t delta;
	uint8_t status;			/* enum nd_delta_status */
	bool loss;
};

struct nd_gen_rank_result {
	struct nd_stress_rank info;
	char boot_id[40];		/* ranks with the same boot id and ifname share a port */
	struct nd_gen_flow_stats *flows;
	size_t n_flows;
	struct nd_gen_qp_check *checks;
	size_t n_checks;
	struct nd_gen_step_stats *steps;
	size_t n_steps;
	struct nd_hist probe, completion;
	uint64_t validated, corrupt, misordered, overrun;
	/* counters: status 0 and the deltas, or why sampling failed */
	int ctr_status;
	char ctr_error[ND_ERR_MSG_MAX];
	double ctr_interval_s;
	size_t ctr_total;		/* counters in the second sample */
	struct nd_gen_ctr *ctrs;	/* mapped counters only */
	size_t n_ctrs;
};

int nd_gen_result_encode(const struct nd_gen_rank_result *res, struct nd_wbuf *w);
/* Decode and check against the plan: flows must be ones the rank drives, steps as many as sizes. */
int nd_gen_result_decode(struct nd_rbuf *r, const struct nd_gen_plan *plan,
			 const struct nd_stress_job *job, uint32_t rank,
			 struct nd_gen_rank_result *res);
void nd_gen_result_free(struct nd_gen_rank_result *res);
/*
 * Rank 0's check that a decoded result could be true of the job: its port the one it announced,
 * no port faster than any there is, no more bytes than that port carries in the run's time, no
 * more messages than a run of iterations sends. 0, or -EPROTO with why.
 */
int nd_gen_result_plausible(const struct nd_gen_rank_result *res, const struct nd_stress_job *job,
			    const struct nd_gen_rank_info *announced, char *why, size_t len);

/* ---- counters: the rank's port before and after (gen_ctr.c) ---- */

struct nd_gen_ctr_state {
	struct nd_sampler *s;
	struct nd_sample before;
	int status;
	struct nd_err err;
};

/* Sample @ifname's counters now; the failure is kept and reported in the results. */
int nd_gen_ctr_before(struct nd_gen_ctr_state *st, const char *ifname, const char *maps);
/* Sample again and put the deltas of the canonical counters into @res. */
void nd_gen_ctr_after(struct nd_gen_ctr_state *st, const char *ifname,
		      struct nd_gen_rank_result *res);
void nd_gen_ctr_free(struct nd_gen_ctr_state *st);

/* ---- verdict: every rank's results -> the report ---- */

/* Build @r (rank 0) from every rank's results; @res[i] is NULL for a rank that never reported. */
int nd_gen_report(const struct nd_stress_job *job, const struct nd_gen_plan *plan,
		  struct nd_gen_rank_result *const *res, uint32_t nranks,
		  struct nd_stress_result *r, struct nd_err *e);
/* Ports, evidence and verdict of a report whose flows and sums nd_gen_report() made. */
int nd_gen_verdict(const struct nd_stress_job *job, struct nd_gen_rank_result *const *res,
		   uint32_t nranks, struct nd_stress_result *r);
/* The verdict rank 0 sends everyone, and its reading (bounded, checked). */
void nd_gen_verdict_encode(const struct nd_stress_result *r, struct nd_wbuf *w);
int nd_gen_verdict_decode(struct nd_rbuf *rd, struct nd_stress_result *r);
/* Allocate the report and completion distribution of a fresh result. */
int nd_gen_result_alloc(struct nd_stress_result *r);

/* ---- small helpers ---- */

uint64_t nd_gen_now_ns(void);
/* splitmix64: seeds and per-slot patterns */
uint64_t nd_gen_mix64(uint64_t x);

/*
 * --latency: each flow has its probe QP alone, and the probes carry the job's message size:
 * SENDs answered from the receive completion, or WRITEs seen landing in memory.
 */
static inline uint32_t nd_gen_bulk_qps(const struct nd_stress_job *job)
{
	return job->latency ? 0 : job->qps;
}

static inline bool nd_gen_probing(const struct nd_stress_job *job)
{
	return job->probes || job->latency;
}

static inline uint32_t nd_gen_probe_size(const struct nd_stress_job *job)
{
	return job->latency ? job->sizes.size[0] : job->probe_size;
}

#endif
