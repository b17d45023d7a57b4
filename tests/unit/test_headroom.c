// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PFC headroom models against reference/fabric-models.md's check values, their terms, the PFC
 * quanta timing, and the unit parsers headroom and sim share.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "nodrop.h"
#include "unit.h"

static const struct nd_hdrm_term *term_of(const struct nd_headroom *h, const char *key)
{
	size_t i;

	for (i = 0; i < h->n_terms; i++)
		if (!strcmp(h->terms[i].key, key))
			return &h->terms[i];
	ck_abort_msg("no term %s", key);
	return NULL;
}

static uint64_t basic(uint64_t mbps, double m)
{
	struct nd_err e = { 0 };
	struct nd_headroom h;

	ck_assert_int_eq(nd_headroom_required(mbps, m, 9216, ND_HDRM_BASIC, &h, &e), 0);
	ck_assert_uint_eq(h.xoff, h.size);
	ck_assert_uint_eq(h.xon, 0);
	return h.size;
}

/* Computed with the basic formula, MTU 9216 both sides (the reference's table). */
START_TEST(test_basic_check_values)
{
	ck_assert_uint_eq(basic(100000, 5), 44273);
	ck_assert_uint_eq(basic(100000, 40), 48648);
	ck_assert_uint_eq(basic(100000, 300), 81148);
	ck_assert_uint_eq(basic(400000, 5), 78852);
	ck_assert_uint_eq(basic(400000, 40), 96352);
	ck_assert_uint_eq(basic(400000, 300), 226352);
}
END_TEST

START_TEST(test_basic_terms)
{
	struct nd_hdrm_params p;
	struct nd_err e = { 0 };
	struct nd_headroom h;
	double sum = 0;
	size_t i;

	nd_hdrm_params_init(&p);
	p.speed_mbps = 100000;
	p.cable_m = 40;
	ck_assert_int_eq(nd_headroom_calc(&p, ND_HDRM_BASIC, &h, &e), 0);
	ck_assert_double_eq_tol(term_of(&h, "cable_round_trip")->bytes, 5000, 1e-6);
	ck_assert_double_eq_tol(term_of(&h, "frames_in_flight")->bytes, 18432, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "peer_response")->bytes, 394 * 64, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "mac_phy")->bytes, 0, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "gearbox")->bytes, 0, 1e-9);
	ck_assert_str_eq(term_of(&h, "cable_round_trip")->how, "2 x 40 m x 5 ns/m at 100 Gb/s");
	for (i = 0; i < h.n_terms; i++)
		sum += h.terms[i].bytes;
	ck_assert_uint_eq((uint64_t)ceil(sum), h.size);
	/* a different peer MTU, PHY bytes and a 500 ns gearbox (6250 B each way at 100G) */
	p.peer_mtu = 1500;
	p.mac_phy = 800;
	p.gearbox_ns = 500;
	ck_assert_int_eq(nd_headroom_calc(&p, ND_HDRM_BASIC, &h, &e), 0);
	ck_assert_double_eq_tol(term_of(&h, "frames_in_flight")->bytes, 9216 + 1500, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "gearbox")->bytes, 12500, 1e-6);
	ck_assert_uint_eq(h.size, 5000 + 10716 + 25216 + 800 + 12500);
}
END_TEST

static void spectrum(double m, uint64_t xoff, uint64_t size)
{
	struct nd_hdrm_params p;
	struct nd_err e = { 0 };
	struct nd_headroom h;

	nd_hdrm_params_init(&p);
	p.speed_mbps = 100000;
	p.cable_m = m;
	p.mtu = 9100;
	ck_assert_int_eq(nd_headroom_calc(&p, ND_HDRM_SPECTRUM, &h, &e), 0);
	ck_assert_uint_eq(h.xoff, xoff);
	ck_assert_uint_eq(h.xon, 19456);
	ck_assert_uint_eq(h.size, size);
	/* cell 144, 50 % small packets of 64 B against 1024 B: 1 + 2 x 100/8.5 % */
	ck_assert_double_eq_tol(h.occupancy, 1 + 2 * (6400.0 / 544) / 100, 1e-9);
}

