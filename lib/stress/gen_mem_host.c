// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Host memory as a provider: anonymous pages, or 2 MiB hugepages when the spec asks, registered
 * with ibv_reg_mr. The NIC reads and writes it in place, so it has no staging copies. Its
 * registration errors come from gen_mem_reg.c; gen_mem.c reaches it through its ops only.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "gen_rt.h"

#define HUGE_2M (2u << 20)

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
