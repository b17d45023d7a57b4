// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The link partner from the best source that answers, saying which: the NIC's own DCBX engine
 * through dcbnl (peer_dcbnl.c), else the switch's LLDP frames heard on the wire (peer_wire.c),
 * every port left over in one wait. An LLDP agent on the port (lldpad, lldpd) is not asked: it
 * keeps what it heard in its own daemon, and listening beside it hears the same frames.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <sys/socket.h>
#include <linux/netlink.h>

#include "core/nl.h"
#include "peer_int.h"

const char *nd_peer_source_name(enum nd_peer_source s)
{
	return s == ND_PEER_SRC_DCBNL ? "dcbnl" : s == ND_PEER_SRC_LLDP ? "lldp" : "none";
}

int nd_peer_find(struct nd_peer_wait *w, size_t n, unsigned int wait_ms, struct nd_err *e)
{
	struct nd_peer_wait *rest = calloc(n ? n : 1, sizeof(*rest));
	size_t *at = calloc(n ? n : 1, sizeof(*at)), k = 0;
	int *r = calloc(n ? n : 1, sizeof(*r));
	struct nd_nl nl = { 0 };
	int ret = 0;

	if (!rest || !at || !r) {
		free(rest);
		free(at);
		free(r);
		return nd_err_set(e, -ENOMEM, "out of memory to find %zu ports' link partners", n);
	}
	/* every port's DCBX engine asked at once; without an answer, the wire still can */
	if (nd_nl_open(&nl, NETLINK_ROUTE, e) || peer_dcbnl_read_many(&nl, w, n, r, e)) {
		nd_err_clear(e);
		memset(r, 0, n * sizeof(*r));
	}
	for (size_t i = 0; i < n; i++) {
		w[i].source = ND_PEER_SRC_NONE;
		w[i].heard = r[i] > 0;
		w[i].waited_ms = 0;
		w[i].bad_frames = 0;
		if (r[i] > 0) {
			w[i].source = ND_PEER_SRC_DCBNL;
			continue;
		}
		/* a dcbnl that cannot answer is no verdict on the wire: listen there */
		memcpy(rest[k].ifname, w[i].ifname, sizeof(rest[k].ifname));
		at[k++] = i;
	}
	nd_nl_close(&nl);
	if (k)
		ret = nd_peer_listen(rest, k, wait_ms, e);
	for (size_t j = 0; !ret && j < k; j++) {
		w[at[j]] = rest[j];
		if (rest[j].heard)
			w[at[j]].source = ND_PEER_SRC_LLDP;
	}
	free(rest);
	free(at);
	free(r);
	return ret;
}
