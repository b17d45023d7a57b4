// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The RDMA device of a rank: which one and which port, its GID (RoCE) or LID (InfiniBand), the
 * netdev whose counters the verdict samples, and in rdma_cm mode the listening CM id. rdma_cm
 * ids carry librdmacm's own device contexts, so in that mode the device is taken from
 * rdma_get_devices() and the PD and CQ are made on the very context the ids use.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_rt.h"

#define GID_MAX 256

static bool port_active(struct ibv_context *ctx, uint8_t port)
{
	struct ibv_port_attr pa;

	return !ibv_query_port(ctx, port, &pa) && pa.state == IBV_PORT_ACTIVE;
}

/* The first port that is up, or @want when given. */
static int pick_port(struct ibv_context *ctx, unsigned int want, uint8_t *port)
{
	struct ibv_device_attr a;
	uint8_t p;

	if (ibv_query_device(ctx, &a))
		return -errno;
	if (want) {
		if (want > a.phys_port_cnt)
			return -ENOENT;
		*port = (uint8_t)want;
		return 0;
	}
	for (p = 1; p <= a.phys_port_cnt; p++) {
		if (port_active(ctx, p)) {
			*port = p;
			return 0;
		}
	}
	return -ENETDOWN;
}

/* From a context list: @name's, or the first with an active port. */
static struct ibv_context *pick_ctx(struct ibv_context **v, int n, const char *name,
				    unsigned int want_port, uint8_t *port)
{
	int i;

	for (i = 0; i < n; i++) {
		if (name[0] && strcmp(ibv_get_device_name(v[i]->device), name))
			continue;
		if (!pick_port(v[i], want_port, port) || name[0])
			return v[i];
	}
	return NULL;
}

static int open_verbs(struct nd_dev *d, const struct nd_stress_local *l, struct nd_err *e)
{
	struct ibv_context **open = NULL;
	int n = 0, i, ret = 0;

	d->list = ibv_get_device_list(&n);
	if (!d->list || !n)
		return nd_err_set(e, -ENODEV, "no RDMA device (ibv_devices lists none): load the "
				  "NIC's RDMA driver, or add a soft-RoCE device (rdma link add)");
	open = calloc((size_t)n, sizeof(*open));
	if (!open)
		return nd_err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < n; i++)
		if (!l->dev[0] || !strcmp(ibv_get_device_name(d->list[i]), l->dev))
			open[i] = ibv_open_device(d->list[i]);
	for (i = 0; i < n && !d->ctx; i++) {
		if (!open[i])
			continue;
		d->ctx = pick_ctx(&open[i], 1, l->dev, l->port, &d->port);
		open[i] = d->ctx ? NULL : open[i];
	}
	for (i = 0; i < n; i++)
		if (open[i])
			ibv_close_device(open[i]);
	free(open);
	if (!d->ctx)
		ret = -ENODEV;
	return ret;
}

static int open_cm(struct nd_dev *d, const struct nd_stress_local *l)
{
	int n = 0;

	d->cm_list = rdma_get_devices(&n);
	if (!d->cm_list)
		return -errno ? -errno : -ENODEV;
	d->ctx = pick_ctx(d->cm_list, n, l->dev, l->port, &d->port);
	return d->ctx ? 0 : -ENODEV;
}

static int first_name(const char *name, void *data)
{
	nd_strlcpy(data, name, ND_IFNAMSIZ);
	return 1;
}

/* The netdev under the port: the GID entry's, else the device's net/ directory (IPoIB). */
static void find_ifname(struct nd_dev *d, const struct ibv_gid_entry *g)
{
	char name[IF_NAMESIZE];

	if (g && g->ndev_ifindex && if_indextoname(g->ndev_ifindex, name)) {
		nd_strlcpy(d->ifname, name, sizeof(d->ifname));
		return;
	}
	nd_sys_dir(first_name, d->ifname, "/sys/class/infiniband/%s/device/net", d->name);
}