/* SPC3 100G, port MTU 9100 (the reference's SONiC values). */
START_TEST(test_spectrum_check_values)
{
	spectrum(5, 48128, 67584);
	spectrum(40, 53248, 72704);
	spectrum(300, 94208, 113664);
}
END_TEST

START_TEST(test_spectrum_terms_add_up)
{
	struct nd_err e = { 0 };
	struct nd_headroom h;
	double sum = 0;
	size_t i;

	ck_assert_int_eq(nd_headroom_required(100000, 40, 9100, ND_HDRM_SPECTRUM, &h, &e), 0);
	for (i = 0; i < h.n_terms; i++)
		sum += h.terms[i].bytes;
	ck_assert_double_eq_tol(sum, (double)h.xoff, 1e-6);
	ck_assert_double_eq(term_of(&h, "compensation")->bytes, 2048);
	/* SPC4 has a bigger cell (192: occupancy 1 + 2 x 11.76 %) and the tile's 1500 B */
	{
		struct nd_hdrm_params p;

		nd_hdrm_params_init(&p);
		p.speed_mbps = 100000;
		p.cable_m = 40;
		p.mtu = 9100;
		p.asic = ND_SPC4;
		ck_assert_int_eq(nd_headroom_calc(&p, ND_HDRM_SPECTRUM, &h, &e), 0);
		ck_assert_double_eq_tol(term_of(&h, "tile")->bytes, 1500, 1e-9);
		ck_assert_double_eq_tol(h.occupancy, 1 + 2 * (6400.0 / 544) / 100, 1e-9);
		ck_assert_uint_eq(h.xoff % 1024, 0);
	}
}
END_TEST

/*
 * IEEE components at 100G, 40 m, MTU 9216 both sides, in bit times: 2 x (9216 x 8 + 160)
 * + 672 + 2 x 122880 + 201728 + 2 x 40 m x 5 ns x 100 Gb/s = 635936 BT = 79492 B.
 */
START_TEST(test_ieee_components)
{
	struct nd_err e = { 0 };
	struct nd_headroom h;

	ck_assert_int_eq(nd_headroom_required(100000, 40, 9216, ND_HDRM_IEEE, &h, &e), 0);
	ck_assert_double_eq_tol(term_of(&h, "max_frames")->bytes, 2 * (9216 * 8 + 160) / 8.0, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "pause_frame")->bytes, 84, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "interface")->bytes, 2 * 122880 / 8.0, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "peer_response")->bytes, 201728 / 8.0, 1e-9);
	ck_assert_double_eq_tol(term_of(&h, "cable_round_trip")->bytes, 5000, 1e-6);
	ck_assert_uint_eq(h.size, 79492);
	ck_assert_int_eq(nd_headroom_required(10000, 40, 9216, ND_HDRM_IEEE, &h, &e), 0);
	ck_assert_double_eq_tol(term_of(&h, "peer_response")->bytes, 30720 / 8.0, 1e-9);
	/* IEEE gives no interface delay at 400G: refused, with the speeds it knows */
	ck_assert_int_eq(nd_headroom_required(400000, 40, 9216, ND_HDRM_IEEE, &h, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "400 Gb/s"));
	ck_assert_ptr_nonnull(strstr(e.msg, "10G, 25G, 40G, 100G"));
}
END_TEST

