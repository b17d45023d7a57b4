// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What the datapath model reads of a host, from sysfs (or a fixture tree, NODROP_SYSROOT): an
 * RDMA port's data rate, link layer and MTU, and the PCIe link of its function and of a GPU's.
 *
 * - PCIe: current_link_speed and current_link_width (drivers/pci/pci-sysfs.c); the speed as
 *   pci_speed_string() prints it ("16.0 GT/s PCIe"), or as kernels up to 5.6 did ("16 GT/s").
 *   Max Payload Size is in the PCIe capability's Device Control register (bits 7:5, 128 << v:
 *   PCI_EXP_DEVCTL_PAYLOAD in linux/pci_regs.h), past the 64 bytes of config space a reader
 *   without CAP_SYS_ADMIN is shown: then 256 is assumed, and said.
 * - The rate: RoCE's is the netdev's speed (Mb/s of MAC data; ib_get_eth_speed() only maps it to
 *   an IB speed and width). InfiniBand's rate file ("100 Gb/sec (4X EDR)", rate_show() in
 *   drivers/infiniband/core/sysfs.c) counts SDR, DDR and QDR lanes at their 8b/10b signalling
 *   rate and FDR's at 14; the data rate per lane is 2, 4, 8, 10 (FDR10), 13.64 (FDR: 14.0625
 *   x 64/66), 25, 50, 100, 200.
 * - RoCE's MTU: iboe_get_mtu() (include/rdma/ib_addr.h) takes 96 bytes of headers off the
 *   netdev's MTU and picks the largest IB MTU that fits. InfiniBand's active MTU is not in
 *   sysfs: 4096 is assumed.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

#define MPS_ASSUMED 256
#define PCI_CAP_PTR 0x34
#define PCI_STATUS 0x06
#define PCI_STATUS_CAP_LIST 0x10
#define PCI_CAP_ID_EXP 0x10
#define PCI_EXP_DEVCTL 0x08

static const struct {
	const char *name;
	double lane_gbps;
} ib_speeds[] = {
	{ "SDR", 2 }, { "DDR", 4 }, { "QDR", 8 }, { "FDR10", 10 }, { "FDR", 13.64 },
	{ "EDR", 25 }, { "HDR", 50 }, { "NDR", 100 }, { "XDR", 200 },
};

int nd_pcie_link_parse(const char *s, struct nd_pcie_link *l, struct nd_err *e)
{
	static const double gts[] = { 0, 2.5, 5, 8, 16, 32, 64 };
	unsigned int gen = 0, width = 0, i;
	double rate;
	int n = 0;

	/* gen4x16, Gen4 x16, 16GT/s x16; a match that leaves text over is none */
	if (!(sscanf(s, "gen%ux%u%n", &gen, &width, &n) == 2 && !s[n]) &&
	    !(sscanf(s, "Gen%u x%u%n", &gen, &width, &n) == 2 && !s[n])) {
		gen = 0;
		if (sscanf(s, "%lfGT/s x%u%n", &rate, &width, &n) == 2 && !s[n])
			for (i = 1; i < ND_ARRAY_SIZE(gts); i++)
				if (rate == gts[i])
					gen = i;
	}
	if (gen < 1 || gen > 6 || width < 1 || width > 32 || (width & (width - 1)))
		return nd_err_set(e, -EINVAL, "PCIe link '%s': write it gen4x16 (Gen1 to Gen6, "
				  "x1 to x32)", s);
	l->gen = gen;
	l->width = width;
	if (!l->mps)
		l->mps = MPS_ASSUMED;
	return 0;
}

/* "16.0 GT/s PCIe", "16 GT/s", "Unknown" -> 4, 4, 0 */
static unsigned int gen_of(const char *speed)
{
	static const char *const rates[] = { NULL, "2.5", "5", "8", "16", "32", "64" };
	char num[16];
	size_t i, n = strcspn(speed, " ");

	if (n >= sizeof(num))
		return 0;
	memcpy(num, speed, n);
	num[n] = '\0';
	if (n > 2 && !strcmp(num + n - 2, ".0"))
		num[n - 2] = '\0';
	if (strncmp(speed + n, " GT/s", 5))
		return 0;
	for (i = 1; i < ND_ARRAY_SIZE(rates); i++)
		if (!strcmp(num, rates[i]))
			return (unsigned int)i;
	return 0;
}

