/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: stress: lossless traffic and its verdict (nodrop-stress(8)). */
#ifndef NODROP_STRESS_H
#define NODROP_STRESS_H

#include <nodrop/counters.h>
#include <nodrop/doctor.h>
#include <nodrop/profile.h>
#include <nodrop/runreport.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nd_op {
	ND_OP_WRITE,		/* RDMA WRITE */
	ND_OP_WRITE_IMM,	/* RDMA WRITE with immediate: the receiver sees every message */
	ND_OP_SEND,		/* SEND/RECV */
	ND_OP_READ,		/* RDMA READ: the data sink pulls */
	ND_OP_COUNT
};

/* Who sends to whom; rank 0 (the coordinator's process) is the receiver where there is one. */
enum nd_stress_pattern {
	ND_SP_PAIR,		/* rank 1 -> rank 0 */
	ND_SP_BIDIR,		/* rank 1 <-> rank 0 */
	ND_SP_INCAST,		/* ranks 1..N -> rank 0 */
	ND_SP_OUTCAST,		/* rank 0 -> ranks 1..N */
	ND_SP_ALL2ALL,		/* every rank -> every other rank */
	ND_SP_VICTIM,		/* ranks 1..N -> rank 0, and rank 1 -> rank N+1 (uncongested) */
	ND_SP_COUNT
};

const char *nd_op_name(enum nd_op op);
int nd_op_parse(const char *name, enum nd_op *op);
const char *nd_stress_pattern_name(enum nd_stress_pattern pattern);
int nd_stress_pattern_parse(const char *name, enum nd_stress_pattern *pattern);

enum nd_mem_kind {
	ND_MEM_HOST,
	ND_MEM_CUDA,
};

/* How GPU memory reaches the NIC. */
enum nd_gpu_reg {
	ND_GPU_REG_AUTO,	/* dmabuf, else peer memory */
	ND_GPU_REG_DMABUF,	/* cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr */
	ND_GPU_REG_PEERMEM,	/* ibv_reg_mr on the device pointer (nvidia_peermem) */
	ND_GPU_REG_STAGED,	/* through host memory: a copy each way (the double-copy path) */
	ND_GPU_REG_COUNT
};

const char *nd_gpu_reg_name(enum nd_gpu_reg reg);

struct nd_mem_spec {
	enum nd_mem_kind kind;
	bool hugepages;			/* host memory from MAP_HUGETLB */
	int gpu;			/* CUDA device ordinal; -1 when given by PCI bus id */
	char gpu_bus_id[ND_BDF_MAX];
	enum nd_gpu_reg reg;
};

/* "host", "host:huge", "cuda:N" or "cuda:BUS_ID", a CUDA one optionally ",dmabuf|peermem|staged". */
int nd_mem_spec_parse(const char *s, struct nd_mem_spec *m, struct nd_err *e);

enum nd_sizes_kind {
	ND_SIZES_FIXED,		/* one size */
	ND_SIZES_SWEEP,		/* powers of two from size[0] to size[n - 1], one step each */
	ND_SIZES_DIST,		/* each message drawn from size[] with weight[] */
};

#define ND_SIZES_MAX 64
#define ND_MSG_MAX (1u << 30)

struct nd_sizes {
	enum nd_sizes_kind kind;
	uint32_t size[ND_SIZES_MAX];
	double weight[ND_SIZES_MAX];	/* distributions: relative, > 0 */
	size_t n;
};

/* "4096", "64K", "64-1M" (a sweep), "@FILE" (a distribution: lines "SIZE WEIGHT", # comments). */
int nd_sizes_parse(const char *s, struct nd_sizes *z, struct nd_err *e);
/* A distribution from the text of such a file; @name stands for the file in messages. */
int nd_sizes_parse_dist(const char *text, const char *name, struct nd_sizes *z, struct nd_err *e);
uint32_t nd_sizes_max(const struct nd_sizes *z);
uint32_t nd_sizes_min(const struct nd_sizes *z);

enum nd_connect {
	ND_CONN_CM,		/* rdma_cm by IP address (ToS through RDMA_OPTION_ID_TOS) */
	ND_CONN_VERBS,		/* plain verbs: QP numbers, GIDs or LIDs exchanged at rendezvous */
};

/*
 * The traffic of a job: the same on every rank (the coordinator compares them field by field
 * and names the first that differs). nd_stress_job_init() sets the defaults of nodrop-stress(8).
 */
