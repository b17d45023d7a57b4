// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory providers: one interface (struct nd_mem_ops) for host memory and GPU memory, so the
 * engine posts from an MR and copies for validation without knowing where the bytes live.
 * This file owns the dispatch: the table of providers by kind, then every call through the
 * ops the provider set. The providers (gen_mem_host.c, gen_mem_cuda.c) never call back here;
 * what they share, the registration errors, is below them in gen_mem_reg.c.
 */
#include <errno.h>
#include <string.h>

#include "gen_rt.h"

#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

/*
 * The providers by the kind of memory a spec asks for; a kind without one gets host memory.
 * Each sets m->ops, and everything after the open goes through them.
 */
static int (*const providers[])(struct nd_mem *m, size_t size, struct nd_err *e) = {
	[ND_MEM_HOST] = nd_mem_host_open,		/* gen_mem_host.c */
	[ND_MEM_CUDA] = nd_mem_cuda_open,		/* gen_mem_cuda.c */
};

int nd_mem_open(struct nd_mem *m, const struct nd_mem_spec *spec, size_t size,
		struct nd_err *e)
{
	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	if (!size)
		size = 4096;
	if ((unsigned int)spec->kind < ND_ARRAY_SIZE(providers) && providers[spec->kind])
		return providers[spec->kind](m, size, e);
	return nd_mem_host_open(m, size, e);
}

int nd_mem_reg(struct nd_mem *m, struct ibv_pd *pd, struct nd_err *e)
{
	return m->ops->reg(m, pd, ACCESS, e);
}

void nd_mem_close(struct nd_mem *m)
{
	if (m->mr)
		ibv_dereg_mr(m->mr);
	m->mr = NULL;
	if (m->ops)
		m->ops->free(m);
	m->ops = NULL;
}

int nd_mem_put(struct nd_mem *m, size_t off, const void *src, size_t len)
{
	if (off + len > m->size)
		return -ERANGE;
	return m->ops->write(m, off, src, len);
}

const uint8_t *nd_mem_view(struct nd_mem *m, size_t off, size_t len, uint8_t *scratch)
{
	if (off + len > m->size)
		return NULL;
	/* host memory is its own home; a GPU's bytes (staged ones too) are read back */
	if (m->host && !m->gpu)
		return m->host + off;
	return m->ops->read(m, off, scratch, len) ? NULL : scratch;
}

/* Staged copies are timed: their cost is what the staged mode is there to show. */
static int staged(struct nd_mem *m, int (*op)(struct nd_mem *, size_t, size_t), size_t off,
		  size_t len)
{
	uint64_t t;
	int ret;

	if (!op)
		return 0;
	if (off + len > m->size)
		return -ERANGE;
	t = nd_gen_now_ns();
	ret = op(m, off, len);
	m->staged_ns += nd_gen_now_ns() - t;
	m->staged_bytes += len;
	return ret;
}

int nd_mem_stage_out(struct nd_mem *m, size_t off, size_t len)
{
	return staged(m, m->ops->stage_out, off, len);
}

int nd_mem_stage_in(struct nd_mem *m, size_t off, size_t len)
{
	return staged(m, m->ops->stage_in, off, len);
}
