// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netdevs: enumeration, MTU and its limits from one RTM_GETLINK dump over the nd_nl socket, MTU
 * changes as RTM_NEWLINK on the same socket (so the kernel's extended ack is kept), driver and
 * bus address through the ethtool ioctl, speed from sysfs.
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

#include "internal.h"

int nd_link_open(struct nd_ctx *ctx, struct nd_err *e)
{
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
	free(ctx->links);
	if (ctx->ioctl_fd > 0)
		close(ctx->ioctl_fd);
	ctx->links = NULL;
	ctx->n_links = 0;
	ctx->ioctl_fd = -1;
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

static void link_kind(const struct nlattr *info, struct nd_link *link)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, info)
		if (mnl_attr_get_type(a) == IFLA_INFO_KIND && nd_nl_attr_is(a, MNL_TYPE_STRING))
			nd_strlcpy(link->kind, mnl_attr_get_str(a), sizeof(link->kind));
}

static void link_attr(const struct nlattr *a, struct nd_link *link)
{
	bool u32 = nd_nl_attr_is(a, MNL_TYPE_U32);

	switch (mnl_attr_get_type(a)) {
	case IFLA_IFNAME:
		if (nd_nl_attr_is(a, MNL_TYPE_STRING))
			nd_strlcpy(link->name, mnl_attr_get_str(a), sizeof(link->name));
		break;
	case IFLA_MTU:
		link->mtu = u32 ? mnl_attr_get_u32(a) : 0;
		break;
	case IFLA_MIN_MTU:
		link->min_mtu = u32 ? mnl_attr_get_u32(a) : 0;
		break;
	case IFLA_MAX_MTU:
		link->max_mtu = u32 ? mnl_attr_get_u32(a) : 0;
		break;
	case IFLA_OPERSTATE:
		if (nd_nl_attr_is(a, MNL_TYPE_U8))
			nd_strlcpy(link->operstate, operstate_name(mnl_attr_get_u8(a)),
				   sizeof(link->operstate));
		break;
	case IFLA_LINKINFO:
		link_kind(a, link);
		break;
	}
}

/* One RTM_NEWLINK of the dump: what rtnetlink says of a netdev, kept in the context. */
static int on_link(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct nd_ctx *ctx = data;
	const struct ifinfomsg *ifi;
	const struct nlattr *a;
	struct nd_link *link;

	if (nlh->nlmsg_type != RTM_NEWLINK ||
	    nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(*ifi)))
		return 0;
	link = nd_push((void **)&ctx->links, &ctx->n_links, sizeof(*link));
	if (!link)
		return nd_err_set(e, -ENOMEM, "out of memory for the list of network devices");
	ifi = mnl_nlmsg_get_payload(nlh);
	link->ifindex = ifi->ifi_index;
	link->arptype = ifi->ifi_type;
	nd_strlcpy(link->operstate, operstate_name(IF_OPER_UNKNOWN), sizeof(link->operstate));
	nd_nl_attr_for_each(a, nlh, sizeof(*ifi))
		link_attr(a, link);
	return 0;
}

int nd_link_refresh(struct nd_ctx *ctx, struct nd_err *e)
{
	struct nlmsghdr *nlh = nd_nl_msg(&ctx->rtnl, RTM_GETLINK, NLM_F_DUMP);
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));
	int ret;

	ifi->ifi_family = AF_UNSPEC;
	free(ctx->links);
	ctx->links = NULL;
	ctx->n_links = 0;
	ret = nd_nl_talk(&ctx->rtnl, nlh, on_link, ctx, e);
	return ret ? nd_err_wrap(e, "cannot list network devices") : 0;
}

static const struct nd_link *link_by_name(const struct nd_ctx *ctx, const char *name)
{
	size_t i;

	for (i = 0; i < ctx->n_links; i++)
		if (!strcmp(ctx->links[i].name, name))
			return &ctx->links[i];
	return NULL;
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

int nd_link_get(struct nd_ctx *ctx, const char *name, struct nd_link *link, struct nd_err *e)
{
	const struct nd_link *l = link_by_name(ctx, name);
	uint64_t speed;

	if (!l)
		return nd_err_set(e, -ENODEV,
				  "no network device '%s' (see 'ip link' for the names)", name);
	*link = *l;
	drvinfo(ctx, link);
	/* sysfs answers EINVAL while the link is down: speed is then unknown, not 0 */
	link->speed_mbps = -1;
	if (!nd_sys_read_u64(&speed, "/sys/class/net/%s/speed", link->name) &&
	    speed != (uint32_t)-1)
		link->speed_mbps = (int64_t)speed;
	return 0;
}

int nd_link_set_mtu(struct nd_ctx *ctx, const char *name, unsigned int mtu, struct nd_err *e)
{
	const struct nd_link *l = link_by_name(ctx, name);
	struct nlmsghdr *req;
	struct ifinfomsg *ifi;
	int ret;

	if (!l)
		return nd_err_set(e, -ENODEV, "no network device '%s'", name);
	req = nd_nl_msg(&ctx->rtnl, RTM_NEWLINK, NLM_F_ACK);
	ifi = mnl_nlmsg_put_extra_header(req, sizeof(*ifi));
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_index = l->ifindex;
	mnl_attr_put_u32(req, IFLA_MTU, mtu);
	ret = nd_nl_talk(&ctx->rtnl, req, NULL, NULL, e);
	if (ret == -EPERM) {
		char why[ND_ERR_MSG_MAX];

		/* the kernel's reason is in e->msg, which the new sentence overwrites */
		nd_strlcpy(why, e->msg, sizeof(why));
		nd_err_set(e, ret, "%s: set MTU %u: %s; changing the MTU needs CAP_NET_ADMIN (run "
			   "as root; in a systemd unit, keep it in CapabilityBoundingSet=)", name, mtu,
			   why);
	} else if (ret)
		nd_err_wrap(e, "%s: set MTU %u", name, mtu);
	return ret;
}

static int by_ifindex(const void *a, const void *b)
{
	return ((const struct nd_link *)a)->ifindex - ((const struct nd_link *)b)->ifindex;
}

int nd_link_each(struct nd_ctx *ctx, int (*fn)(const char *name, void *data), void *data)
{
	size_t i;
	int ret = 0;

	qsort(ctx->links, ctx->n_links, sizeof(*ctx->links), by_ifindex);
	for (i = 0; i < ctx->n_links && !ret; i++)
		if (ctx->links[i].arptype != ARPHRD_LOOPBACK)
			ret = fn(ctx->links[i].name, data);
	return ret;
}
