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

static int on_reply(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct peer_get *g = data;
	int ret = peer_dcbnl_parse(nlh, g->cmd, g->p);

	if (ret < 0)
		return nd_err_set(e, ret, "%s: a DCB reply that is not one", g->ifname);
	g->any |= ret > 0;
	return 0;
}

static int ask(struct nd_nl *nl, struct peer_get *g, struct nd_err *e)
{
	struct nlmsghdr *nlh = nd_dcb_put_request(nl->buf, g->cmd, g->ifname, ++nl->seq);

	/* CEE_GET is a GET too, which nd_dcb_put_request() only knows of IEEE_GET */
	nlh->nlmsg_type = RTM_GETDCB;
	return nd_nl_talk(nl, nlh, on_reply, g, e);
}

int peer_dcbnl_read(struct nd_nl *nl, const char *ifname, struct nd_peer *p, struct nd_err *e)
{
	struct peer_get g = { .ifname = ifname, .p = p, .cmd = DCB_CMD_IEEE_GET };
	int ret;

	memset(p, 0, sizeof(*p));
	ret = ask(nl, &g, e);
	if (!ret) {
		g.cmd = DCB_CMD_CEE_GET;
		/* a driver with IEEE operations only may refuse CEE_GET: IEEE's answer stands */
		if (ask(nl, &g, e))
			nd_err_clear(e);
	}
	if (ret == -EOPNOTSUPP || ret == -ENODEV || ret == -EINVAL) {
		nd_err_clear(e);
		return 0;	/* no DCB, so no DCBX engine to ask */
	}
	if (ret)
		return nd_err_wrap(e, "%s: dcbnl peer", ifname);
	if (!g.any)
		memset(p, 0, sizeof(*p));
	return g.any;
}

int nd_peer_from_dcbnl(const char *ifname, struct nd_peer *p, struct nd_err *e)
{
	struct nd_nl nl;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = nd_nl_open(&nl, NETLINK_ROUTE, e);
	if (ret)
		return ret;
	ret = peer_dcbnl_read(&nl, ifname, p, e);
	nd_nl_close(&nl);
	return ret;
}
