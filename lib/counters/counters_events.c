// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The events that tell a sampler its knowledge of a port may be stale (see counters.h). Two
 * non-blocking netlink sockets: rtnetlink's link and DCB groups, and ethtool's monitor group.
 * What the messages say does not matter, only that one came: the sampler then finds everything
 * out again, which is rare next to sampling. Checking costs one poll() when nothing came.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "counters.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

static int open_group(int bus, uint32_t groups, uint32_t member)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = groups };
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, bus);

	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    (member && setsockopt(fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &member,
				  sizeof(member)))) {
		int ret = -errno;

		close(fd);
		return ret;
	}
	return fd;
}

int nd_ctr_events_open(struct nd_ctr_events *ev, uint32_t ethtool_group)
{
	int fd;

	ev->n = 0;
	fd = open_group(NETLINK_ROUTE, 1U << (RTNLGRP_LINK - 1) | 1U << (RTNLGRP_DCB - 1), 0);
	if (fd < 0)
		return fd;
	ev->fd[ev->n++] = fd;
	if (!ethtool_group)
		return 0;
	fd = open_group(NETLINK_GENERIC, 0, ethtool_group);
	if (fd < 0) {
		nd_ctr_events_close(ev);
		return fd;
	}
	ev->fd[ev->n++] = fd;
	return 0;
}

void nd_ctr_events_close(struct nd_ctr_events *ev)
{
	while (ev->n > 0)
		close(ev->fd[--ev->n]);
}

bool nd_ctr_events_pending(struct nd_ctr_events *ev)
{
	struct pollfd pfd[2];
	char buf[8192];
	bool came = false;
	ssize_t n;
	int i;

	if (!ev->n)
		return false;
	for (i = 0; i < ev->n; i++)
		pfd[i] = (struct pollfd){ .fd = ev->fd[i], .events = POLLIN };
	if (poll(pfd, (nfds_t)ev->n, 0) <= 0)
		return false;
	for (i = 0; i < ev->n; i++) {
		if (!pfd[i].revents)
			continue;
		came = true;
		/* an overrun (ENOBUFS) lost events: it counts as one, and so does any error */
		do
			n = recv(ev->fd[i], buf, sizeof(buf), MSG_DONTWAIT);
		while (n > 0 || (n < 0 && (errno == EINTR || errno == ENOBUFS)));
	}
	return came;
}
