// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* RoCE port checks of the doctor: a routable RoCE v2 GID, and a netdev MTU that fits 4096. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "doctor_int.h"

#define IB_MTU_MAX 4096
#define GID_SHOWN 6		/* GIDs listed in the evidence of a port that has no good one */

struct roce_port {
	const char *ibdev;
	unsigned int port;
	char netdev[ND_IFNAMSIZ + 1];
};

typedef void (*roce_fn)(struct nd_doc *c, const char *id, const struct roce_port *p);

struct roce_scan {
	struct nd_doc *c;
	const char *id;
	roce_fn fn;
	const char *ibdev;
	size_t n_roce;
	char other[128];	/* ports that are not RoCE, for a skip row */
};

static int scan_port(const char *name, void *data)
{
	struct roce_scan *s = data;
	struct roce_port p = { .ibdev = s->ibdev };
	char ll[32];
	char *end;

	p.port = (unsigned int)strtoul(name, &end, 10);
	if (*end || !p.port)
		return 0;
	if (nd_sys_read(ll, sizeof(ll), "/sys/class/infiniband/%s/ports/%u/link_layer", s->ibdev,
			p.port) < 0 || strcmp(ll, "Ethernet")) {
		nd_doc_cat(s->other, sizeof(s->other), "%s%s/%u %s", s->other[0] ? ", " : "",
			   s->ibdev, p.port, ll[0] ? ll : "of unknown link layer");
		return 0;
	}
	s->n_roce++;
	if (nd_sys_read(p.netdev, sizeof(p.netdev),
			"/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0", s->ibdev,
			p.port) < 0)
		p.netdev[0] = '\0';
	s->fn(s->c, s->id, &p);
	return s->c->err;
}

static int scan_dev(const char *ibdev, void *data)
{
	struct roce_scan *s = data;

	s->ibdev = ibdev;
	nd_sys_dir(scan_port, s, "/sys/class/infiniband/%s/ports", ibdev);
	return s->c->err;
}

/* Call @fn for every RoCE port; one skip row when there is none. */
static void each_roce_port(struct nd_doc *c, const char *id, roce_fn fn)
{
	struct roce_scan s = { .c = c, .id = id, .fn = fn };
	struct nd_check *k;
	int ret;

	ret = nd_sys_dir(scan_dev, &s, "/sys/class/infiniband");
	if (s.n_roce || c->err)
		return;
	k = nd_doc_add(c, id, ND_CHECK_SKIP, "host");
	if (!k)
		return;
	if (ret < 0)
		EVIDENCE(k, "no RDMA device: /sys/class/infiniband: %s", strerror(-ret));
	else if (s.other[0])
		EVIDENCE(k, "no RoCE port: %s", s.other);
	else
		EVIDENCE(k, "no RDMA port");
}

static const char *subject(const struct roce_port *p, char *buf, size_t len)
{
	if (p->netdev[0])
		snprintf(buf, len, "%s/%u (%s)", p->ibdev, p->port, p->netdev);
	else
		snprintf(buf, len, "%s/%u", p->ibdev, p->port);
	return buf;
}

/* ---- roce-gid ---- */

/* An address peers can route to: IPv4-mapped, or IPv6 but link-local. */
static bool routable(const struct nd_gid *g)
{
	return g->ipv4 || !IN6_IS_ADDR_LINKLOCAL((const struct in6_addr *)g->raw);
}

static void gid_port(struct nd_doc *c, const char *id, const struct roce_port *p)
{
	const struct nd_gid *good = NULL, *seen[GID_SHOWN];
	struct nd_gid *t = NULL;
	struct nd_check *k;
	struct nd_err e = { 0 };
	size_t n = 0, nt = 0, i;
	char subj[96];

	if (nd_gids_read(p->ibdev, p->port, &t, &nt, &e))
		nt = 0;
	for (i = 0; i < nt; i++) {
		if (t[i].type == ND_GID_EMPTY)
			continue;
		if (n < GID_SHOWN)
			seen[n] = &t[i];
		n++;
		if (!good && t[i].type == ND_GID_ROCE_V2 && routable(&t[i]))
			good = &t[i];
	}
	subject(p, subj, sizeof(subj));
	if (!nt) {
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "%s", subj);
		if (k)
			EVIDENCE(k, "no GID table: /sys/class/infiniband/%s/ports/%u/gids is not "
				 "readable", p->ibdev, p->port);
		free(t);
		return;
	}
	k = nd_doc_add(c, id, good ? ND_CHECK_PASS : ND_CHECK_FAIL, "%s", subj);
	if (k && good)
		EVIDENCE(k, "RoCE v2 GID %u: %s (%zu GIDs in use)", good->index, good->addr, n);
	if (!k || good) {
		free(t);
		return;
	}
	EVIDENCE(k, "no RoCE v2 GID with an IPv4 or routable IPv6 address among %zu in use", n);
	for (i = 0; i < n && i < GID_SHOWN; i++)
		EVIDENCE(k, "%s%u %s %s", i ? ", " : ": ", seen[i]->index, seen[i]->addr,
			 nd_gid_type_name(seen[i]->type));
	if (n > GID_SHOWN)
		EVIDENCE(k, ", ...");
	EVIDENCE(k, "; rdma_cm and routed RoCE v2 address peers by the IP of a RoCE v2 GID");
	if (p->netdev[0])
		FIX(k, "give %s an IPv4 or global IPv6 address (ip address add ADDR/LEN dev %s): "
		    "the kernel adds a RoCE v2 GID for each address of the netdev", p->netdev,
		    p->netdev);
	else
		FIX(k, "give the port's netdev an IPv4 or global IPv6 address: the kernel adds a "
		    "RoCE v2 GID for each address of the netdev");
	free(t);
}

