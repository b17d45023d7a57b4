// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * PFC headroom: what a lossless priority receives after it decides to send PAUSE. Three models
 * (reference/fabric-models.md): the physics sum, IEEE 802.1Qbb's delay components in bit times,
 * and SONiC's cell-based model for Spectrum switches. Every model fills its terms so a person can
 * see where the bytes come from; the terms add up to xoff.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

#define NS_PER_M 5.0		/* light in fibre or copper, as the basic model counts it */
#define SONIC_C 198e6		/* SONiC's speed of light in cable, m/s (5.05 ns/m) */
#define PAUSE_QUANTUM_BITS 512
#define FRAME_GAP_BITS 160	/* preamble + SFD + inter-frame gap: 20 bytes */
#define PAUSE_FRAME_BITS 672	/* a 64-byte PAUSE frame and its 20 bytes of gap */

/* Per speed: SONiC's response quanta and IEEE's interface and response delays (bit times). */
static const struct {
	uint64_t mbps;
	unsigned int quanta;
	unsigned int d_intf, d_resp;	/* 0: IEEE gives no value for this speed */
} speeds[] = {
	{ 10000, 67, 8192, 30720 },
	{ 25000, 80, 6144, 40960 },
	{ 40000, 118, 24576, 60416 },
	{ 50000, 147, 0, 0 },
	{ 100000, 394, 122880, 201728 },
	{ 200000, 453, 0, 0 },
	{ 400000, 905, 0, 463360 },
	{ 800000, 905, 0, 0 },
};

/* Spectrum generations: cell size, and whether the tile adds bytes (SPC4 and later). */
static const struct {
	const char *name;
	unsigned int cell;
	bool tile;
} asics[ND_SPC_COUNT] = {
	[ND_SPC1] = { "spc1", 96, false },
	[ND_SPC2] = { "spc2", 144, false },
	[ND_SPC3] = { "spc3", 144, false },
	[ND_SPC4] = { "spc4", 192, true },
	[ND_SPC5] = { "spc5", 192, true },
};

#define SPC_PIPELINE 19456.0	/* pipeline latency 19 KB: xon */
#define SPC_MAC_PHY 819.2	/* 0.8 KB */
#define SPC_MIN_PKT 64.0
#define SPC_COMPENSATION 2048.0

static const char *const model_names[ND_HDRM_MODEL_COUNT] = {
	[ND_HDRM_BASIC] = "basic",
	[ND_HDRM_IEEE] = "ieee",
	[ND_HDRM_SPECTRUM] = "spectrum",
};

const char *nd_hdrm_model_name(enum nd_hdrm_model model)
{
	return (unsigned int)model < ND_HDRM_MODEL_COUNT ? model_names[model] : "unknown";
}

const char *nd_spc_name(enum nd_spc asic)
{
	return (unsigned int)asic < ND_SPC_COUNT ? asics[asic].name : "unknown";
}

void nd_hdrm_params_init(struct nd_hdrm_params *p)
{
	memset(p, 0, sizeof(*p));
	p->mtu = 9216;
	p->asic = ND_SPC3;
	p->lossless_mtu = 1024;
	p->small_pkt_pct = 50;
}

static int speed_row(uint64_t mbps)
{
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(speeds); i++)
		if (speeds[i].mbps == mbps)
			return (int)i;
	return -1;
}

unsigned int nd_pfc_response_quanta(uint64_t speed_mbps)
{
	int row = speed_row(speed_mbps);

	return row < 0 ? 0 : speeds[row].quanta;
}

uint64_t nd_pfc_quanta_ps(unsigned int quanta, uint64_t speed_mbps)
{
	if (!speed_mbps)
		return 0;
	/* bits / (Mbit/s) = us; x 1e6 for ps */
	return (uint64_t)quanta * PAUSE_QUANTUM_BITS * 1000000ULL / speed_mbps;
}

