// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The doctor: is this host ready for GPUDirect RDMA? Each check is one row {id, check}; a check
 * appends findings (pass, warn, fail or skip) about its subjects, with the values it read and the
 * fix. Everything comes from sysfs and procfs through the rooted accessor, so fixture trees stand
 * in for hosts; what an unprivileged reader cannot see is a skip that says so, never a guess.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor.h"

static const char *const status_names[] = {
	[ND_CHECK_PASS] = "pass",
	[ND_CHECK_WARN] = "warn",
	[ND_CHECK_FAIL] = "fail",
	[ND_CHECK_SKIP] = "skip",
};

const char *nd_check_status_name(enum nd_check_status status)
{
	if ((unsigned int)status < ND_ARRAY_SIZE(status_names))
		return status_names[status];
	return "unknown";
}

static const char *const path_names[] = {
	[ND_PATH_PIX] = "PIX",
	[ND_PATH_PXB] = "PXB",
	[ND_PATH_PHB] = "PHB",
	[ND_PATH_NODE] = "NODE",
	[ND_PATH_SYS] = "SYS",
	[ND_PATH_UNKNOWN] = "unknown",
};

const char *nd_pci_path_name(enum nd_pci_path path)
{
	if ((unsigned int)path < ND_ARRAY_SIZE(path_names))
		return path_names[path];
	return "unknown";
}

enum nd_pci_path nd_doctor_path(const struct nd_doctor *d, size_t gpu, size_t nic)
{
	return d->paths[gpu * d->n_nics + nic];
}

void nd_doc_cat(char *dst, size_t len, const char *fmt, ...)
{
	size_t off = strnlen(dst, len);
	va_list ap;

	if (off + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(dst + off, len - off, fmt, ap);
	va_end(ap);
}

void nd_doc_size(char *dst, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB", "PiB" };
	size_t u = 0;

	/* exact units only: 1536 MiB stays 1536 MiB rather than a rounded 1.5 GiB */
	while (u + 1 < ND_ARRAY_SIZE(units) && bytes >= 1024 && !(bytes % 1024)) {
		bytes /= 1024;
		u++;
	}
	nd_doc_cat(dst, len, "%llu %s", (unsigned long long)bytes, units[u]);
}

struct nd_check *nd_doc_add(struct nd_doc *c, const char *id, enum nd_check_status status,
			    const char *subject, ...)
{
	struct nd_doctor *d = c->d;
	struct nd_check *k;
	va_list ap;

	if (c->err)
		return NULL;
	if (d->n_checks == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		struct nd_check *grown = realloc(d->checks, cap * sizeof(*grown));

		if (!grown) {
			c->err = -ENOMEM;
			return NULL;
		}
		d->checks = grown;
		c->cap = cap;
	}
	k = &d->checks[d->n_checks++];
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->status = status;
	va_start(ap, subject);
	vsnprintf(k->subject, sizeof(k->subject), subject, ap);
	va_end(ap);
	return k;
}

static const struct {
	const char *id;
	void (*check)(struct nd_doc *c, const char *id);
} checks[] = {
	{ "gpu-nic-affinity", nd_doc_check_affinity },
	{ "acs", nd_doc_check_acs },
	{ "iommu", nd_doc_check_iommu },
	{ "peer-memory", nd_doc_check_peermem },
	{ "bar1", nd_doc_check_bar1 },
	{ "memlock", nd_doc_check_memlock },
	{ "roce-gid", nd_doc_check_gid },
	{ "roce-mtu", nd_doc_check_mtu },
	{ "lldp-agent", nd_doc_check_lldp },
};

void nd_doctor_free(struct nd_doctor *d)
{
	free(d->gpus);
	free(d->nics);
	free(d->paths);
	free(d->checks);
	memset(d, 0, sizeof(*d));
}

int nd_doctor_run(struct nd_doctor *d, struct nd_err *e)
{
	struct nd_doc c = { .d = d };
	size_t i;

	memset(d, 0, sizeof(*d));
	c.err = nd_doc_scan_pci(&c);
	for (i = 0; i < ND_ARRAY_SIZE(checks) && !c.err; i++)
		checks[i].check(&c, checks[i].id);
	free(c.best);
	if (c.err) {
		nd_doctor_free(d);
		return nd_err_set(e, c.err, "doctor: cannot check this host: %s",
				  strerror(-c.err));
	}
	return 0;
}
