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

struct nd_nl;
/*
 * nd_peer_from_dcbnl() for @n ports at once, over a socket the caller keeps: every port's
 * IEEE_GET and CEE_GET in batched requests. @r[i] is what nd_peer_from_dcbnl() would return for
 * w[i] (its peer in w[i].peer, its error in w[i].err); nonzero only when the exchange failed.
 */
int peer_dcbnl_read_many(struct nd_nl *nl, struct nd_peer_wait *w, size_t n, int *r,
			 struct nd_err *e);

/* A CEE App entry's priority bitmap as one priority: its lowest, 8 when none is set. */
static inline uint8_t peer_cee_prio(uint8_t map)
{
	uint8_t prio = 0;

	while (prio < 8 && !(map >> prio & 1))
		prio++;
	return prio;
}

#endif
