// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop doctor: GPUDirect RDMA readiness of this host, check by check. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"

static const struct nd_opt doctor_opts[] = {
	{ 0 },
};

/* The GPU x NIC matrix, as nvidia-smi topo -m draws it, and the NICs' places. */
static void print_topology(const struct nd_doctor *d)
{
	int w = 8;
	size_t g, n;

	if (!d->n_gpus || !d->n_nics)
		return;
	for (n = 0; n < d->n_nics; n++)
		if ((int)strlen(d->nics[n].name) > w)
			w = (int)strlen(d->nics[n].name);
	pr_text("topology (PIX one PCIe switch, PXB cascaded switches, PHB host bridge, NODE "
		"across host bridges, SYS across sockets)\n  %-14s", "GPU");
	for (n = 0; n < d->n_nics; n++)
		pr_text(" %-*s", w, d->nics[n].name);
	pr_text(" NUMA\n");
	pr_open_array("gpus");
	for (g = 0; g < d->n_gpus; g++) {
		const struct nd_pci_dev *gpu = &d->gpus[g];

		pr_open_object(NULL);
		pr_string(PR_ANY, "bdf", "  %-14s", gpu->bdf);
		pr_uint(PR_JSON, "vendor", NULL, gpu->vendor);
		pr_uint(PR_JSON, "device", NULL, gpu->device);
		pr_open_object("paths");
		for (n = 0; n < d->n_nics; n++) {
			const char *p = nd_pci_path_name(nd_doctor_path(d, g, n));

			pr_string(PR_JSON, d->nics[n].name, NULL, p);
			pr_text(" %-*s", w, p);
		}
		pr_close_object();
		pr_int(PR_ANY, "numa_node", " %" PRId64, gpu->numa_node);
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
	pr_open_array("nics");
	for (n = 0; n < d->n_nics; n++) {
		const struct nd_pci_dev *nic = &d->nics[n];

		pr_open_object(NULL);
		pr_string(PR_JSON, "name", NULL, nic->name);
		pr_text("  %-*s", w, nic->name);
		pr_string(PR_ANY, "bdf", " %s", nic->bdf);
		pr_int(PR_ANY, "numa_node", " numa %" PRId64, nic->numa_node);
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
	pr_nl();
}

static void print_checks(const struct nd_doctor *d, size_t count[4])
{
	const char *group = NULL;
	size_t i;

	pr_open_array("checks");
	for (i = 0; i < d->n_checks; i++) {
		const struct nd_check *k = &d->checks[i];

		if (!group || strcmp(group, k->id))
			pr_text("%s\n", k->id);
		group = k->id;
		if ((unsigned int)k->status < 4)
			count[k->status]++;
		pr_open_object(NULL);
		pr_string(PR_JSON, "id", NULL, k->id);
		pr_string(PR_ANY, "status", "  %-4s", nd_check_status_name(k->status));
		pr_string(PR_ANY, "subject", "  %s: ", k->subject);
		pr_string(PR_ANY, "evidence", "%s", k->evidence);
		if (k->fix[0])
			pr_string(PR_ANY, "fix", "\n        fix: %s", k->fix);
		else
			pr_null(PR_JSON, "fix", NULL);
		pr_nl();
		pr_close_object();
	}
	pr_close_array();
}

static int doctor_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct nd_doctor d;
	struct nd_err e = { 0 };
	size_t count[4] = { 0 };
	int ret, rc;

	(void)argv;
	(void)data;
	if (argc) {
		fprintf(stderr, "nodrop doctor: takes no operands; 'nodrop doctor --help'\n");
		return ND_EXIT_USAGE;
	}
	ret = nd_doctor_run(&d, &e);
	if (ret) {
		fprintf(stderr, "nodrop doctor: %s\n", e.msg);
		return ND_EXIT_SYSTEM;
	}
	pr_init(cli->json, cli->pretty);
	pr_open_object(NULL);
	print_topology(&d);
	print_checks(&d, count);
	pr_open_object("summary");
	pr_uint(PR_ANY, "pass", "\n%" PRIu64 " pass", count[ND_CHECK_PASS]);
	pr_uint(PR_ANY, "warn", ", %" PRIu64 " warn", count[ND_CHECK_WARN]);
	pr_uint(PR_ANY, "fail", ", %" PRIu64 " fail", count[ND_CHECK_FAIL]);
	pr_uint(PR_ANY, "skip", ", %" PRIu64 " skipped", count[ND_CHECK_SKIP]);
	pr_nl();
	pr_close_object();
	pr_close_object();
	rc = pr_finish() ? ND_EXIT_SYSTEM : count[ND_CHECK_FAIL] ? ND_EXIT_FINDINGS : ND_EXIT_OK;
	nd_doctor_free(&d);
	return rc;
}

const struct nd_cmd nd_cmd_doctor = {
	.name = "doctor",
	.args = "",
	.summary = "Check this host's readiness for GPUDirect RDMA, from sysfs and procfs",
	.opts = doctor_opts,
	.run = doctor_run,
};
