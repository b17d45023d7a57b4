// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The sampler: every counter source of one port read together under one monotonic timestamp,
 * mapped to canonical names. A port is found out once (the netdev, its driver, its RDMA port and
 * netlink index, the maps that apply, the driver's string set and each raw name's rule, which
 * sources answer); after that a sample is only the reads that fetch values: one ETHTOOL_GSTATS,
 * one pause request, one RDMA statistics request (or the sysfs files where there is no RDMA
 * netlink). What was found out is dropped and found out again when a netlink event says a link,
 * its DCB or its ethtool settings changed (counters_events.c; checked after the reads, so values
 * read under a changed string set are never used), when a read fails or the driver's count
 * moves, and, for a port without RDMA, once a second (nothing announces an RDMA device).
 *
 * Under NODROP_SYSROOT there is no kernel behind the fixture tree: only sysfs sources are read
 * (hw_counters, PMA), as rdma.c skips verbs there.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "counters.h"

#ifndef NETLINK_RDMA
#define NETLINK_RDMA 20
#endif

struct raw_entry {
	char name[ND_CTR_NAME_MAX];
	uint64_t value;
};

struct raw_list {
	struct raw_entry *v;
	size_t n, cap;
};

/* The rule of each raw name of a source, as the names came last time. */
struct rule_cache {
	char (*name)[ND_CTR_NAME_MAX];
	const struct nd_ctr_rule **rule;
	int8_t *prio;
	size_t n, cap;
};

struct port_state {
	char ifname[ND_IFNAMSIZ];
	bool known;			/* all below holds: a sample is the reads alone */
	char driver[32], rdma_driver[32];
	struct nd_ctr_sel sel;
	bool eth, pause, pma;		/* the sources that gave counters when found out */
	bool pause_ops;			/* the driver has pause operations (has_pause()) */
	uint64_t found_ns;
	struct rule_cache pause_rc, rdma_rc;
	struct nd_ctr_scratch scratch;
	struct nd_ctr_ethtool *et;
	bool have_rdma;
	bool by_gid;			/* found in the RoCE GID table, checked the same way */
	char ibdev[64];
	unsigned int port;
	uint32_t rdma_index;
	bool index_valid;
	struct raw_list rdma;		/* netlink entries, used once the reply was whole */
	struct port_state *next;
};

enum link_state { LINK_UNTRIED, LINK_OK, LINK_NONE };

struct nd_sampler {
	struct nd_ctr_maps maps;
	int fd;				/* ethtool ioctls */
	bool rooted;
	struct nd_nl genl;
	enum link_state genl_state;
	uint16_t ethtool_family;
	struct nd_nl rdma;
	enum link_state rdma_state;
	struct nd_ctr_events ev;	/* n == 0: none, every sample finds out again */
	enum link_state ev_state;
	uint32_t ethtool_group;		/* ethtool's monitor group, 0 when unknown */
	unsigned long calls;		/* nd_sample_ports() calls so far */
	struct port_state *ports, **tail;	/* in the order first asked for */
	struct port_state *hint;	/* the one after the last asked for */
};

/* A port without RDMA looks again this often: no event announces a new RDMA device. */
#define RDMA_RESCAN_NS 1000000000ULL

static void rule_cache_free(struct rule_cache *c)
{
	free(c->name);
	free(c->rule);
	free(c->prio);
	memset(c, 0, sizeof(*c));
}

static int rule_cache_grow(struct rule_cache *c, size_t n)
{
	size_t cap = c->cap ? c->cap : 16;
	void *name, *rule, *prio;

	while (cap < n)
		cap *= 2;
	name = realloc(c->name, cap * sizeof(*c->name));
	if (name)
		c->name = name;
	rule = realloc(c->rule, cap * sizeof(*c->rule));
	if (rule)
		c->rule = rule;
	prio = realloc(c->prio, cap * sizeof(*c->prio));
	if (prio)
		c->prio = prio;
	if (!name || !rule || !prio)
		return -ENOMEM;
	c->cap = cap;
	return 0;
}