/* "100 Gb/s", "25 Gb/s", "800 Mb/s" */
static const char *speed_text(uint64_t mbps, char *buf, size_t size)
{
	if (mbps % 1000 == 0)
		snprintf(buf, size, "%llu Gb/s", (unsigned long long)(mbps / 1000));
	else
		snprintf(buf, size, "%llu Mb/s", (unsigned long long)mbps);
	return buf;
}

static int no_speed(struct nd_err *e, const char *model, uint64_t mbps, bool ieee)
{
	char list[128], sp[32];
	size_t i, len = 0;

	list[0] = '\0';
	for (i = 0; i < ND_ARRAY_SIZE(speeds) && len < sizeof(list); i++) {
		if (ieee && (!speeds[i].d_intf || !speeds[i].d_resp))
			continue;
		len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%lluG", len ? ", " : "",
					(unsigned long long)(speeds[i].mbps / 1000));
	}
	return nd_err_set(e, -EINVAL, "the %s model has no values for %s; it knows %s", model,
			  speed_text(mbps, sp, sizeof(sp)), list);
}

static struct nd_hdrm_term *term(struct nd_headroom *h, const char *key, const char *label,
				 double bytes)
{
	struct nd_hdrm_term *t = &h->terms[h->n_terms++];

	t->key = key;
	t->label = label;
	t->bytes = bytes;
	t->how[0] = '\0';
	return t;
}

#define HOW(t, ...) snprintf((t)->how, sizeof((t)->how), __VA_ARGS__)

static double gearbox_bytes(const struct nd_hdrm_params *p)
{
	return (double)p->speed_mbps * p->gearbox_ns / 8000.0;
}

static uint64_t sum_up(const struct nd_headroom *h)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < h->n_terms; i++)
		sum += h->terms[i].bytes;
	/* the terms are exact to well under a byte; keep 1e-6 from turning 48648 into 48649 */
	return (uint64_t)ceil(sum - 1e-6);
}

static void basic(const struct nd_hdrm_params *p, unsigned int peer, unsigned int quanta,
		  struct nd_headroom *h)
{
	struct nd_hdrm_term *t;
	char sp[32];

	speed_text(p->speed_mbps, sp, sizeof(sp));
	t = term(h, "cable_round_trip", "cable-round-trip",
		 2 * p->cable_m * NS_PER_M * 1e-9 * (double)p->speed_mbps * 1e6 / 8);
	HOW(t, "2 x %g m x %g ns/m at %s", p->cable_m, NS_PER_M, sp);
	t = term(h, "frames_in_flight", "frames-in-flight", (double)p->mtu + peer);
	HOW(t, "local MTU %u + peer MTU %u", p->mtu, peer);
	t = term(h, "peer_response", "peer-response", quanta * PAUSE_QUANTUM_BITS / 8.0);
	HOW(t, "%u quanta x 512 bit times at %s", quanta, sp);
	t = term(h, "mac_phy", "mac-phy", p->mac_phy);
	HOW(t, "PHY/MAC/pipeline %u B", p->mac_phy);
	t = term(h, "gearbox", "gearbox", 2 * gearbox_bytes(p));
	HOW(t, "2 x %u ns at %s", p->gearbox_ns, sp);
	h->xoff = h->size = sum_up(h);
}

/* IEEE 802.1Qbb delay components, each in bit times and shown as bytes. */
static void ieee(const struct nd_hdrm_params *p, unsigned int peer, int row,
		 struct nd_headroom *h)
{
	double cable_bt = 2 * p->cable_m * NS_PER_M * 1e-9 * (double)p->speed_mbps * 1e6;
	double gb_bt = 2 * gearbox_bytes(p) * 8;
	struct nd_hdrm_term *t;
	char sp[32];

