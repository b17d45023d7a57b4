// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * dcbnl (DCB over rtnetlink): one DCB_CMD_IEEE_GET returns ETS, PFC, maxrate, buffer, the APP
 * table, the apptrust table where the driver has one, and the DCBX mode.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "dcbnl.h"
#include "internal.h"

static const char *const tsa_names[] = {
	[IEEE_8021QAZ_TSA_STRICT] = "strict",
	[IEEE_8021QAZ_TSA_CB_SHAPER] = "cbs",
	[IEEE_8021QAZ_TSA_ETS] = "ets",
};

const char *nd_tsa_name(uint8_t tsa)
{
	if (tsa == IEEE_8021QAZ_TSA_VENDOR)
		return "vendor";
	if (tsa < sizeof(tsa_names) / sizeof(tsa_names[0]) && tsa_names[tsa])
		return tsa_names[tsa];
	return "unknown";
}

static const char *const selector_names[] = {
	[IEEE_8021QAZ_APP_SEL_ETHERTYPE] = "ethtype",
	[IEEE_8021QAZ_APP_SEL_STREAM] = "stream-port",
	[IEEE_8021QAZ_APP_SEL_DGRAM] = "dgram-port",
	[IEEE_8021QAZ_APP_SEL_ANY] = "port",
	[IEEE_8021QAZ_APP_SEL_DSCP] = "dscp",
};

const char *nd_app_selector_name(uint8_t selector)
{
	if (selector == ND_DCB_APP_SEL_PCP)
		return "pcp";
	if (selector < sizeof(selector_names) / sizeof(selector_names[0]) &&
	    selector_names[selector])
		return selector_names[selector];
	return "unknown";
}

const char *nd_trust_name(enum nd_trust trust)
{
	return trust == ND_TRUST_DSCP ? "dscp" : "pcp";
}

void nd_dcb_free(struct nd_dcb *dcb)
{
	free(dcb->apps);
	memset(dcb, 0, sizeof(*dcb));
}

enum nd_trust nd_dcb_trust(const struct nd_dcb *dcb, enum nd_trust_source *source)
{
	size_t i;

	if (dcb->have & ND_DCB_HAVE_TRUST) {
		if (source)
			*source = ND_TRUST_SRC_TABLE;
		for (i = 0; i < dcb->n_trust; i++) {
			if (dcb->trust[i] == IEEE_8021QAZ_APP_SEL_DSCP)
				return ND_TRUST_DSCP;
			if (dcb->trust[i] == ND_DCB_APP_SEL_PCP)
				return ND_TRUST_PCP;
		}
		return ND_TRUST_PCP;
	}
	if (source)
		*source = ND_TRUST_SRC_APP;
	for (i = 0; i < dcb->n_apps; i++)
		if (dcb->apps[i].selector == IEEE_8021QAZ_APP_SEL_DSCP)
			return ND_TRUST_DSCP;
	return ND_TRUST_PCP;
}

void nd_dcb_dscp_map(const struct nd_dcb *dcb, int dscp2prio[ND_DSCP_MAX])
{
	size_t i;

	for (i = 0; i < ND_DSCP_MAX; i++)
		dscp2prio[i] = -1;
	for (i = 0; i < dcb->n_apps; i++) {
		const struct dcb_app *app = &dcb->apps[i];

		if (app->selector == IEEE_8021QAZ_APP_SEL_DSCP && app->protocol < ND_DSCP_MAX)
			dscp2prio[app->protocol] = app->priority;
	}
}

void nd_dcb_put_body(struct nlmsghdr *nlh, uint8_t cmd, const char *ifname)
{
	struct dcbmsg *dcb = mnl_nlmsg_put_extra_header(nlh, sizeof(*dcb));

	dcb->dcb_family = AF_UNSPEC;
	dcb->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, ifname);
}

struct nlmsghdr *nd_dcb_put_request(void *buf, uint8_t cmd, const char *ifname, uint32_t seq)
{
	struct nlmsghdr *nlh;

