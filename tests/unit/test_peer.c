// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The LLDP decoder (lib/peer/lldpdu.c) against frames this file encodes from a seeded random
 * truth: 400 sets of TLVs (identities, 802.1Qaz ETS/PFC/APP with DSCP, 802.3 max frame, CEE
 * DCBX, a VLAN tag, unknown TLVs between them, in random order), each decoded and compared
 * field by field; then the frames a broken or hostile peer sends, each refused with a message
 * that names the TLV and byte, or read with the repeated feature dropped.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/rtnetlink.h>

#include "core/dcbnl.h"
#include "nodrop.h"
#include "peer/peer_int.h"
#include "unit.h"

#define FRAME_MAX 9216

struct frame {
	uint8_t b[FRAME_MAX];
	size_t n;
};

static void put(struct frame *f, const void *v, size_t n)
{
	ck_assert_uint_le(f->n + n, FRAME_MAX);
	if (n)
		memcpy(f->b + f->n, v, n);
	f->n += n;
}

static void put_tlv(struct frame *f, unsigned int type, const void *v, size_t n)
{
	uint8_t h[2] = { (uint8_t)(type << 1 | n >> 8), (uint8_t)n };

	put(f, h, 2);
	put(f, v, n);
}

static void put_org(struct frame *f, uint32_t oui, uint8_t sub, const void *v, size_t n)
{
	uint8_t b[512] = { (uint8_t)(oui >> 16), (uint8_t)(oui >> 8), (uint8_t)oui, sub };

	if (n)
		memcpy(b + 4, v, n);
	put_tlv(f, 127, b, n + 4);
}

/* Ethernet header to the LLDP multicast address, from 02:00:00:00:00:SRC */
static void start(struct frame *f, uint16_t vlan)
{
	static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x0e };
	uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x11 }, et[2] = { 0x88, 0xcc };

	f->n = 0;
	put(f, dst, 6);
	put(f, src, 6);
	if (vlan) {
		uint8_t tag[4] = { 0x81, 0x00, (uint8_t)(vlan >> 8), (uint8_t)vlan };

		put(f, tag, 4);
	}
	put(f, et, 2);
}

static void mandatory(struct frame *f, const char *chassis, const char *port, uint16_t ttl)
{
	uint8_t b[300];
	size_t n;

	b[0] = 7;			/* locally assigned */
	n = strlen(chassis);
	memcpy(b + 1, chassis, n);
	put_tlv(f, 1, b, n + 1);
	b[0] = 5;			/* interface name */
	n = strlen(port);
	memcpy(b + 1, port, n);
	put_tlv(f, 2, b, n + 1);
	b[0] = (uint8_t)(ttl >> 8);
	b[1] = (uint8_t)ttl;
	put_tlv(f, 3, b, 2);
}

static void end(struct frame *f)
{
	put_tlv(f, 0, NULL, 0);
}

static int decode(const struct frame *f, struct nd_peer *p, struct nd_err *e)
{
	memset(e, 0, sizeof(*e));
	return nd_lldp_decode(f->b, f->n, p, e);
}

static unsigned int pick(uint64_t *rng, unsigned int n)
{
	return (unsigned int)(unit_rand(rng) % n);
}

static void rand_text(uint64_t *rng, char *out, size_t max)
{
	size_t n = 1 + pick(rng, (unsigned int)max - 1);

	for (size_t i = 0; i < n; i++)
		out[i] = (char)('!' + pick(rng, 94));
	out[n] = '\0';
	/* the decoder escapes a backslash: keep the truth plain */
	for (size_t i = 0; i < n; i++)
		if (out[i] == '\\')
			out[i] = '/';
}

