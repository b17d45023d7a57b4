// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Host-wide doctor checks: IOMMU mode, the GPU peer-memory path, memlock, LLDP agents. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "doctor_int.h"

/* ---- iommu ---- */

struct names {
	char list[256];
	size_t n;
};

static int collect(const char *name, void *data)
{
	struct names *s = data;

	nd_doc_cat(s->list, sizeof(s->list), "%s%s", s->n++ ? " " : "", name);
	return 0;
}

/* The IOMMU options on the kernel command line, as given ("" when none). */
static void iommu_cmdline(char *out, size_t len)
{
	static const char *const keys[] = {
		"iommu=", "intel_iommu=", "amd_iommu=", "iommu.passthrough=", "iommu.strict=",
	};
	char line[4096], *save = NULL, *tok;
	size_t i;

	out[0] = '\0';
	if (nd_sys_read(line, sizeof(line), "/proc/cmdline") < 0)
		return;
	for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
		for (i = 0; i < ND_ARRAY_SIZE(keys); i++)
			if (!strncmp(tok, keys[i], strlen(keys[i])))
				nd_doc_cat(out, len, "%s%s", out[0] ? " " : "", tok);
}

enum group_kind { GROUP_IDENTITY, GROUP_TRANSLATED, GROUP_VFIO, GROUP_UNKNOWN, GROUP_NONE };

/* The IOMMU group of a function and its type ("identity", "DMA", "DMA-FQ", "unmanaged"...). */
static enum group_kind group_of(const char *bdf, char *group, size_t glen, char *type,
				size_t tlen)
{
	type[0] = '\0';
	if (nd_sys_link_name(group, glen, "/sys/bus/pci/devices/%s/iommu_group", bdf))
		return GROUP_NONE;
	/* the type file is there since Linux 5.11 */
	if (nd_sys_read(type, tlen, "/sys/kernel/iommu_groups/%s/type", group) < 0)
		return GROUP_UNKNOWN;
	if (!strcmp(type, "identity"))
		return GROUP_IDENTITY;
	if (!strncmp(type, "DMA", 3))
		return GROUP_TRANSLATED;
	/* unmanaged: owned by VFIO (a VM or a userspace driver); blocked: no DMA at all */
	if (!strcmp(type, "unmanaged") || !strcmp(type, "blocked"))
		return GROUP_VFIO;
	return GROUP_UNKNOWN;
}

struct group_tally {
	size_t n[GROUP_NONE + 1];
	char bad[512];		/* translated or VFIO-owned functions */
	char unknown[256];
};

static void tally(struct group_tally *t, const char *what, const struct nd_pci_dev *dev)
{
	char group[32], type[32];
	enum group_kind kind = group_of(dev->bdf, group, sizeof(group), type, sizeof(type));

	t->n[kind]++;
	if (kind == GROUP_TRANSLATED || kind == GROUP_VFIO)
		nd_doc_cat(t->bad, sizeof(t->bad), "%s%s %s (group %s, %s)", t->bad[0] ? ", " : "",
			   what, dev->bdf, group, type);
	else if (kind == GROUP_UNKNOWN)
		nd_doc_cat(t->unknown, sizeof(t->unknown), "%s%s (group %s)",
			   t->unknown[0] ? ", " : "", dev->bdf, group);
}

