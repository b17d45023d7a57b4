// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* dcbnl: request bytes as the kernel expects them, and IEEE_GET replies parsed strictly. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <linux/rtnetlink.h>

#include "core/dcbnl.h"
#include "unit.h"

static char buf[8192];

START_TEST(request_layout)
{
	struct nlmsghdr *nlh = nd_dcb_put_request(buf, DCB_CMD_IEEE_GET, "nicsim0", 7);
	const uint8_t *b = (const uint8_t *)buf;

	/* nlmsghdr 16 B, dcbmsg 4 B, then IFNAME: len 4 + "nicsim0\0" = 12 */
	ck_assert_uint_eq(nlh->nlmsg_len, 16 + 4 + 12);
	ck_assert_uint_eq(nlh->nlmsg_type, 78);	/* RTM_GETDCB */
	ck_assert_uint_eq(nlh->nlmsg_flags, NLM_F_REQUEST | NLM_F_ACK);
	ck_assert_uint_eq(nlh->nlmsg_seq, 7);
	ck_assert_uint_eq(b[16], AF_UNSPEC);
	ck_assert_uint_eq(b[17], 21);		/* DCB_CMD_IEEE_GET */
	ck_assert_uint_eq(b[18] | b[19], 0);
	ck_assert_uint_eq(b[20] | b[21] << 8, 12);	/* nla_len */
	ck_assert_uint_eq(b[22] | b[23] << 8, 1);	/* DCB_ATTR_IFNAME */
	ck_assert_mem_eq(b + 24, "nicsim0", 8);
	nlh = nd_dcb_put_request(buf, DCB_CMD_IEEE_SET, "x", 8);
	ck_assert_uint_eq(nlh->nlmsg_type, 79);	/* RTM_SETDCB */
}
END_TEST

START_TEST(kernel_struct_sizes)
{
	/* the sizes the kernel's nla_policy checks; a header mismatch would break every read */
	ck_assert_uint_eq(sizeof(struct ieee_ets), 59);
	ck_assert_uint_eq(sizeof(struct ieee_pfc), 136);
	ck_assert_uint_eq(sizeof(struct dcbnl_buffer), 44);
	ck_assert_uint_eq(sizeof(struct ieee_maxrate), 64);
	ck_assert_uint_eq(sizeof(struct dcb_app), 4);
}
END_TEST

struct reply_opts {
	bool ets, pfc, maxrate, buffer, trust, dcbx;
	int n_dscp;
	uint8_t dcb_cmd;
	const char *name;
};

/* A reply in the order and shape net/dcb/dcbnl.c builds it. */
static struct nlmsghdr *build_reply(const struct reply_opts *o)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nlattr *ieee, *app;
	struct dcbmsg *dm;
	int i;

	nlh->nlmsg_type = RTM_GETDCB;
	dm = mnl_nlmsg_put_extra_header(nlh, sizeof(*dm));
	dm->cmd = o->dcb_cmd ? o->dcb_cmd : DCB_CMD_IEEE_GET;
	if (o->name)
		mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, o->name);
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	if (o->ets) {
		struct ieee_ets ets = { .ets_cap = 8, .willing = 1 };

		for (i = 0; i < 8; i++) {
			ets.prio_tc[i] = (uint8_t)(i == 3 ? 1 : 0);
			ets.tc_tsa[i] = i < 2 ? IEEE_8021QAZ_TSA_ETS : IEEE_8021QAZ_TSA_STRICT;
		}
		ets.tc_tx_bw[0] = 50;
		ets.tc_tx_bw[1] = 50;
		mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ets), &ets);
	}
	if (o->maxrate) {
		struct ieee_maxrate m = { .tc_maxrate = { 0, 25000000 } };

		mnl_attr_put(nlh, DCB_ATTR_IEEE_MAXRATE, sizeof(m), &m);
	}
	if (o->pfc) {
		struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = 1 << 3, .delay = 40 };

		pfc.requests[3] = 12345;
		pfc.indications[3] = 678;
		mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	}
	if (o->buffer) {
		struct dcbnl_buffer b = { .prio2buffer = { 0, 0, 0, 1 }, .total_size = 262144 };

		b.buffer_size[0] = 130944;
		b.buffer_size[1] = 130944;
		mnl_attr_put(nlh, DCB_ATTR_DCB_BUFFER, sizeof(b), &b);
	}
	app = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_APP_TABLE);
	for (i = 0; i < o->n_dscp; i++) {
		struct dcb_app a = { .selector = IEEE_8021QAZ_APP_SEL_DSCP,
				     .protocol = (uint16_t)i, .priority = (uint8_t)(i >> 3) };

		mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(a), &a);
	}
	if (o->n_dscp) {
		struct dcb_app a = { .selector = IEEE_8021QAZ_APP_SEL_ETHERTYPE,
				     .protocol = 0x8915, .priority = 3 };

		mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(a), &a);
	}
	mnl_attr_nest_end(nlh, app);
	app = mnl_attr_nest_start(nlh, ND_DCB_ATTR_IEEE_REWR_TABLE);
	mnl_attr_nest_end(nlh, app);
	if (o->trust) {
		app = mnl_attr_nest_start(nlh, ND_DCB_ATTR_IEEE_APP_TRUST_TABLE);
		mnl_attr_put_u8(nlh, DCB_ATTR_IEEE_APP, IEEE_8021QAZ_APP_SEL_DSCP);
		mnl_attr_put_u8(nlh, ND_DCB_ATTR_DCB_APP, ND_DCB_APP_SEL_PCP);
		mnl_attr_nest_end(nlh, app);
	}
	mnl_attr_nest_end(nlh, ieee);
	if (o->dcbx)
		mnl_attr_put_u8(nlh, DCB_ATTR_DCBX, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	return nlh;
}