/* MPS from the PCIe capability; 0 when config space (or that part of it) is not readable. */
static unsigned int read_mps(const char *bdf)
{
	uint8_t cfg[256];
	ssize_t n = nd_sys_read_bin(cfg, sizeof(cfg), 0, "/sys/bus/pci/devices/%s/config", bdf);
	unsigned int pos, guard;

	if (n < 0x40 || !(cfg[PCI_STATUS] & PCI_STATUS_CAP_LIST))
		return 0;
	pos = cfg[PCI_CAP_PTR] & ~3u;
	for (guard = 0; pos >= 0x40 && guard < 48; guard++) {
		if (pos + PCI_EXP_DEVCTL + 2 > (size_t)n)
			return 0;	/* cut off where an unprivileged read ends */
		if (cfg[pos] == PCI_CAP_ID_EXP)
			return 128u << ((cfg[pos + PCI_EXP_DEVCTL] >> 5) & 7);
		pos = cfg[pos + 1] & ~3u;
	}
	return 0;
}

int nd_model_read_link(const char *bdf, struct nd_pcie_link *l, struct nd_err *e)
{
	char speed[64], width[16];
	int ret;

	memset(l, 0, sizeof(*l));
	/* nd_sys_read: the length read, or a negative errno */
	ret = nd_sys_read(speed, sizeof(speed), "/sys/bus/pci/devices/%s/current_link_speed", bdf);
	if (ret >= 0)
		ret = nd_sys_read(width, sizeof(width),
				  "/sys/bus/pci/devices/%s/current_link_width", bdf);
	if (ret < 0)
		return nd_err_set(e, ret, "PCI function %s: no PCIe link in sysfs (%s): not a PCIe "
				  "device", bdf, strerror(-ret));
	l->gen = gen_of(speed);
	l->width = (unsigned int)strtoul(width, NULL, 10);
	if (!l->gen || !l->width)
		return nd_err_set(e, -EINVAL, "PCI function %s: link '%s' x'%s' is not one the "
				  "model knows (a link down reads 'Unknown')", bdf, speed, width);
	l->mps = read_mps(bdf);
	l->mps_read = l->mps != 0;
	if (!l->mps)
		l->mps = MPS_ASSUMED;
	return 0;
}

static int first_name(const char *name, void *data)
{
	nd_strlcpy(data, name, 64);
	return 1;
}

/* "100 Gb/sec (4X EDR)" -> data Gb/s; 0 when it does not parse */
static double ib_rate(const char *rate)
{
	char speed[16];
	unsigned int lanes;
	size_t i;
	const char *p = strchr(rate, '(');

	if (!p || sscanf(p, "(%uX %15[A-Z0-9])", &lanes, speed) != 2)
		return 0;
	for (i = 0; i < ND_ARRAY_SIZE(ib_speeds); i++)
		if (!strcmp(speed, ib_speeds[i].name))
			return lanes * ib_speeds[i].lane_gbps;
	return 0;
}

static int port_netdev(struct nd_model_port *o)
{
	char name[64] = "";

	if (nd_sys_dir(first_name, name, "/sys/class/infiniband/%s/device/net", o->dev) < 0 ||
	    !*name)
		nd_sys_read(name, sizeof(name),
			    "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0", o->dev, o->port);
	nd_strlcpy(o->netdev, name, sizeof(o->netdev));
	return *name ? 0 : -ENODEV;
}

static int read_rate(struct nd_model_port *o, struct nd_err *e)
{
	char ll[32];
	uint64_t v;
	int ret;

	ret = nd_sys_read(ll, sizeof(ll), "/sys/class/infiniband/%s/ports/%u/link_layer", o->dev,
			  o->port);
	if (ret < 0)
		return nd_err_set(e, ret, "%s port %u: no link_layer in sysfs (%s): no such port?",
				  o->dev, o->port, strerror(-ret));
	o->fabric = strcmp(ll, "InfiniBand") ? ND_MF_ROCE : ND_MF_IB;
	nd_sys_read(o->rate, sizeof(o->rate), "/sys/class/infiniband/%s/ports/%u/rate", o->dev,
		    o->port);
	if (o->fabric == ND_MF_IB) {
		o->line_gbps = ib_rate(o->rate);
		o->mtu = 4096;
		snprintf(o->rate_from, sizeof(o->rate_from), "rate '%s' (data rate per lane)",
			 o->rate);
		return 0;
	}
	if (port_netdev(o))
		return nd_err_set(e, -ENODEV, "%s port %u: RoCE port without a netdev in sysfs",
				  o->dev, o->port);
	if (!nd_sys_read_u64(&v, "/sys/class/net/%s/mtu", o->netdev))
		o->mtu = nd_roce_mtu_for(v > 65535 ? 65535 : (unsigned int)v);
	/* an unknown speed reads -1, which is no u64 */
	if (!nd_sys_read_u64(&v, "/sys/class/net/%s/speed", o->netdev) && v > 0 && v < 10000000) {
		o->line_gbps = (double)v / 1000;
		snprintf(o->rate_from, sizeof(o->rate_from), "%s speed %llu Mb/s", o->netdev,
			 (unsigned long long)v);
	} else {
		char *end;

		o->line_gbps = strtod(o->rate, &end);
		if (end == o->rate)
			o->line_gbps = 0;
		snprintf(o->rate_from, sizeof(o->rate_from), "%s speed unknown: the port's rate "
			 "'%s', the kernel's stand-in", o->netdev, o->rate);
	}
	return 0;
}

