// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Memory providers: one interface (struct nd_mem_ops) for host memory and GPU memory, so the
 * engine posts from an MR and copies for validation without knowing where the bytes live.
 * This file holds the host provider and what every provider shares: the registration errors
 * people hit most (RLIMIT_MEMLOCK, missing peer memory) spelled out with their fix.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>

#include "gen_rt.h"

#define HUGE_2M (2u << 20)
#define ACCESS (IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ)

static void fmt_limit(char *buf, size_t len, rlim_t v)
{
	if (v == RLIM_INFINITY)
		snprintf(buf, len, "unlimited");
	else if (v >= 1024 * 1024)
		snprintf(buf, len, "%llu MiB", (unsigned long long)(v >> 20));
	else
		snprintf(buf, len, "%llu KiB", (unsigned long long)(v >> 10));
}

int nd_mem_reg_error(struct nd_mem *m, int err, const char *how, struct nd_err *e)
{
	struct rlimit rl = { 0, 0 };
	char lim[32];

	if (err == EFAULT && m->gpu)
		return nd_err_set(e, -EFAULT, "%s of %zu MiB of GPU memory failed: %s; the NIC "
				  "cannot reach GPU memory this way: load nvidia_peermem "
				  "(modprobe nvidia_peermem), or use dmabuf (--mem cuda:N,dmabuf: "
				  "CUDA 11.7+, open GPU kernel modules 515+, rdma-core 34+)", how,
				  m->size >> 20, strerror(err));
	if ((err == ENOMEM || err == EPERM) && !m->gpu) {
		getrlimit(RLIMIT_MEMLOCK, &rl);
		fmt_limit(lim, sizeof(lim), rl.rlim_cur);
		return nd_err_set(e, -err, "%s of %zu MiB of host memory failed: %s; "
				  "RLIMIT_MEMLOCK is %s: raise it (ulimit -l unlimited, "
				  "LimitMEMLOCK=infinity in a systemd unit, memlock in "
				  "/etc/security/limits.conf) or use smaller --size, --tx-depth, "
				  "--qps",
				  how, m->size >> 20, strerror(err), lim);
	}
	return nd_err_set(e, -err, "%s of %zu MiB (%s) failed: %s", how, m->size >> 20, m->desc,
			  strerror(err));
}

static int host_alloc(struct nd_mem *m, size_t size, struct nd_err *e)
{
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (m->spec.hugepages ? MAP_HUGETLB : 0);
	void *p;

	if (m->spec.hugepages)
		size = (size + HUGE_2M - 1) & ~(size_t)(HUGE_2M - 1);
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (p == MAP_FAILED) {
		if (m->spec.hugepages)
			return nd_err_set(e, -errno, "no %zu MiB of 2 MiB hugepages: %s; reserve "
					  "them (sysctl vm.nr_hugepages=%zu) or use --mem host",
					  size >> 20, strerror(errno), size / HUGE_2M + 16);
		return nd_err_set(e, -errno, "cannot map %zu MiB of host memory: %s",
				  size >> 20, strerror(errno));
	}
	m->host = p;
	m->size = size;
	m->nic_base = (uintptr_t)p;
	snprintf(m->desc, sizeof(m->desc), "%s", m->spec.hugepages ? "host hugepages" : "host");
	return 0;
}

static int host_reg(struct nd_mem *m, struct ibv_pd *pd, int access, struct nd_err *e)
{
	m->mr = ibv_reg_mr(pd, m->host, m->size, access);
	return m->mr ? 0 : nd_mem_reg_error(m, errno, "ibv_reg_mr", e);
}

static int host_write(struct nd_mem *m, size_t off, const void *src, size_t len)
{
	memcpy(m->host + off, src, len);
	return 0;
}

static int host_read(struct nd_mem *m, size_t off, void *dst, size_t len)
{
	memcpy(dst, m->host + off, len);
	return 0;
}

static void host_free(struct nd_mem *m)
{
	if (m->host)
		munmap(m->host, m->size);
	m->host = NULL;
}

static const struct nd_mem_ops host_ops = {
	.name = "host",
	.alloc = host_alloc,
	.reg = host_reg,
	.write = host_write,
	.read = host_read,
	.free = host_free,
};

int nd_mem_host_open(struct nd_mem *m, size_t size, struct nd_err *e)
{
	m->ops = &host_ops;
	return m->ops->alloc(m, size, e);
}

int nd_mem_open(struct nd_mem *m, const struct nd_mem_spec *spec, size_t size,
		struct nd_err *e)
{
	memset(m, 0, sizeof(*m));
	m->spec = *spec;
	if (!size)
		size = 4096;
	if (spec->kind == ND_MEM_CUDA)
		return nd_mem_cuda_open(m, size, e);
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