/* Add raw counter @i of a source, its rule looked up only when its name is not last time's. */
static int cached_add(struct nd_ctr_build *b, struct rule_cache *c, size_t i,
		      enum nd_ctr_source src, const char *raw, uint64_t value)
{
	int prio;

	if (i < c->n && !strcmp(c->name[i], raw))
		return nd_ctr_add_rule(b, src, raw, value, c->rule[i], c->prio[i]);
	if (i >= c->cap && rule_cache_grow(c, i + 1))
		return -ENOMEM;
	nd_strlcpy(c->name[i], raw, sizeof(c->name[i]));
	c->rule[i] = nd_ctr_lookup(b->sel, src, raw, &prio);
	c->prio[i] = (int8_t)(c->rule[i] ? prio : -1);
	c->n = i + 1 > c->n ? i + 1 : c->n;
	return nd_ctr_add_rule(b, src, raw, value, c->rule[i], c->prio[i]);
}

int nd_sampler_new(struct nd_sampler **out, const char *maps, struct nd_err *e)
{
	struct nd_sampler *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s)
		return nd_err_set(e, -ENOMEM, "out of memory");
	s->fd = -1;
	s->tail = &s->ports;
	/* only the maps of the ports sampled get their rules parsed (nd_ctr_select) */
	ret = maps ? nd_ctr_maps_open(&s->maps, maps, e) : nd_ctr_maps_default(&s->maps, NULL, e);
	if (ret) {
		free(s);
		/* a missing or broken map is bad input, whatever errno the file system gave */
		if (ret != -ENOMEM && e)
			e->code = -EINVAL;
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	s->rooted = *nd_sysroot() != '\0';
	/* the ethtool ioctl works on any socket; a datagram socket needs no privilege */
	s->fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		s->fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0) {
		ret = nd_err_set(e, -errno, "cannot open a socket for ethtool: %s",
				 strerror(errno));
		nd_sampler_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void nd_sampler_free(struct nd_sampler *s)
{
	struct port_state *p, *next;

	if (!s)
		return;
	for (p = s->ports; p; p = next) {
		next = p->next;
		nd_ctr_ethtool_free(p->et);
		free(p->rdma.v);
		rule_cache_free(&p->pause_rc);
		rule_cache_free(&p->rdma_rc);
		nd_ctr_scratch_free(&p->scratch);
		free(p);
	}
	nd_ctr_events_close(&s->ev);
	if (s->genl_state == LINK_OK)
		nd_nl_close(&s->genl);
	if (s->rdma_state == LINK_OK)
		nd_nl_close(&s->rdma);
	if (s->fd >= 0)
		close(s->fd);
	nd_ctr_maps_free(&s->maps);
	free(s);
}

/*
 * A watch asks for the same ports in the same order every round, and the list keeps the order
 * they were first asked in: the one after the last is nearly always the one. A walk of the
 * list per port cost a cache miss per port passed: 64 ports, 2,080 a round, after a sleep.
 */
static struct port_state *port_state(struct nd_sampler *s, const char *ifname)
{
	struct port_state *p = s->hint;

	if (!p || strcmp(p->ifname, ifname))
		for (p = s->ports; p && strcmp(p->ifname, ifname); p = p->next)
			;
	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return NULL;
		p->et = nd_ctr_ethtool_new();
		if (!p->et) {
			free(p);
			return NULL;
		}
		nd_strlcpy(p->ifname, ifname, sizeof(p->ifname));
		*s->tail = p;
		s->tail = &p->next;
	}
	s->hint = p->next;
	return p;
}

static bool gid_on(const char *ibdev, unsigned int port, const char *ifname)
{
	char ndev[ND_IFNAMSIZ + 1];
	int ret = nd_sys_read(ndev, sizeof(ndev),
			      "/sys/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0", ibdev, port);

	return ret >= 0 && !strcmp(ndev, ifname);
}