static const struct reply_opts full = {
	.ets = true, .pfc = true, .maxrate = true, .buffer = true, .dcbx = true, .n_dscp = 64,
	.name = "nicsim0",
};

START_TEST(parse_full_reply)
{
	struct nlmsghdr *nlh = build_reply(&full);
	struct nd_dcb dcb = { 0 };
	struct nd_err e = { 0 };
	enum nd_trust_source src;
	int map[ND_DSCP_MAX];

	ck_assert_int_eq(nd_dcb_parse(nlh, "nicsim0", &dcb, &e), 0);
	ck_assert_uint_eq(dcb.have, ND_DCB_HAVE_ETS | ND_DCB_HAVE_PFC | ND_DCB_HAVE_MAXRATE |
				    ND_DCB_HAVE_BUFFER | ND_DCB_HAVE_DCBX | ND_DCB_HAVE_APP);
	ck_assert_uint_eq(dcb.ets.ets_cap, 8);
	ck_assert_uint_eq(dcb.ets.prio_tc[3], 1);
	ck_assert_uint_eq(dcb.ets.tc_tx_bw[1], 50);
	ck_assert_uint_eq(dcb.pfc.pfc_en, 0x08);
	ck_assert_uint_eq(dcb.pfc.delay, 40);
	ck_assert_uint_eq(dcb.pfc.requests[3], 12345);
	ck_assert_uint_eq(dcb.pfc.indications[3], 678);
	ck_assert_uint_eq(dcb.maxrate.tc_maxrate[1], 25000000);
	ck_assert_uint_eq(dcb.buffer.total_size, 262144);
	ck_assert_uint_eq(dcb.buffer.prio2buffer[3], 1);
	ck_assert_uint_eq(dcb.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	ck_assert_uint_eq(dcb.n_apps, 65);
	/* sorted by selector: the ethertype entry (selector 1) leads, DSCP 0..63 follow */
	ck_assert_uint_eq(dcb.apps[0].protocol, 0x8915);
	ck_assert_uint_eq(dcb.apps[1].protocol, 0);
	ck_assert_uint_eq(dcb.apps[64].protocol, 63);
	ck_assert_int_eq(nd_dcb_trust(&dcb, &src), ND_TRUST_DSCP);
	ck_assert_int_eq(src, ND_TRUST_SRC_APP);
	nd_dcb_dscp_map(&dcb, map);
	ck_assert_int_eq(map[0], 0);
	ck_assert_int_eq(map[26], 3);
	ck_assert_int_eq(map[48], 6);
	ck_assert_int_eq(map[63], 7);
	nd_dcb_free(&dcb);
}
END_TEST

START_TEST(parse_minimal_reply)
{
	/* a driver with only PFC, no DSCP entries: trust derives to PCP, nothing else claimed */
	struct reply_opts o = { .pfc = true, .name = "eth1" };
	struct nlmsghdr *nlh = build_reply(&o);
	struct nd_dcb dcb = { 0 };
	struct nd_err e = { 0 };
	int map[ND_DSCP_MAX];

	ck_assert_int_eq(nd_dcb_parse(nlh, "eth1", &dcb, &e), 0);
	ck_assert_uint_eq(dcb.have, ND_DCB_HAVE_PFC | ND_DCB_HAVE_APP);
	ck_assert_uint_eq(dcb.n_apps, 0);
	ck_assert_int_eq(nd_dcb_trust(&dcb, NULL), ND_TRUST_PCP);
	nd_dcb_dscp_map(&dcb, map);
	ck_assert_int_eq(map[26], -1);
	nd_dcb_free(&dcb);
}
END_TEST

START_TEST(parse_trust_table)
{
	struct reply_opts o = { .trust = true, .name = "sw0p1" };
	struct nlmsghdr *nlh = build_reply(&o);
	struct nd_dcb dcb = { 0 };
	struct nd_err e = { 0 };
	enum nd_trust_source src;

	ck_assert_int_eq(nd_dcb_parse(nlh, "sw0p1", &dcb, &e), 0);
	ck_assert_uint_eq(dcb.n_trust, 2);
	ck_assert_uint_eq(dcb.trust[0], IEEE_8021QAZ_APP_SEL_DSCP);
	ck_assert_uint_eq(dcb.trust[1], ND_DCB_APP_SEL_PCP);
	/* an explicit table wins over the APP-derived guess, which would say PCP here */
	ck_assert_int_eq(nd_dcb_trust(&dcb, &src), ND_TRUST_DSCP);
	ck_assert_int_eq(src, ND_TRUST_SRC_TABLE);
	nd_dcb_free(&dcb);
}
END_TEST

START_TEST(parse_rejects_short_struct)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct nd_dcb dcb = { 0 };
	struct nd_err e = { 0 };
	struct dcbmsg *dm;
	struct nlattr *ieee;
	char ten[10] = { 0 };

	nlh->nlmsg_type = RTM_GETDCB;
	dm = mnl_nlmsg_put_extra_header(nlh, sizeof(*dm));
	dm->cmd = DCB_CMD_IEEE_GET;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "p0");
	ieee = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_ETS, sizeof(ten), ten);
	mnl_attr_nest_end(nlh, ieee);
	ck_assert_int_eq(nd_dcb_parse(nlh, "p0", &dcb, &e), -EBADMSG);
	ck_assert_str_eq(e.msg, "DCB ETS attribute is 10 bytes, expected 59");
	nd_dcb_free(&dcb);
}
END_TEST

