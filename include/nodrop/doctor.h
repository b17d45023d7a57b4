/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: doctor: GPUDirect RDMA readiness of this host (nodrop-doctor(8)). */
#ifndef NODROP_DOCTOR_H
#define NODROP_DOCTOR_H

#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nd_check_status {
	ND_CHECK_PASS,
	ND_CHECK_WARN,
	ND_CHECK_FAIL,
	ND_CHECK_SKIP,		/* could not be checked here; the evidence says why */
};

const char *nd_check_status_name(enum nd_check_status status);

/*
 * How traffic between a GPU and a NIC crosses PCIe, in nvidia-smi topo -m's words, best first.
 * A PCIe switch (its upstream port and downstream ports) counts as one bridge, as NVML counts it.
 */
enum nd_pci_path {
	ND_PATH_PIX,		/* at most one bridge: the same PCIe switch */
	ND_PATH_PXB,		/* several bridges (cascaded switches), not the host bridge */
	ND_PATH_PHB,		/* through a PCIe host bridge (the root complex) */
	ND_PATH_NODE,		/* across host bridges of one NUMA node */
	ND_PATH_SYS,		/* across NUMA nodes: the socket interconnect */
	ND_PATH_UNKNOWN,	/* sysfs does not place one of them in the PCI hierarchy */
};

const char *nd_pci_path_name(enum nd_pci_path path);

/* One finding: a check's verdict on one subject, with the values read and what to do. */
struct nd_check {
	const char *id;			/* stable: "gpu-nic-affinity", "acs", "iommu", ... */
	enum nd_check_status status;
	char subject[96];		/* "GPU 0000:19:00.0", "mlx5_0/1 (eth2)", "host" */
	char evidence[1024];
	char fix[512];			/* "" when there is nothing to do */
};

#define ND_BDF_MAX 24

/* A GPU or an RDMA NIC as sysfs places it in the PCI hierarchy. */
struct nd_pci_dev {
	char bdf[ND_BDF_MAX];		/* "0000:19:00.0" */
	char name[64];			/* the RDMA device of a NIC ("mlx5_0"), "" for a GPU */
	uint16_t vendor, device;
	uint32_t pci_class;		/* 0x030200 */
	int numa_node;			/* -1: the firmware gives none */
	char path[256];			/* below /sys/devices: host bridge, bridges, the function */
};

struct nd_doctor {
	struct nd_pci_dev *gpus;
	size_t n_gpus;
	struct nd_pci_dev *nics;
	size_t n_nics;
	enum nd_pci_path *paths;	/* paths[gpu * n_nics + nic] */
	struct nd_check *checks;	/* in check order, grouped by id */
	size_t n_checks;
};

/*
 * Run every check on this host (or the tree under NODROP_SYSROOT). What cannot be read is a
 * skipped check saying why, not an error; returns 0, or -ENOMEM.
 */
int nd_doctor_run(struct nd_doctor *d, struct nd_err *e);
void nd_doctor_free(struct nd_doctor *d);
/* The PCIe path between a GPU and a NIC of @d. */
enum nd_pci_path nd_doctor_path(const struct nd_doctor *d, size_t gpu, size_t nic);

#ifdef __cplusplus
}
#endif

#endif