static void rand_ets(uint64_t *rng, struct nd_peer_ets *t, bool cfg)
{
	t->present = true;
	t->willing = cfg && pick(rng, 2);
	t->cbs = cfg && pick(rng, 2);
	t->max_tcs = cfg ? (uint8_t)(1 + pick(rng, 8)) : 0;
	for (int i = 0; i < 8; i++) {
		t->prio_tc[i] = (uint8_t)pick(rng, 8);
		t->tc_bw[i] = (uint8_t)pick(rng, 101);
		t->tsa[i] = (uint8_t)(pick(rng, 5) == 4 ? 255 : pick(rng, 4));
	}
}

static void enc_ets(struct frame *f, const struct nd_peer_ets *t, bool cfg)
{
	uint8_t b[21];

	b[0] = cfg ? (uint8_t)(t->willing << 7 | t->cbs << 6 | (t->max_tcs & 7)) : 0;
	for (int i = 0; i < 4; i++)
		b[1 + i] = (uint8_t)(t->prio_tc[2 * i] << 4 | t->prio_tc[2 * i + 1]);
	memcpy(b + 5, t->tc_bw, 8);
	memcpy(b + 13, t->tsa, 8);
	put_org(f, 0x0080c2, cfg ? 9 : 10, b, sizeof(b));
}

static void check_ets(const struct nd_peer_ets *got, const struct nd_peer_ets *want, bool cfg,
		      unsigned int seed)
{
	ck_assert_msg(got->present == want->present, "case %u: ETS present", seed);
	if (!want->present)
		return;
	if (cfg)
		ck_assert_msg(got->willing == want->willing && got->cbs == want->cbs &&
			      got->max_tcs == want->max_tcs, "case %u: ETS flags", seed);
	ck_assert_msg(!memcmp(got->prio_tc, want->prio_tc, 8) &&
		      !memcmp(got->tc_bw, want->tc_bw, 8) && !memcmp(got->tsa, want->tsa, 8),
		      "case %u: ETS tables", seed);
}

/* An organisationally specific TLV nobody here reads, or a TLV type nodrop skips */
static void enc_noise(uint64_t *rng, struct frame *f, unsigned int *count)
{
	uint8_t b[64];
	size_t n = pick(rng, sizeof(b));

	for (size_t i = 0; i < n; i++)
		b[i] = (uint8_t)unit_rand(rng);
	if (pick(rng, 2))
		put_org(f, 0x00000e + pick(rng, 5), (uint8_t)pick(rng, 256), b, n);
	else
		put_tlv(f, 6 + pick(rng, 3), b, n);	/* system description, capabilities, ... */
	(*count)++;
}

static void cee_sub(uint8_t *out, size_t *o, unsigned int type, const uint8_t *v, size_t n)
{
	out[(*o)++] = (uint8_t)(type << 1 | n >> 8);
	out[(*o)++] = (uint8_t)n;
	memcpy(out + *o, v, n);
	*o += n;
}

static void rand_cee_feat(uint64_t *rng, struct nd_peer_cee_feat *h, uint8_t *b)
{
	h->present = true;
	h->oper_version = (uint8_t)pick(rng, 3);
	h->max_version = (uint8_t)pick(rng, 3);
	h->enabled = pick(rng, 2);
	h->willing = pick(rng, 2);
	h->error = pick(rng, 2);
	b[0] = h->oper_version;
	b[1] = h->max_version;
	b[2] = (uint8_t)(h->enabled << 7 | h->willing << 6 | h->error << 5);
	b[3] = 0;
}

