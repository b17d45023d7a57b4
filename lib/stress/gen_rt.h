/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The traffic generator's runtime: memory providers, the device and its QPs, and the engine
 * that posts, polls, paces and validates. Options (struct nd_stress_job/local) and the plan
 * (struct nd_gen_plan) are read-only here; everything that changes lives in these structs.
 */
#ifndef ND_GEN_RT_H
#define ND_GEN_RT_H

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "coord.h"
#include "gen.h"

/* ---- memory providers: where the buffers live and how the NIC reaches them ---- */

struct nd_mem;

struct nd_mem_ops {
	const char *name;
	int (*alloc)(struct nd_mem *m, size_t size, struct nd_err *e);
	int (*reg)(struct nd_mem *m, struct ibv_pd *pd, int access, struct nd_err *e);
	/* host <-> the data's home (payload fill, validation) */
	int (*write)(struct nd_mem *m, size_t off, const void *src, size_t len);
	int (*read)(struct nd_mem *m, size_t off, void *dst, size_t len);
	/* staged: copy the home to the NIC's bounce buffer before a send, back after a receive */
	int (*stage_out)(struct nd_mem *m, size_t off, size_t len);
	int (*stage_in)(struct nd_mem *m, size_t off, size_t len);
	void (*free)(struct nd_mem *m);
};

struct nd_mem {
	const struct nd_mem_ops *ops;
	struct nd_mem_spec spec;
	size_t size;
	uint8_t *host;			/* host memory, the staged bounce; NULL: GPU-direct */
	uint64_t nic_base;		/* the address the MR starts at */
	struct ibv_mr *mr;
	bool gpu;			/* the data's home is GPU memory (never inline) */
	char desc[48];			/* "host", "cuda:0 dmabuf", "cuda:0 staged", ... */
	char gpu_bdf[ND_BDF_MAX];	/* the GPU's PCI address, "" unknown or host memory */
	void *priv;
	uint64_t staged_ns, staged_bytes;
};

/* Allocate @size bytes as @spec says (no registration yet). */
int nd_mem_open(struct nd_mem *m, const struct nd_mem_spec *spec, size_t size,
		struct nd_err *e);
/* Register for local write and remote read/write; errors name the limit or module missing. */
int nd_mem_reg(struct nd_mem *m, struct ibv_pd *pd, struct nd_err *e);
void nd_mem_close(struct nd_mem *m);
/* Write into the home / view bytes of it (@scratch when it is not host memory). */
int nd_mem_put(struct nd_mem *m, size_t off, const void *src, size_t len);
const uint8_t *nd_mem_view(struct nd_mem *m, size_t off, size_t len, uint8_t *scratch);
int nd_mem_stage_out(struct nd_mem *m, size_t off, size_t len);
int nd_mem_stage_in(struct nd_mem *m, size_t off, size_t len);

int nd_mem_host_open(struct nd_mem *m, size_t size, struct nd_err *e);
int nd_mem_cuda_open(struct nd_mem *m, size_t size, struct nd_err *e);
/* ENOMEM/EPERM from a registration: the memlock limit and the fix, in one sentence. */
int nd_mem_reg_error(struct nd_mem *m, int err, const char *how, struct nd_err *e);

/* ---- the CUDA driver API, resolved at run time (gen_cuda.c) ---- */

struct nd_cuda;

/* Load libcuda (env NODROP_LIBCUDA overrides "libcuda.so.1") and open the device @spec names. */
int nd_cuda_open(const struct nd_mem_spec *spec, struct nd_cuda **cp, struct nd_err *e);
void nd_cuda_close(struct nd_cuda *c);
const char *nd_cuda_name(const struct nd_cuda *c);
const char *nd_cuda_bdf(const struct nd_cuda *c);
bool nd_cuda_dmabuf_supported(const struct nd_cuda *c);
/* GPU memory, rounded up to 64 KiB (the GPU page). */
int nd_cuda_alloc(struct nd_cuda *c, size_t size, uint64_t *dptr, size_t *alloc_size,
		  struct nd_err *e);
