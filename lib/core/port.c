// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A port is a netdev, its DCB state and the RDMA ports on it: read together, as one picture.
 *
 * The core module (lib/core/) is everything the upper modules read the system through: netlink
 * (nl.c) and dcbnl (dcbnl.c), links via an rtnetlink dump (link.c), the RDMA ports of a netdev
 * (rdma.c), rdma_cm's RoCE defaults (roce.c), ECN/DCQCN backends (ecn.c), LLDP agents (lldp.c),
 * the rooted sysfs accessor that lets fixture trees stand in for hosts (sysfs.c), the YAML tree
 * with line:column (yamltree.c), errors and strings. This file puts them together per port.
 * It calls no other module; internal.h is what its files share with the modules above.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/netlink.h>

#include "dcbnl.h"
#include "internal.h"

int nd_ctx_new(struct nd_ctx **out, struct nd_err *e)
{
	struct nd_ctx *ctx = calloc(1, sizeof(*ctx));
	int ret;

	if (!ctx)
		return nd_err_set(e, -ENOMEM, "out of memory");
	ctx->ioctl_fd = -1;
	ret = nd_nl_open(&ctx->rtnl, NETLINK_ROUTE, e);
	if (!ret)
		ret = nd_link_open(ctx, e);
	if (ret) {
		nd_ctx_free(ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

void nd_ctx_free(struct nd_ctx *ctx)
{
	if (!ctx)
		return;
	nd_link_close(ctx);
	nd_nl_close(&ctx->rtnl);
	free(ctx);
}

void nd_ports_free(struct nd_port *ports, size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		nd_dcb_free(&ports[i].dcb);
	free(ports);
}

static int port_read(struct nd_ctx *ctx, const char *name, struct nd_port *port,
		     struct nd_err *e)
{
	struct nd_err dcb_err = { 0 };
	int ret;

	memset(port, 0, sizeof(*port));
	ret = nd_link_get(ctx, name, &port->link, e);
	if (ret)
		return ret;
	/* a port without DCB is an answer about that port, not a failure of the whole read */
	port->dcb_status = nd_dcb_read(&ctx->rtnl, name, &port->dcb, &dcb_err);
	if (port->dcb_status)
		snprintf(port->dcb_error, sizeof(port->dcb_error), "%s", dcb_err.msg);
	/* ECN that cannot be read is reported as such, like DCB: the rest of the port still is */
	nd_err_clear(&dcb_err);
	if (nd_ecn_read(name, port->link.bus_info, &port->ecn, &dcb_err)) {
		memset(&port->ecn, 0, sizeof(port->ecn));
		nd_strlcpy(port->ecn.note, dcb_err.msg, sizeof(port->ecn.note));
	}
	return nd_rdma_ports_of(name, port->rdma, ND_RDMA_PER_NETDEV, &port->n_rdma, 0, e);
}

struct names {
	char **v;
	size_t n;
	int err;
};

static int add_name(const char *name, void *data)
{
	struct names *names = data;

	return nd_strv_push(&names->v, &names->n, name);
}

int nd_ports_read(struct nd_ctx *ctx, const char *const *names, size_t n,
		  struct nd_port **out, size_t *count, struct nd_err *e)
{
	struct names all = { 0 };
	struct nd_port *ports = NULL;
	struct nd_link probe;
	size_t i, done = 0;
	int ret;

	*out = NULL;
	*count = 0;
	ret = nd_link_refresh(ctx, e);
	if (ret)
		return ret;
	if (!n) {
		ret = nd_link_each(ctx, add_name, &all);
		if (ret) {
			nd_err_set(e, ret, "cannot list network devices: %s", strerror(-ret));
			goto out;
		}
		names = (const char *const *)all.v;
		n = all.n;
	}
	/* every name is checked before anything is read, so a typo costs nothing */
	for (i = 0; i < n; i++) {
		ret = nd_link_get(ctx, names[i], &probe, e);
		if (ret)
			goto out;
	}
	ports = calloc(n ? n : 1, sizeof(*ports));
	if (!ports) {
		ret = nd_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (done = 0; done < n; done++) {
		ret = port_read(ctx, names[done], &ports[done], e);
		if (ret) {
			nd_ports_free(ports, done + 1);
			ports = NULL;
			goto out;
		}
	}
	*out = ports;
	*count = n;
out:
	for (i = 0; i < all.n; i++)
		free(all.v[i]);
	free(all.v);
	return ret;
}
