// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Netlink reply processing against byte layouts built from <linux/netlink.h>. */
#include <errno.h>
#include <string.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include "core/nl.h"
#include "unit.h"

#define SEQ 4242
#define PORTID 777

static char buf[4096];

/* One message: header with @type/@flags, then @len bytes of @payload. */
static size_t put_msg(size_t off, uint16_t type, uint16_t flags, uint32_t seq, const void *payload,
		      size_t len)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)(buf + off);

	nlh->nlmsg_len = (uint32_t)(NLMSG_HDRLEN + len);
	nlh->nlmsg_type = type;
	nlh->nlmsg_flags = flags;
	nlh->nlmsg_seq = seq;
	nlh->nlmsg_pid = PORTID;
	memcpy(buf + off + NLMSG_HDRLEN, payload, len);
	return off + NLMSG_ALIGN(nlh->nlmsg_len);
}

/* An error/ack message; @msg adds an NLMSGERR_ATTR_MSG TLV after a capped echo. */
static size_t put_err(size_t off, int error, const char *msg)
{
	char payload[512];
	struct nlmsgerr *err = (struct nlmsgerr *)payload;
	size_t len = sizeof(*err);
	uint16_t flags = NLM_F_CAPPED;

	memset(payload, 0, sizeof(payload));
	err->error = error;
	err->msg.nlmsg_len = NLMSG_HDRLEN;
	err->msg.nlmsg_seq = SEQ;
	if (msg) {
		struct nlattr *nla = (struct nlattr *)(payload + len);

		nla->nla_type = NLMSGERR_ATTR_MSG;
		nla->nla_len = (uint16_t)(NLA_HDRLEN + strlen(msg) + 1);
		memcpy(payload + len + NLA_HDRLEN, msg, strlen(msg) + 1);
		len += NLA_ALIGN(nla->nla_len);
		flags |= NLM_F_ACK_TLVS;
	}
	return put_msg(off, NLMSG_ERROR, flags, SEQ, payload, len);
}

static int seen;

static int count_cb(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	(void)data;
	(void)e;
	ck_assert_uint_eq(nlh->nlmsg_type, 78);
	seen++;
	return 0;
}

static int fail_cb(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	(void)nlh;
	(void)data;
	return nd_err_set(e, -EPROTO, "callback refused");
}

START_TEST(ack_ends_exchange)
{
	struct nd_err e = { 0 };
	uint32_t word = 0x11223344;
	size_t len;

	seen = 0;
	len = put_msg(0, 78, 0, SEQ, &word, sizeof(word));
	len = put_err(len, 0, NULL);
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, count_cb, NULL, &e), 0);
	ck_assert_int_eq(seen, 1);
}
END_TEST

START_TEST(reply_without_ack_asks_for_more)
{
	struct nd_err e = { 0 };
	uint32_t word = 0;
	size_t len;

	seen = 0;
	len = put_msg(0, 78, NLM_F_MULTI, SEQ, &word, sizeof(word));
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, count_cb, NULL, &e), 1);
	ck_assert_int_eq(seen, 1);
}
END_TEST

START_TEST(error_carries_extack)
{
	struct nd_err e = { 0 };
	size_t len = put_err(0, -EINVAL, "ETS bandwidth must sum to 100");

	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EINVAL);
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_str_eq(e.msg, "Invalid argument (kernel: \"ETS bandwidth must sum to 100\")");
}
END_TEST