void nd_cuda_free(struct nd_cuda *c, uint64_t dptr);
int nd_cuda_alloc_host(struct nd_cuda *c, size_t size, void **p, struct nd_err *e);
void nd_cuda_free_host(struct nd_cuda *c, void *p);
/* A dmabuf fd for [dptr, dptr + size) (cuMemGetHandleForAddressRange). */
int nd_cuda_dmabuf_fd(struct nd_cuda *c, uint64_t dptr, size_t size, int *fd, struct nd_err *e);
int nd_cuda_htod(struct nd_cuda *c, uint64_t dptr, const void *src, size_t len);
int nd_cuda_dtoh(struct nd_cuda *c, void *dst, uint64_t dptr, size_t len);

/* ---- the device: one RDMA device port per process ---- */

struct nd_dev {
	struct ibv_context *ctx;
	struct ibv_device **list;	/* plain verbs: ibv_get_device_list() */
	struct ibv_context **cm_list;	/* rdma_cm: rdma_get_devices(), the ids' contexts */
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_comp_channel *ch;
	struct ibv_device_attr attr;
	struct ibv_port_attr pattr;
	uint8_t port;
	int gid_index;
	union ibv_gid gid;
	bool ib;
	char name[64];
	char ifname[ND_IFNAMSIZ];
	char addr[64];
	struct rdma_event_channel *cm_ch;
	struct rdma_cm_id *listen;
	uint16_t cm_port;
};

/*
 * Open the device and port @local names (the first active one when not), pick its GID and
 * find its netdev; in rdma_cm mode also listen on its address.
 */
int nd_dev_open(struct nd_dev *d, const struct nd_stress_local *local, enum nd_connect conn,
		struct nd_err *e);
/* The protection domain, one completion queue of @cqe entries for every QP, its channel. */
int nd_dev_setup(struct nd_dev *d, int cqe, struct nd_err *e);
void nd_dev_close(struct nd_dev *d);
/* The port's data rate from its speed and width (Gbit/s), 0 when unknown. */
double nd_gen_link_gbps(const struct ibv_port_attr *pa);
/* gen_model.c: this rank's datapath ceilings into @in (0 where the model has no rate). */
void nd_gen_model(const struct nd_stress_job *job, const struct nd_dev *dev,
		  const struct nd_mem *mem, double link_gbps, struct nd_stress_rank *in);

/*
 * Pick a GID: @want (an IPv4/IPv6 address) exactly, else RoCE v2 over v1, IPv4-mapped over
 * IPv6, global over link-local. Returns the table position or -ENOENT with why.
 */
int nd_gen_pick_gid(const struct ibv_gid_entry *v, size_t n, const char *want, char *why,
		    size_t len);

/* ---- QPs and the engine ---- */

/* Where a completion came from: the QP's index and what the work request was. */
enum nd_wr_kind {
	ND_WR_DATA,		/* a signalled bulk work request: payload = its signal number */
	ND_WR_RECV,		/* a receive of bulk data: payload = its buffer slot */
	ND_WR_PROBE_SEND,
	ND_WR_PROBE_RECV,
	ND_WR_UNSIGNALLED,	/* an unsignalled bulk work request: seen only when it fails */
};

#define ND_WR_ID(qp, kind, v) ((uint64_t)(qp) << 44 | (uint64_t)(kind) << 40 | (v))
#define ND_WR_QP(id) ((size_t)((id) >> 44))
#define ND_WR_KIND(id) ((enum nd_wr_kind)(((id) >> 40) & 0xf))
#define ND_WR_VAL(id) ((id) & ((1ull << 40) - 1))

/* A signalled work request: what was posted up to and including it. */
struct nd_sig {
	uint64_t msgs, bytes, t_ns;
	uint32_t step;
};

#define ND_PROBE_RX 4
/*
 * One probe in this many is signalled. An unsignalled work request keeps its send queue slot
 * until a later signalled one's completion is polled (soft-RoCE frees it sooner; NICs do not),
 * so a probe QP's send queue holds two such runs.
 */
#define ND_PROBE_SIGNAL 16
/* Idle polling before a rank sleeps on completion events (unless --event: not at all). */
#define ND_SPIN_NS 50000ull

