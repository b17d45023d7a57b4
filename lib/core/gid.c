// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * An RDMA port's GID table as the kernel shows it in sysfs (ports/N/gids, gid_attrs/types and
 * gid_attrs/ndevs), each RoCE entry with its netdev and, for a VLAN device, its VLAN ID and
 * egress priority map from /proc/net/vlan: what a GID index means on the wire. doctor's
 * roce-gid check and nodrop path both read it here.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define GID_TABLE_MAX 4096	/* mlx5 has 255 entries, rxe 2048: anything past this is not sysfs */

const char *nd_gid_type_name(enum nd_gid_type t)
{
	static const char *const names[] = {
		[ND_GID_EMPTY] = "empty",
		[ND_GID_IB] = "IB",
		[ND_GID_ROCE_V1] = "IB/RoCE v1",	/* the kernel's own spelling */
		[ND_GID_ROCE_V2] = "RoCE v2",
	};

	return (unsigned int)t < ND_ARRAY_SIZE(names) ? names[t] : "?";
}

static int count_entry(const char *name, void *data)
{
	char *end;
	unsigned long i = strtoul(name, &end, 10);
	size_t *n = data;

	if (!*end && i < GID_TABLE_MAX && i + 1 > *n)
		*n = i + 1;
	return 0;
}

/* "fe80:0000:...:0001" (eight groups of four hex digits) into 16 bytes */
static int parse_gid(const char *s, uint8_t raw[16])
{
	unsigned int g[8];

	if (sscanf(s, "%4x:%4x:%4x:%4x:%4x:%4x:%4x:%4x", &g[0], &g[1], &g[2], &g[3], &g[4], &g[5],
		   &g[6], &g[7]) != 8)
		return -EINVAL;
	for (int i = 0; i < 8; i++) {
		raw[2 * i] = (uint8_t)(g[i] >> 8);
		raw[2 * i + 1] = (uint8_t)g[i];
	}
	return 0;
}

/* /proc/net/vlan/DEV: "DEV  VID: 100 ...", "Device: eth0", " EGRESS priority mappings: 3:3 " */
static void read_vlan(struct nd_gid *g)
{
	char path[128], *buf, *p;
	size_t len;

	g->vlan = -1;
	memset(g->egress_qos, -1, sizeof(g->egress_qos));
	nd_strlcpy(g->lower, g->ndev, sizeof(g->lower));
	nd_sys_path(path, sizeof(path), "/proc/net/vlan/%s", g->ndev);
	if (nd_file_read(path, 1u << 16, &buf, &len, NULL))
		return;		/* not a VLAN device */
	p = strstr(buf, "VID:");
	if (p)
		g->vlan = atoi(p + 4);
	p = strstr(buf, "\nDevice:");
	if (p)
		sscanf(p + 8, " %15s", g->lower);
	p = strstr(buf, "EGRESS priority mappings:");
	if (p) {
		unsigned int from, to;
		int n;

		p += strlen("EGRESS priority mappings:");
		while (sscanf(p, " %u:%u%n", &from, &to, &n) == 2) {
			if (from < 8 && to < 8)
				g->egress_qos[from] = (int8_t)to;
			p += n;
		}
	}
	free(buf);
}

static void read_entry(const char *ibdev, unsigned int port, struct nd_gid *g)
{
	static const uint8_t zero[16], v4[12] = { [10] = 0xff, [11] = 0xff };
	char s[64], type[32];

	g->vlan = -1;
	memset(g->egress_qos, -1, sizeof(g->egress_qos));
	if (nd_sys_read(s, sizeof(s), "/sys/class/infiniband/%s/ports/%u/gids/%u", ibdev, port,
			g->index) < 0 || parse_gid(s, g->raw) || !memcmp(g->raw, zero, 16))
		return;
	/* the kernel answers EINVAL for the attributes of an unused index */
	if (nd_sys_read(type, sizeof(type), "/sys/class/infiniband/%s/ports/%u/gid_attrs/types/%u",
			ibdev, port, g->index) < 0)
		return;
	g->ipv4 = !memcmp(g->raw, v4, sizeof(v4));
	if (g->ipv4)
		inet_ntop(AF_INET, g->raw + 12, g->addr, sizeof(g->addr));
	else
		inet_ntop(AF_INET6, g->raw, g->addr, sizeof(g->addr));
	/* "IB/RoCE v1" is either: a RoCE GID belongs to a netdev, an InfiniBand one to none */
	if (nd_sys_read(g->ndev, sizeof(g->ndev), "/sys/class/infiniband/%s/ports/%u/gid_attrs/"
			"ndevs/%u", ibdev, port, g->index) >= 0)
		read_vlan(g);
	else
		g->ndev[0] = '\0';
	if (!strcmp(type, "RoCE v2"))
		g->type = ND_GID_ROCE_V2;
	else
		g->type = g->ndev[0] ? ND_GID_ROCE_V1 : ND_GID_IB;
}

int nd_gids_read(const char *ibdev, unsigned int port, struct nd_gid **gids, size_t *n,
		 struct nd_err *e)
{
	size_t count = 0;
	int ret;

	*gids = NULL;
	*n = 0;
	ret = nd_sys_dir(count_entry, &count, "/sys/class/infiniband/%s/ports/%u/gids", ibdev, port);
	if (ret < 0)
		return nd_err_set(e, ret, "%s/%u: cannot read its GID table (/sys/class/infiniband/"
				  "%s/ports/%u/gids): %s", ibdev, port, ibdev, port, strerror(-ret));
	if (!count)
		return 0;
	*gids = calloc(count, sizeof(**gids));
	if (!*gids)
		return nd_err_set(e, -ENOMEM, "%s/%u: out of memory", ibdev, port);
	for (size_t i = 0; i < count; i++) {
		(*gids)[i].index = (unsigned int)i;
		read_entry(ibdev, port, &(*gids)[i]);
	}
	*n = count;
	return 0;
}
