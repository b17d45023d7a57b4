// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * GPU memory as a provider. The NIC reaches it by dmabuf (the upstream way: the GPU driver
 * exports the range, the RDMA driver imports it), else by peer memory (ibv_reg_mr on the device
 * pointer, which only works with nvidia_peermem loaded), or not at all in the staged mode,
 * which keeps the data on the GPU but moves it through a pinned host buffer with a copy each
 * way: the path applications without GPUDirect take, kept so its cost can be measured.
 * gen_mem.c opens it from its provider table and calls it through its ops; it calls down only:
 * the CUDA driver (gen_cuda.c) and the shared registration errors (gen_mem_reg.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen_rt.h"

struct cuda_mem {
	struct nd_cuda *cuda;
	uint64_t dptr;
	void *bounce;
};

#define CM(m) ((struct cuda_mem *)(m)->priv)

static void describe(struct nd_mem *m, const char *how)
{
	if (m->spec.gpu >= 0)
		snprintf(m->desc, sizeof(m->desc), "cuda:%d %s", m->spec.gpu, how);
	else
		snprintf(m->desc, sizeof(m->desc), "cuda:%s %s", m->spec.gpu_bus_id, how);
}

static int cuda_alloc(struct nd_mem *m, size_t size, struct nd_err *e)
{
	struct cuda_mem *c = m->priv;
	int ret;

	ret = nd_cuda_open(&m->spec, &c->cuda, e);
	if (ret)
		return ret;
	nd_strlcpy(m->gpu_bdf, nd_cuda_bdf(c->cuda), sizeof(m->gpu_bdf));
	ret = nd_cuda_alloc(c->cuda, size, &c->dptr, &m->size, e);
	if (ret)
		return ret;
	m->gpu = true;
	m->nic_base = c->dptr;
	describe(m, nd_gpu_reg_name(m->spec.reg));
	if (m->spec.reg != ND_GPU_REG_STAGED)
		return 0;
	ret = nd_cuda_alloc_host(c->cuda, m->size, &c->bounce, e);
	if (ret)
		return ret;
	m->host = c->bounce;
	m->nic_base = (uintptr_t)c->bounce;
	return 0;
}

static int reg_dmabuf(struct nd_mem *m, struct ibv_pd *pd, int access, struct nd_err *e)
{
	struct cuda_mem *c = m->priv;
	int fd, ret;

	ret = nd_cuda_dmabuf_fd(c->cuda, c->dptr, m->size, &fd, e);
	if (ret)
		return ret;
	/* the iova is the device pointer: remote peers address GPU memory by it */
	m->mr = ibv_reg_dmabuf_mr(pd, 0, m->size, c->dptr, fd, access);
	ret = m->mr ? 0 : errno;
	close(fd);	/* the MR holds its own reference to the dmabuf */
	if (!ret)
		return 0;
	if (ret == EOPNOTSUPP || ret == ENOSYS)
		return nd_err_set(e, -EOPNOTSUPP, "%s cannot import dmabufs "
				  "(ibv_reg_dmabuf_mr: %s): use peer memory (--mem ...,peermem) "
				  "or the staged path", ibv_get_device_name(pd->context->device),
				  strerror(ret));
	return nd_mem_reg_error(m, ret, "ibv_reg_dmabuf_mr", e);
}

static int reg_peermem(struct nd_mem *m, struct ibv_pd *pd, int access, struct nd_err *e)
{
	struct cuda_mem *c = m->priv;

	m->mr = ibv_reg_mr(pd, (void *)(uintptr_t)c->dptr, m->size, access);
	return m->mr ? 0 : nd_mem_reg_error(m, errno, "ibv_reg_mr on GPU memory (peer memory)",
					    e);
}

static int cuda_reg(struct nd_mem *m, struct ibv_pd *pd, int access, struct nd_err *e)
{
	struct nd_err first = { 0 };
	int ret;

	switch (m->spec.reg) {
	case ND_GPU_REG_STAGED:
		m->mr = ibv_reg_mr(pd, m->host, m->size, access);
		return m->mr ? 0 : nd_mem_reg_error(m, errno, "ibv_reg_mr of the staging buffer",
						    e);
	case ND_GPU_REG_DMABUF:
		return reg_dmabuf(m, pd, access, e);
	case ND_GPU_REG_PEERMEM:
		return reg_peermem(m, pd, access, e);
	default:
		break;
	}
	/* auto: dmabuf first (no extra module), peer memory second; say why both failed */
	if (!reg_dmabuf(m, pd, access, &first)) {
		describe(m, "dmabuf");
		return 0;
	}
	ret = reg_peermem(m, pd, access, e);
	if (!ret) {
		describe(m, "peermem");
		return 0;
	}
	nd_err_wrap(e, "dmabuf: %s; peer memory", first.msg);
	return ret;
}

static int cuda_write(struct nd_mem *m, size_t off, const void *src, size_t len)
{
	return nd_cuda_htod(CM(m)->cuda, CM(m)->dptr + off, src, len);
}

static int cuda_read(struct nd_mem *m, size_t off, void *dst, size_t len)
{
	return nd_cuda_dtoh(CM(m)->cuda, dst, CM(m)->dptr + off, len);
}

static int cuda_stage_out(struct nd_mem *m, size_t off, size_t len)
{
	return nd_cuda_dtoh(CM(m)->cuda, m->host + off, CM(m)->dptr + off, len);
}

static int cuda_stage_in(struct nd_mem *m, size_t off, size_t len)
{
	return nd_cuda_htod(CM(m)->cuda, CM(m)->dptr + off, m->host + off, len);
}

static void cuda_free(struct nd_mem *m)
{
	struct cuda_mem *c = m->priv;

	if (!c)
		return;
	if (c->cuda) {
		nd_cuda_free_host(c->cuda, c->bounce);
		nd_cuda_free(c->cuda, c->dptr);
		nd_cuda_close(c->cuda);
	}
	free(c);
	m->priv = NULL;
	m->host = NULL;
}

static const struct nd_mem_ops cuda_ops = {
	.name = "cuda",
	.alloc = cuda_alloc,
	.reg = cuda_reg,
	.write = cuda_write,
	.read = cuda_read,
	.free = cuda_free,
};

static const struct nd_mem_ops cuda_staged_ops = {
	.name = "cuda-staged",
	.alloc = cuda_alloc,
	.reg = cuda_reg,
	.write = cuda_write,
	.read = cuda_read,
	.stage_out = cuda_stage_out,
	.stage_in = cuda_stage_in,
	.free = cuda_free,
};

int nd_mem_cuda_open(struct nd_mem *m, size_t size, struct nd_err *e)
{
	int ret;

	m->priv = calloc(1, sizeof(struct cuda_mem));
	if (!m->priv)
		return nd_err_set(e, -ENOMEM, "out of memory");
	m->ops = m->spec.reg == ND_GPU_REG_STAGED ? &cuda_staged_ops : &cuda_ops;
	ret = m->ops->alloc(m, size, e);
	if (ret)
		cuda_free(m);
	return ret;
}
