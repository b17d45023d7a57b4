// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * GPUs, RDMA NICs and the PCIe paths between them, from the sysfs PCI hierarchy: the scan that
 * doctor.c runs before the checks (it fills the doctor's GPUs, NICs and path matrix), and the
 * classification the PCI checks (doctor_pci.c) explain their verdicts with. A function's sysfs
 * path (/sys/bus/pci/devices/BDF links to /sys/devices/pciDDDD:BB/BRIDGE/.../BDF) names its
 * host bridge and every bridge above it; two functions' paths meet where their traffic turns.
 *
 * Classification, in nvidia-smi topo -m's words:
 * - different host bridges: SYS when they report different NUMA nodes, else NODE;
 * - meeting at the host bridge itself (different root ports): PHB;
 * - meeting below it, with another host bridge on a side (a VMD domain): PHB;
 * - meeting at a bridge with at most one bridge below it on each side: PIX. A PCIe switch is an
 *   upstream port over downstream ports, so two functions on one switch meet at its upstream port
 *   with one downstream port on each side: one switch, one "bridge" as NVML counts it;
 * - deeper (cascaded switches, still below one root port): PXB.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "doctor_int.h"

#define PCI_CLASS_VGA 0x0300
#define PCI_CLASS_3D 0x0302
#define PCI_DEPTH_MAX 24

/* "0000:19:00.0": a domain of 4 or more hex digits, bus, device, function. */
static bool is_bdf(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	const char *p = s + n;

	return n >= 4 && strlen(p) == 8 && p[0] == ':' && strspn(p + 1, "0123456789abcdef") == 2 &&
	       p[3] == ':' && strspn(p + 4, "0123456789abcdef") == 2 && p[6] == '.' &&
	       p[7] >= '0' && p[7] <= '7';
}

/* "pci0000:15": a host bridge (a root complex, or a VMD domain below a device). */
bool nd_pci_is_host_bridge(const char *s)
{
	return !strncmp(s, "pci", 3);
}

/* Split @path at '/' into @comp (pointers into @path, which is modified); returns the count. */
static size_t split(char *path, char **comp, size_t max)
{
	size_t n = 0;
	char *save = NULL, *tok;

	for (tok = strtok_r(path, "/", &save); tok && n < max; tok = strtok_r(NULL, "/", &save))
		comp[n++] = tok;
	return n;
}

/* "../../../devices/pci0000:15/0000:15:01.0/0000:16:00.0" -> "pci0000:15/.../0000:16:00.0" */
static int devices_path(const char *target, char *out, size_t len)
{
	char copy[PATH_MAX], *comp[64];
	size_t n, i, off = 0;

	nd_strlcpy(copy, target, sizeof(copy));
	n = split(copy, comp, ND_ARRAY_SIZE(comp));
	for (i = 0; i < n && strcmp(comp[i], "devices"); i++)
		;
	if (i + 1 >= n)
		return -EINVAL;
	out[0] = '\0';
	for (i++; i < n; i++) {
		int w = snprintf(out + off, len - off, "%s%s", off ? "/" : "", comp[i]);

		if (w < 0 || (size_t)w >= len - off)
			return -ENAMETOOLONG;
		off += (size_t)w;
	}
	return 0;
}

/* The deepest PCI function in a symlink target: an RDMA device's own function, even via an SF. */
static bool deepest_bdf(const char *target, char *bdf, size_t len)
{
	char copy[PATH_MAX], *comp[64];
	size_t n, i;

	nd_strlcpy(copy, target, sizeof(copy));
	n = split(copy, comp, ND_ARRAY_SIZE(comp));
	for (i = n; i-- > 0;) {
		if (is_bdf(comp[i])) {
			nd_strlcpy(bdf, comp[i], len);
			return true;
		}
	}
	return false;
}

static int read_hex(const char *bdf, const char *attr, uint64_t *v)
{
	return nd_sys_read_u64(v, "/sys/bus/pci/devices/%s/%s", bdf, attr);
}

/* Fill @dev from sysfs; -errno when its place in the hierarchy cannot be read. */
static int pci_fill(struct nd_pci_dev *dev, const char *bdf, const char *name)
{
	char target[PATH_MAX], buf[32], *end;
	uint64_t v;
	long numa;
	int ret;

	memset(dev, 0, sizeof(*dev));
	nd_strlcpy(dev->bdf, bdf, sizeof(dev->bdf));
	nd_strlcpy(dev->name, name, sizeof(dev->name));
	if (!read_hex(bdf, "vendor", &v))
		dev->vendor = (uint16_t)v;
	if (!read_hex(bdf, "device", &v))
		dev->device = (uint16_t)v;
	if (!read_hex(bdf, "class", &v))
		dev->pci_class = (uint32_t)v;
	dev->numa_node = -1;
	if (nd_sys_read(buf, sizeof(buf), "/sys/bus/pci/devices/%s/numa_node", bdf) > 0) {
		numa = strtol(buf, &end, 10);
		if (!*end && numa >= 0 && numa < INT_MAX)
			dev->numa_node = (int)numa;
	}
	ret = nd_sys_readlink(target, sizeof(target), "/sys/bus/pci/devices/%s", bdf);
	if (!ret)
		ret = devices_path(target, dev->path, sizeof(dev->path));
	return ret;
}

static int push(struct nd_pci_dev **v, size_t *n, const char *bdf, const char *name)
{
	struct nd_pci_dev *dev = nd_push((void **)v, n, sizeof(*dev));

	if (!dev)
		return -ENOMEM;
	/* a function sysfs cannot place keeps an empty path: its paths are unknown, not guessed */
	if (pci_fill(dev, bdf, name))
		dev->path[0] = '\0';
	return 0;
}

/* NVIDIA's VGA and 3D controllers, and a 3D controller of any vendor. */
static bool is_gpu(uint64_t vendor, uint64_t pci_class)
{
	unsigned int sub = (unsigned int)(pci_class >> 8);

	return sub == PCI_CLASS_3D || (vendor == ND_VENDOR_NVIDIA && sub == PCI_CLASS_VGA);
}

static int scan_gpu(const char *bdf, void *data)
{
	struct nd_doc *c = data;
	uint64_t cls, vendor;

	if (!is_bdf(bdf))
		return 0;
	c->n_pci++;
	if (read_hex(bdf, "class", &cls) || read_hex(bdf, "vendor", &vendor) ||
	    !is_gpu(vendor, cls))
		return 0;
	return push(&c->d->gpus, &c->d->n_gpus, bdf, "");
}

/* An RDMA device's PCI function: from its class link, else from its device link. */
static int scan_nic(const char *ibdev, void *data)
{
	struct nd_doc *c = data;
	char target[PATH_MAX], bdf[ND_BDF_MAX];
	bool found;

	found = !nd_sys_readlink(target, sizeof(target), "/sys/class/infiniband/%s", ibdev) &&
		deepest_bdf(target, bdf, sizeof(bdf));
	if (!found)
		found = !nd_sys_readlink(target, sizeof(target), "/sys/class/infiniband/%s/device",
					 ibdev) && deepest_bdf(target, bdf, sizeof(bdf));
	if (!found || !nd_sys_exists("/sys/bus/pci/devices/%s", bdf)) {
		nd_doc_cat(c->unplaced, sizeof(c->unplaced), "%s%s", c->unplaced[0] ? ", " : "",
			   ibdev);
		return 0;
	}
	return push(&c->d->nics, &c->d->n_nics, bdf, ibdev);
}

int nd_pci_classify(const struct nd_pci_dev *a, const struct nd_pci_dev *b,
		    struct nd_pci_meet *m)
{
	char pa[sizeof(a->path)], pb[sizeof(b->path)], *ca[PCI_DEPTH_MAX], *cb[PCI_DEPTH_MAX];
	size_t na, nb, k, i;

	memset(m, 0, sizeof(*m));
	nd_strlcpy(pa, a->path, sizeof(pa));
	nd_strlcpy(pb, b->path, sizeof(pb));
	na = split(pa, ca, PCI_DEPTH_MAX);
	nb = split(pb, cb, PCI_DEPTH_MAX);
	if (na < 2 || nb < 2 || !nd_pci_is_host_bridge(ca[0]) || !nd_pci_is_host_bridge(cb[0]))
		return -EINVAL;
	nd_strlcpy(m->bridge_a, ca[0], sizeof(m->bridge_a));
	nd_strlcpy(m->bridge_b, cb[0], sizeof(m->bridge_b));
	if (strcmp(ca[0], cb[0])) {
		/* SYS only when the firmware says so: an unknown node (-1) is not a verdict */
		m->path = a->numa_node >= 0 && b->numa_node >= 0 && a->numa_node != b->numa_node ?
			  ND_PATH_SYS : ND_PATH_NODE;
		return 0;
	}
	/* k: components in common, short of either function itself */
	for (k = 1; k < na - 1 && k < nb - 1 && !strcmp(ca[k], cb[k]); k++)
		;
	nd_strlcpy(m->at, ca[k - 1], sizeof(m->at));
	if (k < na - 1)
		nd_strlcpy(m->port_a, ca[k], sizeof(m->port_a));
	if (k < nb - 1)
		nd_strlcpy(m->port_b, cb[k], sizeof(m->port_b));
	m->path = nd_pci_is_host_bridge(m->at) ? ND_PATH_PHB :
		  na - 1 - k <= 1 && nb - 1 - k <= 1 ? ND_PATH_PIX : ND_PATH_PXB;
	for (i = k; i < na - 1; i++)
		if (nd_pci_is_host_bridge(ca[i]))
			m->path = ND_PATH_PHB;
	for (i = k; i < nb - 1; i++)
		if (nd_pci_is_host_bridge(cb[i]))
			m->path = ND_PATH_PHB;
	return 0;
}

int nd_doc_scan_pci(struct nd_doc *c)
{
	struct nd_doctor *d = c->d;
	size_t g, n;
	int ret;

	ret = nd_sys_dir(scan_gpu, c, "/sys/bus/pci/devices");
	if (ret == -ENOMEM)
		return ret;
	c->pci_status = ret;
	ret = nd_sys_dir(scan_nic, c, "/sys/class/infiniband");
	if (ret == -ENOMEM)
		return ret;
	c->ib_status = ret;
	c->best = calloc(d->n_gpus + 1, sizeof(*c->best));
	if (d->n_gpus && d->n_nics)
		d->paths = calloc(d->n_gpus * d->n_nics, sizeof(*d->paths));
	if (!c->best || (d->n_gpus && d->n_nics && !d->paths))
		return -ENOMEM;
	for (g = 0; g < d->n_gpus; g++) {
		c->best[g] = d->n_nics;
		for (n = 0; n < d->n_nics; n++) {
			struct nd_pci_meet m;
			enum nd_pci_path *p = &d->paths[g * d->n_nics + n];

			*p = nd_pci_classify(&d->gpus[g], &d->nics[n], &m) ? ND_PATH_UNKNOWN :
									     m.path;
			if (*p != ND_PATH_UNKNOWN &&
			    (c->best[g] == d->n_nics || *p < nd_doctor_path(d, g, c->best[g])))
				c->best[g] = n;
		}
	}
	return 0;
}