	memset(buf, 0, ND_NL_REQ_MAX);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = cmd == DCB_CMD_IEEE_GET || cmd == DCB_CMD_GDCBX ? RTM_GETDCB : RTM_SETDCB;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	nd_dcb_put_body(nlh, cmd, ifname);
	return nlh;
}

/* Copy a fixed-size kernel struct out of an attribute; a longer one is a newer kernel's, fine. */
static int get_struct(const struct nlattr *attr, void *dst, size_t size, const char *what,
		      struct nd_err *e)
{
	size_t len = mnl_attr_get_payload_len(attr);

	if (len < size)
		return nd_err_set(e, -EBADMSG, "DCB %s attribute is %zu bytes, expected %zu",
				  what, len, size);
	memcpy(dst, mnl_attr_get_payload(attr), size);
	return 0;
}

static int nest_for_each(const struct nlattr *nest, int (*fn)(const struct nlattr *, void *,
							       struct nd_err *),
			 void *data, struct nd_err *e)
{
	const struct nlattr *attr;
	int ret;

	mnl_attr_for_each_nested(attr, nest) {
		ret = fn(attr, data, e);
		if (ret)
			return ret;
	}
	/* a walk stops silently at a malformed attribute; a parser of outside input must not */
	if (nd_nl_walk_cut(attr, nd_nl_nest_end(nest)))
		return nd_err_set(e, -EBADMSG, "malformed attribute inside a DCB nest");
	return 0;
}

static int add_app(const struct nlattr *attr, void *data, struct nd_err *e)
{
	struct nd_dcb *dcb = data;
	struct dcb_app *app;
	int type = mnl_attr_get_type(attr), ret;

	if (type != DCB_ATTR_IEEE_APP && type != ND_DCB_ATTR_DCB_APP)
		return 0;
	if (dcb->n_apps >= ND_DCB_APPS_MAX)
		return nd_err_set(e, -E2BIG, "DCB APP table has more than %d entries",
				  ND_DCB_APPS_MAX);
	app = nd_push((void **)&dcb->apps, &dcb->n_apps, sizeof(*app));
	if (!app)
		return nd_err_set(e, -ENOMEM, "out of memory for the DCB APP table");
	ret = get_struct(attr, app, sizeof(*app), "APP", e);
	if (ret)
		dcb->n_apps--;	/* a short attribute is no entry */
	return ret;
}

static int add_trust(const struct nlattr *attr, void *data, struct nd_err *e)
{
	struct nd_dcb *dcb = data;
	int type = mnl_attr_get_type(attr);

	if (type != DCB_ATTR_IEEE_APP && type != ND_DCB_ATTR_DCB_APP)
		return 0;
	if (mnl_attr_get_payload_len(attr) < 1)
		return nd_err_set(e, -EBADMSG, "empty DCB apptrust entry");
	if (dcb->n_trust >= ND_TRUST_MAX)
		return nd_err_set(e, -E2BIG, "DCB apptrust table has more than %d entries",
				  ND_TRUST_MAX);
	dcb->trust[dcb->n_trust++] = mnl_attr_get_u8(attr);
	return 0;
}

static int ieee_attr(const struct nlattr *attr, void *data, struct nd_err *e)
{
	struct nd_dcb *dcb = data;
	int ret = 0;

	switch (mnl_attr_get_type(attr)) {
	case DCB_ATTR_IEEE_ETS:
		ret = get_struct(attr, &dcb->ets, sizeof(dcb->ets), "ETS", e);
		dcb->have |= ND_DCB_HAVE_ETS;
		break;
	case DCB_ATTR_IEEE_PFC:
		ret = get_struct(attr, &dcb->pfc, sizeof(dcb->pfc), "PFC", e);
		dcb->have |= ND_DCB_HAVE_PFC;
		break;
	case DCB_ATTR_IEEE_MAXRATE:
		ret = get_struct(attr, &dcb->maxrate, sizeof(dcb->maxrate), "maxrate", e);
		dcb->have |= ND_DCB_HAVE_MAXRATE;
		break;
	case DCB_ATTR_DCB_BUFFER:
		ret = get_struct(attr, &dcb->buffer, sizeof(dcb->buffer), "buffer", e);
		dcb->have |= ND_DCB_HAVE_BUFFER;
		break;
	case DCB_ATTR_IEEE_APP_TABLE:
		ret = nest_for_each(attr, add_app, dcb, e);
		dcb->have |= ND_DCB_HAVE_APP;
		break;
	case ND_DCB_ATTR_IEEE_APP_TRUST_TABLE:
		ret = nest_for_each(attr, add_trust, dcb, e);
		dcb->have |= ND_DCB_HAVE_TRUST;
		break;
	}
	return ret;
}

