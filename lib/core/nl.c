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
#include <linux/netlink.h>

#include "nl.h"

/* A kernel that does not answer within this long is broken; never hang the caller. */
#define ND_NL_TIMEOUT_S 10

int nd_nl_open(struct nd_nl *nl, int bus, struct nd_err *e)
{
	struct timeval tv = { .tv_sec = ND_NL_TIMEOUT_S };
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	/* a receive buffer: not zeroed, the kernel fills what is read */
	nl->buf = malloc(ND_NL_BUF_SIZE);
	if (!nl->buf)
		return nd_err_set(e, -ENOMEM, "out of memory for a netlink buffer");
	nl->sk = mnl_socket_open2(bus, SOCK_CLOEXEC);
	if (!nl->sk) {
		int err = -errno;

		nd_nl_close(nl);
		return nd_err_set(e, err, "cannot open netlink socket (bus %d): %s", bus,
				  strerror(-err));
	}
	/* both are best effort: old kernels lack them and still answer */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		int err = -errno;

		nd_nl_close(nl);
		return nd_err_set(e, err, "cannot bind netlink socket: %s", strerror(-err));
	}
	nl->portid = mnl_socket_get_portid(nl->sk);
	nl->seq = (uint32_t)time(NULL);
	return 0;
}

void nd_nl_close(struct nd_nl *nl)
{
	if (nl->sk)
		mnl_socket_close(nl->sk);
	free(nl->buf);
	memset(nl, 0, sizeof(*nl));
}

struct nlmsghdr *nd_nl_msg(struct nd_nl *nl, uint16_t type, uint16_t flags)
{
	struct nlmsghdr *nlh;

	memset(nl->buf, 0, ND_NL_REQ_MAX);
	nlh = mnl_nlmsg_put_header(nl->buf);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	nlh->nlmsg_seq = ++nl->seq;
	return nlh;
}

/* The extended ack message string, if the kernel attached one after the error. */
static const char *extack_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
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
		off += MNL_ALIGN(err->msg.nlmsg_len) - sizeof(err->msg);
	}
	if (off > len)
		return NULL;
	for (attr = (const struct nlattr *)((const char *)nlh + off);
	     mnl_attr_ok(attr, (int)(len - ((const char *)attr - (const char *)nlh)));
	     attr = mnl_attr_next(attr)) {
		if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG)
			continue;
		if (mnl_attr_validate(attr, MNL_TYPE_NUL_STRING) < 0)
			return NULL;
		return mnl_attr_get_str(attr);
	}
	return NULL;
}

static int kernel_error(const struct nlmsghdr *nlh, struct nd_err *e)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
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
	for (; remain > 0; nlh = mnl_nlmsg_next(nlh, &remain)) {
		if (!mnl_nlmsg_ok(nlh, remain))
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

int nd_nl_talk(struct nd_nl *nl, struct nlmsghdr *req, nd_nl_msg_fn fn, void *data,
	       struct nd_err *e)
{
	/* replies land in the same buffer as the request: keep what is needed of it */
	uint32_t seq = req->nlmsg_seq;
	uint16_t flags = req->nlmsg_flags;
	ssize_t n;
	int ret;

	if (mnl_socket_sendto(nl->sk, req, req->nlmsg_len) < 0)
		return nd_err_set(e, -errno, "netlink send failed: %s", strerror(errno));
	for (;;) {
		n = mnl_socket_recvfrom(nl->sk, nl->buf, ND_NL_BUF_SIZE);
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
