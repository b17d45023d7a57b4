// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Names, defaults and consistency of a stress job; memory specs; ToS from a profile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

static const char *const op_names[ND_OP_COUNT] = {
	[ND_OP_WRITE] = "write",
	[ND_OP_WRITE_IMM] = "write-imm",
	[ND_OP_SEND] = "send",
	[ND_OP_READ] = "read",
};

static const char *const pattern_names[ND_SP_COUNT] = {
	[ND_SP_PAIR] = "pair",
	[ND_SP_BIDIR] = "bidir",
	[ND_SP_INCAST] = "incast",
	[ND_SP_OUTCAST] = "outcast",
	[ND_SP_ALL2ALL] = "all-to-all",
	[ND_SP_VICTIM] = "victim",
};

static const char *const reg_names[ND_GPU_REG_COUNT] = {
	[ND_GPU_REG_AUTO] = "auto",
	[ND_GPU_REG_DMABUF] = "dmabuf",
	[ND_GPU_REG_PEERMEM] = "peermem",
	[ND_GPU_REG_STAGED] = "staged",
};

const char *nd_op_name(enum nd_op op)
{
	return (unsigned int)op < ND_OP_COUNT ? op_names[op] : "unknown";
}

int nd_op_parse(const char *name, enum nd_op *op)
{
	int i = nd_name_index(op_names, ND_OP_COUNT, name);

	if (i < 0)
		return i;
	*op = (enum nd_op)i;
	return 0;
}

const char *nd_stress_pattern_name(enum nd_stress_pattern pattern)
{
	return (unsigned int)pattern < ND_SP_COUNT ? pattern_names[pattern] : "unknown";
}

int nd_stress_pattern_parse(const char *name, enum nd_stress_pattern *pattern)
{
	int i = nd_name_index(pattern_names, ND_SP_COUNT, name);

	if (i < 0)
		return i;
	*pattern = (enum nd_stress_pattern)i;
	return 0;
}

const char *nd_gpu_reg_name(enum nd_gpu_reg reg)
{
	return (unsigned int)reg < ND_GPU_REG_COUNT ? reg_names[reg] : "unknown";
}

/* "0000:19:00.0" or "19:00.0": what cuDeviceGetByPCIBusId accepts. */
static bool looks_like_bdf(const char *s)
{
	size_t colons = 0;

	for (; *s; s++) {
		if (*s == ':')
			colons++;
		else if (*s != '.' && !strchr("0123456789abcdefABCDEF", *s))
			return false;
	}
	return colons == 1 || colons == 2;
}

static int parse_cuda(const char *dev, struct nd_mem_spec *m, struct nd_err *e)
{
	char *end;
	long n;

	if (looks_like_bdf(dev)) {
		if (strlen(dev) >= sizeof(m->gpu_bus_id))
			return nd_err_set(e, -EINVAL, "--mem: PCI bus id '%s' is too long", dev);
		nd_strlcpy(m->gpu_bus_id, dev, sizeof(m->gpu_bus_id));
		m->gpu = -1;
		return 0;
	}
	n = strtol(dev, &end, 10);
	if (end == dev || *end || n < 0 || n > 1023)
		return nd_err_set(e, -EINVAL, "--mem: '%s' is neither a CUDA device number nor "
				  "a PCI bus id (such as 0000:19:00.0)", dev);
	m->gpu = (int)n;
	return 0;
}

int nd_mem_spec_parse(const char *s, struct nd_mem_spec *m, struct nd_err *e)
{
	char buf[96], *comma;
	int reg;

	memset(m, 0, sizeof(*m));
	m->gpu = -1;
	if (strlen(s) >= sizeof(buf))
		return nd_err_set(e, -EINVAL, "--mem: '%.40s...' is too long", s);
	nd_strlcpy(buf, s, sizeof(buf));
	if (!strcmp(buf, "host"))
		return 0;
	if (!strcmp(buf, "host:huge")) {
		m->hugepages = true;
		return 0;
	}
	if (strncmp(buf, "cuda:", 5))
		return nd_err_set(e, -EINVAL, "--mem: '%s' is not host, host:huge, cuda:N or "
				  "cuda:BUS_ID", s);
	m->kind = ND_MEM_CUDA;
	comma = strchr(buf, ',');
	if (comma) {
		*comma++ = '\0';
		reg = nd_name_index(reg_names, ND_GPU_REG_COUNT, comma);
		if (reg < 0)
			return nd_err_set(e, -EINVAL, "--mem: '%s' is not a GPU registration "
					  "(dmabuf, peermem, staged)", comma);
		m->reg = (enum nd_gpu_reg)reg;
	}
	return parse_cuda(buf + 5, m, e);
}

void nd_stress_job_init(struct nd_stress_job *job)
{
	memset(job, 0, sizeof(*job));
	job->pattern = ND_SP_PAIR;
	job->op = ND_OP_WRITE;
	job->sizes.kind = ND_SIZES_FIXED;
	job->sizes.size[0] = 65536;
	job->sizes.weight[0] = 1;
	job->sizes.n = 1;
	job->qps = 1;
	job->tx_depth = 128;
	job->cq_mod = 0;		/* by message size (gen_post.c) */
	job->window_mib = 16;
	job->duration_s = 5;
	job->probe_size = 64;
	job->probe_interval_us = 1000;
	job->watchdog_s = 10;
	job->interval_s = 0.1;
	job->connect = ND_CONN_CM;
	job->tos = -1;
	job->sl = -1;
	job->qp_timeout = -1;
}

