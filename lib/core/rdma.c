// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * netdev -> RDMA device/port. RoCE ports name their netdev in the GID table (index 0 is the
 * default GID, always on the port's own netdev); IPoIB netdevs sit under the HCA's PCI function.
 * Port attributes come from sysfs; the active MTU only from verbs (sysfs has none).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <infiniband/verbs.h>

#include "internal.h"

const char *nd_strip_state_prefix(const char *s)
{
	const char *colon = strchr(s, ':');

	if (!colon)
		return s;
	for (colon++; *colon == ' '; colon++)
		;
	return colon;
}

static void read_attr(char *dst, size_t len, const char *ibdev, unsigned int port,
		      const char *attr)
{
	char buf[128];

	if (nd_sys_read(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/%u/%s", ibdev, port,
			attr) < 0) {
		dst[0] = '\0';
		return;
	}
	snprintf(dst, len, "%s", nd_strip_state_prefix(buf));
}

static unsigned int mtu_bytes(enum ibv_mtu mtu)
{
	return mtu >= IBV_MTU_256 && mtu <= IBV_MTU_4096 ? 128u << mtu : 0;
}

/* Active and max MTU through verbs; silently unknown when the device cannot be opened. */
static void verbs_mtu(struct nd_rdma_port *p)
{
	struct ibv_device **list;
	struct ibv_port_attr attr;
	int i, n;

	/* a fixture tree has no devices behind it: do not mix the real machine in */
	if (*nd_sysroot())
		return;
	list = ibv_get_device_list(&n);
	if (!list)
		return;
	for (i = 0; i < n; i++) {
		struct ibv_context *dev;

		if (strcmp(ibv_get_device_name(list[i]), p->ibdev))
			continue;
		dev = ibv_open_device(list[i]);
		if (!dev)
			break;
		if (!ibv_query_port(dev, (uint8_t)p->port, &attr)) {
			p->active_mtu = mtu_bytes(attr.active_mtu);
			p->max_mtu = mtu_bytes(attr.max_mtu);
		}
		ibv_close_device(dev);
		break;
	}
	ibv_free_device_list(list);
}

struct scan {
	const char *ifname;
	unsigned int flags;
	const char *ibdev;
	struct nd_rdma_port *ports;
	size_t max, n;
	struct nd_err *e;
};

static int add_port(struct scan *s, const char *ibdev, unsigned int port)
{
	struct nd_rdma_port *p;

	if (s->n >= s->max)
		return 0;
	p = &s->ports[s->n++];
	memset(p, 0, sizeof(*p));
	snprintf(p->ibdev, sizeof(p->ibdev), "%s", ibdev);
	p->port = port;
	read_attr(p->link_layer, sizeof(p->link_layer), ibdev, port, "link_layer");
	read_attr(p->state, sizeof(p->state), ibdev, port, "state");
	read_attr(p->phys_state, sizeof(p->phys_state), ibdev, port, "phys_state");
	read_attr(p->rate, sizeof(p->rate), ibdev, port, "rate");
	if (!(s->flags & ND_RDMA_NO_VERBS))
		verbs_mtu(p);
	if (!strcmp(p->link_layer, "Ethernet"))
		return nd_roce_read(ibdev, port, &p->roce, s->e);
	return 0;
}

static int scan_port(const char *name, void *data)
{
	struct scan *s = data;
	char ndev[ND_IFNAMSIZ + 1];
	unsigned int port;
	char *end;

	port = (unsigned int)strtoul(name, &end, 10);
	if (*end || !port)
		return 0;
	if (nd_sys_read(ndev, sizeof(ndev), "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
			s->ibdev, port) < 0 || strcmp(ndev, s->ifname))
		return 0;
	return add_port(s, s->ibdev, port);
}

static int scan_dev(const char *ibdev, void *data)
{
	struct scan *s = data;
	int ret;

	s->ibdev = ibdev;
	ret = nd_sys_dir(scan_port, s, "/sys/class/infiniband/%s/ports", ibdev);
	return ret == -ENOENT ? 0 : ret;
}

static int first_name(const char *name, void *data)
{
	snprintf(data, 64, "%s", name);
	return 1;
}

/* IPoIB (and any netdev without RoCE GIDs): the HCA under the same PCI function, dev_port + 1. */
static int scan_ipoib(struct scan *s)
{
	char ibdev[64] = "";
	uint64_t dev_port = 0;

	if (nd_sys_dir(first_name, ibdev, "/sys/class/net/%s/device/infiniband", s->ifname) != 1)
		return 0;
	if (nd_sys_read_u64(&dev_port, "/sys/class/net/%s/dev_port", s->ifname) < 0)
		dev_port = 0;
	return add_port(s, ibdev, (unsigned int)dev_port + 1);
}

int nd_rdma_ports_of(const char *ifname, struct nd_rdma_port *ports, size_t max, size_t *count,
		     unsigned int flags, struct nd_err *e)
{
	struct scan s = { .ifname = ifname, .flags = flags, .ports = ports, .max = max, .e = e };
	int ret;

	*count = 0;
	ret = nd_sys_dir(scan_dev, &s, "/sys/class/infiniband");
	if (ret && ret != -ENOENT)
		return ret;
	/* an IPoIB netdev needs a registered IB device: no class directory, no IPoIB */
	if (!s.n && !ret) {
		ret = scan_ipoib(&s);
		if (ret)
			return ret;
	}
	*count = s.n;
	return 0;
}