/* The RDMA port on the netdev: kept while sysfs still says so, looked up again otherwise. */
static int rdma_port(struct port_state *p, struct nd_err *e)
{
	struct nd_rdma_port ports[ND_RDMA_PER_NETDEV];
	size_t n = 0;
	int ret;

	if (p->have_rdma && (p->by_gid ? gid_on(p->ibdev, p->port, p->ifname) :
			     nd_sys_exists("/sys/class/infiniband/%s/ports/%u", p->ibdev, p->port)))
		return 0;
	p->have_rdma = false;
	p->index_valid = false;
	ret = nd_rdma_ports_of(p->ifname, ports, ND_ARRAY_SIZE(ports), &n, ND_RDMA_NO_VERBS, e);
	if (ret)
		return nd_err_wrap(e, "%s: find its RDMA port", p->ifname);
	if (!n)
		return 0;
	/* one netdev carries one RDMA port in practice; the first is the one sampled */
	nd_strlcpy(p->ibdev, ports[0].ibdev, sizeof(p->ibdev));
	p->port = ports[0].port;
	p->by_gid = gid_on(p->ibdev, p->port, p->ifname);
	p->have_rdma = true;
	return 0;
}

/* The netdev's driver; -ENODEV when the kernel has no such device (the ioctl's answer). */
static int driver_of(struct nd_sampler *s, const char *ifname, char *buf, size_t len)
{
	struct ethtool_drvinfo drv = { .cmd = ETHTOOL_GDRVINFO };
	int ret;

	buf[0] = '\0';
	if (!s->rooted) {
		ret = nd_ctr_ethtool_ioctl(s->fd, ifname, &drv);
		if (!ret) {
			drv.driver[sizeof(drv.driver) - 1] = '\0';
			nd_strlcpy(buf, drv.driver, len);
			return 0;
		}
		if (ret == -ENODEV)
			return ret;
	} else if (!nd_sys_exists("/sys/class/net/%s", ifname)) {
		return -ENODEV;
	}
	if (nd_sys_link_name(buf, len, "/sys/class/net/%s/device/driver", ifname))
		buf[0] = '\0';
	return 0;
}

/*
 * Generic netlink (ethtool's pause statistics, and the number of its monitor group), opened
 * when first needed: by a port whose driver has pause operations, or by the event sockets. A
 * one-shot `nodrop counters` of ports without pause (veth, most virtual NICs) never opens it.
 */
static bool genl_link(struct nd_sampler *s)
{
	struct nd_err ignored = { 0 };

	if (s->genl_state == LINK_UNTRIED) {
		s->genl_state = LINK_NONE;
		if (!nd_nl_open(&s->genl, NETLINK_GENERIC, &ignored)) {
			if (!nd_ctr_genl_family(&s->genl, ETHTOOL_GENL_NAME, &s->ethtool_family,
						ETHTOOL_MCGRP_MONITOR_NAME, &s->ethtool_group,
						&ignored))
				s->genl_state = LINK_OK;
			else
				nd_nl_close(&s->genl);
		}
	}
	return s->genl_state == LINK_OK;
}

/*
 * The event sockets, on the second sample: a one-shot process never reads them. Until they are
 * open no port counts as known, so every sample before finds out again and nothing is missed. A
 * fixture tree changes behind no kernel's back: under one, every sample finds out again.
 */
static void links_init(struct nd_sampler *s)
{
	if (s->rooted || s->ev_state != LINK_UNTRIED || s->calls++ == 0)
		return;
	s->ev_state = LINK_NONE;
	/* without generic netlink, the link and DCB events still come; ethtool's do not */
	genl_link(s);
	if (!nd_ctr_events_open(&s->ev, s->ethtool_group))
		s->ev_state = LINK_OK;
	else
		s->ev.n = 0;
}

/*
 * Does the driver have pause operations? The kernel answers ethtool's netlink pause request
 * with EOPNOTSUPP for a driver without get_pauseparam, as it does this ioctl, which needs no
 * generic netlink socket. Any other answer leaves it to the netlink request.
 */
static bool has_pause(int fd, const char *ifname)
{
	struct ethtool_pauseparam pp = { .cmd = ETHTOOL_GPAUSEPARAM };

	return nd_ctr_ethtool_ioctl(fd, ifname, &pp) != -EOPNOTSUPP;
}

struct pause_add {
	struct nd_ctr_build *b;
	struct rule_cache *rc;
	size_t i;
};