int nd_stress_job_check(const struct nd_stress_job *job, struct nd_err *e)
{
	if (!job->sizes.n || job->sizes.n > ND_SIZES_MAX || !nd_sizes_min(&job->sizes))
		return nd_err_set(e, -EINVAL, "--size: no message size given");
	if (nd_sizes_max(&job->sizes) > ND_MSG_MAX)
		return nd_err_set(e, -EINVAL, "--size: %u bytes is larger than the 1 GiB limit",
				  nd_sizes_max(&job->sizes));
	if (job->validate && nd_sizes_min(&job->sizes) < ND_PL_HDR)
		return nd_err_set(e, -EINVAL, "--validate needs messages of at least %u bytes (its "
				  "header), not %u", ND_PL_HDR, nd_sizes_min(&job->sizes));
	if (!job->qps || job->qps > 1024)
		return nd_err_set(e, -EINVAL, "--qps must be 1..1024, not %u", job->qps);
	if (!job->tx_depth || job->tx_depth > 16384)
		return nd_err_set(e, -EINVAL, "--tx-depth must be 1..16384, not %u", job->tx_depth);
	if (job->cq_mod > job->tx_depth)
		return nd_err_set(e, -EINVAL, "--cq-mod %u must be 0 (by message size) or "
				  "1..--tx-depth (%u): a queue full of unsignalled work requests never "
				  "completes", job->cq_mod, job->tx_depth);
	if (!job->iters && !(job->duration_s > 0))
		return nd_err_set(e, -EINVAL, "give --duration or --iters");
	if (job->duration_s < 0 || job->duration_s > 7 * 86400.0)
		return nd_err_set(e, -EINVAL, "--duration must be 0..604800 seconds");
	if (job->rate_gbps < 0 || job->rate_gbps > 10000)
		return nd_err_set(e, -EINVAL, "--rate must be 0..10000 Gbit/s");
	if (!job->burst_on_us != !job->burst_off_us)
		return nd_err_set(e, -EINVAL, "--burst needs both an on and an off time");
	if (job->probes && (job->probe_size < 1 || job->probe_size > 65536 ||
			    !job->probe_interval_us))
		return nd_err_set(e, -EINVAL, "--probe-size must be 1..65536 and "
				  "--probe-interval above 0");
	if (job->latency && (job->op != ND_OP_WRITE && job->op != ND_OP_SEND))
		return nd_err_set(e, -EINVAL, "--latency measures --op write (as ib_write_lat) or "
				  "--op send (as ib_send_lat), not --op %s", nd_op_name(job->op));
	if (job->latency && (job->sizes.kind != ND_SIZES_FIXED || job->sizes.size[0] > 65536))
		return nd_err_set(e, -EINVAL, "--latency takes one --size of 1..65536 bytes");
	if (job->margin_s < 0 || (job->margin_s > 0 && (job->iters ||
						       2 * job->margin_s >= job->duration_s)))
		return nd_err_set(e, -EINVAL, "--margin needs --duration, and must leave some of "
				  "it: less than half of %g s", job->duration_s);
	if (!(job->watchdog_s >= 0.1) || !(job->interval_s >= 0.001))
		return nd_err_set(e, -EINVAL, "--watchdog must be at least 0.1 s and --interval "
				  "at least 0.001 s");
	if (job->tos > 255 || job->sl > 15 || job->qp_timeout > 31)
		return nd_err_set(e, -EINVAL, "--tos must be 0..255, --sl 0..15 and --qp-timeout "
				  "0..31");
	return 0;
}

int nd_stress_tos_from_profile(const struct nd_profile *p, int *tos, int *prio, struct nd_err *e)
{
	int d;

	if (p->set & (1u << ND_F_ROCE_TOS)) {
		*tos = p->roce_tos;
		*prio = p->set & (1u << ND_F_DSCP_MAP) ? p->dscp2prio[p->roce_tos >> 2] : -1;
		return 0;
	}
	if (!(p->set & (1u << ND_F_PFC_EN)) || !(p->set & (1u << ND_F_DSCP_MAP)) || !p->pfc_en)
		return nd_err_set(e, -EINVAL, "profile %s gives neither roce.tos nor a DSCP mapped "
				  "to a PFC priority: give --tos", p->name);
	for (d = 0; d < ND_DSCP_MAX; d++) {
		if (p->dscp2prio[d] >= 0 && (p->pfc_en & (1u << p->dscp2prio[d]))) {
			*tos = d << 2;
			*prio = p->dscp2prio[d];
			return 0;
		}
	}
	return nd_err_set(e, -EINVAL, "profile %s maps no DSCP to its PFC priorities: give --tos",
			  p->name);
}

void nd_stress_local_init(struct nd_stress_local *l)
{
	memset(l, 0, sizeof(*l));
	l->gid_index = -1;
	l->mem.gpu = -1;
	l->inline_max = ND_INLINE_AUTO;
}

void nd_rendezvous_init(struct nd_rendezvous *rv)
{
	memset(rv, 0, sizeof(*rv));
	rv->rank = -1;
	rv->timeout_s = 60;
	rv->auth_gid = -1;
	nd_strlcpy(rv->token, "nodrop", sizeof(rv->token));
}