START_TEST(error_uncapped_echo_then_extack)
{
	struct nd_err e = { 0 };
	char payload[256] = { 0 };
	struct nlmsgerr *err = (struct nlmsgerr *)payload;
	struct nlattr *nla;
	size_t len = sizeof(*err) + 8;	/* the echoed request carries 8 bytes of its own */

	err->error = -EPERM;
	err->msg.nlmsg_len = NLMSG_HDRLEN + 8;
	nla = (struct nlattr *)(payload + len);
	nla->nla_type = NLMSGERR_ATTR_MSG;
	nla->nla_len = NLA_HDRLEN + 4;
	memcpy(payload + len + NLA_HDRLEN, "nop", 4);
	len += NLA_HDRLEN + 4;
	len = put_msg(0, NLMSG_ERROR, NLM_F_ACK_TLVS, SEQ, payload, len);
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EPERM);
	ck_assert_str_eq(e.msg, "Operation not permitted (kernel: \"nop\")");
}
END_TEST

START_TEST(error_without_extack)
{
	struct nd_err e = { 0 };
	size_t len = put_err(0, -EOPNOTSUPP, NULL);

	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "Operation not supported");
}
END_TEST

START_TEST(error_code_garbage)
{
	struct nd_err e = { 0 };
	size_t len = put_err(0, 17, NULL);

	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
	len = put_err(0, -100000, NULL);
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
}
END_TEST

START_TEST(extack_unterminated_is_dropped)
{
	struct nd_err e = { 0 };
	size_t len = put_err(0, -EIO, "abc");

	/* overwrite the string's NUL: the message must be ignored, not read past its end */
	buf[NLMSG_HDRLEN + sizeof(struct nlmsgerr) + NLA_HDRLEN + 3] = 'x';
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EIO);
	ck_assert_str_eq(e.msg, "Input/output error");
}
END_TEST

START_TEST(done_ends_dump)
{
	struct nd_err e = { 0 };
	int zero = 0;
	size_t len;

	seen = 0;
	len = put_msg(0, 78, NLM_F_MULTI, SEQ, &zero, sizeof(zero));
	len = put_msg(len, 78, NLM_F_MULTI, SEQ, &zero, sizeof(zero));
	len = put_msg(len, NLMSG_DONE, NLM_F_MULTI, SEQ, &zero, sizeof(zero));
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, count_cb, NULL, &e), 0);
	ck_assert_int_eq(seen, 2);
}
END_TEST

START_TEST(stale_sequence_skipped)
{
	struct nd_err e = { 0 };
	int zero = 0;
	size_t len;

	seen = 0;
	len = put_msg(0, 99, 0, SEQ - 1, &zero, sizeof(zero));	/* count_cb would fail on 99 */
	len = put_msg(len, 78, 0, SEQ, &zero, sizeof(zero));
	len = put_err(len, 0, NULL);
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, count_cb, NULL, &e), 0);
	ck_assert_int_eq(seen, 1);
}
END_TEST

START_TEST(wrong_portid)
{
	struct nd_err e = { 0 };
	size_t len = put_err(0, 0, NULL);

	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID + 1, NULL, NULL, &e), -EPROTO);
}
END_TEST

