/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What libnodrop's files share with each other and not with users. */
#ifndef ND_INTERNAL_H
#define ND_INTERNAL_H

#include "nodrop.h"
#include "nl.h"

struct nl_sock;
struct nl_cache;

struct nd_ctx {
	struct nd_nl rtnl;		/* dcbnl requests */
	struct nl_sock *nlsk;		/* libnl-route: links */
	struct nl_cache *links;
	int ioctl_fd;			/* ethtool ioctls */
};

#define ND_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* link.c: netdevs through libnl-route, driver through the ethtool ioctl */
int nd_link_open(struct nd_ctx *ctx, struct nd_err *e);
void nd_link_close(struct nd_ctx *ctx);
int nd_link_refresh(struct nd_ctx *ctx, struct nd_err *e);
/* Fill @link for @name from the cache; -ENODEV when there is no such netdev. */
int nd_link_get(struct nd_ctx *ctx, const char *name, struct nd_link *link, struct nd_err *e);
/* Change the MTU (libnl builds the request, the nd_nl socket sends it for the extended ack). */
int nd_link_set_mtu(struct nd_ctx *ctx, const char *name, unsigned int mtu, struct nd_err *e);
/* Call @fn with the name of every netdev but loopback, in ifindex order. */
int nd_link_each(struct nd_ctx *ctx, int (*fn)(const char *name, void *data), void *data);

/* rdma.c: which RDMA device ports sit on a netdev */
int nd_rdma_ports_of(const char *ifname, struct nd_rdma_port *ports, size_t max, size_t *count,
		     struct nd_err *e);

/* roce.c: rdma_cm defaults from configfs */
int nd_roce_read(const char *ibdev, unsigned int port, struct nd_roce *roce, struct nd_err *e);

/* Copy @src into @dst of @size bytes, always terminated; returns strlen(@src) like BSD strlcpy. */
size_t nd_strlcpy(char *dst, const char *src, size_t size);

/* Strip the "4: " prefix the IB sysfs files put before state names. */
const char *nd_strip_state_prefix(const char *s);

#endif
