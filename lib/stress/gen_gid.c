// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * RoCE GID choice. A RoCE port lists one GID per address and RoCE version, in the order the
 * addresses appeared, so index 0 is usually the link-local IPv6 RoCE v1 entry: the wrong one.
 * perftest makes users find the index (-x); we pick RoCE v2, the address family asked for,
 * and a routable address, or exactly the address the user names.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "gen_rt.h"

static bool v4_mapped(const uint8_t *g)
{
	static const uint8_t prefix[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

	return !memcmp(g, prefix, sizeof(prefix));
}

static bool link_local(const uint8_t *g)
{
	return g[0] == 0xfe && (g[1] & 0xc0) == 0x80;
}

/* @want as GID bytes: IPv4 becomes ::ffff:a.b.c.d, as the kernel stores it. */
static int want_gid(const char *want, uint8_t g[16])
{
	struct in_addr a4;

	if (inet_pton(AF_INET6, want, g) == 1)
		return 0;
	if (inet_pton(AF_INET, want, &a4) != 1)
		return -EINVAL;
	memset(g, 0, 16);
	g[10] = g[11] = 0xff;
	memcpy(g + 12, &a4, 4);
	return 0;
}

static int score(const struct ibv_gid_entry *x)
{
	const uint8_t *g = x->gid.raw;
	int s = 0;

	if (x->gid_type == IBV_GID_TYPE_ROCE_V2)
		s += 8;
	if (v4_mapped(g))
		s += 4;
	else if (!link_local(g))
		s += 2;
	return s;
}

int nd_gen_pick_gid(const struct ibv_gid_entry *v, size_t n, const char *want, char *why,
		    size_t len)
{
	int best = -1, s, best_s = -1;
	uint8_t g[16];
	size_t i;

	if (want && *want) {
		if (want_gid(want, g)) {
			snprintf(why, len, "'%s' is not an IPv4 or IPv6 address", want);
			return -EINVAL;
		}
		for (i = 0; i < n; i++) {
			if (memcmp(v[i].gid.raw, g, 16))
				continue;
			/* the same address is listed for v1 and v2: v2 is the routable one */
			if (best < 0 || v[i].gid_type == IBV_GID_TYPE_ROCE_V2)
				best = (int)i;
		}
		if (best < 0)
			snprintf(why, len, "no GID holds %s: is the address on the RDMA device's "
				 "netdev (ip addr, rdma link)?", want);
		return best < 0 ? -ENOENT : best;
	}
	for (i = 0; i < n; i++) {
		s = score(&v[i]);
		if (s > best_s) {
			best_s = s;
			best = (int)i;
		}
	}
	if (best < 0)
		snprintf(why, len, "the GID table is empty: the port's netdev has no address");
	return best < 0 ? -ENOENT : best;
}