void nd_doc_check_gid(struct nd_doc *c, const char *id)
{
	each_roce_port(c, id, gid_port);
}

/* ---- roce-mtu ---- */

/* Active and max MTU as verbs report them (0 when unknown: no verbs, or a fixture tree). */
static void verbs_mtu(const struct roce_port *p, unsigned int *active, unsigned int *max)
{
	struct nd_rdma_port ports[ND_RDMA_PER_NETDEV];
	struct nd_err e = { 0 };
	size_t n = 0, i;

	*active = *max = 0;
	if (nd_rdma_ports_of(p->netdev, ports, ND_ARRAY_SIZE(ports), &n, 0, &e))
		return;
	for (i = 0; i < n; i++) {
		if (!strcmp(ports[i].ibdev, p->ibdev) && ports[i].port == p->port) {
			*active = ports[i].active_mtu;
			*max = ports[i].max_mtu;
		}
	}
}

static void mtu_port(struct nd_doc *c, const char *id, const struct roce_port *p)
{
	unsigned int active, max, want, fit;
	struct nd_check *k;
	char subj[96];
	uint64_t mtu;

	subject(p, subj, sizeof(subj));
	if (!p->netdev[0] || nd_sys_read_u64(&mtu, "/sys/class/net/%s/mtu", p->netdev)) {
		k = nd_doc_add(c, id, ND_CHECK_SKIP, "%s", subj);
		if (k)
			EVIDENCE(k, "%s", p->netdev[0] ? "the netdev's MTU is not readable" :
				 "no netdev behind the port (gid_attrs/ndevs/0)");
		return;
	}
	verbs_mtu(p, &active, &max);
	want = max ? max : IB_MTU_MAX;
	fit = nd_roce_mtu_for((unsigned int)mtu);
	k = nd_doc_add(c, id, mtu >= want + ND_ROCE_HDR_BYTES ? ND_CHECK_PASS : ND_CHECK_WARN,
		       "%s", subj);
	if (!k)
		return;
	if (mtu >= want + ND_ROCE_HDR_BYTES)
		EVIDENCE(k, "%s MTU %llu >= %u + %u (%s) = %u: RoCE can use %u-byte packets",
			 p->netdev, (unsigned long long)mtu, want, ND_ROCE_HDR_BYTES,
			 ND_ROCE_HDR_TEXT, want + ND_ROCE_HDR_BYTES, want);
	else
		EVIDENCE(k, "%s MTU %llu < %u + %u (%s) = %u: RoCE is held to %u-byte packets, "
			 "the largest IB MTU <= %llu - %u", p->netdev, (unsigned long long)mtu,
			 want, ND_ROCE_HDR_BYTES, ND_ROCE_HDR_TEXT, want + ND_ROCE_HDR_BYTES, fit,
			 (unsigned long long)mtu, ND_ROCE_HDR_BYTES);
	if (max)
		EVIDENCE(k, "; verbs: active MTU %u, max %u", active, max);
	else
		EVIDENCE(k, "; the port's max MTU is not known without verbs, %u is the RoCE "
			 "maximum", IB_MTU_MAX);
	if (k->status == ND_CHECK_PASS)
		return;
	FIX(k, "ip link set dev %s mtu %u (or 9000, with jumbo frames on every switch port on "
	    "the path)", p->netdev, (want + ND_ROCE_HDR_BYTES + 99) / 100 * 100);
}

void nd_doc_check_mtu(struct nd_doc *c, const char *id)
{
	each_roce_port(c, id, mtu_port);
}
