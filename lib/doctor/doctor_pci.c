// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The doctor's PCI checks over the topology doctor_topo.c scanned: gpu-nic-affinity (how near
 * each GPU's nearest RDMA NIC is, in nvidia-smi topo -m's words), acs (switch ports that
 * redirect peer traffic to the root complex) and bar1 (the GPU aperture peer memory maps
 * through).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

#define PCI_CFG_HEADER 64		/* what an unprivileged read of config returns */
#define PCI_CFG_EXT 0x100		/* PCIe extended capabilities start here */
#define PCI_CFG_SIZE 4096
#define PCI_EXT_CAP_ACS 0x000d
#define ACS_CTRL 6			/* control register, after header (4) and capability (2) */

/* ACS control bits (PCIe base spec 7.7.8.3), as lspci names them. */
enum {
	ACS_SV = 1 << 0,	/* source validation */
	ACS_TB = 1 << 1,	/* translation blocking */
	ACS_RR = 1 << 2,	/* P2P request redirect: peer requests go up to the root complex */
	ACS_CR = 1 << 3,	/* P2P completion redirect */
	ACS_UF = 1 << 4,	/* upstream forwarding */
	ACS_EC = 1 << 5,	/* P2P egress control: peer traffic blocked or redirected by port */
	ACS_DT = 1 << 6,	/* direct translated P2P */
};

static const char *const acs_names[] = {
	"SrcValid", "TransBlk", "ReqRedir", "CmpltRedir", "UpstreamFwd", "EgressCtrl",
	"DirectTrans",
};

/* The kernel's resource flags, as /sys/bus/pci/devices/BDF/resource shows them. */
#define IORESOURCE_MEM 0x00000200ull
#define IORESOURCE_PREFETCH 0x00002000ull
#define IORESOURCE_MEM_64 0x00100000ull

/*
 * GPUDirect RDMA maps GPU memory through BAR1 for the NIC to reach it, so all GPU memory that is
 * registered at one time, by every process, must fit in BAR1 (less the driver's own mappings).
 * Data-center GPUs map all of their memory (tens of GiB); below 1 GiB it is the legacy 256 MiB
 * aperture (no large or resizable BAR) and a few registered buffers exhaust it.
 */
#define BAR1_MIN (1ull << 30)

/* ---- gpu-nic-affinity ---- */

/* One skip row when there is nothing to pair; true when that is the case. */
static bool no_pairs(struct nd_doc *c, const char *id)
{
	const struct nd_doctor *d = c->d;
	struct nd_check *k;

	if (d->n_gpus && d->n_nics)
		return false;
	k = nd_doc_add(c, id, ND_CHECK_SKIP, "host");
	if (!k)
		return true;
	if (c->pci_status)
		EVIDENCE(k, "cannot read /sys/bus/pci/devices: %s", strerror(-c->pci_status));
	else if (!d->n_gpus)
		EVIDENCE(k, "no GPU among %zu PCI functions (NVIDIA VGA or 3D controllers, class "
			 "0x0300 or 0x0302, and 3D controllers of other vendors)", c->n_pci);
	else
		EVIDENCE(k, "%zu GPU%s", d->n_gpus, d->n_gpus == 1 ? "" : "s");
	if (d->n_nics)
		EVIDENCE(k, "; %zu RDMA NIC%s", d->n_nics, d->n_nics == 1 ? "" : "s");
	else if (c->ib_status)
		EVIDENCE(k, "; no RDMA device: /sys/class/infiniband: %s (no RDMA NIC, or its "
			 "driver is not loaded)", strerror(-c->ib_status));
	else
		EVIDENCE(k, "; no RDMA device on a PCI function");
	if (c->unplaced[0])
		EVIDENCE(k, "; not on PCI (software RDMA): %s", c->unplaced);
	return true;
}

static void say_path(struct nd_check *k, const struct nd_pci_dev *gpu,
		     const struct nd_pci_dev *nic, const struct nd_pci_meet *m)
{
	switch (m->path) {
	case ND_PATH_PIX:
		EVIDENCE(k, ": one PCIe switch, the paths meet at %s", m->at);
		break;
	case ND_PATH_PXB:
		EVIDENCE(k, ": cascaded PCIe switches below %s, no host bridge crossed", m->at);
		break;
	case ND_PATH_PHB:
		EVIDENCE(k, ": the paths meet at host bridge %s (the root complex)",
			 nd_pci_is_host_bridge(m->at) ? m->at : m->bridge_a);
		break;
	case ND_PATH_NODE:
		EVIDENCE(k, ": GPU under host bridge %s, NIC under %s, both on NUMA node %d",
			 m->bridge_a, m->bridge_b, gpu->numa_node);
		break;
	default:
		EVIDENCE(k, ": GPU on NUMA node %d (host bridge %s), NIC on NUMA node %d (%s): "
			 "peer traffic crosses the socket interconnect", gpu->numa_node,
			 m->bridge_a, nic->numa_node, m->bridge_b);
		break;
	}
}

