// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* show and audit: --peer and --peer-wait, and listening for the ports' link partners. */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "nodrop.h"

int nd_peer_opt(const char *cmd, struct nd_peer_opts *o, int key, const char *arg)
{
	o->on = true;
	if (key != ND_OPT_PEER_WAIT)
		return 0;
	o->have_wait = true;
	return nd_parse_seconds(cmd, "peer-wait", arg, &o->wait_s);
}

struct nd_peer_wait *nd_listen_peers(const char *cmd, const struct nd_port *first, size_t stride,
				     size_t n, const struct nd_peer_opts *o)
{
	unsigned int wait_s = o->have_wait ? (unsigned int)o->wait_s : ND_PEER_WAIT_S;
	struct nd_peer_wait *w = calloc(n ? n : 1, sizeof(*w));
	struct nd_err e = { 0 };

	if (!w) {
		fprintf(stderr, "nodrop %s: out of memory\n", cmd);
		return NULL;
	}
	for (size_t i = 0; i < n; i++) {
		const struct nd_port *port = (const void *)((const char *)first + i * stride);

		snprintf(w[i].ifname, sizeof(w[i].ifname), "%s", port->link.name);
	}
	if (nd_peer_find(w, n, wait_s * 1000, &e)) {
		fprintf(stderr, "nodrop %s: --peer: %s\n", cmd, e.msg);
		free(w);
		return NULL;
	}
	return w;
}