struct nd_qp {
	struct ibv_qp *qp;
	struct rdma_cm_id *id;
	const struct nd_gen_flow *flow;
	uint16_t idx;			/* in its flow; job->qps is the probe QP */
	bool probe;
	bool active;			/* posts the flow's work requests */
	bool sink;			/* receives the flow's data */
	bool connected;
	uint32_t psn;
	size_t fidx;			/* its flow's runtime state, when active */
	/* buffers: offsets into the memory region */
	size_t lbuf, xbuf, rxbuf;
	uint32_t lslots, xslots, rxslots, rx_depth;
	/* the peer's exposed buffer */
	uint64_t raddr;
	uint32_t rkey, rslots;
	/* progress: done advances at signalled completions only */
	uint64_t posted, done, posted_bytes, done_bytes;
	uint64_t nsig_posted, nsig_done;
	uint32_t unsig_msgs;		/* posted since the last signalled one, and their bytes */
	uint64_t unsig_bytes;
	struct nd_sig *sig;
	size_t nsig;
	uint64_t last_progress;		/* watchdog: last completion, or first wait */
	uint32_t step;			/* current size step */
	uint64_t step_posted;
	bool finished;			/* posted all it will */
	uint32_t *lsize;		/* READ with validation: the size read into each slot */
	uint64_t rx_seq;		/* sink: next sequence number expected */
	uint64_t max_seq;		/* sink: highest seq seen + 1 */
	/* probes (done: their round trips, with --latency) */
	bool probe_busy;
	uint64_t probe_t, probe_next;
	uint64_t probe_tsc;		/* --latency on the counter (gen_tsc.c): when sent, */
	uint32_t probe_cpu;		/* and by which CPU */
	uint8_t lat_mark;		/* WRITE latency: the last byte of the probe in flight */
	uint32_t probes_sent;		/* one in ND_PROBE_SIGNAL is signalled */
};

/*
 * A clock read from the counter (gen_tsc.c): the kernel's clock read again only every
 * reread_ns, or when the counter is another CPU's or went back; ns_per_tick 0: the clock.
 */
struct nd_tsc_clock {
	double ns_per_tick;
	uint64_t reread_ns;
	uint64_t ns, tsc;		/* the last clock read and the counter beside it */
	uint32_t cpu;			/* the CPU that read both */
	uint64_t reads;			/* clock reads so far */
};

/* Per flow this rank drives: pacing and what it measured. */
struct nd_flow_rt {
	const struct nd_gen_flow *flow;
	double tokens;			/* software pacing: bytes it may still send */
	uint64_t t_tokens;
	struct nd_gen_flow_stats st;
	size_t cap_series;
};

struct nd_engine {
	const struct nd_stress_job *job;
	uint64_t now;			/* the engine round's clock reading */
	const struct nd_stress_local *local;
	uint32_t inline_max;		/* local->inline_max with ND_INLINE_AUTO resolved */
	const struct nd_gen_plan *plan;
	uint32_t rank;
	struct nd_dev *dev;
	struct nd_mem *mem;
	struct nd_rv_conn *rv;
	struct nd_qp *qps;
	size_t n_qps;
	struct nd_flow_rt *flows;
	size_t n_flows;
	uint32_t slot_size;
	bool hw_rate;			/* every QP took ibv_modify_qp_rate_limit */
	uint64_t t0;			/* this rank's start (after the start barrier) */
	uint64_t step_ns;		/* duration mode: each size step's length */
	size_t n_steps;
	uint64_t interval_ns;
	/* work requests in flight per QP in each size step: tx_depth, or fewer by bytes */
	uint32_t window[ND_SIZES_MAX];
	bool posting_done;		/* every QP this rank drives posted all it will */
	uint64_t spin_ns;		/* idle: poll this long before sleeping on events */
	uint64_t idle_since;
	uint64_t waited_since;		/* --latency: a burst ended waiting since then */
	struct nd_tsc_clock clk;	/* the rounds' clock; its ns_per_tick, if set, times --latency */
	uint64_t rng;
	double *cum;			/* size distribution: cumulative weights */
	struct ibv_send_wr *wr;		/* cq_mod work requests and their SGEs */
	struct ibv_sge *sge;
	uint8_t *scratch;		/* a slot's bytes when the memory is not host memory */
	struct nd_gen_rank_result *res;
	bool stopping;
	int fatal;			/* negative errno once the run failed; see err */
	struct nd_err err;
};

/* Duration mode: when the job is planned to end, every size step run. */
static inline uint64_t nd_engine_end_ns(const struct nd_engine *en)
{
	return en->t0 + en->n_steps * en->step_ns;
}

/* Buffers in the memory region start on this boundary; a slot is a message rounded up to it. */
#define ND_EP_ALIGN 64