struct nd_stress_job {
	enum nd_stress_pattern pattern;
	enum nd_op op;
	struct nd_sizes sizes;
	uint32_t qps;			/* QPs per flow */
	uint32_t tx_depth;		/* outstanding work requests per QP */
	uint32_t cq_mod;		/* one signalled completion per cq_mod work requests */
	uint32_t window_mib;		/* at most this much in flight per QP; 0: tx_depth only */
	double duration_s;		/* per size step; 0 with iters */
	uint64_t iters;			/* messages per QP and size step; 0: run for duration_s */
	double rate_gbps;		/* per flow; 0 unlimited */
	uint32_t burst_on_us, burst_off_us;	/* on/off bursts; 0: continuous */
	bool probes;			/* ping-pong latency probes beside each flow */
	bool latency;			/* only ping-pong, of the job's size, one in flight per
					 * flow with busy polling (ib_write_lat, ib_send_lat) */
	uint32_t probe_size, probe_interval_us;
	bool validate;			/* sequence and payload checks at the receiver */
	double watchdog_s;		/* no completion for this long on a busy QP: FAILED */
	double interval_s;		/* time series resolution */
	double margin_s;		/* rates leave out this much of each step's start and end */
	enum nd_connect connect;
	int tos;			/* ToS byte (DSCP << 2); -1: rdma_cm's default, 0 for verbs */
	int sl;				/* InfiniBand service level; -1: 0 */
	int qp_timeout;			/* ACK timeout, 4.096 us << N; -1: rdma_cm's, 17 for verbs */
};

void nd_stress_job_init(struct nd_stress_job *job);
/*
 * Option @i of a job (0, 1, ... until NULL) as the option that sets it ("--qps", "--burst (on)")
 * and its value (enums as their number, booleans 0/1, "not given" -1); the sizes are not
 * among them. What ranks must agree on, and what a run's report records.
 */
const char *nd_stress_job_option(const struct nd_stress_job *job, size_t i, double *value);
/* Consistency of a job on its own (sizes against validation, cq_mod against tx_depth, ...). */
int nd_stress_job_check(const struct nd_stress_job *job, struct nd_err *e);
/* The ToS byte of a profile's lossless class: roce.tos, else the DSCP mapped to a PFC priority. */
int nd_stress_tos_from_profile(const struct nd_profile *p, int *tos, int *prio, struct nd_err *e);

/* What one process brings: its device, address and memory (may differ between ranks). */
struct nd_stress_local {
	char dev[64];			/* RDMA device; "" the first with an active port */
	unsigned int port;		/* 0: the first active port */
	int gid_index;			/* -1: pick a RoCE v2 GID (address family of @addr) */
	char addr[64];			/* rdma_cm: the local IP; "" the device's IPv4 GID */
	struct nd_mem_spec mem;
	uint32_t inline_max;		/* host messages up to this size go inline; ND_INLINE_AUTO:
					 * perftest's for --latency (220 WRITE, 236 SEND), else 0 */
	bool event;			/* sleep on completion events instead of busy polling */
	const char *counter_maps;	/* nd_sampler_new()'s @maps */
	const volatile int *stop;	/* set (by a signal handler) to end the run cleanly */
};

#define ND_INLINE_AUTO UINT32_MAX

void nd_stress_local_init(struct nd_stress_local *l);

enum nd_rv_kind {
	ND_RV_TCP,		/* the built-in coordinator */
	ND_RV_MPI,		/* launched by mpirun/srun: MPI collectives through nodrop-mpi.so */
};

/* How ranks prove they belong to the job (the built-in coordinator; MPI's launcher decides
 * that for MPI). */
enum nd_rv_auth {
	ND_RV_AUTH_AUTO,	/* a key when given, else MUNGE where munged runs, else none */
	ND_RV_AUTH_NONE,	/* anyone with the token: said loudly, refused by require_auth */
	ND_RV_AUTH_MUNGE,	/* a MUNGE credential of the job's uid over the coordinator's nonce */
	ND_RV_AUTH_KEY,		/* HMAC-SHA-256 challenge-response with a shared key */
};

const char *nd_rv_auth_name(enum nd_rv_auth a);	/* "auto", "none", "munge", "key" */

