// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What every memory provider shares, below them all: a failed registration (ibv_reg_mr,
 * ibv_reg_dmabuf_mr) turned into the error people can act on, the RLIMIT_MEMLOCK limit or the
 * missing peer memory spelled out with its fix. It calls no provider and no dispatch.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "gen_rt.h"

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
