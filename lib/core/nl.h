/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Netlink through libmnl: one request, its replies, its ack. libmnl builds, walks, validates and
 * runs the callbacks; what is here is only what it leaves to its user: a receive timeout, the
 * kernel's extended ack turned into a sentence, a reply cut short or for an abandoned request
 * told apart from the end of one, and an attribute walk bounded by the message's own length.
 */
#ifndef ND_NL_H
#define ND_NL_H

#include <stdint.h>
#include <libmnl/libmnl.h>

#include "nodrop.h"

#define ND_NL_BUF_SIZE 32768
/* Requests are built in the first part of the buffer, zeroed first so padding is never stale. */
#define ND_NL_REQ_MAX 4096

struct nd_nl {
	struct mnl_socket *sk;	/* NULL when closed */
	unsigned int portid;
	uint32_t seq;
	char *buf;
};

/*
 * Called for each reply message of the current request that is not an ack or DONE.
 * Returns 0 to go on, or a negative errno (after filling @e) to stop the exchange.
 */
typedef int (*nd_nl_msg_fn)(const struct nlmsghdr *nlh, void *data, struct nd_err *e);

int nd_nl_open(struct nd_nl *nl, int bus, struct nd_err *e);
void nd_nl_close(struct nd_nl *nl);

/* Start a request in the socket's buffer with a fresh sequence number and NLM_F_REQUEST|@flags. */
struct nlmsghdr *nd_nl_msg(struct nd_nl *nl, uint16_t type, uint16_t flags);

/*
 * Send @req and read replies until the ack (NLM_F_ACK requests) or NLMSG_DONE (dumps).
 * On a kernel error returns its negative errno with @e holding strerror and the extended ack.
 */
int nd_nl_talk(struct nd_nl *nl, struct nlmsghdr *req, nd_nl_msg_fn fn, void *data,
	       struct nd_err *e);

/*
 * Several requests of one shape in libmnl batches, one send per batch of up to ND_NL_BATCH_MAX,
 * each answered on its own (matched by sequence number): @put fills request @i after its header
 * (type, NLM_F_REQUEST|NLM_F_ACK|@flags, sequence number); @fn gets request @i's replies.
 * Request i's outcome is @ret[i] (0 or its negative errno) with its sentence in @errs[i]; the
 * return value is 0, or a negative errno (in @e) when the exchange as a whole failed.
 */
#define ND_NL_BATCH_MAX 16

typedef void (*nd_nl_put_fn)(struct nlmsghdr *nlh, size_t i, void *data);
typedef int (*nd_nl_each_fn)(const struct nlmsghdr *nlh, size_t i, void *data, struct nd_err *e);

int nd_nl_talk_each(struct nd_nl *nl, size_t n, uint16_t type, uint16_t flags, nd_nl_put_fn put,
		    nd_nl_each_fn fn, void *data, int *ret, struct nd_err *errs, struct nd_err *e);

/*
 * The receive half, separated so tests can feed it bytes: process one datagram of @len bytes.
 * Returns 1 when more datagrams are expected, 0 when the exchange ended well, -errno otherwise.
 */
int nd_nl_process(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		  nd_nl_msg_fn fn, void *data, struct nd_err *e);

/*
 * libmnl's mnl_attr_for_each, bounded by nlmsg_len rather than its aligned end: a parser handed a
 * reply of odd length (a test's, a fuzzer's) must not read the up to 3 bytes past it. Each step
 * is still libmnl's (mnl_attr_ok, mnl_attr_next).
 */
#define nd_nl_attr_for_each(attr, nlh, off)							\
	for ((attr) = mnl_nlmsg_get_payload_offset((nlh), (off));				\
	     mnl_attr_ok((attr), (int)((const char *)(nlh) + (nlh)->nlmsg_len -			\
				       (const char *)(attr)));					\
	     (attr) = mnl_attr_next(attr))

/*
 * libmnl's walks end silently at an attribute that does not fit; a parser of what the kernel sent
 * must not take half a message for all of it. True when a walk stopped short of @end.
 */
static inline bool nd_nl_walk_cut(const struct nlattr *stop, const void *end)
{
	return (const char *)stop < (const char *)end;
}

/* The end of a message (for nd_nl_walk_cut after nd_nl_attr_for_each) and of a nest. */
static inline const void *nd_nl_msg_end(const struct nlmsghdr *nlh)
{
	return (const char *)nlh + nlh->nlmsg_len;
}

static inline const void *nd_nl_nest_end(const struct nlattr *nest)
{
	return (const char *)mnl_attr_get_payload(nest) + mnl_attr_get_payload_len(nest);
}

/* mnl_attr_validate as a yes/no: the kernel policy type's exact width, NUL, nest header rules. */
static inline bool nd_nl_attr_is(const struct nlattr *attr, enum mnl_attr_data_type type)
{
	return mnl_attr_validate(attr, type) == 0;
}

#endif