/* GPU @g's verdict: how near its nearest NIC is, the others as near, and the fix if too far. */
static void affinity_gpu(struct nd_doc *c, const char *id, size_t g)
{
	const struct nd_doctor *d = c->d;
	const struct nd_pci_dev *gpu = &d->gpus[g], *nic = &d->nics[c->best[g]];
	enum nd_pci_path best = nd_doctor_path(d, g, c->best[g]);
	struct nd_pci_meet m;
	struct nd_check *k;
	size_t n, also = 0;

	nd_pci_classify(gpu, nic, &m);
	k = nd_doc_add(c, id, best <= ND_PATH_PXB ? ND_CHECK_PASS :
			      best == ND_PATH_SYS ? ND_CHECK_FAIL : ND_CHECK_WARN,
		       "GPU %s", gpu->bdf);
	if (!k)
		return;
	EVIDENCE(k, "nearest RDMA NIC %s (%s) is %s", nic->name, nic->bdf,
		 nd_pci_path_name(best));
	say_path(k, gpu, nic, &m);
	for (n = 0; n < d->n_nics; n++) {
		if (n == c->best[g] || nd_doctor_path(d, g, n) != best)
			continue;
		EVIDENCE(k, "%s%s", also++ ? ", " : "; also ", d->nics[n].name);
	}
	if (best <= ND_PATH_PXB)
		return;
	EVIDENCE(k, "; NCCL uses GPUDirect RDMA only up to PXB unless NCCL_NET_GDR_LEVEL "
		 "says otherwise, and stages through host memory beyond it");
	if (best == ND_PATH_SYS)
		FIX(k, "put an RDMA NIC on NUMA node %d, best on the GPU's PCIe switch; "
		    "until then every GPUDirect transfer of this GPU crosses sockets",
		    gpu->numa_node);
	else
		FIX(k, "put an RDMA NIC on the GPU's PCIe switch (same slot group, see the "
		    "server's PCIe block diagram) for GPUDirect RDMA at full rate");
}

void nd_doc_check_affinity(struct nd_doc *c, const char *id)
{
	const struct nd_doctor *d = c->d;
	struct nd_check *k;
	size_t g;

	if (no_pairs(c, id))
		return;
	for (g = 0; g < d->n_gpus && !c->err; g++) {
		if (c->best[g] != d->n_nics) {
			affinity_gpu(c, id, g);
			continue;
		}
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "GPU %s", d->gpus[g].bdf);
		if (k)
			EVIDENCE(k, "sysfs does not place it in the PCI hierarchy "
				 "(/sys/bus/pci/devices/%s is not a link into "
				 "/sys/devices/pci*)", d->gpus[g].bdf);
	}
}

/* ---- acs ---- */

int nd_pci_acs_ctrl(const char *bdf, uint16_t *ctrl)
{
	uint8_t cfg[PCI_CFG_SIZE];
	size_t len, off, hops;
	ssize_t n;

	n = nd_sys_read_bin(cfg, sizeof(cfg), 0, "/sys/bus/pci/devices/%s/config", bdf);
	if (n < 0)
		return (int)n;
	len = (size_t)n;
	/* the kernel ends an unprivileged read after the header: the capabilities are unseen */
	if (len <= PCI_CFG_HEADER)
		return -EACCES;
	/* conventional config space (256 bytes) has no extended capabilities */
	for (off = PCI_CFG_EXT, hops = 0; off + 8 <= len && hops < PCI_CFG_SIZE / 4; hops++) {
		uint32_t hdr = (uint32_t)cfg[off] | (uint32_t)cfg[off + 1] << 8 |
			       (uint32_t)cfg[off + 2] << 16 | (uint32_t)cfg[off + 3] << 24;

		if (hdr == 0 || hdr == 0xffffffff)
			break;
		if ((hdr & 0xffff) == PCI_EXT_CAP_ACS) {
			*ctrl = (uint16_t)(cfg[off + ACS_CTRL] | cfg[off + ACS_CTRL + 1] << 8);
			return 1;
		}
		off = (hdr >> 20) & 0xffc;
		if (off < PCI_CFG_EXT)
			break;
	}
	return 0;
}

static void acs_bits(struct nd_check *k, uint16_t ctrl)
{
	size_t i, n = 0;

	for (i = 0; i < ND_ARRAY_SIZE(acs_names); i++)
		if (ctrl & (1u << i))
			EVIDENCE(k, "%s%s", n++ ? " " : " (", acs_names[i]);
	EVIDENCE(k, "%s", n ? ")" : " (off)");
}

