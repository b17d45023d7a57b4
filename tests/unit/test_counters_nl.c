// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The netlink replies the counter sampler parses, from bytes built with libmnl: RDMA netlink's
 * hw counters and device list, ethtool's pause statistics, generic netlink's family lookup.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/ethtool_netlink.h>
#include <linux/genetlink.h>
#include <rdma/rdma_netlink.h>

#include "test_counters.h"
#include "unit.h"

static char nlbuf[8192];

struct seen {
	char name[8][64];
	uint64_t value[8];
	int n;
};

static int seen_cb(void *data, const char *name, uint64_t value)
{
	struct seen *s = data;

	ck_assert_int_lt(s->n, 8);
	strcpy(s->name[s->n], name);
	s->value[s->n++] = value;
	return 0;
}

/* Exactly two counters were passed on, these, in this order. */
static void seen_two(const struct seen *s, const char *n0, uint64_t v0, const char *n1, uint64_t v1)
{
	ck_assert_int_eq(s->n, 2);
	ck_assert_str_eq(s->name[0], n0);
	ck_assert_uint_eq(s->value[0], v0);
	ck_assert_str_eq(s->name[1], n1);
	ck_assert_uint_eq(s->value[1], v1);
}

static struct nlmsghdr *rdma_reply(uint16_t cmd)
{
	struct nlmsghdr *nlh;

	memset(nlbuf, 0, sizeof(nlbuf));
	nlh = mnl_nlmsg_put_header(nlbuf);
	nlh->nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, cmd);
	return nlh;
}

static void hw_entry(struct nlmsghdr *nlh, const char *name, uint64_t value)
{
	struct nlattr *e = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);

	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, name);
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, value);
	mnl_attr_nest_end(nlh, e);
}

START_TEST(rdma_stat_reply)
{
	struct nlmsghdr *nlh = rdma_reply(RDMA_NLDEV_CMD_STAT_GET);
	struct nd_err e = { 0 };
	struct seen s = { 0 };
	struct nlattr *table;

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 3);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "rxe0");
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_PORT_INDEX, 1);
	table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	hw_entry(nlh, "sent_pkts", 12);
	/* an attribute a later kernel might add inside the table is skipped */
	mnl_attr_put_u32(nlh, 999, 1);
	hw_entry(nlh, "rcvd_seq_err", 1ull << 40);
	mnl_attr_nest_end(nlh, table);
	ck_assert_int_eq(nd_ctr_parse_rdma_stat(nlh, seen_cb, &s, &e), 0);
	seen_two(&s, "sent_pkts", 12, "rcvd_seq_err", 1ull << 40);
}
END_TEST

START_TEST(rdma_stat_malformed)
{
	struct nlmsghdr *nlh = rdma_reply(RDMA_NLDEV_CMD_STAT_GET);
	struct nd_err e = { 0 };
	struct seen s = { 0 };
	struct nlattr *table, *entry;

	table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "x");
	/* a 32-bit value where the kernel sends 64 bits */
	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 5);
	mnl_attr_nest_end(nlh, entry);
	mnl_attr_nest_end(nlh, table);
	ck_assert_int_eq(nd_ctr_parse_rdma_stat(nlh, seen_cb, &s, &e), -EBADMSG);
	ck_assert_str_eq(e.msg, "malformed RDMA hw counter value");
	ck_assert_int_eq(s.n, 0);

	nlh = rdma_reply(RDMA_NLDEV_CMD_STAT_GET);
	table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, "x");
	mnl_attr_nest_end(nlh, entry);
	mnl_attr_nest_end(nlh, table);
	ck_assert_int_eq(nd_ctr_parse_rdma_stat(nlh, seen_cb, &s, &e), -EBADMSG);
	ck_assert_str_eq(e.msg, "RDMA hw counter entry without name or value");

	/* a name without its NUL */
	nlh = rdma_reply(RDMA_NLDEV_CMD_STAT_GET);
	table = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTERS);
	entry = mnl_attr_nest_start(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY);
	mnl_attr_put(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_NAME, 4, "abcd");
	mnl_attr_put_u64(nlh, RDMA_NLDEV_ATTR_STAT_HWCOUNTER_ENTRY_VALUE, 1);
	mnl_attr_nest_end(nlh, entry);
	mnl_attr_nest_end(nlh, table);
	ck_assert_int_eq(nd_ctr_parse_rdma_stat(nlh, seen_cb, &s, &e), -EBADMSG);
	ck_assert_int_eq(s.n, 0);
}
END_TEST

