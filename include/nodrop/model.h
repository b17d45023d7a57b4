/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libnodrop: the datapath model (nodrop-model(8)): what a host's hardware should give a
 * transfer, term by term (PCIe links and their packet overheads, the GPU <-> NIC path, host
 * memory for staged copies, the wire's per-packet headers), the latency of one small message,
 * and the time and bus bandwidth of collectives built on it. Every constant is cited in
 * lib/model/ and in the man page.
 */
#ifndef NODROP_MODEL_H
#define NODROP_MODEL_H

#include <nodrop/doctor.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where the transfer's buffers are and how they reach the NIC. */
enum nd_model_mem {
	ND_MM_HOST,		/* host memory, DMA by the NIC */
	ND_MM_GPUDIRECT,	/* GPU memory peer to peer with the NIC (dmabuf or peer memory) */
	ND_MM_STAGED,		/* GPU memory copied through host memory, a copy on each side */
	ND_MM_TCP,		/* staged, plus the kernel's socket copy on each side (TCP-like) */
	ND_MM_COUNT
};

enum nd_model_fabric {
	ND_MF_ROCE,		/* RoCE v2: Ethernet, IP, UDP, BTH */
	ND_MF_IB,		/* InfiniBand: LRH, BTH, VCRC */
	ND_MF_COUNT
};

const char *nd_model_mem_name(enum nd_model_mem mem);	/* "host", "gpudirect", ... */
int nd_model_mem_parse(const char *name, enum nd_model_mem *mem);
const char *nd_model_fabric_name(enum nd_model_fabric fabric);

/* One PCIe link as the kernel reports it; gen 0 when unknown (not PCIe, not readable). */
struct nd_pcie_link {
	unsigned int gen;		/* 1..6 */
	unsigned int width;		/* lanes: 1..32 */
	unsigned int mps;		/* max payload size, bytes: 128..4096 */
	bool mps_read;			/* mps came from config space, not the default */
};

/* "gen4x16", "Gen5 x8", "16GT/s x16" */
int nd_pcie_link_parse(const char *s, struct nd_pcie_link *l, struct nd_err *e);

struct nd_model_params {
	enum nd_model_mem mem;
	enum nd_model_fabric fabric;
	double line_gbps;		/* the port's data rate, Gb/s */
	unsigned int mtu;		/* RDMA path MTU: 256, 512, 1024, 2048 or 4096 */
	bool vlan;			/* RoCE: an 802.1Q tag on every frame */
	bool ipv6;			/* RoCE: IPv6 (40-byte header) */
	bool grh;			/* InfiniBand: a GRH on every packet (routed) */
	uint32_t msg_size;		/* bytes per message */
	bool write;			/* RDMA WRITE: RETH on a message's first packet */
	bool recv_cqe;			/* a CQE per message received (SEND, WRITE_IMM) */
	struct nd_pcie_link nic;	/* the NIC's link */
	struct nd_pcie_link gpu;	/* the GPU's link (GPU memory) */
	enum nd_pci_path path;		/* GPU <-> NIC (GPU memory) */
	double mem_gbs;			/* host memory bandwidth, GB/s, 0 unknown */
	double socket_gbs;		/* the socket interconnect, one direction, GB/s (SYS) */
	double rc_p2p_gbs;		/* root complex peer-to-peer (PHB, NODE), GB/s, 0 unknown */
	double copy_gbs;		/* one core's memcpy, GB/s (TCP-like), 0 unknown */
	/* latency */
	double pcie_rtt_ns;		/* a DMA read's round trip from the NIC to host memory */
	double nic_ns;			/* NIC pipeline, each side */
	double cable_m;			/* each link's length */
	unsigned int switches;		/* switch hops between the hosts */
	double switch_ns;		/* port to port, cut-through */
	double pcie_switch_ns;		/* a PCIe switch hop (GPU memory through PIX/PXB) */
	double socket_ns;		/* crossing the socket interconnect (SYS) */
};

/* The defaults nodrop-model(8) lists; line rate, MTU and links stay unknown (0). */
void nd_model_params_init(struct nd_model_params *p);

#define ND_MODEL_TERMS_MAX 16

/* One term: a ceiling (payload Gb/s, each direction) or a latency (ns). */
struct nd_model_term {
	const char *key;		/* JSON key: "wire", "pcie_nic", "host_memory", ... */
	char how[256];			/* the arithmetic, in words and numbers */
	double tx_gbps, rx_gbps;	/* sending (NIC reads memory), receiving (NIC writes) */
	double ns;			/* latency terms */
};

struct nd_model {
	struct nd_model_term bw[ND_MODEL_TERMS_MAX];
	size_t n_bw;
	struct nd_model_term lat[ND_MODEL_TERMS_MAX];
	size_t n_lat;
	double tx_gbps, rx_gbps;	/* the ceilings: the smallest term of each direction */
	size_t tx_limit, rx_limit;	/* index in bw of the limiting term */
	double latency_ns;		/* one small message, one way: the sum of lat */
	char notes[4][160];		/* what was assumed or left out for these inputs */
	size_t n_notes;
};

/*
 * The model for @p. -EINVAL names the input that is missing or out of range (a line rate is
 * required; a PCIe link may be unknown, and is then left out with a note).
 */
int nd_model_calc(const struct nd_model_params *p, struct nd_model *m, struct nd_err *e);

/* PCIe: a link's rate after its line code (raw), and after DLLPs and SKP ordered sets (tlp). */
double nd_pcie_raw_gbps(const struct nd_pcie_link *l);
double nd_pcie_tlp_gbps(const struct nd_pcie_link *l);
/*
 * Payload Gb/s of messages of @msg bytes in TLPs of at most MPS with @hdr header bytes, and a
 * descriptor TLP of @desc bytes per message (0: none).
 */
double nd_pcie_payload_gbps(const struct nd_pcie_link *l, uint32_t msg, unsigned int hdr,
			    unsigned int desc);
/* The wire: payload Gb/s of messages of @p->msg_size at @p->line_gbps. */
double nd_wire_payload_gbps(const struct nd_model_params *p);
/* Bytes a packet carries besides its payload (headers, CRCs, preamble and gap). */
unsigned int nd_wire_packet_overhead(const struct nd_model_params *p);

/* ---- collectives ---- */

enum nd_coll {
	ND_COLL_ALLREDUCE,
	ND_COLL_ALLGATHER,
	ND_COLL_REDUCESCATTER,
	ND_COLL_ALLTOALL,
	ND_COLL_COUNT
};

enum nd_coll_algo {
	ND_ALGO_RING,
	ND_ALGO_TREE,		/* NCCL's double binary tree (all-reduce only) */
	ND_ALGO_COUNT
};

const char *nd_coll_name(enum nd_coll c);	/* "all-reduce", ... */
int nd_coll_parse(const char *name, enum nd_coll *c);
const char *nd_coll_algo_name(enum nd_coll_algo a);

struct nd_coll_params {
	enum nd_coll coll;
	enum nd_coll_algo algo;
	uint32_t nodes, gpus;		/* ranks = nodes x gpus */
	uint32_t nics;			/* NICs per node carrying it (rails); 0: one per GPU */
	double nic_gbps;		/* each NIC's ceiling, Gb/s (the model's or a sim's) */
	double intra_gbs;		/* each GPU's intra-node bandwidth, GB/s; 0 not limiting */
	double base_us;			/* once per collective (NCCL's baseLat) */
	double inter_us, intra_us;	/* per step across nodes, within a node */
	uint64_t bytes;			/* S as nccl-tests counts it */
};

/* NCCL's latencies for its Simple protocol, ring or tree (nodrop-model(8)). */
void nd_coll_params_init(struct nd_coll_params *p);

struct nd_coll_result {
	double time_us;
	double algbw_gbs, busbw_gbs;	/* GB/s, nccl-tests' definitions */
	double bw_us, lat_us;		/* time's bandwidth and latency parts */
	unsigned int inter_steps, intra_steps;
	double factor;			/* busbw / algbw */
	bool intra_limited;		/* the intra-node bandwidth, not the network, bounds it */
};

/* -EINVAL for a tree that is not an all-reduce, zero ranks or bandwidth. */
int nd_coll_calc(const struct nd_coll_params *p, struct nd_coll_result *r, struct nd_err *e);

/* ---- reading a host ---- */

/* What the model reads of one RDMA device (sysfs; NODROP_SYSROOT as doctor). */
struct nd_model_port {
	char dev[64];
	unsigned int port;
	char bdf[ND_BDF_MAX];		/* "" for a device without PCI parent (rxe) */
	char netdev[ND_IFNAMSIZ];
	enum nd_model_fabric fabric;
	double line_gbps;		/* the port's data rate */
	char rate[64];			/* the rate file as read: "100 Gb/sec (4X EDR)" */
	char rate_from[160];		/* where line_gbps came from, in words */
	unsigned int mtu;		/* RDMA MTU from the netdev's (RoCE), 4096 (IB) */
	struct nd_pcie_link link;
	int numa_node;
};

/* @dev "" for the first RDMA device, @port 0 for its first port. */
int nd_model_read_port(const char *dev, unsigned int port, struct nd_model_port *out,
		       struct nd_err *e);
/* A port and the GPU beside it: what the model reads of a host for GPU memory. */
struct nd_model_host {
	struct nd_model_port port;
	char gpu[ND_BDF_MAX];		/* the GPU asked for, else the nearest; "" none found */
	struct nd_pcie_link gpu_link;
	enum nd_pci_path path;		/* GPU <-> NIC as doctor classifies it */
};

/*
 * nd_model_read_port(), then the GPU @gpu (a PCI address; NULL or "" the one nearest the NIC)
 * with its link and path. -ENODEV when @gpu is named and not there; no GPU at all is no error.
 */
int nd_model_read_host(const char *dev, unsigned int port, const char *gpu,
		       struct nd_model_host *h, struct nd_err *e);
/* The PCIe link of the function at /sys/bus/pci/devices/@bdf. */
int nd_model_read_link(const char *bdf, struct nd_pcie_link *l, struct nd_err *e);

#ifdef __cplusplus
}
#endif

#endif