	speed_text(p->speed_mbps, sp, sizeof(sp));
	/* our frame in progress delays the PAUSE; the peer's in progress completes after it */
	t = term(h, "max_frames", "max-frames",
		 ((p->mtu * 8.0 + FRAME_GAP_BITS) + (peer * 8.0 + FRAME_GAP_BITS)) / 8);
	HOW(t, "D-MaxFrame (%u x 8 + 160) + (%u x 8 + 160) BT", p->mtu, peer);
	t = term(h, "pause_frame", "pause-frame", PAUSE_FRAME_BITS / 8.0);
	HOW(t, "D-Pause %u BT", PAUSE_FRAME_BITS);
	t = term(h, "interface", "interface", 2.0 * speeds[row].d_intf / 8);
	HOW(t, "D-Intf 2 x %u BT at %s", speeds[row].d_intf, sp);
	t = term(h, "peer_response", "peer-response", speeds[row].d_resp / 8.0);
	HOW(t, "D-Resp %u BT at %s", speeds[row].d_resp, sp);
	t = term(h, "cable_round_trip", "cable-round-trip", cable_bt / 8);
	HOW(t, "2 x %g m x %g ns/m = %.0f BT", p->cable_m, NS_PER_M, cable_bt);
	t = term(h, "gearbox", "gearbox", gb_bt / 8);
	HOW(t, "2 x %u ns = %.0f BT", p->gearbox_ns, gb_bt);
	h->xoff = h->size = sum_up(h);
}

static double ceil_1k(double v)
{
	return ceil(v / 1024 - 1e-9) * 1024;
}

/*
 * SONiC's buffer_headroom_mellanox.lua with the shared headroom pool off. Beyond the formula in
 * the reference it adds, as the script does, 2 KB when a small-packet percentage below 100 leaves
 * xoff more than 2 KB under its all-small-packets value (the reference's SPC3 values include
 * it), and the tile's bytes on SPC4 and later.
 */
static void spectrum(const struct nd_hdrm_params *p, unsigned int quanta, struct nd_headroom *h)
{
	unsigned int cell = asics[p->asic].cell, spp = p->small_pkt_pct;
	double wcf, sppb, occ, prop = 0, raw, xoff, full;
	struct nd_hdrm_term *t;
	size_t i;
	char sp[32];

	speed_text(p->speed_mbps, sp, sizeof(sp));
	wcf = ceil(cell > 2 * SPC_MIN_PKT ? cell / SPC_MIN_PKT : 2.0 * cell / (1 + cell));
	sppb = 100 * SPC_MIN_PKT / ((spp * SPC_MIN_PKT + (100.0 - spp) * p->lossless_mtu) / 100);
	occ = (100 - sppb + sppb * wcf) / 100;

	t = term(h, "port_mtu", "port-mtu", p->mtu);
	HOW(t, "port MTU %u", p->mtu);
	t = term(h, "cable_round_trip", "cable-round-trip",
		 2 * p->cable_m * (double)p->speed_mbps * 1e9 / SONIC_C / 8000);
	HOW(t, "2 x %g m at %s, c = 1.98e8 m/s", p->cable_m, sp);
	t = term(h, "gearbox", "gearbox", 2 * gearbox_bytes(p));
	HOW(t, "2 x %u ns at %s", p->gearbox_ns, sp);
	t = term(h, "mac_phy", "mac-phy", SPC_MAC_PHY);
	HOW(t, "MAC/PHY delay 0.8 KB");
	t = term(h, "peer_response", "peer-response", quanta * PAUSE_QUANTUM_BITS / 8.0);
	HOW(t, "%u quanta x 512 bit times at %s", quanta, sp);
	if (asics[p->asic].tile) {
		t = term(h, "tile", "tile", (double)p->speed_mbps / 1000 * 120 / 8);
		HOW(t, "%s: 120 bits per Gb/s on the tile", asics[p->asic].name);
	}
	for (i = 0; i < h->n_terms; i++)
		prop += h->terms[i].bytes;
	t = term(h, "cell_occupancy", "cell-occupancy", prop * (occ - 1));
	HOW(t, "x %.4f: cell %u B, %u %% small packets (%.2f %% by byte)", occ, cell, spp, sppb);
	t = term(h, "lossless_mtu", "lossless-mtu", p->lossless_mtu);
	HOW(t, "lossless traffic MTU %u", p->lossless_mtu);
	raw = p->lossless_mtu + prop * occ;
	xoff = ceil_1k(raw);
	t = term(h, "round_up", "round-up", xoff - raw);
	HOW(t, "to a multiple of 1024");
	full = ceil_1k(p->lossless_mtu + prop * wcf);
	if (spp != 100 && xoff + SPC_COMPENSATION < full) {
		xoff += SPC_COMPENSATION;
		t = term(h, "compensation", "compensation", SPC_COMPENSATION);
		HOW(t, "2 KB: below the %.0f B of all-small packets", full);
	}
	h->occupancy = occ;
	h->xoff = (uint64_t)xoff;
	h->xon = (uint64_t)ceil_1k(SPC_PIPELINE);
	h->size = (uint64_t)ceil_1k((double)h->xoff + (double)h->xon);
}

