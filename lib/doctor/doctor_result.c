// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The doctor's result, below every check: the findings a check appends (nd_doc_add, with the
 * text helpers for their evidence and fix), the GPU x NIC path matrix the PCI scan fills, and
 * the names of statuses and paths. It calls nothing of the doctor's own.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

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

/* Room for one more finding in d->checks; -ENOMEM (and c->err) when there is none. */
static int grow(struct nd_doc *c)
{
	struct nd_doctor *d = c->d;
	size_t cap = c->cap ? c->cap * 2 : 16;
	struct nd_check *grown;

	if (d->n_checks < c->cap)
		return 0;
	grown = realloc(d->checks, cap * sizeof(*grown));
	if (!grown) {
		c->err = -ENOMEM;
		return c->err;
	}
	d->checks = grown;
	c->cap = cap;
	return 0;
}

struct nd_check *nd_doc_add(struct nd_doc *c, const char *id, enum nd_check_status status,
			    const char *subject, ...)
{
	struct nd_check *k;
	va_list ap;

	if (c->err || grow(c))
		return NULL;
	k = &c->d->checks[c->d->n_checks++];
	memset(k, 0, sizeof(*k));
	k->id = id;
	k->status = status;
	va_start(ap, subject);
	vsnprintf(k->subject, sizeof(k->subject), subject, ap);
	va_end(ap);
	return k;
}