static int add_pause(void *data, const char *name, uint64_t value)
{
	struct pause_add *a = data;

	return cached_add(a->b, a->rc, a->i++, ND_CTR_PAUSE, name, value);
}

/* 802.3x pause statistics from ethtool netlink; a kernel or driver without them is not an error. */
static int read_pause(struct nd_sampler *s, struct port_state *p, struct nd_ctr_build *b,
		      struct nd_err *e)
{
	struct pause_add a = { b, &p->pause_rc, 0 };
	int ret;

	if (!p->pause_ops || !genl_link(s))
		return 0;
	ret = nd_ctr_pause_read(&s->genl, s->ethtool_family, p->ifname, add_pause, &a, e);
	switch (ret) {
	case 0:
	case -EOPNOTSUPP:
	case -ENOENT:
	case -EINVAL:
	case -ENODEV:
		return 0;
	default:
		return nd_err_wrap(e, "%s: read pause statistics (ethtool netlink)", p->ifname);
	}
}

static int collect(void *data, const char *name, uint64_t value)
{
	struct raw_list *l = data;

	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct raw_entry *v = realloc(l->v, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		l->v = v;
		l->cap = cap;
	}
	nd_strlcpy(l->v[l->n].name, name, sizeof(l->v[l->n].name));
	l->v[l->n++].value = value;
	return 0;
}

static int rdma_stat(struct nd_sampler *s, struct port_state *p, struct nd_err *e)
{
	p->rdma.n = 0;
	if (!p->index_valid) {
		if (nd_ctr_rdma_index(&s->rdma, p->ibdev, &p->rdma_index, e))
			return -1;
		p->index_valid = true;
	}
	return nd_ctr_rdma_stat(&s->rdma, p->rdma_index, p->port, collect, &p->rdma, e);
}

/* RDMA netlink statistics; false when they could not be had and sysfs must do. */
static bool rdma_netlink(struct nd_sampler *s, struct port_state *p, struct nd_ctr_build *b)
{
	struct nd_err ignored = { 0 };
	size_t i;
	int ret;

	if (s->rooted)
		return false;
	if (s->rdma_state == LINK_UNTRIED)
		s->rdma_state = nd_nl_open(&s->rdma, NETLINK_RDMA, &ignored) ? LINK_NONE : LINK_OK;
	if (s->rdma_state != LINK_OK)
		return false;
	ret = rdma_stat(s, p, &ignored);
	/* the device was re-created under a new index since we looked it up */
	if (ret && p->index_valid) {
		p->index_valid = false;
		ret = rdma_stat(s, p, &ignored);
	}
	if (ret)
		return false;
	for (i = 0; i < p->rdma.n; i++)
		if (cached_add(b, &p->rdma_rc, i, ND_CTR_RDMA, p->rdma.v[i].name,
			       p->rdma.v[i].value))
			return false;
	return true;
}

static int read_rdma(struct nd_sampler *s, struct port_state *p, struct nd_ctr_build *b,
		     struct nd_err *e)
{
	int ret;

	b->smp->rdma_netlink = rdma_netlink(s, p, b);
	if (!b->smp->rdma_netlink) {
		ret = nd_ctr_read_hw_counters(b, p->ibdev, p->port);
		if (ret && ret != -ENOENT)
			return nd_err_set(e, ret, "%s: read %s/%u hw_counters: %s", p->ifname,
					  p->ibdev, p->port, strerror(-ret));
	}
	/* a device without PMA counters (soft-RoCE) is not looked at again until found out */
	if (p->known && !p->pma)
		return 0;
	ret = nd_ctr_read_pma(b, p->ibdev, p->port);
	if (ret && ret != -ENOENT)
		return nd_err_set(e, ret, "%s: read %s/%u PMA counters: %s", p->ifname, p->ibdev,
				  p->port, strerror(-ret));
	if (p->known && ret)
		return -ESTALE;
	p->pma = !ret;
	return 0;
}

static bool good_ifname(const char *ifname)
{
	size_t len = strlen(ifname);

	return len && len < ND_IFNAMSIZ && !strchr(ifname, '/') && strcmp(ifname, ".") &&
	       strcmp(ifname, "..");
}