/* The skip row of a pair whose switch port @port has config space we cannot read. */
static void acs_unreadable(struct nd_doc *c, const char *id, const struct nd_pci_dev *gpu,
			   const struct nd_pci_dev *nic, const char *port, int err)
{
	struct nd_check *k = nd_doc_add(c, id, ND_CHECK_SKIP, "GPU %s <-> %s", gpu->bdf,
					nic->name);

	if (!k)
		return;
	if (err == -EACCES) {
		EVIDENCE(k, "needs root to read PCIe extended config space: an unprivileged read "
			 "of /sys/bus/pci/devices/%s/config ends after its 64-byte header", port);
		FIX(k, "run nodrop doctor as root to see ACS on the switch ports");
	} else {
		EVIDENCE(k, "cannot read /sys/bus/pci/devices/%s/config: %s", port, strerror(-err));
	}
}

/* Why a redirect on a pair's switch ports (@status warn or fail) matters, and the fix. */
static void acs_redirect(struct nd_check *k, enum nd_check_status status,
			 const char *const *ports, const uint16_t *ctrl, const int *have)
{
	size_t i;

	if (status == ND_CHECK_FAIL)
		EVIDENCE(k, ": peer requests are redirected up to the root complex, where "
			 "GPUDirect RDMA runs slowly or, with an IOMMU translating, not at all");
	else
		EVIDENCE(k, ": peer completions or egress are redirected to the root complex");
	FIX(k, "turn ACS redirect off on the switch ports between GPUs and NICs: the BIOS's PCIe "
	    "ACS setting, or at each boot");
	for (i = 0; i < 2; i++)
		if (have[i] > 0 && (ctrl[i] & (ACS_RR | ACS_CR | ACS_EC)))
			FIX(k, " setpci -s %s ECAP_ACS+0x6.w=0000;", ports[i]);
	FIX(k, " Linux turns ACS on at boot when an IOMMU driver is active: keep it only where VMs "
	    "need isolation");
}

/* The ACS verdict on one GPU <-> NIC pair that meets below the host bridge. */
static void acs_pair(struct nd_doc *c, const char *id, const struct nd_pci_dev *gpu,
		     const struct nd_pci_dev *nic)
{
	enum nd_check_status status = ND_CHECK_PASS;
	const char *ports[2];
	uint16_t ctrl[2] = { 0, 0 };
	int have[2] = { 0, 0 };
	struct nd_pci_meet m;
	struct nd_check *k;
	size_t i;

	nd_pci_classify(gpu, nic, &m);
	ports[0] = m.port_a;
	ports[1] = m.port_b;
	for (i = 0; i < 2; i++) {
		if (!ports[i][0])
			continue;
		have[i] = nd_pci_acs_ctrl(ports[i], &ctrl[i]);
		if (have[i] < 0) {
			acs_unreadable(c, id, gpu, nic, ports[i], have[i]);
			return;
		}
		if (have[i] && (ctrl[i] & ACS_RR))
			status = ND_CHECK_FAIL;
		else if (have[i] && (ctrl[i] & (ACS_CR | ACS_EC)) && status == ND_CHECK_PASS)
			status = ND_CHECK_WARN;
	}
	k = nd_doc_add(c, id, status, "GPU %s <-> %s", gpu->bdf, nic->name);
	if (!k)
		return;
	if (!m.port_a[0] && !m.port_b[0]) {
		EVIDENCE(k, "no switch port between them (they meet at %s)", m.at);
		return;
	}
	EVIDENCE(k, "%s: peer traffic turns at %s", nd_pci_path_name(m.path), m.at);
	for (i = 0; i < 2; i++) {
		if (!ports[i][0])
			continue;
		EVIDENCE(k, "; %s port %s: ", i ? "NIC-side" : "GPU-side", ports[i]);
		if (!have[i]) {
			EVIDENCE(k, "no ACS capability");
			continue;
		}
		EVIDENCE(k, "ACS control 0x%04x", ctrl[i]);
		acs_bits(k, ctrl[i]);
	}
	if (status != ND_CHECK_PASS)
		acs_redirect(k, status, ports, ctrl, have);
}