static void rand_cee(uint64_t *rng, struct frame *f, struct nd_peer_cee *c)
{
	uint8_t out[400], b[200];
	size_t o = 0;

	c->present = true;
	if (pick(rng, 4)) {
		c->control = true;
		c->oper_version = (uint8_t)pick(rng, 3);
		c->max_version = (uint8_t)pick(rng, 3);
		c->seq = (uint32_t)unit_rand(rng);
		c->ack = (uint32_t)unit_rand(rng);
		b[0] = c->oper_version;
		b[1] = c->max_version;
		for (int i = 0; i < 4; i++) {
			b[2 + i] = (uint8_t)(c->seq >> (24 - 8 * i));
			b[6 + i] = (uint8_t)(c->ack >> (24 - 8 * i));
		}
		cee_sub(out, &o, 1, b, 10);
	}
	if (pick(rng, 4)) {
		rand_cee_feat(rng, &c->pg_hdr, b);
		for (int i = 0; i < 8; i++) {
			c->pgid[i] = (uint8_t)(pick(rng, 9) == 8 ? 15 : pick(rng, 8));
			c->pg_bw[i] = (uint8_t)pick(rng, 101);
		}
		for (int i = 0; i < 4; i++)
			b[4 + i] = (uint8_t)(c->pgid[2 * i] << 4 | c->pgid[2 * i + 1]);
		memcpy(b + 8, c->pg_bw, 8);
		c->pg_tcs = b[16] = (uint8_t)(1 + pick(rng, 8));
		cee_sub(out, &o, 2, b, 17);
	}
	if (pick(rng, 4)) {
		rand_cee_feat(rng, &c->pfc_hdr, b);
		c->pfc_enable = b[4] = (uint8_t)unit_rand(rng);
		c->pfc_tcs = b[5] = (uint8_t)(1 + pick(rng, 8));
		cee_sub(out, &o, 3, b, 6);
	}
	if (pick(rng, 4)) {
		size_t k;

		rand_cee_feat(rng, &c->app_hdr, b);
		c->n_app = pick(rng, 8);
		for (k = 0; k < c->n_app; k++) {
			struct nd_peer_app *a = &c->app[k];
			uint8_t *e = b + 4 + 6 * k;

			a->sel = (uint8_t)pick(rng, 2);
			a->protocol = a->sel ? 4791 : 0x8906;
			a->prio = (uint8_t)pick(rng, 8);
			e[0] = (uint8_t)(a->protocol >> 8);
			e[1] = (uint8_t)a->protocol;
			e[2] = a->sel;		/* OUI 00-1B-21's top bits, then the selector */
			e[3] = 0x1b;
			e[4] = 0x21;
			e[5] = (uint8_t)(1u << a->prio);
		}
		cee_sub(out, &o, 4, b, 4 + 6 * k);
	}
	put_org(f, 0x001b21, 2, out, o);
}

static void check_cee_feat(const struct nd_peer_cee_feat *g, const struct nd_peer_cee_feat *w,
			   unsigned int seed)
{
	ck_assert_msg(g->present == w->present, "case %u: CEE feature present", seed);
	if (w->present)
		ck_assert_msg(g->oper_version == w->oper_version && g->max_version == w->max_version &&
			      g->enabled == w->enabled && g->willing == w->willing &&
			      g->error == w->error, "case %u: CEE feature header", seed);
}

static void check_cee(const struct nd_peer_cee *g, const struct nd_peer_cee *w, unsigned int seed)
{
	ck_assert_msg(g->present == w->present && g->control == w->control,
		      "case %u: CEE present %d/%d control %d/%d", seed, g->present, w->present,
		      g->control, w->control);
	if (w->control)
		ck_assert_msg(g->seq == w->seq && g->ack == w->ack &&
			      g->oper_version == w->oper_version, "case %u: CEE control", seed);
	check_cee_feat(&g->pg_hdr, &w->pg_hdr, seed);
	check_cee_feat(&g->pfc_hdr, &w->pfc_hdr, seed);
	check_cee_feat(&g->app_hdr, &w->app_hdr, seed);
	if (w->pg_hdr.present)
		ck_assert_msg(!memcmp(g->pgid, w->pgid, 8) && !memcmp(g->pg_bw, w->pg_bw, 8) &&
			      g->pg_tcs == w->pg_tcs, "case %u: CEE PG", seed);
	if (w->pfc_hdr.present)
		ck_assert_msg(g->pfc_enable == w->pfc_enable && g->pfc_tcs == w->pfc_tcs,
			      "case %u: CEE PFC", seed);
	ck_assert_msg(g->n_app == w->n_app, "case %u: CEE %zu apps, want %zu", seed, g->n_app,
		      w->n_app);
	for (size_t k = 0; k < w->n_app; k++)
		ck_assert_msg(g->app[k].sel == w->app[k].sel && g->app[k].prio == w->app[k].prio &&
			      g->app[k].protocol == w->app[k].protocol, "case %u: CEE app %zu",
			      seed, k);
}