int nd_model_read_port(const char *dev, unsigned int port, struct nd_model_port *o,
		       struct nd_err *e)
{
	char target[PATH_MAX], name[64] = "";
	const char *bdf;
	uint64_t numa;
	int ret;

	memset(o, 0, sizeof(*o));
	o->numa_node = -1;
	if (dev && *dev)
		nd_strlcpy(o->dev, dev, sizeof(o->dev));
	else if (nd_sys_dir(first_name, o->dev, "/sys/class/infiniband") < 0 || !*o->dev)
		return nd_err_set(e, -ENODEV, "no RDMA device in /sys/class/infiniband: give the "
				  "port's speed and links instead (--speed, --pcie)");
	if (!nd_sys_exists("/sys/class/infiniband/%s", o->dev))
		return nd_err_set(e, -ENODEV, "no RDMA device %s in /sys/class/infiniband", o->dev);
	if (port)
		o->port = port;
	else if (nd_sys_dir(first_name, name, "/sys/class/infiniband/%s/ports", o->dev) < 0 ||
		 !(o->port = (unsigned int)strtoul(name, NULL, 10)))
		return nd_err_set(e, -ENODEV, "%s has no ports in sysfs", o->dev);
	ret = read_rate(o, e);
	if (ret < 0)
		return ret;
	/* the function: rxe and siw have no PCI parent */
	if (nd_sys_readlink(target, sizeof(target), "/sys/class/infiniband/%s/device", o->dev))
		return 0;
	bdf = basename(target);
	if (!nd_sys_exists("/sys/bus/pci/devices/%s", bdf))
		return 0;
	nd_strlcpy(o->bdf, bdf, sizeof(o->bdf));
	if (!nd_sys_read_u64(&numa, "/sys/bus/pci/devices/%s/numa_node", bdf))
		o->numa_node = (int)numa;
	/* a function without a PCIe link stays unknown: the model leaves its term out */
	nd_model_read_link(bdf, &o->link, e);
	nd_err_clear(e);
	return 0;
}

int nd_model_read_host(const char *dev, unsigned int port, const char *gpu,
		       struct nd_model_host *h, struct nd_err *e)
{
	struct nd_doctor d = { 0 };
	size_t g, n, best = SIZE_MAX;
	int ret;

	memset(h, 0, sizeof(*h));
	h->path = ND_PATH_UNKNOWN;
	ret = nd_model_read_port(dev, port, &h->port, e);
	if (ret || !h->port.bdf[0])
		return ret;
	ret = nd_doctor_run(&d, e);
	if (ret)
		return ret;
	for (n = 0; n < d.n_nics && strcmp(d.nics[n].bdf, h->port.bdf); n++)
		;
	for (g = 0; n < d.n_nics && g < d.n_gpus; g++) {
		if (gpu && *gpu ? !strcmp(d.gpus[g].bdf, gpu) :
		    best == SIZE_MAX || nd_doctor_path(&d, g, n) < nd_doctor_path(&d, best, n))
			best = g;
	}
	if (gpu && *gpu && best == SIZE_MAX)
		ret = nd_err_set(e, -ENODEV, "no GPU %s beside %s in sysfs (nodrop doctor lists "
				 "the GPUs it finds)", gpu, h->port.dev);
	if (best != SIZE_MAX) {
		nd_strlcpy(h->gpu, d.gpus[best].bdf, sizeof(h->gpu));
		h->path = nd_doctor_path(&d, best, n);
		/* a GPU without a readable link is left out of the sum, with a note */
		nd_model_read_link(h->gpu, &h->gpu_link, e);
		nd_err_clear(e);
	}
	nd_doctor_free(&d);
	return ret;
}