static int read_all(struct nd_sampler *s, struct port_state *p, struct nd_ctr_build *b,
		    struct nd_err *e)
{
	size_t before;
	int ret;

	if (!s->rooted) {
		ret = nd_ctr_ethtool_read(p->et, s->fd, p->ifname, b, e);
		if (ret == -ENODEV)
			return nd_err_set(e, ret, "network device '%s' went away while sampled",
					  p->ifname);
		if (ret && ret != -EOPNOTSUPP)
			return ret;
		p->eth = nd_ctr_ethtool_count(p->et) > 0;
		before = b->adds;
		ret = read_pause(s, p, b, e);
		if (ret)
			return ret;
		p->pause = b->adds > before;
	}
	return p->have_rdma ? read_rdma(s, p, b, e) : 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void fill_port(const struct port_state *p, struct nd_sample *out)
{
	nd_strlcpy(out->ifname, p->ifname, sizeof(out->ifname));
	nd_strlcpy(out->driver, p->driver, sizeof(out->driver));
	if (p->have_rdma) {
		nd_strlcpy(out->ibdev, p->ibdev, sizeof(out->ibdev));
		out->ibport = p->port;
	}
}

typedef int (*reads_fn)(struct nd_sampler *s, struct port_state *p, struct nd_ctr_build *b,
			struct nd_err *e);

/* One sample of @p under one timestamp, the sources read by @reads. */
static int take(struct nd_sampler *s, struct port_state *p, struct nd_sample *out, reads_fn reads,
		struct nd_err *e)
{
	struct nd_ctr_build b;
	int ret;

	fill_port(p, out);
	if (nd_ctr_build_start(&b, out, &p->sel, &p->scratch))
		return nd_err_set(e, -ENOMEM, "out of memory");
	out->t_ns = now_ns();
	ret = reads(s, p, &b, e);
	if (ret) {
		nd_ctr_build_abort(&b);
		return ret;
	}
	if (nd_ctr_build_finish(&b))
		return nd_err_set(e, -ENOMEM, "out of memory");
	return 0;
}

static void forget_all(struct nd_sampler *s)
{
	struct port_state *q;

	for (q = s->ports; q; q = q->next)
		q->known = false;
}

/* Find out everything about @p, then read it: the first sample, and after any change. */
static int sample_full(struct nd_sampler *s, struct port_state *p, struct nd_sample *out,
		       struct nd_err *e)
{
	const char *drivers[2];
	struct nd_ctr_sel sel;
	unsigned int sources;
	int ret;

	p->known = false;
	/* the driver info ioctl says whether the device exists (sysfs under a fixture tree) */
	if (driver_of(s, p->ifname, p->driver, sizeof(p->driver)))
		return nd_err_set(e, -ENODEV,
				  "no network device '%s' (see 'ip link' for the names)", p->ifname);
	ret = rdma_port(p, e);
	if (ret)
		return ret;
	p->pause_ops = !s->rooted && has_pause(s->fd, p->ifname);
	p->rdma_driver[0] = '\0';
	if (p->have_rdma && nd_sys_link_name(p->rdma_driver, sizeof(p->rdma_driver),
					     "/sys/class/infiniband/%s/device/driver", p->ibdev))
		p->rdma_driver[0] = '\0';
	drivers[0] = p->driver;
	drivers[1] = p->rdma_driver;
	/* the sources read_all() reads for this port: a map of none of them is not parsed */
	sources = (s->rooted ? 0 : ND_CTR_SRC(ND_CTR_ETHTOOL)) |
		  (p->pause_ops ? ND_CTR_SRC(ND_CTR_PAUSE) : 0) |
		  (p->have_rdma ? ND_CTR_SRC(ND_CTR_RDMA) | ND_CTR_SRC(ND_CTR_PMA) : 0);
	ret = nd_ctr_select(&s->maps, drivers, 2, p->have_rdma ? p->ibdev : NULL, sources, &sel,
			    e);
	if (ret) {
		/* a broken map is bad input, as when all were read at the start */
		if (ret != -ENOMEM && e)
			e->code = -EINVAL;
		return ret == -ENOMEM ? ret : -EINVAL;
	}
	if (memcmp(&sel, &p->sel, sizeof(sel))) {
		p->sel = sel;
		p->pause_rc.n = 0;
		p->rdma_rc.n = 0;
	}
	ret = take(s, p, out, read_all, e);
	if (ret)
		return ret;
	p->found_ns = out->t_ns;
	p->known = s->ev.n > 0;
	return 0;
}

/* Only the reads, with what sample_full() found; any failure has it find out again. */
static int read_known(struct nd_sampler *s, struct port_state *p, struct nd_ctr_build *b,
		      struct nd_err *e)
{
	size_t before;
	int ret = 0;

