// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stress: payload validation catches corruption anywhere, misordering, and tells overruns apart. */
#include <stdlib.h>
#include <string.h>

#include "stress/gen.h"
#include "unit.h"

#define SLOT 4096

START_TEST(payload_good)
{
	uint8_t *m = malloc(SLOT);
	struct nd_pl_hdr h;

	nd_pl_fill(m, SLOT, 7, 2, 5, 0, SLOT);
	nd_pl_stamp(m, 7, 2, 5, 1234, 1000);
	ck_assert(nd_pl_header(m, 1000, &h));
	ck_assert_uint_eq(h.seq, 1234);
	ck_assert_uint_eq(h.len, 1000);
	ck_assert_uint_eq(h.slot, 5);
	ck_assert_int_eq(nd_pl_check(m, 1000, 7, 2, 5, 1234, 0, false), ND_PL_OK);
	/* READ: a prefix of a slot filled for its whole size */
	nd_pl_stamp(m, 7, 2, 5, 5, SLOT);
	ck_assert_int_eq(nd_pl_check(m, 100, 7, 2, 5, 5, 0, true), ND_PL_OK);
	ck_assert_int_eq(nd_pl_check(m, 100, 7, 2, 5, 5, 0, false), ND_PL_CORRUPT);
	free(m);
}
END_TEST

START_TEST(payload_any_flipped_bit_is_corrupt)
{
	uint8_t *m = malloc(SLOT);
	size_t byte;
	int bit;

	nd_pl_fill(m, SLOT, 1, 0, 3, 0, SLOT);
	nd_pl_stamp(m, 1, 0, 3, 42, 257);
	/* every bit of a 257-byte message, header and body: the odd length has a short tail */
	for (byte = 0; byte < 257; byte++) {
		for (bit = 0; bit < 8; bit++) {
			m[byte] ^= (uint8_t)(1 << bit);
			ck_assert_int_eq(nd_pl_check(m, 257, 1, 0, 3, 42, 0, false), ND_PL_CORRUPT);
			m[byte] ^= (uint8_t)(1 << bit);
		}
	}
	ck_assert_int_eq(nd_pl_check(m, 257, 1, 0, 3, 42, 0, false), ND_PL_OK);
	free(m);
}
END_TEST

START_TEST(payload_identity)
{
	uint8_t *m = malloc(SLOT);

	nd_pl_fill(m, SLOT, 1, 0, 3, 9, 512);
	/* another flow's, another QP's, another slot's message: corrupt (misplaced) */
	ck_assert_int_eq(nd_pl_check(m, 512, 2, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 1, 3, 9, 0, false), ND_PL_CORRUPT);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 0, 4, 9, 0, false), ND_PL_CORRUPT);
	/* the length the header claims must be what arrived */
	ck_assert_int_eq(nd_pl_check(m, 511, 1, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	/* the body follows the slot the header names: a body from slot 4 under slot 3 fails */
	nd_pl_fill(m, SLOT, 1, 0, 4, 9, 512);
	nd_pl_stamp(m, 1, 0, 3, 9, 512);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	memset(m, 0, SLOT);
	ck_assert_int_eq(nd_pl_check(m, 512, 1, 0, 3, 9, 0, false), ND_PL_CORRUPT);
	free(m);
}
END_TEST

START_TEST(payload_order)
{
	uint8_t *m = malloc(SLOT);

	nd_pl_fill(m, SLOT, 1, 0, 3, 11, 64);
	/* expected 10, got 11: out of order */
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 10, 0, false), ND_PL_MISORDERED);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 12, 0, false), ND_PL_MISORDERED);
	/* 8 target slots: 11 + 8 is a later message that rewrote the slot first */
	nd_pl_stamp(m, 1, 0, 3, 19, 64);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 11, 8, false), ND_PL_OVERRUN);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 11, 0, false), ND_PL_MISORDERED);
	ck_assert_int_eq(nd_pl_check(m, 64, 1, 0, 3, 12, 8, false), ND_PL_MISORDERED);
	free(m);
}
END_TEST

START_TEST(payload_short_header)
{
	uint8_t m[ND_PL_HDR] = { 0 };
	struct nd_pl_hdr h;

	nd_pl_stamp(m, 1, 0, 0, 0, ND_PL_HDR);
	ck_assert(nd_pl_header(m, ND_PL_HDR, &h));
	ck_assert(!nd_pl_header(m, ND_PL_HDR - 1, &h));
	ck_assert_int_eq(nd_pl_check(m, ND_PL_HDR, 1, 0, 0, 0, 0, false), ND_PL_OK);
}
END_TEST

Suite *suite_gen_payload(void)
{
	Suite *s = suite_create("gen_payload");
	TCase *tc = tcase_create("payload");

	tcase_add_test(tc, payload_good);
	tcase_add_test(tc, payload_any_flipped_bit_is_corrupt);
	tcase_add_test(tc, payload_identity);
	tcase_add_test(tc, payload_order);
	tcase_add_test(tc, payload_short_header);
	suite_add_tcase(s, tc);
	return s;
}
