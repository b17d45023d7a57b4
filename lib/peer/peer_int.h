/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* peer: what its files share with each other and with the unit tests. */
#ifndef ND_PEER_INT_H
#define ND_PEER_INT_H

#include <linux/netlink.h>

#include "nodrop.h"

/*
 * The peer attributes of one dcbnl reply to @cmd (DCB_CMD_IEEE_GET or DCB_CMD_CEE_GET) into @p,
 * over what it holds: 1 when any came, 0 when none, -EBADMSG for what is no DCB reply.
 * Attributes too short for their kernel struct are passed over.
 */
int peer_dcbnl_parse(const struct nlmsghdr *nlh, uint8_t cmd, struct nd_peer *p);

#endif