START_TEST(truncated_replies)
{
	struct nd_err e = { 0 };
	size_t len = put_err(0, 0, NULL);
	struct nlmsghdr *nlh = (struct nlmsghdr *)buf;

	ck_assert_int_eq(nd_nl_process(buf, 3, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
	ck_assert_int_eq(nd_nl_process(buf, len - 1, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
	nlh->nlmsg_len = 4;	/* shorter than its own header */
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
	nlh->nlmsg_len = 4000;	/* longer than the datagram */
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
	/* the last message not padded to 4: libmnl's walks would read past the datagram */
	len = put_msg(0, 78, 0, SEQ, "abc", 3);
	ck_assert_int_eq(nd_nl_process(buf, len - 1, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
	/* an error message too short to hold its code */
	len = put_msg(0, NLMSG_ERROR, 0, SEQ, "ab", 2);
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, NULL, NULL, &e), -EBADMSG);
}
END_TEST

START_TEST(callback_error_stops)
{
	struct nd_err e = { 0 };
	int zero = 0;
	size_t len = put_msg(0, 78, 0, SEQ, &zero, sizeof(zero));

	len = put_err(len, 0, NULL);
	ck_assert_int_eq(nd_nl_process(buf, len, SEQ, PORTID, fail_cb, NULL, &e), -EPROTO);
	ck_assert_str_eq(e.msg, "callback refused");
}
END_TEST

START_TEST(err_wrap_keeps_reason)
{
	struct nd_err e = { 0 };

	nd_err_set(&e, -EIO, "Input/output error");
	ck_assert_int_eq(nd_err_wrap(&e, "%s: DCB %s", "nicsim0", "IEEE_SET"), -EIO);
	ck_assert_str_eq(e.msg, "nicsim0: DCB IEEE_SET: Input/output error");
	nd_err_clear(&e);
	ck_assert_int_eq(e.code, 0);
	ck_assert_str_eq(e.msg, "");
}
END_TEST

static int newlinks;

static int count_newlink(const struct nlmsghdr *nlh, void *data, struct nd_err *e)
{
	(void)data;
	(void)e;
	newlinks += nlh->nlmsg_type == RTM_NEWLINK;
	return 0;
}

/* Against the running kernel (no privilege needed): each talk consumes its reply and its ack. */
START_TEST(talk_waits_for_ack)
{
	struct nd_err e = { 0 };
	struct nd_nl nl;
	int round;

	ck_assert_int_eq(nd_nl_open(&nl, NETLINK_ROUTE, &e), 0);
	for (round = 0; round < 3; round++) {
		struct nlmsghdr *nlh = nd_nl_msg(&nl, RTM_GETLINK, NLM_F_ACK);
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

		ifi->ifi_index = 1;	/* lo */
		newlinks = 0;
		ck_assert_int_eq(nd_nl_talk(&nl, nlh, count_newlink, NULL, &e), 0);
		ck_assert_int_eq(newlinks, 1);
	}
	/* a kernel error comes back as its errno with a sentence */
	{
		struct nlmsghdr *nlh = nd_nl_msg(&nl, RTM_GETLINK, NLM_F_ACK);
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

		ifi->ifi_index = 0x7ffffff0;
		ck_assert_int_eq(nd_nl_talk(&nl, nlh, count_newlink, NULL, &e), -ENODEV);
		ck_assert_msg(strstr(e.msg, "No such device"), "%s", e.msg);
	}
	nd_nl_close(&nl);
}
END_TEST

static void put_getlink(struct nlmsghdr *nlh, size_t i, void *data)
{
	struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

	(void)data;
	/* every third a device that does not exist */
	ifi->ifi_index = i % 3 == 1 ? 0x7ffffff0 : 1;
}

static int each_newlink(const struct nlmsghdr *nlh, size_t i, void *data, struct nd_err *e)
{
	unsigned int *per = data;

	(void)e;
	ck_assert_uint_eq(nlh->nlmsg_type, RTM_NEWLINK);
	per[i]++;
	return 0;
}

/*
 * Against the running kernel: requests in libmnl batches (40: three sends), each answered on its
 * own, a failing one failing alone; the socket is clean after, as a plain talk shows.
 */
START_TEST(talk_each_batches)
{
	enum { N = 40 };
	unsigned int per[N] = { 0 };
	struct nd_err e = { 0 }, errs[N];
	struct nd_nl nl;
	int ret[N], i;

	memset(errs, 0, sizeof(errs));
	ck_assert_int_eq(nd_nl_open(&nl, NETLINK_ROUTE, &e), 0);
	ck_assert_int_eq(nd_nl_talk_each(&nl, N, RTM_GETLINK, 0, put_getlink, each_newlink, per,
					 ret, errs, &e), 0);
	for (i = 0; i < N; i++) {
		if (i % 3 == 1) {
			ck_assert_int_eq(ret[i], -ENODEV);
			ck_assert_msg(strstr(errs[i].msg, "No such device"), "%d: %s", i,
				      errs[i].msg);
			ck_assert_uint_eq(per[i], 0);
		} else {
			ck_assert_int_eq(ret[i], 0);
			ck_assert_uint_eq(per[i], 1);
		}
	}
	{
		struct nlmsghdr *nlh = nd_nl_msg(&nl, RTM_GETLINK, NLM_F_ACK);
		struct ifinfomsg *ifi = mnl_nlmsg_put_extra_header(nlh, sizeof(*ifi));

		ifi->ifi_index = 1;
		newlinks = 0;
		ck_assert_int_eq(nd_nl_talk(&nl, nlh, count_newlink, NULL, &e), 0);
		ck_assert_int_eq(newlinks, 1);
	}
	nd_nl_close(&nl);
}
END_TEST

/*
 * Requests built with libmnl in nd_nl_msg's buffer against the uapi's own layout macros: what is
 * put is laid out as NLA_HDRLEN/NLA_ALIGN say, walks back the same, each kind is checked as the kernel's
 * policy types are, and a walk stops at an attribute that runs past its message or nest.
 */
START_TEST(attrs_put_walk_check)
{
	struct nd_nl nl = { .buf = memset(buf, 0xaa, sizeof(buf)) };
	/* nd_nl_msg zeroes the request area: libmnl 1.0.4 leaves attribute padding as it was */
	struct nlmsghdr *nlh = nd_nl_msg(&nl, RTM_GETLINK, 0);
	const struct nlattr *a, *inner;
	struct nlattr *nest;
	unsigned int n = 0, sub = 0;
	uint32_t want;

	mnl_nlmsg_put_extra_header(nlh, 3);	/* a family header of 3 bytes, padded to 4 */
	ck_assert_uint_eq(nlh->nlmsg_len, NLMSG_HDRLEN + 4);
	mnl_attr_put_u8(nlh, 1, 7);
	mnl_attr_put_u16(nlh, 2, 0x1234);
	mnl_attr_put_u32(nlh, 3, 0xdeadbeef);
	mnl_attr_put_u64(nlh, 4, UINT64_C(0x0102030405060708));
	mnl_attr_put_strz(nlh, 5, "veth0");
	nest = mnl_attr_nest_start(nlh, 6);
	mnl_attr_put_u32(nlh, 1, 9);
	mnl_attr_put(nlh, 2, 0, NULL);
	mnl_attr_nest_end(nlh, nest);
	want = NLMSG_HDRLEN + 4 + 2 * NLA_ALIGN(NLA_HDRLEN + 1) + NLA_HDRLEN + 4 +
	       NLA_HDRLEN + 8 + NLA_ALIGN(NLA_HDRLEN + 6) + NLA_HDRLEN + NLA_HDRLEN + 4 +
	       NLA_HDRLEN;
	ck_assert_uint_eq(nlh->nlmsg_len, want);
	ck_assert_uint_eq(nest->nla_type, NLA_F_NESTED | 6);
	ck_assert_uint_eq(nest->nla_len, 2 * NLA_HDRLEN + 4 + NLA_HDRLEN);
	/* padding is zeroed, never the buffer's old bytes */
	ck_assert_uint_eq(((unsigned char *)buf)[NLMSG_HDRLEN + 4 + NLA_HDRLEN + 1], 0);
	nd_nl_attr_for_each(a, nlh, 3) {
		n++;
		switch (mnl_attr_get_type(a)) {
		case 1:
			ck_assert(nd_nl_attr_is(a, MNL_TYPE_U8) && !nd_nl_attr_is(a, MNL_TYPE_U16));
			ck_assert_uint_eq(mnl_attr_get_u8(a), 7);
			break;
		case 2:
			ck_assert(nd_nl_attr_is(a, MNL_TYPE_U16) && !nd_nl_attr_is(a, MNL_TYPE_U32));
			ck_assert_uint_eq(mnl_attr_get_u16(a), 0x1234);
			break;
		case 3:
			ck_assert(nd_nl_attr_is(a, MNL_TYPE_U32) && !nd_nl_attr_is(a, MNL_TYPE_U64));
			ck_assert_uint_eq(mnl_attr_get_u32(a), 0xdeadbeef);
			break;
		case 4:
			ck_assert(nd_nl_attr_is(a, MNL_TYPE_U64) && !nd_nl_attr_is(a, MNL_TYPE_U32));
			ck_assert(mnl_attr_get_u64(a) == UINT64_C(0x0102030405060708));
			break;
		case 5:
			ck_assert(nd_nl_attr_is(a, MNL_TYPE_NUL_STRING) &&
				  nd_nl_attr_is(a, MNL_TYPE_STRING));
			ck_assert_str_eq(mnl_attr_get_str(a), "veth0");
			break;
		case 6:
			ck_assert(nd_nl_attr_is(a, MNL_TYPE_NESTED));
			mnl_attr_for_each_nested(inner, a) {
				sub++;
				ck_assert(mnl_attr_get_type(inner) != 2 ||
					  (mnl_attr_get_payload_len(inner) == 0 &&
					   !nd_nl_attr_is(inner, MNL_TYPE_STRING) &&
					   !nd_nl_attr_is(inner, MNL_TYPE_NUL_STRING)));
			}
			break;
		default:
			ck_abort_msg("attribute type %u", mnl_attr_get_type(a));
		}
	}
	ck_assert_uint_eq(n, 6);
	ck_assert_uint_eq(sub, 2);
	/* a string without its NUL, a nest of 2 bytes: refused */
	nlh = mnl_nlmsg_put_header(buf);
	mnl_attr_put(nlh, 1, 3, "abc");
	mnl_attr_put(nlh, 2, 2, "xy");
	a = mnl_nlmsg_get_payload_offset(nlh, 0);
	ck_assert(!nd_nl_attr_is(a, MNL_TYPE_NUL_STRING) && nd_nl_attr_is(a, MNL_TYPE_STRING));
	ck_assert(!nd_nl_attr_is(mnl_attr_next(a), MNL_TYPE_NESTED));
	/* the second attribute claims more than the message holds: the walk ends before it */
	((struct nlattr *)mnl_attr_next(a))->nla_len = 64;
	n = 0;
	nd_nl_attr_for_each(a, nlh, 0)
		n++;
	ck_assert_uint_eq(n, 1);
	/* a message whose length is short of its aligned end bounds the walk by its length */
	nlh->nlmsg_len -= 1;
	((struct nlattr *)mnl_attr_next(mnl_nlmsg_get_payload_offset(nlh, 0)))->nla_len = 8;
	n = 0;
	nd_nl_attr_for_each(a, nlh, 0)
		n++;
	ck_assert_uint_eq(n, 1);
}
END_TEST

Suite *suite_nl(void)
{
	Suite *s = suite_create("netlink");
	TCase *tc = tcase_create("process");

	tcase_add_test(tc, ack_ends_exchange);
	tcase_add_test(tc, reply_without_ack_asks_for_more);
	tcase_add_test(tc, error_carries_extack);
	tcase_add_test(tc, error_uncapped_echo_then_extack);
	tcase_add_test(tc, error_without_extack);
	tcase_add_test(tc, error_code_garbage);
	tcase_add_test(tc, extack_unterminated_is_dropped);
	tcase_add_test(tc, done_ends_dump);
	tcase_add_test(tc, stale_sequence_skipped);
	tcase_add_test(tc, wrong_portid);
	tcase_add_test(tc, truncated_replies);
	tcase_add_test(tc, callback_error_stops);
	tcase_add_test(tc, err_wrap_keeps_reason);
	tcase_add_test(tc, talk_waits_for_ack);
	tcase_add_test(tc, talk_each_batches);
	tcase_add_test(tc, attrs_put_walk_check);
	suite_add_tcase(s, tc);
	return s;
}