void nd_doc_check_acs(struct nd_doc *c, const char *id)
{
	const struct nd_doctor *d = c->d;
	size_t g, n;

	if (no_pairs(c, id))
		return;
	for (g = 0; g < d->n_gpus; g++) {
		enum nd_pci_path best;
		struct nd_check *k;

		if (c->best[g] == d->n_nics)
			continue;
		best = nd_doctor_path(d, g, c->best[g]);
		if (best > ND_PATH_PXB) {
			k = nd_doc_add(c, id, ND_CHECK_SKIP, "GPU %s", d->gpus[g].bdf);
			if (!k)
				return;
			EVIDENCE(k, "its nearest NIC %s is %s: peer traffic crosses the root "
				 "complex anyway, so switch ACS does not change its path",
				 d->nics[c->best[g]].name, nd_pci_path_name(best));
			continue;
		}
		for (n = 0; n < d->n_nics && !c->err; n++)
			if (nd_doctor_path(d, g, n) == best)
				acs_pair(c, id, &d->gpus[g], &d->nics[n]);
	}
}

/* ---- bar1 ---- */

struct resource {
	unsigned long long start, end, flags;
};

/*
 * The resource file has a line per BAR register: BAR0 on line 0. A 64-bit BAR takes two
 * registers, so the line after it is empty. NVIDIA's BAR0 (registers) is 32-bit, so BAR1, the
 * 64-bit framebuffer aperture, is line 1; if BAR0 ever is 64-bit, the aperture is on line 2.
 */
static int read_bar1(const char *bdf, struct resource *bar, unsigned int *line)
{
	struct resource r[3] = { { 0 } };
	char buf[1024], *p = buf, *nl;
	unsigned int i;
	int ret;

	ret = nd_sys_read(buf, sizeof(buf), "/sys/bus/pci/devices/%s/resource", bdf);
	if (ret < 0)
		return ret;
	for (i = 0; i < 3 && p && *p; i++, p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (sscanf(p, "%llx %llx %llx", &r[i].start, &r[i].end, &r[i].flags) != 3)
			return -EINVAL;
	}
	*line = (r[0].flags & IORESOURCE_MEM_64) ? 2 : 1;
	*bar = r[*line];
	return 0;
}

static void bar1_one(struct nd_doc *c, const char *id, const struct nd_pci_dev *gpu)
{
	struct resource bar;
	unsigned int line;
	struct nd_check *k;
	uint64_t size;
	int ret;

	if (gpu->vendor != ND_VENDOR_NVIDIA) {
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "GPU %s", gpu->bdf);
		if (!k)
			return;
		EVIDENCE(k, "vendor 0x%04x: BAR1 is the peer-memory aperture of NVIDIA GPUs; this "
			 "GPU's vendor maps its memory its own way", gpu->vendor);
		return;
	}
	ret = read_bar1(gpu->bdf, &bar, &line);
	if (ret) {
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "GPU %s", gpu->bdf);
		if (k)
			EVIDENCE(k, "cannot read /sys/bus/pci/devices/%s/resource: %s", gpu->bdf,
				 strerror(-ret));
		return;
	}
	size = bar.end > bar.start ? bar.end - bar.start + 1 : 0;
	if (!size || !(bar.flags & IORESOURCE_MEM)) {
		k = nd_doc_add(c, id, ND_CHECK_FAIL, "GPU %s", gpu->bdf);
		if (!k)
			return;
		EVIDENCE(k, "BAR1 is not assigned (resource line %u: 0x%llx-0x%llx flags 0x%llx): "
			 "the firmware found no address space for it", line, bar.start, bar.end,
			 bar.flags);
		FIX(k, "enable Above 4G Decoding (and Resizable BAR) in the BIOS");
		return;
	}
	k = nd_doc_add(c, id, size < BAR1_MIN ? ND_CHECK_WARN : ND_CHECK_PASS, "GPU %s",
		       gpu->bdf);
	if (!k)
		return;
	EVIDENCE(k, "BAR1 (resource line %u, %s%s) 0x%llx-0x%llx: ", line,
		 bar.flags & IORESOURCE_MEM_64 ? "64-bit" : "32-bit",
		 bar.flags & IORESOURCE_PREFETCH ? " prefetchable" : "", bar.start, bar.end);
	nd_doc_size(k->evidence, sizeof(k->evidence), size);
	if (size >= BAR1_MIN)
		return;
	EVIDENCE(k, " < 1 GiB: all GPU memory registered for RDMA at one time, by every process, "
		 "must fit in BAR1 less the driver's own mappings, so registrations soon fail");
	FIX(k, "enable Above 4G Decoding and Resizable BAR in the BIOS (data-center GPUs map all "
	    "of their memory in BAR1); nvidia-smi -q -d MEMORY shows BAR1 in use");
}

void nd_doc_check_bar1(struct nd_doc *c, const char *id)
{
	struct nd_check *k;
	size_t g;

	if (!c->d->n_gpus) {
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "host");
		if (k)
			EVIDENCE(k, "no GPU");
		return;
	}
	for (g = 0; g < c->d->n_gpus; g++)
		bar1_one(c, id, &c->d->gpus[g]);
}