static int check_params(const struct nd_hdrm_params *p, struct nd_err *e)
{
	if (p->mtu < 64 || p->mtu > 65535 || p->peer_mtu > 65535)
		return nd_err_set(e, -EINVAL, "an MTU of %u bytes; give 64..65535",
				  p->mtu < 64 || p->mtu > 65535 ? p->mtu : p->peer_mtu);
	if (!(p->cable_m >= 0 && p->cable_m <= 100000))
		return nd_err_set(e, -EINVAL, "a cable of %g m; give 0..100000 metres", p->cable_m);
	if (p->gearbox_ns > 1000000)
		return nd_err_set(e, -EINVAL, "a gearbox delay of %u ns; give 0..1000000",
				  p->gearbox_ns);
	if ((unsigned int)p->asic >= ND_SPC_COUNT)
		return nd_err_set(e, -EINVAL, "unknown Spectrum generation %d", (int)p->asic);
	if (p->small_pkt_pct > 100 || p->lossless_mtu < 64 || p->lossless_mtu > 65535)
		return nd_err_set(e, -EINVAL, "small packets %u %% with a lossless MTU of %u; give "
				  "0..100 %% and 64..65535 bytes", p->small_pkt_pct,
				  p->lossless_mtu);
	return 0;
}

int nd_headroom_calc(const struct nd_hdrm_params *p, enum nd_hdrm_model model,
		     struct nd_headroom *out, struct nd_err *e)
{
	unsigned int peer = p->peer_mtu ? p->peer_mtu : p->mtu;
	int row = speed_row(p->speed_mbps), ret;

	memset(out, 0, sizeof(*out));
	out->model = model;
	out->occupancy = 1;
	ret = check_params(p, e);
	if (ret)
		return ret;
	switch (model) {
	case ND_HDRM_BASIC:
		if (row < 0)
			return no_speed(e, "basic", p->speed_mbps, false);
		basic(p, peer, speeds[row].quanta, out);
		return 0;
	case ND_HDRM_IEEE:
		if (row < 0 || !speeds[row].d_intf || !speeds[row].d_resp)
			return no_speed(e, "IEEE", p->speed_mbps, true);
		ieee(p, peer, row, out);
		return 0;
	case ND_HDRM_SPECTRUM:
		if (row < 0)
			return no_speed(e, "Spectrum", p->speed_mbps, false);
		spectrum(p, speeds[row].quanta, out);
		return 0;
	default:
		return nd_err_set(e, -EINVAL, "unknown headroom model %d", (int)model);
	}
}

int nd_headroom_required(uint64_t speed_mbps, double cable_m, unsigned int mtu,
			 enum nd_hdrm_model model, struct nd_headroom *out, struct nd_err *e)
{
	struct nd_hdrm_params p;

	nd_hdrm_params_init(&p);
	p.speed_mbps = speed_mbps;
	p.cable_m = cable_m;
	p.mtu = mtu;
	return nd_headroom_calc(&p, model, out, e);
}