/* The optional parts of a random peer, each written in a random order between noise. */
enum { PART_DESC, PART_NAME, PART_ETS, PART_RECO, PART_PFC, PART_APP, PART_MFS, PART_CEE,
       N_PARTS };

START_TEST(test_lldp_random)
{
	for (unsigned int seed = 1; seed <= 400; seed++) {
		uint64_t rng = 0x9e3779b97f4a7c15ULL * seed;
		struct nd_peer want, got;
		struct frame f;
		struct nd_err e;
		unsigned int order[N_PARTS], noise = 0, i;
		char chassis[64], port[64];
		uint8_t b[600];

		memset(&want, 0, sizeof(want));
		want.vlan = pick(&rng, 3) ? 0 : (uint16_t)(1 + pick(&rng, 4094));
		start(&f, want.vlan);
		rand_text(&rng, chassis, 40);
		rand_text(&rng, port, 40);
		want.ttl = (uint16_t)pick(&rng, 65536);
		mandatory(&f, chassis, port, want.ttl);
		for (i = 0; i < N_PARTS; i++)
			order[i] = i;
		for (i = N_PARTS - 1; i > 0; i--) {
			unsigned int j = pick(&rng, i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (i = 0; i < N_PARTS; i++) {
			if (pick(&rng, 3))
				enc_noise(&rng, &f, &noise);
			if (!pick(&rng, 4))
				continue;	/* this peer does not send it */
			switch (order[i]) {
			case PART_DESC:
				rand_text(&rng, want.port_desc, 80);
				put_tlv(&f, 4, want.port_desc, strlen(want.port_desc));
				break;
			case PART_NAME:
				rand_text(&rng, want.sys_name, 80);
				put_tlv(&f, 5, want.sys_name, strlen(want.sys_name));
				break;
			case PART_ETS:
				rand_ets(&rng, &want.ets, true);
				enc_ets(&f, &want.ets, true);
				break;
			case PART_RECO:
				rand_ets(&rng, &want.ets_reco, false);
				enc_ets(&f, &want.ets_reco, false);
				break;
			case PART_PFC:
				want.pfc.present = true;
				want.pfc.willing = pick(&rng, 2);
				want.pfc.mbc = pick(&rng, 2);
				want.pfc.cap = (uint8_t)pick(&rng, 16);
				want.pfc.enable = (uint8_t)unit_rand(&rng);
				b[0] = (uint8_t)(want.pfc.willing << 7 | want.pfc.mbc << 6 | want.pfc.cap);
				b[1] = want.pfc.enable;
				put_org(&f, 0x0080c2, 11, b, 2);
				break;
			case PART_APP:
				want.app_present = true;
				want.n_app = pick(&rng, 40);
				b[0] = 0;
				for (size_t k = 0; k < want.n_app; k++) {
					struct nd_peer_app *a = &want.app[k];

					a->prio = (uint8_t)pick(&rng, 8);
					a->sel = (uint8_t)(1 + pick(&rng, 5));
					a->protocol = (uint16_t)(a->sel == ND_APP_SEL_DSCP ? pick(&rng, 64) :
								 a->sel == ND_APP_SEL_UDP ? 4791 :
								 pick(&rng, 65536));
					b[1 + 3 * k] = (uint8_t)(a->prio << 5 | a->sel);
					b[2 + 3 * k] = (uint8_t)(a->protocol >> 8);
					b[3 + 3 * k] = (uint8_t)a->protocol;
				}
				put_org(&f, 0x0080c2, 12, b, 1 + 3 * want.n_app);
				break;
			case PART_MFS:
				want.max_frame_present = true;
				want.max_frame = (uint16_t)(1500 + pick(&rng, 8000));
				b[0] = (uint8_t)(want.max_frame >> 8);
				b[1] = (uint8_t)want.max_frame;
				put_org(&f, 0x00120f, 4, b, 2);
				break;
			case PART_CEE:
				rand_cee(&rng, &f, &want.cee);
				break;
			}
		}
		if (pick(&rng, 4))
			end(&f);
		ck_assert_msg(decode(&f, &got, &e) == 0, "case %u: %s", seed, e.msg);
		ck_assert_msg(got.vlan == want.vlan && got.ttl == want.ttl, "case %u: vlan/ttl",
			      seed);
		ck_assert_str_eq(got.chassis_id, chassis);
		ck_assert_str_eq(got.port_id, port);
		ck_assert_uint_eq(got.chassis_subtype, 7);
		ck_assert_uint_eq(got.port_subtype, 5);
		ck_assert_str_eq(got.port_desc, want.port_desc);
		ck_assert_str_eq(got.sys_name, want.sys_name);
		check_ets(&got.ets, &want.ets, true, seed);
		check_ets(&got.ets_reco, &want.ets_reco, false, seed);
		ck_assert_msg(!memcmp(&got.pfc, &want.pfc, sizeof(want.pfc)), "case %u: PFC", seed);
		ck_assert_msg(got.app_present == want.app_present && got.n_app == want.n_app,
			      "case %u: app %zu/%zu", seed, got.n_app, want.n_app);
		for (size_t k = 0; k < want.n_app; k++)
			ck_assert_msg(!memcmp(&got.app[k], &want.app[k], sizeof(want.app[k])),
				      "case %u: app %zu", seed, k);
		ck_assert_msg(got.max_frame_present == want.max_frame_present &&
			      got.max_frame == want.max_frame, "case %u: max frame", seed);
		check_cee(&got.cee, &want.cee, seed);
		ck_assert_uint_eq(got.unknown_tlvs, noise);
		ck_assert_uint_eq(got.repeated, 0);
	}
}
END_TEST

/* A MAC chassis ID, an IPv4 port ID, a non-printable system name. */
START_TEST(test_lldp_ids)
{
	uint8_t mac[7] = { 4, 0xa0, 0x88, 0xc2, 0x01, 0x02, 0x03 };
	uint8_t ip[6] = { 4, 1, 198, 18, 0, 7 }, ttl[2] = { 0, 120 };
	struct nd_peer p;
	struct frame f;
	struct nd_err e;

	start(&f, 0);
	put_tlv(&f, 1, mac, sizeof(mac));
	put_tlv(&f, 2, ip, sizeof(ip));
	put_tlv(&f, 3, ttl, 2);
	put_tlv(&f, 5, "leaf\x01\\12", 8);
	end(&f);
	ck_assert_int_eq(decode(&f, &p, &e), 0);
	ck_assert_str_eq(p.chassis_id, "a0:88:c2:01:02:03");
	ck_assert_str_eq(p.port_id, "198.18.0.7");
	ck_assert_str_eq(p.sys_name, "leaf\\x01\\x5c12");
	ck_assert_uint_eq(p.ttl, 120);
	ck_assert_uint_eq(p.src_mac[5], 0x11);
}
END_TEST

/* What a broken or hostile peer sends: refused, naming the TLV and the byte. */
START_TEST(test_lldp_bad)
{
	uint8_t b[64] = { 0 }, ttl[2] = { 0, 120 };
	struct nd_peer p;
	struct frame f;
	struct nd_err e;

	/* not LLDP at all */
	start(&f, 0);
	f.b[12] = 0x08;
	f.b[13] = 0x00;
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "EtherType 0x0800"));
	/* shorter than an Ethernet header */
	ck_assert_int_eq(nd_lldp_decode(f.b, 10, &p, &e), -EBADMSG);
	/* a TLV longer than what is left */
	start(&f, 0);
	mandatory(&f, "sw", "Ethernet1/3", 120);
	put_tlv(&f, 5, "leaf12", 6);
	f.n -= 3;
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_msg(strstr(e.msg, "TLV 5 (system name) at byte") && strstr(e.msg, "past"),
		      "%s", e.msg);
	ck_assert_str_eq(p.chassis_id, "");	/* nothing half-filled */
	/* a header cut in two */
	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	put(&f, "\x0a", 1);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "cut off"));
	/* mandatory TLVs missing, out of order, repeated */
	start(&f, 0);
	end(&f);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "mandatory"));
	start(&f, 0);
	put_tlv(&f, 2, "\x05p", 2);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "must be the chassis ID"));
	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	put_tlv(&f, 3, ttl, 2);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "a second TTL"));
	/* zero-length chassis ID, a TTL of 3 bytes, an end TLV with bytes */
	start(&f, 0);
	put_tlv(&f, 1, NULL, 0);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	start(&f, 0);
	put_tlv(&f, 1, "\x07sw", 3);
	put_tlv(&f, 2, "\x05p", 2);
	put_tlv(&f, 3, b, 3);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "must be 2"));
	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	put_tlv(&f, 0, b, 1);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	/* DCB TLVs of the wrong length */
	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	put_org(&f, 0x0080c2, 11, b, 3);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "PFC configuration: 3 bytes"));
	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	put_org(&f, 0x0080c2, 12, b, 5);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	put_tlv(&f, 127, "\x00\x80", 2);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "shorter than its OUI"));
	/* a CEE sub-TLV running past its TLV */
	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	b[0] = 3 << 1;
	b[1] = 40;
	put_org(&f, 0x001b21, 2, b, 8);
	ck_assert_int_eq(decode(&f, &p, &e), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(e.msg, "CEE DCBX"));
}
END_TEST