static int app_cmp(const void *a, const void *b)
{
	const struct dcb_app *x = a, *y = b;

	if (x->selector != y->selector)
		return x->selector - y->selector;
	if (x->protocol != y->protocol)
		return x->protocol - y->protocol;
	return x->priority - y->priority;
}

int nd_dcb_parse(const struct nlmsghdr *nlh, const char *ifname, struct nd_dcb *dcb,
		 struct nd_err *e)
{
	const struct dcbmsg *msg;
	const struct nlattr *attr;
	size_t hdrlen = MNL_ALIGN(sizeof(*msg));
	bool named = false;
	int ret;

	if (nlh->nlmsg_type != RTM_GETDCB)
		return nd_err_set(e, -EPROTO, "unexpected netlink message type %u in a DCB reply",
				  nlh->nlmsg_type);
	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + hdrlen)
		return nd_err_set(e, -EBADMSG, "truncated DCB reply (%u bytes)", nlh->nlmsg_len);
	msg = mnl_nlmsg_get_payload(nlh);
	if (msg->cmd != DCB_CMD_IEEE_GET)
		return nd_err_set(e, -EPROTO, "DCB reply to command %u, expected IEEE_GET",
				  msg->cmd);
	nd_nl_attr_for_each(attr, nlh, hdrlen) {
		switch (mnl_attr_get_type(attr)) {
		case DCB_ATTR_IFNAME:
			if (!nd_nl_attr_is(attr, MNL_TYPE_NUL_STRING))
				return nd_err_set(e, -EBADMSG, "DCB reply with a malformed name");
			if (ifname && strcmp(mnl_attr_get_str(attr), ifname))
				return nd_err_set(e, -EPROTO, "DCB reply for '%s', asked for '%s'",
						  mnl_attr_get_str(attr), ifname);
			named = true;
			break;
		case DCB_ATTR_IEEE:
			ret = nest_for_each(attr, ieee_attr, dcb, e);
			if (ret)
				return ret;
			break;
		case DCB_ATTR_DCBX:
			if (mnl_attr_get_payload_len(attr) < 1)
				return nd_err_set(e, -EBADMSG, "empty DCB DCBX attribute");
			dcb->dcbx = mnl_attr_get_u8(attr);
			dcb->have |= ND_DCB_HAVE_DCBX;
			break;
		}
	}
	if (nd_nl_walk_cut(attr, nd_nl_msg_end(nlh)))
		return nd_err_set(e, -EBADMSG, "malformed attribute in a DCB reply");
	if (!named)
		return nd_err_set(e, -EBADMSG, "DCB reply without a device name");
	/* the kernel lists APP entries in insertion order; compare and print them in one order */
	if (dcb->n_apps)
		qsort(dcb->apps, dcb->n_apps, sizeof(*dcb->apps), app_cmp);
	return 0;
}

/* The ports of one read: request i is names[i]'s, its reply fills dcbs[i]. */
struct get_ctx {
	const char *const *names;
	struct nd_dcb *dcbs;
	bool *replied;
};

static void put_get(struct nlmsghdr *nlh, size_t i, void *data)
{
	const struct get_ctx *ctx = data;

	nd_dcb_put_body(nlh, DCB_CMD_IEEE_GET, ctx->names[i]);
}

