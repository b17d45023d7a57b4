// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Collectives on the datapath model: the time of all-reduce, all-gather, reduce-scatter and
 * all-to-all for N nodes of G GPUs, and nccl-tests' algorithm and bus bandwidths for it.
 *
 * Bandwidths (nccl-tests doc/PERFORMANCE.md): algbw = S / t; busbw = algbw x 2(n-1)/n for
 * all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, n ranks. The bandwidth part
 * of the time follows from what crosses the busiest link, as the alpha-beta models of Thakur,
 * Rabenseifner and Gropp (IJHPCA 19(1), 2005) count it:
 * - ring all-reduce: each node sends 2(n-1)/n x S to the network (one ring per NIC, S/rings
 *   each) and each GPU as much over its intra-node links: busbw = min(node's NICs, a GPU's
 *   intra-node bandwidth);
 * - ring all-gather and reduce-scatter: (n-1)/n x S the same way;
 * - NCCL's double binary tree all-reduce: every node receives S and sends S in the reduction and
 *   again in the broadcast: 2 S over the node's NICs;
 * - all-to-all: a node sends G x S x (n - G) / n to other nodes, a GPU S x (G - 1) / n to its
 *   neighbours.
 * Latency as NCCL's own tuning model counts it (src/graph/tuning.cc, NCCL 2.30): a base latency
 * per collective, and per step a network or an intra-node latency; a ring all-reduce has
 * 2(n-1) steps of which 2(N-1) cross nodes, all-gather and reduce-scatter n-1 and N-1, a tree
 * 2(G-1) intra-node and 2 log2(N) inter-node steps; all-to-all sends everything at once: one step.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "core/internal.h"

/* NCCL 2.30 src/graph/tuning.cc, Simple protocol: baseLat, NET and NVLink hwLat, microseconds. */
#define NCCL_BASE_US 8.4
#define NCCL_NET_RING_US 14.0
#define NCCL_NVLINK_RING_US 3.4

static const char *const coll_names[ND_COLL_COUNT] = {
	[ND_COLL_ALLREDUCE] = "all-reduce",
	[ND_COLL_ALLGATHER] = "all-gather",
	[ND_COLL_REDUCESCATTER] = "reduce-scatter",
	[ND_COLL_ALLTOALL] = "all-to-all",
};

const char *nd_coll_name(enum nd_coll c)
{
	return (unsigned int)c < ND_COLL_COUNT ? coll_names[c] : "unknown";
}

int nd_coll_parse(const char *name, enum nd_coll *c)
{
	int i = nd_name_index(coll_names, ND_COLL_COUNT, name);

	if (i < 0)
		return i;
	*c = (enum nd_coll)i;
	return 0;
}

const char *nd_coll_algo_name(enum nd_coll_algo a)
{
	return a == ND_ALGO_TREE ? "tree" : "ring";
}

void nd_coll_params_init(struct nd_coll_params *p)
{
	memset(p, 0, sizeof(*p));
	p->nodes = 1;
	p->gpus = 1;
	p->base_us = NCCL_BASE_US;
	p->inter_us = NCCL_NET_RING_US;
	p->intra_us = NCCL_NVLINK_RING_US;
}

/* GB/s of the node's NICs; 0 with one node (nothing crosses the network) */
static double node_gbs(const struct nd_coll_params *p)
{
	uint32_t nics = p->nics ? p->nics : p->gpus;

	return p->nodes > 1 ? nics * p->nic_gbps / 8 : 0;
}

/* Seconds x 1e6 for @bytes over @gbs GB/s; 0 when @gbs is 0 (that link is not in the way). */
static double us(double bytes, double gbs)
{
	return gbs > 0 ? bytes / (gbs * 1e3) : 0;
}

/* ceil(log2(n)) for n >= 1, in integers: the depth of a binary tree over n nodes */
static unsigned int ceil_log2(uint32_t n)
{
	unsigned int k = 0;

	while (k < 32 && (UINT64_C(1) << k) < n)
		k++;
	return k;
}

static void steps(const struct nd_coll_params *p, struct nd_coll_result *r)
{
	uint32_t n = p->nodes * p->gpus, N = p->nodes, G = p->gpus;

	switch (p->coll) {
	case ND_COLL_ALLREDUCE:
		if (p->algo == ND_ALGO_TREE) {
			r->inter_steps = 2 * ceil_log2(N);
			r->intra_steps = 2 * (G - 1);
		} else {
			r->inter_steps = 2 * (N - 1);
			r->intra_steps = 2 * (n - 1) - r->inter_steps;
		}
		break;
	case ND_COLL_ALLGATHER:
	case ND_COLL_REDUCESCATTER:
		r->inter_steps = N - 1;
		r->intra_steps = n - 1 - r->inter_steps;
		break;
	default:
		r->inter_steps = N > 1;
		r->intra_steps = N > 1 ? 0 : G > 1;
		break;
	}
}

int nd_coll_calc(const struct nd_coll_params *p, struct nd_coll_result *r, struct nd_err *e)
{
	double S = (double)p->bytes, n, G = p->gpus, net, intra, t_net, t_intra;

	memset(r, 0, sizeof(*r));
	if (!p->nodes || !p->gpus || p->nodes * (uint64_t)p->gpus > 1u << 20)
		return nd_err_set(e, -EINVAL, "%u nodes x %u GPUs: give 1 or more of each (ranks "
				  "up to 1048576)", p->nodes, p->gpus);
	if (p->algo == ND_ALGO_TREE && p->coll != ND_COLL_ALLREDUCE)
		return nd_err_set(e, -EINVAL, "a tree is NCCL's algorithm for all-reduce only; %s "
				  "runs on rings", nd_coll_name(p->coll));
	if (p->nodes > 1 && !(p->nic_gbps > 0))
		return nd_err_set(e, -EINVAL, "%u nodes and no NIC rate: give each NIC's ceiling "
				  "(the model's, or a sim's)", p->nodes);
	if (p->nodes == 1 && p->gpus > 1 && !(p->intra_gbs > 0))
		return nd_err_set(e, -EINVAL, "one node of %u GPUs: give the intra-node bandwidth "
				  "(--intra-bw)", p->gpus);
	if (!p->bytes)
		return nd_err_set(e, -EINVAL, "0 bytes: give the collective's size");
	n = (double)p->nodes * p->gpus;
	net = node_gbs(p);
	intra = p->intra_gbs;
	switch (p->coll) {
	case ND_COLL_ALLREDUCE:
		r->factor = 2 * (n - 1) / n;
		t_net = p->algo == ND_ALGO_TREE ? us(2 * S, net) : us(r->factor * S, net);
		t_intra = us(r->factor * S, intra);
		break;
	case ND_COLL_ALLGATHER:
	case ND_COLL_REDUCESCATTER:
		r->factor = (n - 1) / n;
		t_net = us(r->factor * S, net);
		t_intra = us(r->factor * S, intra);
		break;
	default:
		r->factor = (n - 1) / n;
		t_net = us(G * S * (n - G) / n, net);
		t_intra = us(S * (G - 1) / n, intra);
		break;
	}
	steps(p, r);
	r->intra_limited = t_intra > t_net;
	r->bw_us = nd_fmax(t_net, t_intra);
	r->lat_us = n > 1 ? p->base_us + r->inter_steps * p->inter_us +
			    r->intra_steps * p->intra_us : 0;
	r->time_us = r->bw_us + r->lat_us;
	if (r->time_us > 0) {
		r->algbw_gbs = S / (r->time_us * 1e3);
		r->busbw_gbs = r->algbw_gbs * r->factor;
	}
	return 0;
}