START_TEST(parse_rejects_wrong_messages)
{
	struct reply_opts o = full;
	struct nd_dcb dcb = { 0 };
	struct nd_err e = { 0 };
	struct nlmsghdr *nlh;

	o.dcb_cmd = DCB_CMD_GDCBX;
	nlh = build_reply(&o);
	ck_assert_int_eq(nd_dcb_parse(nlh, "nicsim0", &dcb, &e), -EPROTO);
	nd_dcb_free(&dcb);

	nlh = build_reply(&full);
	ck_assert_int_eq(nd_dcb_parse(nlh, "other0", &dcb, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "DCB reply for 'nicsim0', asked for 'other0'");
	nd_dcb_free(&dcb);

	o = full;
	o.name = NULL;
	nlh = build_reply(&o);
	ck_assert_int_eq(nd_dcb_parse(nlh, "nicsim0", &dcb, &e), -EBADMSG);
	ck_assert_str_eq(e.msg, "DCB reply without a device name");
	nd_dcb_free(&dcb);

	nlh = build_reply(&full);
	nlh->nlmsg_type = RTM_NEWLINK;
	ck_assert_int_eq(nd_dcb_parse(nlh, "nicsim0", &dcb, &e), -EPROTO);
	nd_dcb_free(&dcb);

	nlh = build_reply(&full);
	nlh->nlmsg_len = NLMSG_HDRLEN + 2;
	ck_assert_int_eq(nd_dcb_parse(nlh, "nicsim0", &dcb, &e), -EBADMSG);
	nd_dcb_free(&dcb);
}
END_TEST

START_TEST(parse_rejects_broken_nest)
{
	struct nlmsghdr *nlh = build_reply(&full);
	struct nd_dcb dcb = { 0 };
	struct nd_err e = { 0 };
	struct nlattr *ieee;

	/* find the IEEE nest and make its first child claim more than the nest holds */
	ieee = (struct nlattr *)((char *)nlh + NLMSG_HDRLEN + 4 + 12);
	ck_assert_uint_eq(mnl_attr_get_type(ieee), DCB_ATTR_IEEE);
	((struct nlattr *)mnl_attr_get_payload(ieee))->nla_len = 0xfff0;
	ck_assert_int_eq(nd_dcb_parse(nlh, "nicsim0", &dcb, &e), -EBADMSG);
	nd_dcb_free(&dcb);
}
END_TEST

START_TEST(parse_truncations_never_crash)
{
	struct nlmsghdr *nlh = build_reply(&full);
	uint32_t full_len = nlh->nlmsg_len, len;
	char copy[8192];

	memcpy(copy, buf, full_len);
	/* every truncation of a valid reply: an error or a clean parse, and ASan watching */
	for (len = NLMSG_HDRLEN; len < full_len; len++) {
		struct nd_dcb dcb = { 0 };
		struct nd_err e = { 0 };
		struct nlmsghdr *t = malloc(len);
		int ret;

		memcpy(t, copy, len);
		t->nlmsg_len = len;
		ret = nd_dcb_parse(t, "nicsim0", &dcb, &e);
		ck_assert(ret == 0 || ret == -EBADMSG || ret == -EPROTO);
		nd_dcb_free(&dcb);
		free(t);
	}
}
END_TEST

START_TEST(parse_garbage_never_crashes)
{
	unsigned int seed = 1;
	int round;

	for (round = 0; round < 20000; round++) {
		struct nd_dcb dcb = { 0 };
		struct nd_err e = { 0 };
		struct nlmsghdr *nlh = build_reply(&full);
		uint32_t len = nlh->nlmsg_len, i, flips = 1 + rand_r(&seed) % 8;
		char *copy = malloc(len);

		memcpy(copy, buf, len);
		/* flip bytes anywhere after the header: lengths, types, payloads */
		for (i = 0; i < flips; i++)
			copy[NLMSG_HDRLEN + rand_r(&seed) % (len - NLMSG_HDRLEN)] =
				(char)rand_r(&seed);
		nd_dcb_parse((struct nlmsghdr *)copy, "nicsim0", &dcb, &e);
		nd_dcb_free(&dcb);
		free(copy);
	}
}
END_TEST

START_TEST(names)
{
	ck_assert_str_eq(nd_tsa_name(IEEE_8021QAZ_TSA_ETS), "ets");
	ck_assert_str_eq(nd_tsa_name(IEEE_8021QAZ_TSA_STRICT), "strict");
	ck_assert_str_eq(nd_tsa_name(IEEE_8021QAZ_TSA_VENDOR), "vendor");
	ck_assert_str_eq(nd_tsa_name(77), "unknown");
	ck_assert_str_eq(nd_app_selector_name(IEEE_8021QAZ_APP_SEL_DSCP), "dscp");
	ck_assert_str_eq(nd_app_selector_name(ND_DCB_APP_SEL_PCP), "pcp");
	ck_assert_str_eq(nd_app_selector_name(0), "unknown");
	ck_assert_str_eq(nd_app_selector_name(200), "unknown");
	ck_assert_str_eq(nd_trust_name(ND_TRUST_DSCP), "dscp");
}
END_TEST

Suite *suite_dcbnl(void)
{
	Suite *s = suite_create("dcbnl");
	TCase *tc = tcase_create("encode-decode");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, request_layout);
	tcase_add_test(tc, kernel_struct_sizes);
	tcase_add_test(tc, parse_full_reply);
	tcase_add_test(tc, parse_minimal_reply);
	tcase_add_test(tc, parse_trust_table);
	tcase_add_test(tc, parse_rejects_short_struct);
	tcase_add_test(tc, parse_rejects_wrong_messages);
	tcase_add_test(tc, parse_rejects_broken_nest);
	tcase_add_test(tc, parse_truncations_never_crash);
	tcase_add_test(tc, parse_garbage_never_crashes);
	tcase_add_test(tc, names);
	suite_add_tcase(s, tc);
	return s;
}
