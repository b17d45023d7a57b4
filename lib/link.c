// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netdevs: enumeration and MTU through libnl-route's link cache (the same object later carries
 * MTU changes), driver and bus address through the ethtool ioctl, speed from sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/if_arp.h>
#include <linux/sockios.h>
#include <netlink/netlink.h>
#include <netlink/route/link.h>

#include "internal.h"

int nd_link_open(struct nd_ctx *ctx, struct nd_err *e)
{
	int ret;

	ctx->nlsk = nl_socket_alloc();
	if (!ctx->nlsk)
		return nd_err_set(e, -ENOMEM, "out of memory for a libnl socket");
	ret = nl_connect(ctx->nlsk, NETLINK_ROUTE);
	if (ret < 0)
		return nd_err_set(e, -EIO, "cannot connect to rtnetlink: %s", nl_geterror(ret));
	/* the ethtool ioctl works on any socket; a datagram socket needs no privilege */
	ctx->ioctl_fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ctx->ioctl_fd < 0)
		ctx->ioctl_fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (ctx->ioctl_fd < 0)
		return nd_err_set(e, -errno, "cannot open a socket for ethtool: %s",
				  strerror(errno));
	return nd_link_refresh(ctx, e);
}

void nd_link_close(struct nd_ctx *ctx)
{
	if (ctx->links)
		nl_cache_free(ctx->links);
	if (ctx->nlsk)
		nl_socket_free(ctx->nlsk);
	if (ctx->ioctl_fd > 0)
		close(ctx->ioctl_fd);
	ctx->links = NULL;
	ctx->nlsk = NULL;
	ctx->ioctl_fd = -1;
}

int nd_link_refresh(struct nd_ctx *ctx, struct nd_err *e)
{
	int ret;

	if (ctx->links) {
		ret = nl_cache_refill(ctx->nlsk, ctx->links);
	} else {
		ret = rtnl_link_alloc_cache(ctx->nlsk, AF_UNSPEC, &ctx->links);
	}
	if (ret < 0)
		return nd_err_set(e, -EIO, "cannot list network devices: %s", nl_geterror(ret));
	return 0;
}

static void drvinfo(struct nd_ctx *ctx, struct nd_link *link)
{
	struct ethtool_drvinfo info = { .cmd = ETHTOOL_GDRVINFO };
	struct ifreq ifr = { 0 };

	nd_strlcpy(ifr.ifr_name, link->name, sizeof(ifr.ifr_name));
	ifr.ifr_data = (void *)&info;
	if (ioctl(ctx->ioctl_fd, SIOCETHTOOL, &ifr) < 0)
		return;
	info.driver[sizeof(info.driver) - 1] = '\0';
	info.bus_info[sizeof(info.bus_info) - 1] = '\0';
	nd_strlcpy(link->driver, info.driver, sizeof(link->driver));
	nd_strlcpy(link->bus_info, info.bus_info, sizeof(link->bus_info));
}

static void fill(struct nd_ctx *ctx, struct rtnl_link *rl, struct nd_link *link)
{
	const char *kind = rtnl_link_get_type(rl);
	uint64_t speed;

	memset(link, 0, sizeof(*link));
	link->ifindex = rtnl_link_get_ifindex(rl);
	nd_strlcpy(link->name, rtnl_link_get_name(rl), sizeof(link->name));
	link->mtu = rtnl_link_get_mtu(rl);
	link->arptype = rtnl_link_get_arptype(rl);
	rtnl_link_operstate2str(rtnl_link_get_operstate(rl), link->operstate,
				sizeof(link->operstate));
	nd_strlcpy(link->kind, kind ? kind : "", sizeof(link->kind));
	drvinfo(ctx, link);
	/* sysfs answers EINVAL while the link is down: speed is then unknown, not 0 */
	link->speed_mbps = -1;
	if (!nd_sys_read_u64(&speed, "/sys/class/net/%s/speed", link->name) &&
	    speed != (uint32_t)-1)
		link->speed_mbps = (int64_t)speed;
}

int nd_link_get(struct nd_ctx *ctx, const char *name, struct nd_link *link, struct nd_err *e)
{
	struct rtnl_link *rl = rtnl_link_get_by_name(ctx->links, name);

	if (!rl)
		return nd_err_set(e, -ENODEV,
				  "no network device '%s' (see 'ip link' for the names)", name);
	fill(ctx, rl, link);
	rtnl_link_put(rl);
	return 0;
}

struct each_ctx {
	struct rtnl_link **links;
	size_t n;
	int err;
};

static void collect(struct nl_object *obj, void *data)
{
	struct each_ctx *c = data;
	struct rtnl_link *rl = (struct rtnl_link *)obj;
	struct rtnl_link **grown;

	if (rtnl_link_get_arptype(rl) == ARPHRD_LOOPBACK)
		return;
	grown = realloc(c->links, (c->n + 1) * sizeof(*grown));
	if (!grown) {
		c->err = -ENOMEM;
		return;
	}
	c->links = grown;
	c->links[c->n++] = rl;
}

static int by_ifindex(const void *a, const void *b)
{
	return rtnl_link_get_ifindex(*(struct rtnl_link *const *)a) -
	       rtnl_link_get_ifindex(*(struct rtnl_link *const *)b);
}

int nd_link_each(struct nd_ctx *ctx, int (*fn)(const char *name, void *data), void *data)
{
	struct each_ctx c = { 0 };
	size_t i;
	int ret = 0;

	nl_cache_foreach(ctx->links, collect, &c);
	if (c.err) {
		free(c.links);
		return c.err;
	}
	qsort(c.links, c.n, sizeof(*c.links), by_ifindex);
	for (i = 0; i < c.n && !ret; i++)
		ret = fn(rtnl_link_get_name(c.links[i]), data);
	free(c.links);
	return ret;
}
