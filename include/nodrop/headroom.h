/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: PFC headroom models (nodrop-headroom(8)) and the units people write. */
#ifndef NODROP_HEADROOM_H
#define NODROP_HEADROOM_H

#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * PFC headroom (nodrop-headroom(8)): the bytes a lossless priority must still absorb after it
 * sends PAUSE, from the cable length, the speed and the MTUs. Three models, as
 * reference/fabric-models.md gives them; an audit says which one it used.
 */
enum nd_hdrm_model {
	ND_HDRM_BASIC,		/* physics: cable round trip, a frame each way, peer response, PHY */
	ND_HDRM_IEEE,		/* IEEE 802.1Qbb delay components, in bit times */
	ND_HDRM_SPECTRUM,	/* SONiC's cell-based xoff/xon/size for NVIDIA Spectrum switches */
	ND_HDRM_MODEL_COUNT
};

enum nd_spc {
	ND_SPC1, ND_SPC2, ND_SPC3, ND_SPC4, ND_SPC5,
	ND_SPC_COUNT
};

const char *nd_hdrm_model_name(enum nd_hdrm_model model);	/* "basic", "ieee", "spectrum" */
const char *nd_spc_name(enum nd_spc asic);			/* "spc1" ... "spc5" */

struct nd_hdrm_params {
	uint64_t speed_mbps;
	double cable_m;
	unsigned int mtu;		/* this port's MTU, bytes (spectrum: the port MTU) */
	unsigned int peer_mtu;		/* the link partner's; 0: the same as mtu */
	unsigned int mac_phy;		/* basic: PHY/MAC/pipeline bytes (0) */
	unsigned int gearbox_ns;	/* delay of one gearbox on the link, 0 when none */
	enum nd_spc asic;		/* spectrum: cell size and tile term (SPC3) */
	unsigned int lossless_mtu;	/* spectrum: SONiC's lossless traffic pattern MTU (1024) */
	unsigned int small_pkt_pct;	/* spectrum: small-packet percentage (50) */
};

#define ND_HDRM_TERMS_MAX 12

/* One term of a model's sum; the terms of a model add up to its xoff. */
struct nd_hdrm_term {
	const char *key;		/* JSON key, e.g. "cable_round_trip" */
	const char *label;		/* text label, e.g. "cable-round-trip" */
	char how[96];			/* the arithmetic, e.g. "2 x 40 m x 5 ns/m at 100 Gb/s" */
	double bytes;
};

struct nd_headroom {
	enum nd_hdrm_model model;
	struct nd_hdrm_term terms[ND_HDRM_TERMS_MAX];
	size_t n_terms;
	uint64_t xoff;			/* bytes arriving after PAUSE is decided */
	uint64_t xon;			/* spectrum: pipeline latency; 0 for the others */
	uint64_t size;			/* headroom to reserve per lossless priority */
	double occupancy;		/* spectrum: cell occupancy factor; 1 for the others */
};

/* Defaults: MTU 9216 both sides, SPC3, lossless MTU 1024, small packets 50 %, nothing else. */
void nd_hdrm_params_init(struct nd_hdrm_params *p);
/*
 * The headroom @model requires for @p, every term filled in. -EINVAL when the speed is not one
 * the model has values for (the message lists those it has), or an input is out of range.
 */
int nd_headroom_calc(const struct nd_hdrm_params *p, enum nd_hdrm_model model,
		     struct nd_headroom *out, struct nd_err *e);
/* The same with defaults for all but speed, cable and MTU (both sides): what audit checks. */
int nd_headroom_required(uint64_t speed_mbps, double cable_m, unsigned int mtu,
			 enum nd_hdrm_model model, struct nd_headroom *out, struct nd_err *e);
/* Pause quanta a port at @speed_mbps takes to respond (SONiC's table); 0 for unlisted speeds. */
unsigned int nd_pfc_response_quanta(uint64_t speed_mbps);
/* How long @quanta pause quanta (512 bit times each) last at @speed_mbps, in picoseconds. */
uint64_t nd_pfc_quanta_ps(unsigned int quanta, uint64_t speed_mbps);

/* Units as people write them: "100G" / "25Gbit" (bit/s, decimal), "1.5us" (ps), "40m" (m). */
int nd_speed_parse(const char *s, uint64_t *bps, struct nd_err *e);
int nd_duration_parse(const char *s, uint64_t *ps, struct nd_err *e);
int nd_length_parse(const char *s, double *metres, struct nd_err *e);

#ifdef __cplusplus
}
#endif

#endif
