// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netlink core: one request, its replies, its ack. Extended acks are switched on so the kernel's
 * own words ("ETS bandwidth must sum to 100") reach the user, and acks are capped so a large
 * request is not echoed back.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <linux/netlink.h>

#include "nl.h"

/* A kernel that does not answer within this long is broken; never hang the caller. */
#define ND_NL_TIMEOUT_S 10

int nd_nl_open(struct nd_nl *nl, int bus, struct nd_err *e)
{
	struct timeval tv = { .tv_sec = ND_NL_TIMEOUT_S };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	socklen_t salen = sizeof(sa);
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	nl->fd = -1;
	/* a receive buffer: not zeroed, the kernel fills what is read */
	nl->buf = malloc(ND_NL_BUF_SIZE);
	if (!nl->buf)
		return nd_err_set(e, -ENOMEM, "out of memory for a netlink buffer");
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, bus);
	if (nl->fd < 0) {
		err = -errno;
		nd_nl_close(nl);
		return nd_err_set(e, err, "cannot open netlink socket (bus %d): %s", bus,
				  strerror(-err));
	}
	/* both are best effort: old kernels lack them and still answer */
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(nl->fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	/* port id 0: the kernel picks a free one, read back for the replies' check */
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(nl->fd, (struct sockaddr *)&sa, &salen) < 0) {
		err = -errno;
		nd_nl_close(nl);
		return nd_err_set(e, err, "cannot bind netlink socket: %s", strerror(-err));
	}
	nl->portid = sa.nl_pid;
	nl->seq = (uint32_t)time(NULL);
	return 0;
}

void nd_nl_close(struct nd_nl *nl)
{
	/* opened: the buffer is allocated first (a zeroed struct was never opened) */
	if (nl->buf && nl->fd >= 0)
		close(nl->fd);
	free(nl->buf);
	memset(nl, 0, sizeof(*nl));
	nl->fd = -1;
}

struct nlmsghdr *nd_nl_msg(struct nd_nl *nl, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(nl->buf, 0, ND_NL_REQ_MAX);
	nlh = nd_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

/* The extended ack message string, if the kernel attached one after the error. */
static const char *extack_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = nd_nlmsg_data(nlh);
	const struct nlattr *attr;
	size_t off, len = nlh->nlmsg_len;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	off = sizeof(*nlh) + sizeof(*err);
	/* without NLM_F_CAPPED the whole request is echoed before the TLVs */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (err->msg.nlmsg_len < sizeof(err->msg) ||
		    err->msg.nlmsg_len > len - off + sizeof(err->msg))
			return NULL;
		off += ND_NL_ALIGN(err->msg.nlmsg_len) - sizeof(err->msg);
	}
	if (off > len)
		return NULL;
	for (attr = (const struct nlattr *)((const char *)nlh + off);
	     nd_nla_ok(attr, (int)(len - ((const char *)attr - (const char *)nlh)));
	     attr = nd_nla_next(attr)) {
		if (nd_nla_type(attr) != NLMSGERR_ATTR_MSG)
			continue;
		if (!nd_nla_check(attr, ND_NLA_NUL_STRING))
			return NULL;
		return nd_nla_str(attr);
	}
	return NULL;
}

static int kernel_error(const struct nlmsghdr *nlh, struct nd_err *e)
{
	const struct nlmsgerr *err = nd_nlmsg_data(nlh);
	const char *msg;

	if (nlh->nlmsg_len < sizeof(*nlh) + sizeof(err->error))
		return nd_err_set(e, -EBADMSG, "truncated netlink error message");
	if (err->error == 0)
		return 0;
	/* the kernel sends -errno; anything else is garbage, not an errno to pass on */
	if (err->error > 0 || err->error < -4095)
		return nd_err_set(e, -EBADMSG, "netlink error message with invalid code %d",
				  err->error);
	msg = nlh->nlmsg_len >= sizeof(*nlh) + sizeof(*err) ? extack_msg(nlh) : NULL;
	if (msg && *msg)
		return nd_err_set(e, err->error, "%s (kernel: \"%s\")", strerror(-err->error),
				  msg);
	return nd_err_set(e, err->error, "%s", strerror(-err->error));
}