	if (p->eth)
		ret = nd_ctr_ethtool_values(p->et, s->fd, p->ifname, b, e);
	if (!ret && p->pause) {
		before = b->adds;
		ret = read_pause(s, p, b, e);
		/* answered before, silent now: something changed */
		if (!ret && b->adds == before)
			ret = -ESTALE;
	}
	if (!ret && p->have_rdma)
		ret = read_rdma(s, p, b, e);
	return ret;
}

static void free_samples(struct nd_sample *out, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		nd_sample_free(&out[i]);
		memset(&out[i], 0, sizeof(out[i]));
	}
}

/*
 * One pass over the ports: a known one by its reads alone, any other found out (after a look
 * at the events). *@at: the port it stopped at. -ESTALE: an event came after some port was
 * read by its reads alone.
 */
static int sample_pass(struct nd_sampler *s, const char *const *ifnames, size_t n,
		       struct nd_sample *out, size_t *at, bool *fast, struct nd_err *e)
{
	struct nd_err ignored = { 0 };
	/* the clock once per pass for the rescan below, not once per port */
	uint64_t round_ns = now_ns();
	struct port_state *p;
	struct nd_sample *o;
	int ret;

	*fast = false;
	for (*at = 0; *at < n; (*at)++) {
		o = &out[*at];
		memset(o, 0, sizeof(*o));
		if (!good_ifname(ifnames[*at]))
			return nd_err_set(e, -ENODEV, "no network device '%s' (see 'ip link' for "
					  "the names)", ifnames[*at]);
		p = port_state(s, ifnames[*at]);
		if (!p)
			return nd_err_set(e, -ENOMEM, "out of memory");
		if (p->known && (p->have_rdma || round_ns < p->found_ns + RDMA_RESCAN_NS)) {
			ret = take(s, p, o, read_known, &ignored);
			if (!ret) {
				*fast = true;
				continue;
			}
			/* a failed read is @p's alone: it is found out again */
			nd_sample_free(o);
			memset(o, 0, sizeof(*o));
		}
		/* what came before this is covered by finding out again, for every port */
		if (nd_ctr_events_pending(&s->ev)) {
			if (*fast)
				return -ESTALE;
			forget_all(s);
		}
		ret = sample_full(s, p, o, e);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * The event sockets are looked at once, after all the reads: a watch of many ports pays one
 * system call per round for them, not one per port.
 */
int nd_sample_ports(struct nd_sampler *s, const char *const *ifnames, size_t n,
		    struct nd_sample *out, struct nd_err *e)
{
	bool fast;
	size_t at;
	int ret;

	links_init(s);
	ret = sample_pass(s, ifnames, n, out, &at, &fast, e);
	/*
	 * An event came (about any port: what it says is not read): values read by the reads
	 * alone may be of a port that changed, so every port is found out again.
	 */
	if (ret == -ESTALE || (!ret && fast && nd_ctr_events_pending(&s->ev))) {
		free_samples(out, ret ? at : n);
		forget_all(s);
		ret = sample_pass(s, ifnames, n, out, &at, &fast, e);
	}
	if (ret)
		free_samples(out, at);
	return ret;
}

int nd_sample_port(struct nd_sampler *s, const char *ifname, struct nd_sample *out,
		   struct nd_err *e)
{
	return nd_sample_ports(s, &ifname, 1, out, e);
}