static int on_reply(const struct nlmsghdr *nlh, size_t i, void *data, struct nd_err *e)
{
	struct get_ctx *ctx = data;

	if (ctx->replied[i])
		return nd_err_set(e, -EPROTO, "more than one DCB reply");
	ctx->replied[i] = true;
	return nd_dcb_parse(nlh, ctx->names[i], &ctx->dcbs[i], e);
}

int nd_dcb_read_many(struct nd_nl *nl, const char *const *names, size_t n, struct nd_dcb *dcbs,
		     int *ret, struct nd_err *errs, struct nd_err *e)
{
	struct get_ctx ctx = { names, dcbs, calloc(n ? n : 1, sizeof(bool)) };
	size_t i;
	int err;

	if (!ctx.replied)
		return nd_err_set(e, -ENOMEM, "out of memory to read %zu ports' DCB", n);
	memset(dcbs, 0, n * sizeof(*dcbs));
	err = nd_nl_talk_each(nl, n, RTM_GETDCB, 0, put_get, on_reply, &ctx, ret, errs, e);
	for (i = 0; i < n; i++) {
		if (!err && !ret[i] && !ctx.replied[i])
			ret[i] = nd_err_set(&errs[i], -EPROTO,
					    "the kernel acked DCB IEEE_GET without a reply");
		if (err || !ret[i])
			continue;
		nd_dcb_free(&dcbs[i]);
		if (ret[i] == -EOPNOTSUPP)
			nd_err_set(&errs[i], ret[i], "%s: DCB: not supported by driver", names[i]);
		else
			nd_err_wrap(&errs[i], "%s: DCB IEEE_GET", names[i]);
	}
	free(ctx.replied);
	if (err) {
		for (i = 0; i < n; i++)
			nd_dcb_free(&dcbs[i]);
		return nd_err_wrap(e, "DCB IEEE_GET of %zu port%s", n, n == 1 ? "" : "s");
	}
	return 0;
}

int nd_dcb_read(struct nd_nl *nl, const char *ifname, struct nd_dcb *dcb, struct nd_err *e)
{
	int ret = 0, err = nd_dcb_read_many(nl, &ifname, 1, dcb, &ret, e, e);

	return err ? err : ret;
}

/* IEEE_SET/IEEE_DEL and SDCBX answer in the reply payload, not in the ack: read it here. */
struct set_ctx {
	uint8_t cmd;
	int status;
	bool replied;
};

static int on_set_reply(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct set_ctx *ctx = data;
	const struct nlattr *attr;
	int want = ctx->cmd == DCB_CMD_SDCBX ? DCB_ATTR_DCBX : DCB_ATTR_IEEE;

	if (nlh->nlmsg_len < MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct dcbmsg)))
		return nd_err_set(e, -EBADMSG, "truncated DCB set reply");
	nd_nl_attr_for_each(attr, nlh, MNL_ALIGN(sizeof(struct dcbmsg))) {
		if (mnl_attr_get_type(attr) != want)
			continue;
		if (mnl_attr_get_payload_len(attr) < 1)
			return nd_err_set(e, -EBADMSG, "empty DCB status attribute");
		/* IEEE: (u8)errno from the driver, read back as int8; SDCBX: driver's own code */
		ctx->status = ctx->cmd == DCB_CMD_SDCBX ? mnl_attr_get_u8(attr) :
							  (int8_t)mnl_attr_get_u8(attr);
		ctx->replied = true;
	}
	return 0;
}

static const char *cmd_name(uint8_t cmd)
{
	switch (cmd) {
	case DCB_CMD_IEEE_SET:
		return "IEEE_SET";
	case DCB_CMD_IEEE_DEL:
		return "IEEE_DEL";
	case DCB_CMD_SDCBX:
		return "SDCBX";
	}
	return "?";
}