static void gid_to_addr(struct nd_dev *d)
{
	const uint8_t *g = d->gid.raw;

	if (!memcmp(g, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
		inet_ntop(AF_INET, g + 12, d->addr, sizeof(d->addr));
	else
		inet_ntop(AF_INET6, g, d->addr, sizeof(d->addr));
}

static int pick_gid(struct nd_dev *d, const struct nd_stress_local *l, struct nd_err *e)
{
	struct ibv_gid_entry *v = calloc(GID_MAX, sizeof(*v)), *mine;
	char why[160];
	ssize_t n, i;
	int at;

	if (!v)
		return nd_err_set(e, -ENOMEM, "out of memory");
	n = ibv_query_gid_table(d->ctx, v, GID_MAX, 0);
	/* only this port's entries */
	for (i = 0, at = 0; i < n; i++)
		if (v[i].port_num == d->port)
			v[at++] = v[i];
	n = n < 0 ? n : at;
	if (n < 0) {
		free(v);
		return nd_err_set(e, (int)n, "%s port %u: reading the GID table failed: %s",
				  d->name, d->port, strerror((int)-n));
	}
	if (l->gid_index >= 0) {
		for (i = 0; i < n && v[i].gid_index != (uint32_t)l->gid_index; i++)
			;
		at = i < n ? (int)i : -ENOENT;
		snprintf(why, sizeof(why), "there is no GID at index %d (rdma link; show_gids)",
			 l->gid_index);
	} else {
		at = nd_gen_pick_gid(v, (size_t)n, l->addr, why, sizeof(why));
	}
	if (at < 0) {
		free(v);
		return nd_err_set(e, at, "%s port %u: %s", d->name, d->port, why);
	}
	mine = &v[at];
	d->gid_index = (int)mine->gid_index;
	d->gid = mine->gid;
	find_ifname(d, mine);
	gid_to_addr(d);
	free(v);
	return 0;
}

static int listen_cm(struct nd_dev *d, struct nd_err *e)
{
	struct sockaddr_storage ss = { 0 };
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

	if (inet_pton(AF_INET, d->addr, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, d->addr, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	d->cm_ch = rdma_create_event_channel();
	if (!d->cm_ch || rdma_create_id(d->cm_ch, &d->listen, NULL, RDMA_PS_TCP))
		return nd_err_set(e, -errno, "rdma_cm: cannot create an id: %s (is rdma_ucm "
				  "loaded?)", strerror(errno));
	if (rdma_bind_addr(d->listen, (struct sockaddr *)&ss) || rdma_listen(d->listen, 1024))
		return nd_err_set(e, -errno, "rdma_cm: cannot listen on %s: %s", d->addr,
				  strerror(errno));
	if (d->listen->verbs != d->ctx)
		return nd_err_set(e, -EINVAL, "rdma_cm: %s belongs to %s, not %s: give the "
				  "device's own address (--addr) or its name (--dev)", d->addr,
				  ibv_get_device_name(d->listen->verbs->device), d->name);
	d->cm_port = ntohs(rdma_get_src_port(d->listen));
	return 0;
}

int nd_dev_open(struct nd_dev *d, const struct nd_stress_local *l, enum nd_connect conn,
		struct nd_err *e)
{
	int ret;

	memset(d, 0, sizeof(*d));
	ret = conn == ND_CONN_CM ? open_cm(d, l) : open_verbs(d, l, e);
	if (ret) {
		if (e && e->code)
			return ret;
		if (l->dev[0])
			return nd_err_set(e, -ENODEV, "no RDMA device '%s' with port %u "
					  "(ibv_devices lists them)", l->dev,
					  l->port ? l->port : 1);
		return nd_err_set(e, -ENODEV, "no RDMA device with an active port (ibv_devinfo "
				  "shows port states)%s", conn == ND_CONN_CM ?
				  "; rdma_cm also needs rdma_ucm loaded" : "");
	}
	nd_strlcpy(d->name, ibv_get_device_name(d->ctx->device), sizeof(d->name));
	if (ibv_query_device(d->ctx, &d->attr) || ibv_query_port(d->ctx, d->port, &d->pattr))
		return nd_err_set(e, -errno, "%s: cannot query the device: %s", d->name,
				  strerror(errno));
	if (d->pattr.state != IBV_PORT_ACTIVE)
		return nd_err_set(e, -ENETDOWN, "%s port %u is %s, not ACTIVE: bring its link up",
				  d->name, d->port, ibv_port_state_str(d->pattr.state));
	d->ib = d->pattr.link_layer == IBV_LINK_LAYER_INFINIBAND;
	ret = pick_gid(d, l, e);
	if (ret && !d->ib)
		return ret;
	if (ret) {
		nd_err_clear(e);	/* InfiniBand routes by LID: no GID needed */
		find_ifname(d, NULL);
	}
	if (conn == ND_CONN_CM)
		return listen_cm(d, e);
	return 0;
}

int nd_dev_setup(struct nd_dev *d, int cqe, struct nd_err *e)
{
	if (cqe > d->attr.max_cqe)
		return nd_err_set(e, -EINVAL, "%s: the job needs %d completion queue entries, the "
				  "device offers %d: fewer --qps or a smaller --tx-depth", d->name,
				  cqe, d->attr.max_cqe);
	d->pd = ibv_alloc_pd(d->ctx);
	if (!d->pd)
		return nd_err_set(e, -errno, "%s: ibv_alloc_pd failed: %s", d->name,
				  strerror(errno));
	d->ch = ibv_create_comp_channel(d->ctx);
	if (!d->ch)
		return nd_err_set(e, -errno, "%s: ibv_create_comp_channel failed: %s", d->name,
				  strerror(errno));
	d->cq = ibv_create_cq(d->ctx, cqe, NULL, d->ch, 0);
	if (!d->cq)
		return nd_err_set(e, -errno, "%s: ibv_create_cq of %d entries failed: %s",
				  d->name, cqe, strerror(errno));
	return 0;
}

void nd_dev_close(struct nd_dev *d)
{
	if (d->listen)
		rdma_destroy_id(d->listen);
	if (d->cm_ch)
		rdma_destroy_event_channel(d->cm_ch);
	if (d->cq)
		ibv_destroy_cq(d->cq);
	if (d->ch)
		ibv_destroy_comp_channel(d->ch);
	if (d->pd)
		ibv_dealloc_pd(d->pd);
	if (d->list) {
		if (d->ctx)
			ibv_close_device(d->ctx);
		ibv_free_device_list(d->list);
	}
	if (d->cm_list)
		rdma_free_devices(d->cm_list);
	memset(d, 0, sizeof(*d));
}

double nd_gen_link_gbps(const struct ibv_port_attr *pa)
{
	/* data rate per lane (after line coding) by IBV speed bit, and lanes by width bit */
	static const struct {
		uint8_t bit;
		double gbps;
	} speeds[] = {
		{ 1, 2 }, { 2, 4 }, { 4, 8 }, { 8, 10 }, { 16, 13.64 }, { 32, 25 }, { 64, 50 },
		{ 128, 100 }, { 255, 0 },
	};
	static const struct {
		uint8_t bit, lanes;
	} widths[] = { { 1, 1 }, { 2, 4 }, { 4, 8 }, { 8, 12 }, { 16, 2 } };
	double lane = 0;
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(speeds); i++)
		if (pa->active_speed == speeds[i].bit)
			lane = speeds[i].gbps;
	for (i = 0; i < ND_ARRAY_SIZE(widths); i++)
		if (pa->active_width == widths[i].bit)
			return lane * widths[i].lanes;
	return 0;
}