START_TEST(rdma_dev_reply)
{
	struct nlmsghdr *nlh = rdma_reply(RDMA_NLDEV_CMD_GET);
	uint32_t index = 0;
	char name[64];

	mnl_attr_put_u32(nlh, RDMA_NLDEV_ATTR_DEV_INDEX, 7);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_1");
	ck_assert_int_eq(nd_ctr_parse_rdma_dev(nlh, &index, name, sizeof(name)), 0);
	ck_assert_uint_eq(index, 7);
	ck_assert_str_eq(name, "mlx5_1");
	nlh = rdma_reply(RDMA_NLDEV_CMD_GET);
	mnl_attr_put_strz(nlh, RDMA_NLDEV_ATTR_DEV_NAME, "mlx5_1");
	ck_assert_int_eq(nd_ctr_parse_rdma_dev(nlh, &index, name, sizeof(name)), -EBADMSG);
}
END_TEST

static struct nlmsghdr *genl_reply(uint16_t family, uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct genlmsghdr *g;

	memset(nlbuf, 0, sizeof(nlbuf));
	nlh = mnl_nlmsg_put_header(nlbuf);
	nlh->nlmsg_type = family;
	g = mnl_nlmsg_put_extra_header(nlh, sizeof(*g));
	g->cmd = cmd;
	g->version = 1;
	return nlh;
}

START_TEST(pause_reply)
{
	struct nlmsghdr *nlh = genl_reply(21, ETHTOOL_MSG_PAUSE_GET_REPLY);
	struct nd_err e = { 0 };
	struct seen s = { 0 };
	struct nlattr *st;

	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put(nlh, ETHTOOL_A_PAUSE_STAT_PAD, 0, nlbuf);
	mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_TX_FRAMES, 5);
	mnl_attr_put_u64(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 6);
	mnl_attr_nest_end(nlh, st);
	ck_assert_int_eq(nd_ctr_parse_pause(nlh, seen_cb, &s, &e), 0);
	seen_two(&s, "tx_pause_frames", 5, "rx_pause_frames", 6);

	/* a driver without pause statistics: no nest, nothing */
	memset(&s, 0, sizeof(s));
	nlh = genl_reply(21, ETHTOOL_MSG_PAUSE_GET_REPLY);
	mnl_attr_put_u8(nlh, ETHTOOL_A_PAUSE_RX, 1);
	ck_assert_int_eq(nd_ctr_parse_pause(nlh, seen_cb, &s, &e), 0);
	ck_assert_int_eq(s.n, 0);

	nlh = genl_reply(21, ETHTOOL_MSG_PAUSE_GET_REPLY);
	st = mnl_attr_nest_start(nlh, ETHTOOL_A_PAUSE_STATS);
	mnl_attr_put_u16(nlh, ETHTOOL_A_PAUSE_STAT_RX_FRAMES, 6);
	mnl_attr_nest_end(nlh, st);
	ck_assert_int_eq(nd_ctr_parse_pause(nlh, seen_cb, &s, &e), -EBADMSG);

	/* shorter than its generic netlink header */
	nlh = genl_reply(21, ETHTOOL_MSG_PAUSE_GET_REPLY);
	nlh->nlmsg_len = MNL_NLMSG_HDRLEN + 2;
	ck_assert_int_eq(nd_ctr_parse_pause(nlh, seen_cb, &s, &e), -EBADMSG);
}
END_TEST

START_TEST(family_reply)
{
	struct nlmsghdr *nlh = genl_reply(GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	uint16_t id = 0;

	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, "ethtool");
	mnl_attr_put_u16(nlh, CTRL_ATTR_FAMILY_ID, 23);
	ck_assert_int_eq(nd_ctr_parse_family(nlh, &id), 0);
	ck_assert_uint_eq(id, 23);
	nlh = genl_reply(GENL_ID_CTRL, CTRL_CMD_NEWFAMILY);
	mnl_attr_put_u32(nlh, CTRL_ATTR_FAMILY_ID, 23);
	ck_assert_int_eq(nd_ctr_parse_family(nlh, &id), -EBADMSG);
}
END_TEST

TCase *tcase_counters_netlink(void)
{
	TCase *tc = tcase_create("netlink");

	tcase_add_test(tc, rdma_stat_reply);
	tcase_add_test(tc, rdma_stat_malformed);
	tcase_add_test(tc, rdma_dev_reply);
	tcase_add_test(tc, pause_reply);
	tcase_add_test(tc, family_reply);
	return tc;
}