struct nd_rendezvous {
	enum nd_rv_kind kind;
	char coord[128];		/* HOST:PORT of the coordinator */
	bool serve;			/* this process listens there and is rank 0 */
	uint32_t nranks;		/* serve: processes in the job, this one included */
	int rank;			/* wanted rank, -1 the next free one */
	char token[64];			/* pairs the processes of one job */
	double timeout_s;		/* how long any rendezvous step waits for everyone */
	enum nd_rv_auth auth;
	char key_file[256];		/* ND_RV_AUTH_KEY (or AUTO): the shared key, mode 0600 */
	bool require_auth;		/* refuse to run unauthenticated */
	long auth_gid;			/* MUNGE: accept only this gid too; -1 any */
	/* the coordinator's log: each refused peer with its address and why (may be NULL) */
	void (*log)(void *arg, const char *line);
	void *log_arg;
};

void nd_rendezvous_init(struct nd_rendezvous *rv);
/* Launched by mpirun or srun (the environment says so): MPI rendezvous is then the default. */
bool nd_stress_mpi_launched(void);

/* One message size (the only one unless sweeping): all flows together. */
struct nd_stress_step {
	uint32_t size;			/* 0 for a distribution */
	uint64_t messages, bytes;
	double seconds;
	double peak_gbps, avg_gbps, mpps;
};

/* One process of the job. */
struct nd_stress_rank {
	uint32_t rank;
	char host[64];
	char dev[64];
	unsigned int port;
	char ifname[ND_IFNAMSIZ];	/* the netdev whose counters were sampled */
	char addr[64];			/* its GID's or rdma_cm's address */
	double link_gbps;		/* the port's data rate, 0 unknown */
	/* the datapath model's ceilings (nodrop-model(8)) for the job's largest message, 0 unknown */
	double ceiling_tx_gbps, ceiling_rx_gbps;
	char limit_tx[160], limit_rx[160];	/* the term that sets each: "wire: 10 Gb/s ..." */
	char mem[48];			/* "host", "cuda:0 dmabuf", ... */
	char pacing[16];		/* "none", "hardware" or "software" (rate limits) */
	double cpu_s;			/* user + system CPU during traffic */
	uint64_t bytes_tx, bytes_rx;
	double staged_s;		/* time in host-staged copies */
	uint64_t staged_bytes;
	int status;			/* 0, or the negative errno that ended its run */
	char error[ND_ERR_MSG_MAX];
};

/* The counters of one sampled port: evidence that the verdict looked. */
struct nd_stress_port {
	char where[96];			/* "host/ifname" */
	double interval_s;
	size_t n_counters;		/* in the second sample */
	size_t n_loss;			/* loss indicators among them that could show loss */
	size_t n_loss_moved;
	uint64_t tx_packets, rx_packets;	/* RDMA packets, else the port's */
	int status;			/* sampling failed: negative errno, see error */
	char error[ND_ERR_MSG_MAX];
};

struct nd_run_report;
struct nd_dist;

/* What a rank takes home; the run report's types follow below, hence the pointers. */
struct nd_stress_result {
	struct nd_run_report *report;	/* the shared shape; flows and ports on rank 0 only */
	bool gathered;			/* this process holds every rank's results (rank 0) */
	uint32_t rank, nranks;
	char connect[16];		/* "rdma_cm", "verbs" */
	int tos, sl;
	struct nd_stress_step *steps;
	size_t n_steps;
	struct nd_stress_rank *ranks;
	size_t n_ranks;
	struct nd_stress_port *sampled;
	size_t n_sampled;
	struct nd_dist *completion;	/* work request post -> completion (report->latency: probes) */
	double cpu_s_per_gb;		/* all ranks' CPU over the bytes moved (qperf's cost) */
	uint64_t validated, corrupt, misordered, missing, overrun;
};

/*
 * Run one rank of a stress job: rendezvous, connect, sample counters, run traffic, sample again,
 * gather. On rank 0 @r holds the whole report (r->gathered); elsewhere the verdict rank 0 sent.
 * @r is filled (report and completion allocated) whenever the call returns 0.
 * Returns 0 when a verdict was reached (LOSSY and FAILED runs included: see r->report.verdict),
 * -EINVAL for a job that cannot run, another negative errno when this process could not take part.
 */
int nd_stress_run(const struct nd_stress_job *job, const struct nd_stress_local *local,
		  const struct nd_rendezvous *rv, struct nd_stress_result *r, struct nd_err *e);
void nd_stress_result_free(struct nd_stress_result *r);
/*
 * Flows of @r below @pct per cent of their datapath ceiling (flows without one are not judged);
 * @why names the slowest and the model's term that bounds it. Rank 0's result only.
 */
size_t nd_stress_slow(const struct nd_stress_result *r, double pct, char *why, size_t len);

#ifdef __cplusplus
}
#endif

#endif
