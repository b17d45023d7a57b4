// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A rank's datapath ceilings: the model (nodrop-model(8)) for this rank's port, memory and the
 * job's largest message, sending and receiving, each with the term that sets it. Rank 0 divides
 * them among the flows that share a rank's NIC and judges each flow against its share.
 */
#include <stdio.h>
#include <string.h>

#include "gen_rt.h"

static enum nd_model_mem model_mem(const struct nd_mem *mem)
{
	if (mem->spec.kind != ND_MEM_CUDA)
		return ND_MM_HOST;
	return mem->spec.reg == ND_GPU_REG_STAGED ? ND_MM_STAGED : ND_MM_GPUDIRECT;
}

static void limit(const struct nd_model *m, size_t i, char *out, size_t len)
{
	snprintf(out, len, "%s: %s", m->bw[i].key, m->bw[i].how);
}

void nd_gen_model(const struct nd_stress_job *job, const struct nd_dev *dev,
		  const struct nd_mem *mem, double link_gbps, struct nd_stress_rank *in)
{
	struct nd_model_params p;
	struct nd_model_host h = { .path = ND_PATH_UNKNOWN };
	struct nd_model m;
	struct nd_err e = { 0 };

	in->ceiling_tx_gbps = in->ceiling_rx_gbps = 0;
	in->limit_tx[0] = in->limit_rx[0] = '\0';
	nd_model_params_init(&p);
	/* what cannot be read stays out of the sum; only a port with no rate at all has no model */
	p.mem = model_mem(mem);
	if (p.mem == ND_MM_HOST)
		nd_model_read_port(dev->name, dev->port, &h.port, &e);
	else
		nd_model_read_host(dev->name, dev->port, mem->gpu_bdf, &h, &e);
	p.fabric = dev->ib ? ND_MF_IB : ND_MF_ROCE;
	p.line_gbps = h.port.line_gbps > 0 ? h.port.line_gbps : link_gbps;
	/* the MTU the port runs at, as verbs reports it (enum ibv_mtu: 1 is 256) */
	p.mtu = dev->pattr.active_mtu >= 1 && dev->pattr.active_mtu <= 5 ?
		128u << dev->pattr.active_mtu : 4096;
	p.msg_size = nd_sizes_max(&job->sizes);
	p.write = job->op == ND_OP_WRITE || job->op == ND_OP_WRITE_IMM;
	p.recv_cqe = job->op == ND_OP_SEND || job->op == ND_OP_WRITE_IMM;
	p.nic = h.port.link;
	p.gpu = h.gpu_link;
	p.path = h.path;
	if (nd_model_calc(&p, &m, &e))
		return;
	in->ceiling_tx_gbps = m.tx_gbps;
	in->ceiling_rx_gbps = m.rx_gbps;
	limit(&m, m.tx_limit, in->limit_tx, sizeof(in->limit_tx));
	limit(&m, m.rx_limit, in->limit_rx, sizeof(in->limit_rx));
}
