// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The doctor: is this host ready for GPUDirect RDMA? Each check is one row {id, check}; a check
 * appends findings (pass, warn, fail or skip) about its subjects, with the values it read and the
 * fix. Everything comes from sysfs and procfs through the rooted accessor, so fixture trees stand
 * in for hosts; what an unprivileged reader cannot see is a skip that says so, never a guess.
 *
 * This file owns the table and the run: it scans the PCI hierarchy (doctor_topo.c), then calls
 * each check (doctor_pci.c, doctor_host.c, doctor_roce.c), which append to the result through
 * doctor_result.c. They share doctor_int.h; nothing below calls back up here.
 */
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

/* One row of the table: a check appends findings under @id. */
struct nd_doc_check {
	const char *id;
	void (*check)(struct nd_doc *c, const char *id);
};

/* The checks, in the order they run and report. */
static const struct nd_doc_check checks[] = {
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