void nd_doc_check_iommu(struct nd_doc *c, const char *id)
{
	const struct nd_doctor *d = c->d;
	struct names units = { "", 0 }, groups = { "", 0 };
	struct group_tally t;
	enum nd_check_status status;
	char cmdline[256];
	struct nd_check *k;
	size_t i;

	nd_sys_dir(collect, &units, "/sys/class/iommu");
	nd_sys_dir(collect, &groups, "/sys/kernel/iommu_groups");
	iommu_cmdline(cmdline, sizeof(cmdline));
	memset(&t, 0, sizeof(t));
	for (i = 0; i < d->n_gpus; i++)
		tally(&t, "GPU", &d->gpus[i]);
	for (i = 0; i < d->n_nics; i++)
		tally(&t, d->nics[i].name, &d->nics[i]);

	if (!units.n && !groups.n)
		status = ND_CHECK_PASS;
	else if (!d->n_gpus && !d->n_nics)
		status = ND_CHECK_SKIP;
	else if (t.bad[0])
		status = ND_CHECK_WARN;
	else if (t.unknown[0])
		status = ND_CHECK_SKIP;
	else
		status = ND_CHECK_PASS;
	k = nd_doc_add(c, id, status, "host");
	if (!k)
		return;
	if (!units.n && !groups.n) {
		EVIDENCE(k, "no IOMMU translates DMA: /sys/class/iommu is empty and there are no "
			 "IOMMU groups");
	} else {
		EVIDENCE(k, "IOMMU units: %s; %zu groups", units.n ? units.list : "none",
			 groups.n);
	}
	EVIDENCE(k, "; kernel command line: %s", cmdline[0] ? cmdline : "no IOMMU option");
	if (!units.n && !groups.n)
		return;
	if (status == ND_CHECK_SKIP && !t.bad[0] && !t.unknown[0]) {
		EVIDENCE(k, "; no GPU or RDMA NIC whose group to check");
		return;
	}
	if (t.n[GROUP_IDENTITY])
		EVIDENCE(k, "; identity (pass-through): %zu of the %zu GPU and NIC functions",
			 t.n[GROUP_IDENTITY], d->n_gpus + d->n_nics);
	if (t.n[GROUP_NONE])
		EVIDENCE(k, "; in no group: %zu", t.n[GROUP_NONE]);
	if (t.unknown[0])
		EVIDENCE(k, "; group type not readable (kernels before 5.11 have no type file): %s",
			 t.unknown);
	if (!t.bad[0])
		return;
	EVIDENCE(k, "; not identity: %s: the NIC reaches memory through IOVAs, so its DMA pays "
		 "IOTLB misses and peer traffic to a GPU climbs to the root complex for "
		 "translation even inside a PCIe switch (NVIDIA's GPUDirect RDMA guide asks for "
		 "the IOMMU off or in pass-through)", t.bad);
	FIX(k, "boot with iommu=pt (with intel_iommu=on or amd_iommu=on it keeps the IOMMU for "
	    "VFIO while host DMA is identity-mapped), or per group: unbind its devices, echo "
	    "identity > /sys/kernel/iommu_groups/N/type, bind them again");
}

/* ---- peer-memory ---- */

/* "535.104.05" -> 535; 0 when unreadable. */
static unsigned int driver_major(char *ver, size_t len)
{
	if (nd_sys_read(ver, len, "/sys/module/nvidia/version") <= 0) {
		ver[0] = '\0';
		return 0;
	}
	return (unsigned int)strtoul(ver, NULL, 10);
}

/* The running kernel's major and minor ("6.1.0-18-amd64" -> 6, 1); false when unreadable. */
static bool kernel_version(char *rel, size_t len, unsigned int *major, unsigned int *minor)
{
	if (nd_sys_read(rel, len, "/proc/sys/kernel/osrelease") <= 0 ||
	    sscanf(rel, "%u.%u", major, minor) != 2)
		return false;
	return true;
}

/*
 * GPU memory reaches the NIC by one of two paths:
 * - peer memory: the nvidia_peermem module (the driver's; nv_peer_mem is the older Mellanox one)
 *   lets ibv_reg_mr() take a cudaMalloc pointer;
 * - dmabuf: the GPU exports memory as a dma-buf fd for ibv_reg_dmabuf_mr(). That needs the
 *   NVIDIA open kernel modules, driver 515 or later, and Linux 5.12 or later (RDMA dma-buf MRs).
 *   rdma-core v34 or later and a NIC driver with dma-buf MRs (mlx5) are needed too; those are
 *   userspace and driver matters that sysfs does not show.
 */
