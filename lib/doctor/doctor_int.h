/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the doctor's files share: the run's state, the result helpers (doctor_result.c), the PCI
 * topology (doctor_topo.c) and the checks. Files call downward only: doctor.c (the table and
 * the run, which no file here calls) -> the check files (doctor_pci.c, doctor_host.c,
 * doctor_roce.c) -> doctor_topo.c -> doctor_result.c.
 */
#ifndef ND_DOCTOR_INT_H
#define ND_DOCTOR_INT_H

#include "core/internal.h"

#define ND_VENDOR_NVIDIA 0x10de

/* One run of the doctor: the result being filled, and what the scan learnt on the way. */
struct nd_doc {
	struct nd_doctor *d;
	int err;			/* -ENOMEM once an allocation failed */
	size_t cap;			/* of d->checks */
	int pci_status;			/* 0, or -errno reading /sys/bus/pci/devices */
	size_t n_pci;			/* PCI functions looked at */
	int ib_status;			/* 0, or -errno reading /sys/class/infiniband */
	char unplaced[256];		/* RDMA devices not on a PCI function (rxe, siw) */
	size_t *best;			/* per GPU: its nearest NIC, n_nics when none */
};

/* ---- doctor_result.c: what every check appends to ---- */

/* Append a finding with its subject; NULL (and c->err set) when out of memory. */
struct nd_check *nd_doc_add(struct nd_doc *c, const char *id, enum nd_check_status status,
			    const char *subject, ...) __attribute__((format(printf, 4, 5)));
/* Append to a finding's text (evidence, fix), truncating at @len. */
void nd_doc_cat(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Append a size in bytes in the largest unit that holds it exactly ("256 MiB"). */
void nd_doc_size(char *dst, size_t len, uint64_t bytes);

#define EVIDENCE(k, ...) nd_doc_cat((k)->evidence, sizeof((k)->evidence), __VA_ARGS__)
#define FIX(k, ...) nd_doc_cat((k)->fix, sizeof((k)->fix), __VA_ARGS__)

/* ---- doctor_topo.c: GPUs, RDMA NICs and the paths between them ---- */

/* Find the GPUs and RDMA NICs, classify every GPU <-> NIC path, each GPU's nearest NIC. */
int nd_doc_scan_pci(struct nd_doc *c);

/* Where the sysfs paths of two PCI functions meet, and what lies between. */
struct nd_pci_meet {
	enum nd_pci_path path;
	char at[ND_BDF_MAX];		/* where they meet: a bridge or host bridge */
	char port_a[ND_BDF_MAX];	/* the bridge just below it toward @a, "" none */
	char port_b[ND_BDF_MAX];
	char bridge_a[ND_BDF_MAX];	/* each side's host bridge (they differ for NODE, SYS) */
	char bridge_b[ND_BDF_MAX];
};

/* Classify the path between @a and @b; -EINVAL when a sysfs path is not a PCI one. */
int nd_pci_classify(const struct nd_pci_dev *a, const struct nd_pci_dev *b,
		    struct nd_pci_meet *m);
/* "pci0000:15": a host bridge (a root complex, or a VMD domain below a device). */
bool nd_pci_is_host_bridge(const char *name);

/* ---- doctor_pci.c: the PCI checks ---- */

void nd_doc_check_affinity(struct nd_doc *c, const char *id);
void nd_doc_check_acs(struct nd_doc *c, const char *id);
void nd_doc_check_bar1(struct nd_doc *c, const char *id);

/*
 * The ACS control register of a PCI function (PCIe extended capability 0x000D, control at +6):
 * 1 and @ctrl set, 0 when it has no ACS capability, -EACCES when only the 64-byte header is
 * readable (an unprivileged reader), another -errno when config space cannot be read.
 */
int nd_pci_acs_ctrl(const char *bdf, uint16_t *ctrl);

/* ---- doctor_host.c: host-wide checks ---- */
void nd_doc_check_iommu(struct nd_doc *c, const char *id);
void nd_doc_check_peermem(struct nd_doc *c, const char *id);
void nd_doc_check_memlock(struct nd_doc *c, const char *id);
void nd_doc_check_lldp(struct nd_doc *c, const char *id);

/* ---- doctor_roce.c: RoCE ports ---- */
void nd_doc_check_gid(struct nd_doc *c, const char *id);
void nd_doc_check_mtu(struct nd_doc *c, const char *id);

#endif