static inline size_t nd_ep_align(size_t v)
{
	return (v + ND_EP_ALIGN - 1) & ~(size_t)(ND_EP_ALIGN - 1);
}

/* Lay out buffers for every QP this rank has in the plan and size the memory region. */
int nd_ep_layout(struct nd_engine *en, size_t *bytes, struct nd_err *e);
/* Create the QPs (plain verbs: now; rdma_cm: at connection time) and fill in @info. */
int nd_ep_create(struct nd_engine *en, struct nd_gen_rank_info *info, struct nd_err *e);
/* Creation attributes shared by verbs and rdma_cm QPs. */
void nd_ep_qp_attr(const struct nd_engine *en, const struct nd_qp *q,
		   struct ibv_qp_init_attr *a);
/* The peer's end of @q: which rank, and what it published (NULL: nothing). */
const struct nd_gen_ep *nd_ep_peer(const struct nd_engine *en, const struct nd_qp *q,
				   const struct nd_gen_rank_info *infos, uint32_t *rank);
/* What the peer exposes is what this end writes to or reads from. */
void nd_ep_take_remote(struct nd_qp *q, const struct nd_gen_ep *pe);
/* Connect every QP to its peer, as the ranks' infos say. */
int nd_ep_connect_verbs(struct nd_engine *en, const struct nd_gen_rank_info *infos,
			struct nd_err *e);
int nd_ep_connect_cm(struct nd_engine *en, const struct nd_gen_rank_info *infos,
		     struct nd_err *e);
/* Post the receives a QP needs before its peer may send. */
int nd_ep_post_recvs(struct nd_engine *en, struct nd_qp *q, struct nd_err *e);
int nd_ep_repost(struct nd_engine *en, struct nd_qp *q, uint32_t slot);
void nd_ep_destroy(struct nd_engine *en);
/* rdma_cm events while traffic runs: a peer that disconnects ends the run. */
int nd_cm_poll(struct nd_engine *en, struct nd_err *e);
/* Fill the slots a sink exposes (READ sources) or a source sends from, when validating. */
int nd_ep_fill(struct nd_engine *en, struct nd_err *e);
/* Try the NIC's per-QP rate limit; false when any QP refused (software pacing then). */
bool nd_ep_rate_limit(struct nd_engine *en);

/* Post on every QP this rank drives: how many, or a negative errno (see en->err). */
int nd_post_all(struct nd_engine *en, uint64_t now);
/* Poll the completion queue once: how many completions, or a negative errno (en->err). */
int nd_poll_cq(struct nd_engine *en);
/* Send the next latency probe where one is due. */
int nd_probe_tick(struct nd_engine *en, uint64_t now);
/* Whether @q's next probe asks for a completion (one in ND_PROBE_SIGNAL); counts it sent. */
bool nd_probe_signalled(struct nd_qp *q);

/*
 * gen_tsc.c: --latency's counter: ns per tick, or 0 where the kernel's clock is cheap or the
 * counter cannot be used; nd_tsc_calibrate() measures the rate whatever the clock costs.
 */
double nd_tsc_ns_per_tick(void);
double nd_tsc_calibrate(void);
uint64_t nd_tsc_read(uint32_t *cpu);
/* The clock, or where ns_per_tick is set, the counter's ticks since the clock was last read */
uint64_t nd_tsc_clock_now(struct nd_tsc_clock *c);
/* The same at counter reading @t by @cpu (nd_tsc_read()); the clock now where it cannot say */
uint64_t nd_tsc_clock_at(struct nd_tsc_clock *c, uint64_t t, uint32_t cpu);
/* Buffers, rings and per-flow state for the QPs laid out; sizes the results' steps. */
int nd_engine_init(struct nd_engine *en, struct nd_err *e);
/* Move what the flows measured into the rank's results. */
void nd_engine_results(struct nd_engine *en);
void nd_engine_free(struct nd_engine *en);
/* Run the traffic from now until done, stopped or failed; then wait at the end barrier. */
int nd_engine_run(struct nd_engine *en, struct nd_err *e);
/* After the run: WRITE sinks check what landed in their slots. */
void nd_engine_final_check(struct nd_engine *en);

/* Validation of one message at @off of the memory (gen_check.c). */
void nd_check_msg(struct nd_engine *en, struct nd_qp *q, size_t off, uint32_t len,
		  uint16_t slot, uint64_t seq, uint32_t nslots, bool at_least);

#endif