int nd_nl_process(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		  nd_nl_msg_fn fn, void *data, struct nd_err *e)
{
	const struct nlmsghdr *nlh = buf;
	int remain = (int)len, ret;

	if (len < sizeof(*nlh))
		return nd_err_set(e, -EBADMSG, "truncated netlink reply (%zu bytes)", len);
	for (; remain > 0; nlh = nd_nlmsg_next(nlh, &remain)) {
		if (!nd_nlmsg_ok(nlh, remain))
			return nd_err_set(e, -EBADMSG,
					  "truncated netlink message (%d bytes left, header says %u)",
					  remain, remain >= 4 ? nlh->nlmsg_len : 0);
		/* a reply to an earlier, abandoned request: not ours to judge */
		if (nlh->nlmsg_seq != seq)
			continue;
		if (nlh->nlmsg_pid != portid && nlh->nlmsg_pid != 0)
			return nd_err_set(e, -EPROTO, "netlink reply for port id %u, expected %u",
					  nlh->nlmsg_pid, portid);
		switch (nlh->nlmsg_type) {
		case NLMSG_NOOP:
			continue;
		case NLMSG_ERROR:
			return kernel_error(nlh, e);
		case NLMSG_DONE:
			/* a dump may end with an error code in DONE */
			if (nlh->nlmsg_len >= sizeof(*nlh) + sizeof(int) &&
			    nlh->nlmsg_flags & NLM_F_ACK_TLVS)
				return kernel_error(nlh, e);
			return 0;
		case NLMSG_OVERRUN:
			return nd_err_set(e, -EBADMSG, "netlink overrun message");
		}
		if (fn) {
			ret = fn(nlh, data, e);
			if (ret < 0)
				return ret;
		}
	}
	return 1;
}

/* One datagram; one larger than the buffer is an error (ENOSPC), never a silent cut. */
static ssize_t recv_reply(struct nd_nl *nl)
{
	struct sockaddr_nl from;
	struct iovec iov = { nl->buf, ND_NL_BUF_SIZE };
	struct msghdr msg = {
		.msg_name = &from, .msg_namelen = sizeof(from), .msg_iov = &iov, .msg_iovlen = 1,
	};
	ssize_t n = recvmsg(nl->fd, &msg, 0);

	if (n < 0)
		return n;
	if (msg.msg_flags & MSG_TRUNC) {
		errno = ENOSPC;
		return -1;
	}
	return n;
}

int nd_nl_talk(struct nd_nl *nl, struct nlmsghdr *req, nd_nl_msg_fn fn, void *data,
	       struct nd_err *e)
{
	/* replies land in the same buffer as the request: keep what is needed of it */
	uint32_t seq = req->nlmsg_seq;
	uint16_t flags = req->nlmsg_flags;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	ssize_t n;
	int ret;

	if (sendto(nl->fd, req, req->nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0)
		return nd_err_set(e, -errno, "netlink send failed: %s", strerror(errno));
	for (;;) {
		n = recv_reply(nl);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS)
				return nd_err_set(e, -ENOBUFS,
						  "netlink receive buffer overrun, replies were lost; retry");
			if (errno == EAGAIN)
				return nd_err_set(e, -ETIMEDOUT,
						  "no netlink reply from the kernel within %d s",
						  ND_NL_TIMEOUT_S);
			return nd_err_set(e, -errno, "netlink receive failed: %s", strerror(errno));
		}
		ret = nd_nl_process(nl->buf, (size_t)n, seq, nl->portid, fn, data, e);
		if (ret <= 0)
			return ret;
		/* a request without ACK and without DUMP ends with its one reply */
		if (!(flags & (NLM_F_ACK | NLM_F_DUMP)))
			return 0;
	}
}