/* A peer that sends PFC twice, or CEE's PFC twice: the feature is dropped and said so. */
START_TEST(test_lldp_repeated)
{
	uint8_t pfc[2] = { 0x08, 0x08 }, cee[16] = { 3 << 1, 6, 0, 0, 0x80, 0, 0x08, 8,
						     3 << 1, 6, 0, 0, 0x80, 0, 0x10, 8 };
	struct nd_peer p;
	struct frame f;
	struct nd_err e;

	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	put_org(&f, 0x0080c2, 11, pfc, 2);
	pfc[1] = 0x10;
	put_org(&f, 0x0080c2, 11, pfc, 2);
	put_org(&f, 0x0080c2, 11, pfc, 2);
	put_org(&f, 0x001b21, 2, cee, sizeof(cee));
	end(&f);
	ck_assert_int_eq(decode(&f, &p, &e), 0);
	ck_assert(!p.pfc.present);
	ck_assert(!p.cee.present);
	ck_assert_uint_eq(p.repeated, ND_PEER_REP_PFC | ND_PEER_REP_CEE);
}
END_TEST

/* Thousands of TLVs in a jumbo frame: all walked, none kept, in bounded memory. */
START_TEST(test_lldp_many)
{
	struct nd_peer p;
	struct frame f;
	struct nd_err e;
	unsigned int n = 0;

	start(&f, 0);
	mandatory(&f, "sw", "p", 120);
	while (f.n + 2 < FRAME_MAX) {
		put_tlv(&f, 9, NULL, 0);
		n++;
	}
	ck_assert_int_eq(decode(&f, &p, &e), 0);
	ck_assert_uint_eq(p.unknown_tlvs, n);
	ck_assert_uint_gt(n, 4000);
}
END_TEST

