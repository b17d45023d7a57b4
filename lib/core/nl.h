/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Netlink request/ack/dump, with sequence checks and extended-ack messages. */
#ifndef ND_NL_H
#define ND_NL_H

#include <stdint.h>

#include "nla.h"
#include "nodrop.h"

#define ND_NL_BUF_SIZE 32768
/* Requests are built in the first part of the buffer, zeroed first so padding is never stale. */
#define ND_NL_REQ_MAX 4096

struct nd_nl {
	int fd;			/* -1 when closed */
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
 * The receive half, separated so tests can feed it bytes: process one datagram of @len bytes.
 * Returns 1 when more datagrams are expected, 0 when the exchange ended well, -errno otherwise.
 */
int nd_nl_process(const void *buf, size_t len, uint32_t seq, uint32_t portid,
		  nd_nl_msg_fn fn, void *data, struct nd_err *e);

#endif