/* Send a built set request and turn every way it can fail into one errno and sentence. */
static int set_talk(struct nd_nl *nl, struct nlmsghdr *nlh, uint8_t cmd, const char *ifname,
		    const char *what, struct nd_err *e)
{
	struct set_ctx ctx = { .cmd = cmd };
	int ret;

	ret = nd_nl_talk(nl, nlh, on_set_reply, &ctx, e);
	if (ret) {
		if (ret == -EPERM) {
			char why[ND_ERR_MSG_MAX];

			/* the kernel's reason is in e->msg, which the new sentence overwrites */
			nd_strlcpy(why, e->msg, sizeof(why));
			return nd_err_set(e, ret, "%s: DCB %s %s: %s; writing DCB needs CAP_NET_ADMIN "
					  "(run as root; in a systemd unit, keep it in "
					  "CapabilityBoundingSet=)", ifname, cmd_name(cmd), what, why);
		}
		return nd_err_wrap(e, "%s: DCB %s %s", ifname, cmd_name(cmd), what);
	}
	if (!ctx.replied)
		return nd_err_set(e, -EPROTO, "%s: DCB %s %s: the kernel sent no status", ifname,
				  cmd_name(cmd), what);
	if (ctx.status == 0)
		return 0;
	if (cmd == DCB_CMD_SDCBX)
		return nd_err_set(e, -EINVAL, "%s: DCB SDCBX: the driver refused DCBX mode %s "
				  "(status %d); the driver or its firmware does not support it",
				  ifname, what, ctx.status);
	if (ctx.status < 0)
		return nd_err_set(e, ctx.status, "%s: DCB %s %s: the driver failed it: %s", ifname,
				  cmd_name(cmd), what, strerror(-ctx.status));
	/* ice passes positive driver codes through; they stop the rest of the message */
	return nd_err_set(e, -EIO, "%s: DCB %s %s: the driver failed it with status %d", ifname,
			  cmd_name(cmd), what, ctx.status);
}

int nd_dcb_set_attr(struct nd_nl *nl, const char *ifname, int attr, const void *data,
		    size_t len, struct nd_err *e)
{
	static const char *const names[] = {
		[DCB_ATTR_IEEE_ETS] = "ETS", [DCB_ATTR_IEEE_PFC] = "PFC",
		[DCB_ATTR_IEEE_MAXRATE] = "maxrate", [DCB_ATTR_DCB_BUFFER] = "buffer",
	};
	struct nlmsghdr *nlh = nd_dcb_put_request(nl->buf, DCB_CMD_IEEE_SET, ifname, ++nl->seq);
	struct nlattr *ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	const char *what = (size_t)attr < ND_ARRAY_SIZE(names) && names[attr] ? names[attr] : "?";

	mnl_attr_put(nlh, (uint16_t)attr, len, data);
	mnl_attr_nest_end(nlh, ieee);
	return set_talk(nl, nlh, DCB_CMD_IEEE_SET, ifname, what, e);
}

int nd_dcb_app(struct nd_nl *nl, const char *ifname, bool add, const struct dcb_app *app,
	       struct nd_err *e)
{
	uint8_t cmd = add ? DCB_CMD_IEEE_SET : DCB_CMD_IEEE_DEL;
	struct nlmsghdr *nlh = nd_dcb_put_request(nl->buf, cmd, ifname, ++nl->seq);
	struct nlattr *ieee, *table;
	char what[64];

	/* one entry per message: ice stops a message at its first refused entry */
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	table = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(*app), app);
	mnl_attr_nest_end(nlh, table);
	mnl_attr_nest_end(nlh, ieee);
	snprintf(what, sizeof(what), "APP %s %u:%u", nd_app_selector_name(app->selector),
		 app->protocol, app->priority);
	return set_talk(nl, nlh, cmd, ifname, what, e);
}

int nd_dcb_set_dcbx(struct nd_nl *nl, const char *ifname, uint8_t mode, struct nd_err *e)
{
	struct nlmsghdr *nlh = nd_dcb_put_request(nl->buf, DCB_CMD_SDCBX, ifname, ++nl->seq);
	char what[16];

	mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, mode);
	snprintf(what, sizeof(what), "0x%02x", mode);
	return set_talk(nl, nlh, DCB_CMD_SDCBX, ifname, what, e);
}