START_TEST(test_lldp_sel_names)
{
	ck_assert_str_eq(nd_peer_app_sel_name(ND_APP_SEL_DSCP, false), "dscp");
	ck_assert_str_eq(nd_peer_app_sel_name(ND_APP_SEL_UDP, false), "udp");
	ck_assert_str_eq(nd_peer_app_sel_name(0, true), "ethertype");
	ck_assert_str_eq(nd_peer_app_sel_name(1, true), "port");
	ck_assert_str_eq(nd_peer_app_sel_name(200, false), "reserved");
}
END_TEST

/* dcbnl's peer attributes, as a driver with a DCBX engine reports them: IEEE_GET and CEE_GET */
static struct nlmsghdr *dcb_reply(void *buf, uint8_t cmd)
{
	struct nlmsghdr *nlh;
	struct dcbmsg *dm;

	memset(buf, 0, 4096);
	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_GETDCB;
	dm = mnl_nlmsg_put_extra_header(nlh, sizeof(*dm));
	dm->cmd = cmd;
	mnl_attr_put_strz(nlh, DCB_ATTR_IFNAME, "eth2");
	return nlh;
}

START_TEST(test_dcbnl_peer)
{
	static uint8_t buf[4096];
	struct ieee_ets ets = { .willing = 1, .ets_cap = 8, .prio_tc = { 0, 0, 0, 3 },
				.tc_tx_bw = { 50, 0, 0, 50 }, .tc_tsa = { 2, 2, 2, 2 } };
	struct ieee_pfc pfc = { .pfc_cap = 8, .pfc_en = 0x08, .mbc = 1 };
	struct dcb_app apps[2] = { { IEEE_8021QAZ_APP_SEL_DSCP, 3, 26 },
				   { IEEE_8021QAZ_APP_SEL_DGRAM, 3, 4791 } };
	struct cee_pg pg = { .willing = 1, .pg_en = 1, .tcs_supported = 8,
			     .pg_bw = { 40, 60 }, .prio_pg = { 0, 0, 0, 1 } };
	struct cee_pfc cpfc = { .error = 1, .pfc_en = 0x18, .tcs_supported = 8 };
	struct dcb_peer_app_info info = { .willing = 1 };
	struct dcb_app capp = { 1, 0x08, 4791 };	/* CEE: a priority bitmap */
	struct nlmsghdr *nlh;
	struct nlattr *nest, *t;
	struct nd_peer p;

	memset(&p, 0, sizeof(p));
	nlh = dcb_reply(buf, DCB_CMD_IEEE_GET);
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);		/* its own, not the peer's */
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PEER_ETS, sizeof(ets), &ets);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PEER_PFC, sizeof(pfc), &pfc);
	t = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE_PEER_APP);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(apps[0]), &apps[0]);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, sizeof(apps[1]), &apps[1]);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_APP, 2, &apps[1]);		/* short: passed over */
	mnl_attr_nest_end(nlh, t);
	mnl_attr_nest_end(nlh, nest);
	ck_assert_int_eq(peer_dcbnl_parse(nlh, DCB_CMD_IEEE_GET, &p), 1);
	ck_assert(p.ets.present && p.ets.willing);
	ck_assert_int_eq(p.ets.prio_tc[3], 3);
	ck_assert_int_eq(p.ets.tc_bw[3], 50);
	ck_assert(p.pfc.present && p.pfc.mbc);
	ck_assert_int_eq(p.pfc.enable, 0x08);
	ck_assert_int_eq(p.pfc.cap, 8);
	ck_assert(p.app_present);
	ck_assert_uint_eq(p.n_app, 2);
	ck_assert(p.app[0].sel == ND_APP_SEL_DSCP && p.app[0].protocol == 26 && p.app[0].prio == 3);
	ck_assert(p.app[1].sel == ND_APP_SEL_UDP && p.app[1].protocol == 4791);

	nlh = dcb_reply(buf, DCB_CMD_CEE_GET);
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_CEE);
	mnl_attr_put(nlh, DCB_ATTR_CEE_PEER_PG, sizeof(pg), &pg);
	mnl_attr_put(nlh, DCB_ATTR_CEE_PEER_PFC, sizeof(cpfc), &cpfc);
	t = mnl_attr_nest_start(nlh, DCB_ATTR_CEE_PEER_APP_TABLE);
	mnl_attr_put(nlh, DCB_ATTR_CEE_PEER_APP_INFO, sizeof(info), &info);
	mnl_attr_put(nlh, DCB_ATTR_CEE_PEER_APP, sizeof(capp), &capp);
	mnl_attr_nest_end(nlh, t);
	mnl_attr_nest_end(nlh, nest);
	ck_assert_int_eq(peer_dcbnl_parse(nlh, DCB_CMD_CEE_GET, &p), 1);
	ck_assert(p.cee.present && p.cee.pg_hdr.present && p.cee.pg_hdr.willing);
	ck_assert_int_eq(p.cee.pgid[3], 1);
	ck_assert_int_eq(p.cee.pg_bw[1], 60);
	ck_assert(p.cee.pfc_hdr.present && p.cee.pfc_hdr.error && p.cee.pfc_hdr.enabled);
	ck_assert_int_eq(p.cee.pfc_enable, 0x18);
	ck_assert(p.cee.app_hdr.present && p.cee.app_hdr.willing);
	ck_assert_uint_eq(p.cee.n_app, 1);
	ck_assert(p.cee.app[0].sel == 1 && p.cee.app[0].protocol == 4791 && p.cee.app[0].prio == 3);
	/* the IEEE part from before is kept: one peer, two replies */
	ck_assert_int_eq(p.pfc.enable, 0x08);
	/* both sides read the same: the switch's PFC is IEEE's where it came */
	{
		uint8_t bits;
		char name[64];

		ck_assert(nd_peer_pfc(&p, &bits));
		ck_assert_int_eq(bits, 0x08);
		nd_peer_name(&p, name, sizeof(name));
		ck_assert_str_eq(name, "the link partner");
	}

	/* a reply with no peer attribute (mlx5, ice): nothing; a reply that is none: refused */
	memset(&p, 0, sizeof(p));
	nlh = dcb_reply(buf, DCB_CMD_IEEE_GET);
	nest = mnl_attr_nest_start(nlh, DCB_ATTR_IEEE);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PFC, sizeof(pfc), &pfc);
	mnl_attr_put(nlh, DCB_ATTR_IEEE_PEER_PFC, 3, &pfc);		/* short: passed over */
	mnl_attr_nest_end(nlh, nest);
	ck_assert_int_eq(peer_dcbnl_parse(nlh, DCB_CMD_IEEE_GET, &p), 0);
	ck_assert(!p.pfc.present);
	nlh->nlmsg_type = RTM_NEWLINK;
	ck_assert_int_eq(peer_dcbnl_parse(nlh, DCB_CMD_IEEE_GET, &p), -EBADMSG);
	ck_assert_str_eq(nd_peer_source_name(ND_PEER_SRC_DCBNL), "dcbnl");
	ck_assert_str_eq(nd_peer_source_name(ND_PEER_SRC_NONE), "none");
}
END_TEST

Suite *suite_peer(void)
{
	Suite *s = suite_create("peer");
	TCase *tc = tcase_create("lldp");

	tcase_add_test(tc, test_lldp_random);
	tcase_add_test(tc, test_lldp_ids);
	tcase_add_test(tc, test_lldp_bad);
	tcase_add_test(tc, test_lldp_repeated);
	tcase_add_test(tc, test_lldp_many);
	tcase_add_test(tc, test_lldp_sel_names);
	tcase_add_test(tc, test_dcbnl_peer);
	suite_add_tcase(s, tc);
	return s;
}
