// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The link partner as the NIC's own DCBX engine heard it, through dcbnl: IEEE_GET's
 * DCB_ATTR_IEEE_PEER_ETS, _PEER_PFC and _PEER_APP, and CEE_GET's DCB_ATTR_CEE_PEER_PG, _PEER_PFC
 * and _PEER_APP_TABLE. Drivers whose firmware or host agent negotiates DCBX fill them (qede,
 * cxgb4, liquidio have the operations); mlx5, ice and i40e do not, and their firmware agents keep
 * the frames from the host too (see nodrop-show(8)). A driver without an operation leaves its
 * attribute out; a kernel struct is copied only when the attribute is long enough for it.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "core/dcbnl.h"
#include "core/internal.h"
#include "peer_int.h"

struct peer_get {
	const char *ifname;
	uint8_t cmd;
	struct nd_peer *p;
	bool any;		/* a peer attribute came */
};

/* A kernel struct out of an attribute, only when it is all there. */
static bool take(const struct nlattr *a, void *dst, size_t size)
{
	if (mnl_attr_get_payload_len(a) < size)
		return false;
	memcpy(dst, mnl_attr_get_payload(a), size);
	return true;
}

static void from_ieee_ets(struct nd_peer *p, const struct ieee_ets *ets)
{
	p->ets.present = true;
	p->ets.willing = ets->willing;
	p->ets.cbs = ets->cbs;
	p->ets.max_tcs = ets->ets_cap ? ets->ets_cap : 8;
	for (int i = 0; i < 8; i++) {
		p->ets.prio_tc[i] = ets->prio_tc[i];
		p->ets.tc_bw[i] = ets->tc_tx_bw[i];
		p->ets.tsa[i] = ets->tc_tsa[i];
	}
}

/* Entries of a peer APP nest: IEEE's, or CEE's (whose priority is a bitmap) */
static void from_apps(struct nd_peer_app *v, size_t *n, const struct nlattr *nest, int type,
		      bool cee)
{
	const struct nlattr *a;

	mnl_attr_for_each_nested(a, nest) {
		struct dcb_app app;
		struct nd_peer_app *o;

		if (mnl_attr_get_type(a) != type || !take(a, &app, sizeof(app)) || *n >= ND_PEER_APP_MAX)
			continue;
		o = &v[(*n)++];
		o->sel = app.selector;
		o->protocol = app.protocol;
		o->prio = cee ? peer_cee_prio(app.priority) : app.priority;
	}
}

static void ieee_peer(struct peer_get *g, const struct nlattr *nest)
{
	const struct nlattr *a;
	struct ieee_ets ets;
	struct ieee_pfc pfc;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case DCB_ATTR_IEEE_PEER_ETS:
			if (take(a, &ets, sizeof(ets))) {
				from_ieee_ets(g->p, &ets);
				g->any = true;
			}
			break;
		case DCB_ATTR_IEEE_PEER_PFC:
			if (take(a, &pfc, sizeof(pfc))) {
				g->p->pfc.present = true;
				g->p->pfc.cap = pfc.pfc_cap;
				g->p->pfc.enable = pfc.pfc_en;
				g->p->pfc.mbc = pfc.mbc;
				g->any = true;
			}
			break;
		case DCB_ATTR_IEEE_PEER_APP:
			g->p->app_present = true;
			from_apps(g->p->app, &g->p->n_app, a, DCB_ATTR_IEEE_APP, false);
			g->any = true;
			break;
		}
	}
}

static void cee_peer(struct peer_get *g, const struct nlattr *nest)
{
	struct nd_peer_cee *c = &g->p->cee;
	const struct nlattr *a, *t;
	struct dcb_peer_app_info info;
	struct cee_pfc pfc;
	struct cee_pg pg;

	mnl_attr_for_each_nested(a, nest) {
		switch (mnl_attr_get_type(a)) {
		case DCB_ATTR_CEE_PEER_PG:
			if (!take(a, &pg, sizeof(pg)))
				break;
			c->present = c->pg_hdr.present = g->any = true;
			c->pg_hdr.willing = pg.willing;
			c->pg_hdr.error = pg.error;
			c->pg_hdr.enabled = pg.pg_en;
			c->pg_tcs = pg.tcs_supported;
			for (int i = 0; i < 8; i++) {
				c->pgid[i] = pg.prio_pg[i];
				c->pg_bw[i] = pg.pg_bw[i];
			}
			break;
		case DCB_ATTR_CEE_PEER_PFC:
			if (!take(a, &pfc, sizeof(pfc)))
				break;
			c->present = c->pfc_hdr.present = g->any = true;
			c->pfc_hdr.willing = pfc.willing;
			c->pfc_hdr.error = pfc.error;
			c->pfc_hdr.enabled = true;	/* the kernel struct has no enable bit */
			c->pfc_enable = pfc.pfc_en;
			c->pfc_tcs = pfc.tcs_supported;
			break;
		case DCB_ATTR_CEE_PEER_APP_TABLE:
			c->present = c->app_hdr.present = g->any = true;
			mnl_attr_for_each_nested(t, a)
				if (mnl_attr_get_type(t) == DCB_ATTR_CEE_PEER_APP_INFO &&
				    take(t, &info, sizeof(info))) {
					c->app_hdr.willing = info.willing;
					c->app_hdr.error = info.error;
				}
			c->app_hdr.enabled = true;
			from_apps(c->app, &c->n_app, a, DCB_ATTR_CEE_PEER_APP, true);
			break;
		}
	}
}

