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

/* All but DCB, which nd_ports_read asks for every port at once; @port holds it already. */
static int port_read(struct nd_ctx *ctx, const char *name, struct nd_port *port,
		     struct nd_err *e)
{
	struct nd_err ecn_err = { 0 };
	int ret;

	ret = nd_link_get(ctx, name, &port->link, e);
	if (ret)
		return ret;
	/* ECN that cannot be read is reported as such, like DCB: the rest of the port still is */
	if (nd_ecn_read(name, port->link.bus_info, &port->ecn, &ecn_err)) {
		memset(&port->ecn, 0, sizeof(port->ecn));
		nd_strlcpy(port->ecn.note, ecn_err.msg, sizeof(port->ecn.note));
	}
	return nd_rdma_ports_of(name, port->rdma, ND_RDMA_PER_NETDEV, &port->n_rdma, 0, e);
}

/*
 * Every port's DCB in batched requests (one send for up to ND_NL_BATCH_MAX ports). A port
 * without DCB is an answer about that port, not a failure of the whole read.
 */
static int ports_dcb(struct nd_ctx *ctx, const char *const *names, size_t n,
		     struct nd_port *ports, struct nd_err *e)
{
	struct nd_dcb *dcbs = calloc(n ? n : 1, sizeof(*dcbs));
	struct nd_err *errs = calloc(n ? n : 1, sizeof(*errs));
	int *status = calloc(n ? n : 1, sizeof(*status));
	size_t i;
	int ret = -ENOMEM;

	if (!dcbs || !errs || !status)
		nd_err_set(e, ret, "out of memory to read %zu ports' DCB", n);
	else
		ret = nd_dcb_read_many(&ctx->rtnl, names, n, dcbs, status, errs, e);
	for (i = 0; !ret && i < n; i++) {
		ports[i].dcb = dcbs[i];
		ports[i].dcb_status = status[i];
		if (status[i])
			snprintf(ports[i].dcb_error, sizeof(ports[i].dcb_error), "%s", errs[i].msg);
	}
	free(dcbs);
	free(errs);
	free(status);
	return ret;
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
	ret = ports_dcb(ctx, names, n, ports, e);
	if (ret) {
		free(ports);
		ports = NULL;
		goto out;
	}
	for (done = 0; done < n; done++) {
		ret = port_read(ctx, names[done], &ports[done], e);
		if (ret) {
			nd_ports_free(ports, n);
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