START_TEST(test_bad_inputs)
{
	struct nd_err e = { 0 };
	struct nd_headroom h;

	ck_assert_int_eq(nd_headroom_required(150000, 40, 9216, ND_HDRM_BASIC, &h, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "150 Gb/s"));
	ck_assert_int_eq(nd_headroom_required(100000, 40, 10, ND_HDRM_BASIC, &h, &e), -EINVAL);
	ck_assert_int_eq(nd_headroom_required(100000, -1, 9216, ND_HDRM_BASIC, &h, &e), -EINVAL);
	ck_assert_int_eq(nd_headroom_required(100000, 40, 9216, ND_HDRM_MODEL_COUNT, &h, &e),
			 -EINVAL);
	ck_assert_uint_eq(nd_pfc_response_quanta(25000), 80);
	ck_assert_uint_eq(nd_pfc_response_quanta(800000), 905);
	ck_assert_uint_eq(nd_pfc_response_quanta(1000), 0);
	ck_assert_str_eq(nd_hdrm_model_name(ND_HDRM_SPECTRUM), "spectrum");
	ck_assert_str_eq(nd_spc_name(ND_SPC5), "spc5");
}
END_TEST

/* One quantum is 512 bit times: 65535 of them last 335.5 us at 100G, 83.9 us at 400G. */
START_TEST(test_pause_quanta_time)
{
	ck_assert_uint_eq(nd_pfc_quanta_ps(1, 100000), 5120);
	ck_assert_uint_eq(nd_pfc_quanta_ps(65535, 100000), 335539200);
	ck_assert_double_eq_tol(nd_pfc_quanta_ps(65535, 100000) / 1e6, 335.5, 0.05);
	ck_assert_double_eq_tol(nd_pfc_quanta_ps(65535, 400000) / 1e6, 83.9, 0.05);
	ck_assert_double_eq_tol(nd_pfc_quanta_ps(65535, 10000) / 1e9, 3.355, 0.0005);
}
END_TEST

START_TEST(test_units)
{
	struct nd_err e = { 0 };
	uint64_t v;
	double m;

	ck_assert_int_eq(nd_speed_parse("100G", &v, &e), 0);
	ck_assert_uint_eq(v, 100000000000ULL);
	ck_assert_int_eq(nd_speed_parse("25Gbit", &v, &e), 0);
	ck_assert_uint_eq(v, 25000000000ULL);
	ck_assert_int_eq(nd_speed_parse("40M", &v, &e), 0);
	ck_assert_uint_eq(v, 40000000);
	ck_assert_int_eq(nd_speed_parse("2.5G", &v, &e), 0);
	ck_assert_uint_eq(v, 2500000000ULL);
	ck_assert_int_eq(nd_speed_parse("100", &v, &e), -EINVAL);
	ck_assert_int_eq(nd_speed_parse("-100G", &v, &e), -EINVAL);
	ck_assert_int_eq(nd_speed_parse("1e3G", &v, &e), -EINVAL);
	ck_assert_int_eq(nd_speed_parse("nanG", &v, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "100G"));
	ck_assert_int_eq(nd_duration_parse("1.5us", &v, &e), 0);
	ck_assert_uint_eq(v, 1500000);
	ck_assert_int_eq(nd_duration_parse("10ms", &v, &e), 0);
	ck_assert_uint_eq(v, 10000000000ULL);
	ck_assert_int_eq(nd_duration_parse("0", &v, &e), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(nd_duration_parse("5", &v, &e), -EINVAL);
	ck_assert_int_eq(nd_duration_parse("5 years", &v, &e), -EINVAL);
	ck_assert_int_eq(nd_length_parse("40m", &m, &e), 0);
	ck_assert_double_eq(m, 40);
	ck_assert_int_eq(nd_length_parse("2.5", &m, &e), 0);
	ck_assert_double_eq(m, 2.5);
	ck_assert_int_eq(nd_length_parse("40km", &m, &e), -EINVAL);
}
END_TEST

Suite *suite_headroom(void)
{
	Suite *s = suite_create("headroom");
	TCase *tc = tcase_create("models");

	tcase_add_test(tc, test_basic_check_values);
	tcase_add_test(tc, test_basic_terms);
	tcase_add_test(tc, test_spectrum_check_values);
	tcase_add_test(tc, test_spectrum_terms_add_up);
	tcase_add_test(tc, test_ieee_components);
	tcase_add_test(tc, test_bad_inputs);
	tcase_add_test(tc, test_pause_quanta_time);
	tcase_add_test(tc, test_units);
	suite_add_tcase(s, tc);
	return s;
}