void nd_doc_check_peermem(struct nd_doc *c, const char *id)
{
	char ver[64] = "", proc[512] = "", rel[128] = "";
	bool peermem, legacy, loaded, open_km, kernel_ok, dmabuf;
	unsigned int major = 0, kmaj = 0, kmin = 0;
	struct nd_check *k;
	size_t i, nv = 0;

	for (i = 0; i < c->d->n_gpus; i++)
		nv += c->d->gpus[i].vendor == ND_VENDOR_NVIDIA;
	if (!nv) {
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "host");
		if (k)
			EVIDENCE(k, "no NVIDIA GPU");
		return;
	}
	peermem = nd_sys_exists("/sys/module/nvidia_peermem");
	legacy = nd_sys_exists("/sys/module/nv_peer_mem");
	loaded = nd_sys_exists("/sys/module/nvidia");
	major = driver_major(ver, sizeof(ver));
	nd_sys_read(proc, sizeof(proc), "/proc/driver/nvidia/version");
	open_km = strstr(proc, "Open Kernel Module") != NULL;
	kernel_ok = kernel_version(rel, sizeof(rel), &kmaj, &kmin) &&
		    (kmaj > 5 || (kmaj == 5 && kmin >= 12));
	dmabuf = loaded && major >= 515 && open_km && kernel_ok;

	k = nd_doc_add(c, id, peermem || legacy || dmabuf ? ND_CHECK_PASS : ND_CHECK_FAIL,
		       "host");
	if (!k)
		return;
	if (peermem || legacy)
		EVIDENCE(k, "peer memory: %s loaded", peermem ? "nvidia_peermem" : "nv_peer_mem");
	else
		EVIDENCE(k, "peer memory: neither nvidia_peermem nor nv_peer_mem is loaded");
	EVIDENCE(k, "; dma-buf: ");
	if (!loaded)
		EVIDENCE(k, "the nvidia module is not loaded (/sys/module/nvidia)");
	else if (major < 515)
		EVIDENCE(k, "NVIDIA driver %s, dma-buf export needs 515 or later",
			 ver[0] ? ver : "of unknown version");
	else if (!open_km)
		EVIDENCE(k, "NVIDIA driver %s %s, dma-buf export needs the open kernel modules",
			 ver, proc[0] ? "with the proprietary kernel modules" :
			 "(open or proprietary modules: /proc/driver/nvidia/version not readable)");
	else
		EVIDENCE(k, "NVIDIA driver %s, open kernel modules", ver);
	if (loaded && major >= 515 && open_km && !kernel_ok)
		EVIDENCE(k, ", but kernel %s: RDMA dma-buf MRs need Linux 5.12 or later",
			 rel[0] ? rel : "of unknown version");
	else if (dmabuf)
		EVIDENCE(k, ", kernel %s: usable (with rdma-core v34 or later and a NIC driver "
			 "with dma-buf MRs, which sysfs does not show)", rel);
	if (dmabuf && !peermem && !legacy)
		EVIDENCE(k, "; applications that pass cudaMalloc memory to ibv_reg_mr() without "
			 "dma-buf still need nvidia_peermem");
	if (k->status != ND_CHECK_FAIL)
		return;
	EVIDENCE(k, ": GPU memory cannot be registered for RDMA (ibv_reg_mr fails with EFAULT)");
	FIX(k, "modprobe nvidia_peermem (it ships with the NVIDIA driver; list it in "
	    "/etc/modules-load.d/ to load at boot), or install the open kernel modules of driver "
	    "515 or later on Linux 5.12 or later for dma-buf");
}

/* ---- memlock ---- */

static void say_limit(struct nd_check *k, rlim_t v)
{
	if (v == RLIM_INFINITY)
		EVIDENCE(k, "unlimited");
	else
		nd_doc_size(k->evidence, sizeof(k->evidence), (uint64_t)v);
}

/* RDMA pins registered host memory against RLIMIT_MEMLOCK (unless CAP_IPC_LOCK). */
void nd_doc_check_memlock(struct nd_doc *c, const char *id)
{
	struct rlimit rl;
	struct nd_check *k;

	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "this process");
		if (k)
			EVIDENCE(k, "getrlimit(RLIMIT_MEMLOCK): %s", strerror(errno));
		return;
	}
	k = nd_doc_add(c, id, rl.rlim_cur == RLIM_INFINITY ? ND_CHECK_PASS : ND_CHECK_WARN,
		       "this process");
	if (!k)
		return;
	EVIDENCE(k, "RLIMIT_MEMLOCK soft ");
	say_limit(k, rl.rlim_cur);
	EVIDENCE(k, ", hard ");
	say_limit(k, rl.rlim_max);
	if (rl.rlim_cur == RLIM_INFINITY)
		return;
	EVIDENCE(k, ": RDMA pins every registered host buffer, queue and completion ring against "
		 "it, so a process without CAP_IPC_LOCK fails to register (ENOMEM) past it; jobs "
		 "inherit the limit of whatever starts them");
	FIX(k, "ulimit -l unlimited in the shell, '* - memlock unlimited' in "
	    "/etc/security/limits.conf for logins, LimitMEMLOCK=infinity for the systemd services "
	    "that start jobs (slurmd, the container runtime)");
}

/* ---- lldp-agent ---- */

void nd_doc_check_lldp(struct nd_doc *c, const char *id)
{
	struct nd_lldp_agent a;
	struct nd_check *k;
	int ret;

	ret = nd_lldp_agent_find(&a);
	k = nd_doc_add(c, id, ret < 0 ? ND_CHECK_SKIP : ret ? ND_CHECK_WARN : ND_CHECK_PASS,
		       "host");
	if (!k)
		return;
	if (ret < 0) {
		EVIDENCE(k, "cannot read /proc: %s", strerror(-ret));
		return;
	}
	if (!ret) {
		EVIDENCE(k, "no lldpad or lldpd process in /proc");
		return;
	}
	EVIDENCE(k, "%s is running (pid %s): it %s", a.comm, a.pid, a.does);
	FIX(k, "stop %s (systemctl disable --now %s) or configure it to leave DCB on the RDMA "
	    "ports alone", a.comm, a.comm);
}
