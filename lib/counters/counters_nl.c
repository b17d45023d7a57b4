// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Counters over netlink: ethtool's standard pause statistics (generic netlink, family resolved
 * by name) and RDMA netlink statistics (the same as `rdma statistic show link`). Replies are
 * parsed by functions of their own so tests feed them bytes; every attribute is type-checked and
 * unknown ones skipped, as the kernel adds attributes over time.
 */
#include <errno.h>
#include <string.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <rdma/rdma_netlink.h>

#include "counters.h"

#define NLDEV(cmd) RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd)

static bool genl_ok(const struct nlmsghdr *nlh)
{
	return nlh->nlmsg_len >= MNL_NLMSG_HDRLEN + MNL_ALIGN(sizeof(struct genlmsghdr));
}

int nd_ctr_parse_family(const struct nlmsghdr *nlh, uint16_t *id)
{
	const struct nlattr *attr;

	*id = 0;
	if (!genl_ok(nlh))
		return -EBADMSG;
	nd_nl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != CTRL_ATTR_FAMILY_ID)
			continue;
		if (!nd_nl_attr_is(attr, MNL_TYPE_U16))
			return -EBADMSG;
		*id = mnl_attr_get_u16(attr);
	}
	return *id ? 0 : -EBADMSG;
}

int nd_ctr_parse_pause(const struct nlmsghdr *nlh, nd_ctr_raw_fn fn, void *data,
		       struct nd_err *e)
{
	const struct nlattr *attr, *st;
	int ret;

	if (!genl_ok(nlh))
		return nd_err_set(e, -EBADMSG, "truncated ethtool pause reply");
	nd_nl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != ETHTOOL_A_PAUSE_STATS)
			continue;
		if (!nd_nl_attr_is(attr, MNL_TYPE_NESTED))
			return nd_err_set(e, -EBADMSG, "malformed ethtool pause statistics");
		mnl_attr_for_each_nested(st, attr) {
			uint16_t type = mnl_attr_get_type(st);

			if (type != ETHTOOL_A_PAUSE_STAT_TX_FRAMES &&
			    type != ETHTOOL_A_PAUSE_STAT_RX_FRAMES)
				continue;
			if (!nd_nl_attr_is(st, MNL_TYPE_U64))
				return nd_err_set(e, -EBADMSG, "malformed ethtool pause counter");
			ret = fn(data, type == ETHTOOL_A_PAUSE_STAT_TX_FRAMES ? "tx_pause_frames" :
						"rx_pause_frames", mnl_attr_get_u64(st));
			if (ret)
				return nd_err_set(e, ret, "out of memory for pause counters");
		}
	}
	return 0;
}

int nd_ctr_parse_rdma_dev(const struct nlmsghdr *nlh, uint32_t *index, char *name, size_t len)
{
	const struct nlattr *attr;
	bool have_index = false;

	name[0] = '\0';
	nd_nl_attr_for_each(attr, nlh, 0) {
		switch (mnl_attr_get_type(attr)) {
		case RDMA_NLDEV_ATTR_DEV_INDEX:
			if (!nd_nl_attr_is(attr, MNL_TYPE_U32))
				return -EBADMSG;
			*index = mnl_attr_get_u32(attr);
			have_index = true;
			break;
		case RDMA_NLDEV_ATTR_DEV_NAME:
			if (!nd_nl_attr_is(attr, MNL_TYPE_NUL_STRING))
				return -EBADMSG;
			nd_strlcpy(name, mnl_attr_get_str(attr), len);
			break;
		}
	}
	return have_index && name[0] ? 0 : -EBADMSG;
}

static int hw_entry(const struct nlattr *entry, nd_ctr_raw_fn fn, void *data, struct nd_err *e)
{
	const struct nlattr *attr;
	const char *name = NULL;
	uint64_t value = 0;
	bool have_value = false;

	if (!nd_nl_attr_is(entry, MNL_TYPE_NESTED))
		return nd_err_set(e, -EBADMSG, "malformed RDMA hw counter entry");
	mnl_attr_for_each_nested(attr, entry) {
		switch (mnl_attr_get_type(attr)) {
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME:
			if (!nd_nl_attr_is(attr, MNL_TYPE_NUL_STRING))
				return nd_err_set(e, -EBADMSG, "malformed RDMA hw counter name");
			name = mnl_attr_get_str(attr);
			break;
		case RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE:
			if (!nd_nl_attr_is(attr, MNL_TYPE_U64))
				return nd_err_set(e, -EBADMSG, "malformed RDMA hw counter value");
			value = mnl_attr_get_u64(attr);
			have_value = true;
			break;
		}
	}
	if (!name || !*name || !have_value)
		return nd_err_set(e, -EBADMSG, "RDMA hw counter entry without name or value");
	return fn(data, name, value) ? nd_err_set(e, -ENOMEM, "out of memory for RDMA counters") :
				       0;
}

int nd_ctr_parse_rdma_stat(const struct nlmsghdr *nlh, nd_ctr_raw_fn fn, void *data,
			   struct nd_err *e)
{
	const struct nlattr *attr, *entry;
	int ret;

	nd_nl_attr_for_each(attr, nlh, 0) {
		if (mnl_attr_get_type(attr) != RDMA_NLDEV_ATTR_STAT_HWCOUNTERS)
			continue;
		if (!nd_nl_attr_is(attr, MNL_TYPE_NESTED))
			return nd_err_set(e, -EBADMSG, "malformed RDMA hw counter table");
		mnl_attr_for_each_nested(entry, attr) {
			if (mnl_attr_get_type(entry) != RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY)
				continue;
			ret = hw_entry(entry, fn, data, e);
			if (ret)
				return ret;
		}
	}
	return 0;
}

