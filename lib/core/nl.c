// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Netlink core over libmnl: one request, its replies, its ack. Extended acks are switched on so
 * the kernel's own words ("ETS bandwidth must sum to 100") reach the user, and acks are capped so
 * a large request is not echoed back. libmnl's callback run does the message walk, the port id
 * and sequence checks and the dispatch; the control callbacks here turn acks, DONE and errors
 * into nodrop's errors.
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
	int one = 1, err;

	memset(nl, 0, sizeof(*nl));
	/* a receive buffer: not zeroed, the kernel fills what is read */
	nl->buf = malloc(ND_NL_BUF_SIZE);
	if (!nl->buf)
		return nd_err_set(e, -ENOMEM, "out of memory for a netlink buffer");
	nl->sk = mnl_socket_open2(bus, SOCK_CLOEXEC);
	if (!nl->sk) {
		err = -errno;
		nd_nl_close(nl);
		return nd_err_set(e, err, "cannot open netlink socket (bus %d): %s", bus,
				  strerror(-err));
	}
	/* all three are best effort: old kernels lack the first two and still answer */
	mnl_socket_setsockopt(nl->sk, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(nl->sk, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(mnl_socket_get_fd(nl->sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (mnl_socket_bind(nl->sk, 0, MNL_SOCKET_AUTOPID) < 0) {
		err = -errno;
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

static int extack_attr(const struct nlattr *attr, void *data)
{
	const char **msg = data;

	if (mnl_attr_get_type(attr) != NLMSGERR_ATTR_MSG)
		return MNL_CB_OK;
	if (nd_nl_attr_is(attr, MNL_TYPE_NUL_STRING))
		*msg = mnl_attr_get_str(attr);
	return MNL_CB_STOP;
}

/* The extended ack message string, if the kernel attached one after the error. */
static const char *extack_msg(const struct nlmsghdr *nlh)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*err), len = mnl_nlmsg_get_payload_len(nlh);
	const char *msg = NULL;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NULL;
	/* without NLM_F_CAPPED the whole request is echoed before the TLVs */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED)) {
		if (err->msg.nlmsg_len < sizeof(err->msg) ||
		    err->msg.nlmsg_len > len - off + sizeof(err->msg))
			return NULL;
		off += MNL_ALIGN(err->msg.nlmsg_len) - sizeof(err->msg);
	}
	if (off > len)
		return NULL;
	mnl_attr_parse_payload((const char *)err + off, len - off, extack_attr, &msg);
	return msg;
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

/* One run of libmnl's callbacks: the caller's function and where an error of ours is kept. */
struct run {
	nd_nl_msg_fn fn;
	void *data;
	struct nd_err *e;
	uint32_t seq;
	int err;
};

static int run_fail(struct run *r, int err)
{
	r->err = err;
	return MNL_CB_ERROR;
}

static int on_data(const struct nlmsghdr *nlh, void *data)
{
	struct run *r = data;
	int ret = r->fn && nlh->nlmsg_seq == r->seq ? r->fn(nlh, r->data, r->e) : 0;

	return ret < 0 ? run_fail(r, ret) : MNL_CB_OK;
}

/*
 * Every control message: an ack or DONE ends the exchange, an error is the kernel's errno and
 * its extended ack (a dump's DONE may carry one too), an overrun is an error. A message
 * answering an earlier, abandoned request (one that timed out) is not ours to judge: libmnl
 * would fail the whole datagram on it (EPROTO), so its sequence check is off (seq 0) and the
 * callbacks skip such a message here.
 */
static int on_ctl(const struct nlmsghdr *nlh, void *data)
{
	struct run *r = data;
	int ret = 0;

	if (nlh->nlmsg_seq != r->seq)
		return MNL_CB_OK;
	switch (nlh->nlmsg_type) {
	case NLMSG_NOOP:
		return MNL_CB_OK;
	case NLMSG_ERROR:
		ret = kernel_error(nlh, r->e);
		break;
	case NLMSG_DONE:
		if (nlh->nlmsg_len >= sizeof(*nlh) + sizeof(int) &&
		    nlh->nlmsg_flags & NLM_F_ACK_TLVS)
			ret = kernel_error(nlh, r->e);
		break;
	case NLMSG_OVERRUN:
		ret = nd_err_set(r->e, -EBADMSG, "netlink overrun message");
		break;
	}
	return ret ? run_fail(r, ret) : MNL_CB_STOP;
}

static mnl_cb_t ctl_cb[NLMSG_MIN_TYPE] = {
	[NLMSG_NOOP] = on_ctl,
	[NLMSG_ERROR] = on_ctl,
	[NLMSG_DONE] = on_ctl,
	[NLMSG_OVERRUN] = on_ctl,
};

int nd_nl_process(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		  nd_nl_msg_fn fn, void *data, struct nd_err *e)
{
	const struct nlmsghdr *nlh = buf;
	struct run r = { fn, data, e, seq, 0 };
	int left = (int)len, ret;

	if (len < sizeof(*nlh))
		return nd_err_set(e, -EBADMSG, "truncated netlink reply (%zu bytes)", len);
	/*
	 * libmnl's run stops silently at a message cut short, which would read as "more to come";
	 * and its walks end at a message's aligned length: every message must lie whole in the
	 * datagram, padding included.
	 */
	while (mnl_nlmsg_ok(nlh, left))
		nlh = mnl_nlmsg_next(nlh, &left);
	if (left != 0)
		return nd_err_set(e, -EBADMSG,
				  "truncated netlink message (%d bytes left, header says %u)",
				  left, left >= 4 ? nlh->nlmsg_len : 0);
	ret = mnl_cb_run2(buf, len, 0, portid, on_data, &r, ctl_cb, MNL_ARRAY_SIZE(ctl_cb));
	if (ret > MNL_CB_STOP)
		return 1;
	if (ret == MNL_CB_STOP)
		return 0;
	if (r.err)
		return r.err;
	if (errno == ESRCH)
		return nd_err_set(e, -EPROTO, "netlink reply for another port id, expected %u",
				  portid);
	return nd_err_set(e, -errno, "netlink reply not processed: %s", strerror(errno));
}

/*
 * One datagram into the socket's buffer: its length, or a negative errno with a sentence. One
 * larger than the buffer is ENOSPC (libmnl), never a silent cut.
 */
static ssize_t recv_reply(struct nd_nl *nl, struct nd_err *e)
{
	ssize_t n;

	do
		n = mnl_socket_recvfrom(nl->sk, nl->buf, ND_NL_BUF_SIZE);
	while (n < 0 && errno == EINTR);
	if (n >= 0)
		return n;
	if (errno == ENOBUFS)
		return nd_err_set(e, -ENOBUFS, "netlink receive buffer overrun, replies were lost; "
				  "retry");
	if (errno == EAGAIN)
		return nd_err_set(e, -ETIMEDOUT, "no netlink reply from the kernel within %d s",
				  ND_NL_TIMEOUT_S);
	return nd_err_set(e, -errno, "netlink receive failed: %s", strerror(errno));
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
		n = recv_reply(nl, e);
		if (n < 0)
			return (int)n;
		ret = nd_nl_process(nl->buf, (size_t)n, seq, nl->portid, fn, data, e);
		if (ret <= 0)
			return ret;
		/* a request without ACK and without DUMP ends with its one reply */
		if (!(flags & (NLM_F_ACK | NLM_F_DUMP)))
			return 0;
	}
}

/* One request of a batch: its index, for the reply function, and the caller's. */
struct each {
	nd_nl_each_fn fn;
	void *data;
	size_t i;
};

static int each_reply(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct each *x = data;

	return x->fn ? x->fn(nlh, x->i, x->data, e) : 0;
}

/* Receive until every request of the batch [@first, @first + @k) has ended. */
static int recv_batch(struct nd_nl *nl, uint32_t seq0, size_t first, size_t k, nd_nl_each_fn fn,
		      void *data, int *ret, struct nd_err *errs, struct nd_err *e)
{
	size_t open = k;
	bool *ended = calloc(k, sizeof(*ended));
	ssize_t n;

	if (!ended)
		return nd_err_set(e, -ENOMEM, "out of memory for a netlink batch");
	while (open) {
		const struct nlmsghdr *nlh = (const struct nlmsghdr *)nl->buf;
		struct each x = { fn, data, 0 };
		size_t j;
		int r;

		n = recv_reply(nl, e);
		if (n < 0) {
			free(ended);
			return (int)n;
		}
		/* the kernel answers a batch in order, one request's replies per datagram */
		j = (size_t)n >= sizeof(*nlh) ? (size_t)(nlh->nlmsg_seq - seq0) : k;
		if (j >= k || ended[j])
			continue;	/* a reply to an abandoned request */
		x.i = first + j;
		r = nd_nl_process(nl->buf, (size_t)n, seq0 + (uint32_t)j, nl->portid, each_reply,
				  &x, &errs[x.i]);
		if (r > 0)
			continue;
		ret[x.i] = r;
		ended[j] = true;
		open--;
	}
	free(ended);
	return 0;
}

int nd_nl_talk_each(struct nd_nl *nl, size_t n, uint16_t type, uint16_t flags, nd_nl_put_fn put,
		    nd_nl_each_fn fn, void *data, int *ret, struct nd_err *errs, struct nd_err *e)
{
	size_t first, i;
	int err = 0;

	for (first = 0; first < n && !err; first += ND_NL_BATCH_MAX) {
		size_t k = n - first < ND_NL_BATCH_MAX ? n - first : ND_NL_BATCH_MAX;
		struct mnl_nlmsg_batch *b;
		uint32_t seq0 = nl->seq + 1;

		/* requests are small: a batch of them fits the request area with room over */
		memset(nl->buf, 0, ND_NL_REQ_MAX * 2);
		b = mnl_nlmsg_batch_start(nl->buf, ND_NL_REQ_MAX);
		if (!b)
			return nd_err_set(e, -ENOMEM, "out of memory for a netlink batch");
		for (i = 0; i < k; i++) {
			struct nlmsghdr *nlh = mnl_nlmsg_put_header(mnl_nlmsg_batch_current(b));

			nlh->nlmsg_type = type;
			nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
			nlh->nlmsg_seq = ++nl->seq;
			put(nlh, first + i, data);
			ret[first + i] = 0;
			if (!mnl_nlmsg_batch_next(b)) {
				mnl_nlmsg_batch_stop(b);
				return nd_err_set(e, -EMSGSIZE, "netlink batch of %zu requests over "
						  "%d bytes", k, ND_NL_REQ_MAX);
			}
		}
		if (mnl_socket_sendto(nl->sk, mnl_nlmsg_batch_head(b), mnl_nlmsg_batch_size(b)) < 0)
			err = nd_err_set(e, -errno, "netlink send failed: %s", strerror(errno));
		mnl_nlmsg_batch_stop(b);
		if (!err)
			err = recv_batch(nl, seq0, first, k, fn, data, ret, errs, e);
	}
	return err;
}
