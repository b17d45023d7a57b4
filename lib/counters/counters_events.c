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
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "counters.h"

static struct mnl_socket *open_group(int bus, uint32_t groups, uint32_t member, int *err)
{
	struct mnl_socket *sk = mnl_socket_open2(bus, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (!sk) {
		*err = -errno;
		return NULL;
	}
	/* rtnetlink's groups fit the bind mask; ethtool's, a generic netlink id, is joined */
	if (mnl_socket_bind(sk, groups, MNL_SOCKET_AUTOPID) ||
	    (member && mnl_socket_setsockopt(sk, NETLINK_ADD_MEMBERSHIP, &member,
					     sizeof(member)))) {
		*err = -errno;
		mnl_socket_close(sk);
		return NULL;
	}
	return sk;
}

int nd_ctr_events_open(struct nd_ctr_events *ev, uint32_t ethtool_group)
{
	struct mnl_socket *sk;
	int err = 0;

	ev->n = 0;
	sk = open_group(NETLINK_ROUTE, 1U << (RTNLGRP_LINK - 1) | 1U << (RTNLGRP_DCB - 1), 0, &err);
	if (!sk)
		return err;
	ev->sk[ev->n++] = sk;
	if (!ethtool_group)
		return 0;
	sk = open_group(NETLINK_GENERIC, 0, ethtool_group, &err);
	if (!sk) {
		nd_ctr_events_close(ev);
		return err;
	}
	ev->sk[ev->n++] = sk;
	return 0;
}

void nd_ctr_events_close(struct nd_ctr_events *ev)
{
	while (ev->n > 0)
		mnl_socket_close(ev->sk[--ev->n]);
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
		pfd[i] = (struct pollfd){ .fd = mnl_socket_get_fd(ev->sk[i]), .events = POLLIN };
	if (poll(pfd, (nfds_t)ev->n, 0) <= 0)
		return false;
	for (i = 0; i < ev->n; i++) {
		if (!pfd[i].revents)
			continue;
		came = true;
		/* an overrun (ENOBUFS) lost events: it counts as one, and so does any error; a
		 * message longer than the buffer (ENOSPC) was still taken off the queue */
		do
			n = mnl_socket_recvfrom(ev->sk[i], buf, sizeof(buf));
		while (n > 0 || (n < 0 && (errno == EINTR || errno == ENOBUFS || errno == ENOSPC)));
	}
	return came;
}