static uint32_t group_id(const struct nlattr *grp, const char *name)
{
	const struct nlattr *a;
	uint32_t id = 0;
	bool named = false;

	if (!nd_nl_attr_is(grp, MNL_TYPE_NESTED))
		return 0;
	mnl_attr_for_each_nested(a, grp) {
		if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_ID &&
		    nd_nl_attr_is(a, MNL_TYPE_U32))
			id = mnl_attr_get_u32(a);
		else if (mnl_attr_get_type(a) == CTRL_ATTR_MCAST_GRP_NAME &&
			 nd_nl_attr_is(a, MNL_TYPE_NUL_STRING))
			named = !strcmp(mnl_attr_get_str(a), name);
	}
	return named ? id : 0;
}

uint32_t nd_ctr_parse_family_group(const struct nlmsghdr *nlh, const char *name)
{
	const struct nlattr *attr, *grp;
	uint32_t id = 0;

	if (!genl_ok(nlh))
		return 0;
	nd_nl_attr_for_each(attr, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(attr) != CTRL_ATTR_MCAST_GROUPS ||
		    !nd_nl_attr_is(attr, MNL_TYPE_NESTED))
			continue;
		mnl_attr_for_each_nested(grp, attr)
			if (!id)
				id = group_id(grp, name);
	}
	return id;
}

struct family_ctx {
	uint16_t *id;
	const char *group_name;
	uint32_t *group;
};

static int on_family(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct family_ctx *f = data;

	if (nd_ctr_parse_family(nlh, f->id))
		return nd_err_set(e, -EBADMSG, "malformed generic netlink family reply");
	if (f->group)
		*f->group = nd_ctr_parse_family_group(nlh, f->group_name);
	return 0;
}

int nd_ctr_genl_family(struct nd_nl *nl, const char *name, uint16_t *id, const char *group_name,
		       uint32_t *group, struct nd_err *e)
{
	struct nlmsghdr *nlh = nd_nl_msg(nl, GENL_ID_CTRL, 0);
	struct genlmsghdr *genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	struct family_ctx f = { id, group_name, group };

	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, name);
	*id = 0;
	if (group)
		*group = 0;
	return nd_nl_talk(nl, nlh, on_family, &f, e);
}

struct pause_ctx {
	nd_ctr_raw_fn fn;
	void *data;
};

static int on_pause(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct pause_ctx *p = data;

	return nd_ctr_parse_pause(nlh, p->fn, p->data, e);
}

int nd_ctr_pause_read(struct nd_nl *nl, uint16_t family, const char *ifname, nd_ctr_raw_fn fn,
		      void *data, struct nd_err *e)
{
	struct nlmsghdr *nlh = nd_nl_msg(nl, family, 0);
	struct genlmsghdr *genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	struct pause_ctx p = { fn, data };
	struct nlattr *nest;

	genl->cmd = ETHTOOL_MSG_PAUSE_GET;
	genl->version = ETHTOOL_GENL_VERSION;
	nest = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_HEADER);
	mnl_attr_put_strz(nlh, ETHTOOL_A_HEADER_DEV_NAME, ifname);
	mnl_attr_put_u32(nlh, ETHTOOL_A_HEADER_FLAGS, ETHTOOL_FLAG_STATS);
	mnl_attr_nest_end(nlh, nest);
	return nd_nl_talk(nl, nlh, on_pause, &p, e);
}

struct dev_find {
	const char *name;
	uint32_t index;
	bool found;
};

static int on_dev(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct dev_find *f = data;
	char name[64];
	uint32_t index = 0;

	(void)e;
	if (nlh->nlmsg_type != NLDEV(RDMA_NLDEV_CMD_GET) ||
	    nd_ctr_parse_rdma_dev(nlh, &index, name, sizeof(name)))
		return 0;
	if (!strcmp(name, f->name)) {
		f->index = index;
		f->found = true;
	}
	return 0;
}

int nd_ctr_rdma_index(struct nd_nl *nl, const char *ibdev, uint32_t *index, struct nd_err *e)
{
	struct nlmsghdr *nlh = nd_nl_msg(nl, NLDEV(RDMA_NLDEV_CMD_GET), NLM_F_DUMP);
	struct dev_find f = { .name = ibdev };
	int ret;

	ret = nd_nl_talk(nl, nlh, on_dev, &f, e);
	if (ret)
		return nd_err_wrap(e, "%s: list RDMA devices", ibdev);
	if (!f.found)
		return nd_err_set(e, -ENODEV, "%s: RDMA netlink does not list this device (another "
				  "network namespace?)", ibdev);
	*index = f.index;
	return 0;
}

struct stat_ctx {
	nd_ctr_raw_fn fn;
	void *data;
};

static int on_stat(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	struct stat_ctx *s = data;

	if (nlh->nlmsg_type != NLDEV(RDMA_NLDEV_CMD_STAT_GET))
		return 0;
	return nd_ctr_parse_rdma_stat(nlh, s->fn, s->data, e);
}

int nd_ctr_rdma_stat(struct nd_nl *nl, uint32_t index, unsigned int port, nd_ctr_raw_fn fn,
		     void *data, struct nd_err *e)
{
	struct nlmsghdr *nlh = nd_nl_msg(nl, NLDEV(RDMA_NLDEV_CMD_STAT_GET), 0);
	struct stat_ctx s = { fn, data };

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, index);
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, port);
	return nd_nl_talk(nl, nlh, on_stat, &s, e);
}