int peer_dcbnl_parse(const struct nlmsghdr *nlh, uint8_t cmd, struct nd_peer *p)
{
	struct peer_get g = { .cmd = cmd, .p = p };
	size_t hdrlen = MNL_ALIGN(sizeof(struct dcbmsg));
	const struct nlattr *a;

	if (nlh->nlmsg_type != RTM_GETDCB || nlh->nlmsg_len < MNL_NLMSG_HDRLEN + hdrlen)
		return -EBADMSG;
	nd_nl_attr_for_each(a, nlh, hdrlen) {
		if (cmd == DCB_CMD_IEEE_GET && mnl_attr_get_type(a) == DCB_ATTR_IEEE)
			ieee_peer(&g, a);
		else if (cmd == DCB_CMD_CEE_GET && mnl_attr_get_type(a) == DCB_ATTR_CEE)
			cee_peer(&g, a);
	}
	return g.any;
}

/* Request 2i asks port i's IEEE_GET, 2i+1 its CEE_GET: both parse into the port's peer. */
struct many {
	struct nd_peer_wait *w;
	bool *any;
};

static uint8_t many_cmd(size_t i)
{
	return i % 2 ? DCB_CMD_CEE_GET : DCB_CMD_IEEE_GET;
}

static void put_get(struct nlmsghdr *nlh, size_t i, void *data)
{
	const struct many *m = data;

	nd_dcb_put_body(nlh, many_cmd(i), m->w[i / 2].ifname);
}

static int on_reply(const struct nlmsghdr *nlh, size_t i, void *data, struct nd_err *e)
{
	struct many *m = data;
	int ret = peer_dcbnl_parse(nlh, many_cmd(i), &m->w[i / 2].peer);

	if (ret < 0)
		return nd_err_set(e, ret, "%s: a DCB reply that is not one", m->w[i / 2].ifname);
	m->any[i / 2] |= ret > 0;
	return 0;
}

int peer_dcbnl_read_many(struct nd_nl *nl, struct nd_peer_wait *w, size_t n, int *r,
			 struct nd_err *e)
{
	int *ret = calloc(2 * n + 1, sizeof(*ret));
	struct nd_err *errs = calloc(2 * n + 1, sizeof(*errs));
	struct many m = { w, calloc(n + 1, sizeof(bool)) };
	int err = -ENOMEM;
	size_t i;

	if (!ret || !errs || !m.any) {
		nd_err_set(e, err, "out of memory to ask %zu ports' DCBX engines", n);
	} else {
		for (i = 0; i < n; i++)
			memset(&w[i].peer, 0, sizeof(w[i].peer));
		err = nd_nl_talk_each(nl, 2 * n, RTM_GETDCB, 0, put_get, on_reply, &m, ret, errs,
				      e);
	}
	for (i = 0; !err && i < n; i++) {
		int ieee = ret[2 * i];

		/* a driver with IEEE operations only may refuse CEE_GET: IEEE's answer stands */
		nd_err_clear(&w[i].err);
		if (ieee == -EOPNOTSUPP || ieee == -ENODEV || ieee == -EINVAL) {
			r[i] = 0;	/* no DCB, so no DCBX engine to ask */
		} else if (ieee) {
			w[i].err = errs[2 * i];
			r[i] = nd_err_wrap(&w[i].err, "%s: dcbnl peer", w[i].ifname);
		} else {
			r[i] = m.any[i];
		}
		if (r[i] <= 0)
			memset(&w[i].peer, 0, sizeof(w[i].peer));
	}
	free(ret);
	free(errs);
	free(m.any);
	return err;
}

int nd_peer_from_dcbnl(const char *ifname, struct nd_peer *p, struct nd_err *e)
{
	struct nd_peer_wait *w = calloc(1, sizeof(*w));
	struct nd_nl nl;
	int ret, r = 0;

	memset(p, 0, sizeof(*p));
	if (!w)
		return nd_err_set(e, -ENOMEM, "out of memory to ask %s's DCBX engine", ifname);
	nd_strlcpy(w->ifname, ifname, sizeof(w->ifname));
	ret = nd_nl_open(&nl, NETLINK_ROUTE, e);
	if (!ret)
		ret = peer_dcbnl_read_many(&nl, w, 1, &r, e);
	if (!ret && r < 0)
		*e = w->err;
	if (!ret && r > 0)
		*p = w->peer;
	nd_nl_close(&nl);
	free(w);
	return ret ? ret : r;
}
