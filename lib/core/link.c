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
#include <linux/if.h>
#include <linux/if_arp.h>
#include <linux/rtnetlink.h>
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

/* RFC 2863 operational states (IF_OPER_*), spelled as `ip -j link` prints them. */
static const char *operstate_name(uint8_t state)
{
	static const char *const names[] = {
		[IF_OPER_UNKNOWN] = "UNKNOWN",
		[IF_OPER_NOTPRESENT] = "NOTPRESENT",
		[IF_OPER_DOWN] = "DOWN",
		[IF_OPER_LOWERLAYERDOWN] = "LOWERLAYERDOWN",
		[IF_OPER_TESTING] = "TESTING",
		[IF_OPER_DORMANT] = "DORMANT",
		[IF_OPER_UP] = "UP",
	};

	return state < ND_ARRAY_SIZE(names) && names[state] ? names[state] : "UNKNOWN";
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
	nd_strlcpy(link->operstate, operstate_name(rtnl_link_get_operstate(rl)),
		   sizeof(link->operstate));
	nd_strlcpy(link->kind, kind ? kind : "", sizeof(link->kind));
	drvinfo(ctx, link);
	/* sysfs answers EINVAL while the link is down: speed is then unknown, not 0 */
	link->speed_mbps = -1;
	if (!nd_sys_read_u64(&speed, "/sys/class/net/%s/speed", link->name) &&
	    speed != (uint32_t)-1)
		link->speed_mbps = (int64_t)speed;
}

static int on_link(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct nd_link *link = data;
	const struct nlattr *attr;

	(void)e;
	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct ifinfomsg)))
		return 0;
	for (attr = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct ifinfomsg));
	     mnl_attr_ok(attr, (int)((const char *)nlh + nlh->nlmsg_len - (const char *)attr));
	     attr = mnl_attr_next(attr)) {
		if (mnl_attr_get_payload_len(attr) < sizeof(uint32_t))
			continue;
		if (mnl_attr_get_type(attr) == IFLA_MIN_MTU)
			link->min_mtu = mnl_attr_get_u32(attr);
		else if (mnl_attr_get_type(attr) == IFLA_MAX_MTU)
			link->max_mtu = mnl_attr_get_u32(attr);
	}
	return 0;
}

/* The MTU range: libnl 3.7 does not carry IFLA_{MIN,MAX}_MTU, rtnetlink does. */
static void mtu_limits(struct nd_ctx *ctx, struct nd_link *link)
{
	struct nlmsghdr *nlh = nd_nl_msg(&ctx->rtnl, RTM_GETLINK, NLM_F_ACK);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	struct nd_err ignored = { 0 };

	ifi->ifi_index = link->ifindex;
	/* unknown limits stay 0: the kernel then checks the MTU itself on set */
	nd_nl_talk(&ctx->rtnl, nlh, on_link, link, &ignored);
}

int nd_link_get(struct nd_ctx *ctx, const char *name, struct nd_link *link, struct nd_err *e)
{
	struct rtnl_link *rl = rtnl_link_get_by_name(ctx->links, name);

	if (!rl)
		return nd_err_set(e, -ENODEV,
				  "no network device '%s' (see 'ip link' for the names)", name);
	fill(ctx, rl, link);
	rtnl_link_put(rl);
	mtu_limits(ctx, link);
	return 0;
}

int nd_link_set_mtu(struct nd_ctx *ctx, const char *name, unsigned int mtu, struct nd_err *e)
{
	struct rtnl_link *orig = rtnl_link_get_by_name(ctx->links, name);
	struct rtnl_link *change = rtnl_link_alloc();
	struct nl_msg *msg = NULL;
	struct nlmsghdr *req;
	int ret;

	if (!orig || !change) {
		ret = orig ? nd_err_set(e, -ENOMEM, "out of memory") :
			     nd_err_set(e, -ENODEV, "no network device '%s'", name);
		goto out;
	}
	rtnl_link_set_mtu(change, mtu);
	/* libnl builds the change; our socket sends it so the kernel's extended ack is kept */
	ret = rtnl_link_build_change_request(orig, change, 0, &msg);
	if (ret < 0 || nlmsg_hdr(msg)->nlmsg_len > ND_NL_REQ_MAX) {
		ret = nd_err_set(e, -ENOMEM, "%s: cannot build the MTU change: %s", name,
				 nl_geterror(ret));
		goto out;
	}
	req = nd_nl_msg(&ctx->rtnl, 0, 0);
	memcpy(req, nlmsg_hdr(msg), nlmsg_hdr(msg)->nlmsg_len);
	req->nlmsg_seq = ctx->rtnl.seq;
	req->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	ret = nd_nl_talk(&ctx->rtnl, req, NULL, NULL, e);
	if (ret == -EPERM)
		nd_err_set(e, ret, "%s: set MTU %u: %s; changing the MTU needs CAP_NET_ADMIN "
			   "(run as root)", name, mtu, e->msg);
	else if (ret)
		nd_err_wrap(e, "%s: set MTU %u", name, mtu);
out:
	nlmsg_free(msg);
	rtnl_link_put(change);
	if (orig)
		rtnl_link_put(orig);
	return ret;
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
	struct rtnl_link **slot;

	if (rtnl_link_get_arptype(rl) == ARPHRD_LOOPBACK)
		return;
	slot = nd_push((void **)&c->links, &c->n, sizeof(*slot));
	if (!slot) {
		c->err = -ENOMEM;
		return;
	}
	*slot = rl;
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
