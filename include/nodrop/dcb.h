/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: the DCB (IEEE 802.1Qaz/Qbb) state of one netdev, as dcbnl reports it. */
#ifndef NODROP_DCB_H
#define NODROP_DCB_H

#include <linux/dcbnl.h>
#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nd_dcb_have {
	ND_DCB_HAVE_ETS = 1 << 0,
	ND_DCB_HAVE_PFC = 1 << 1,
	ND_DCB_HAVE_MAXRATE = 1 << 2,
	ND_DCB_HAVE_BUFFER = 1 << 3,
	ND_DCB_HAVE_TRUST = 1 << 4,	/* explicit apptrust table (kernel 6.2+, few drivers) */
	ND_DCB_HAVE_DCBX = 1 << 5,
	ND_DCB_HAVE_APP = 1 << 6,
};

/* Kernel 6.2+/6.3+ attribute numbers, absent from older headers (enum members, so no #ifdef). */
enum {
	ND_DCB_ATTR_IEEE_APP_TRUST_TABLE = 11,
	ND_DCB_ATTR_IEEE_REWR_TABLE = 12,
	ND_DCB_ATTR_DCB_APP = 2,		/* APP entry with a non-IEEE selector (PCP) */
	ND_DCB_APP_SEL_PCP = 255,
};

#define ND_PRIO_MAX 8
#define ND_DSCP_MAX 64
#define ND_TRUST_MAX 8

enum nd_trust {
	ND_TRUST_PCP,
	ND_TRUST_DSCP,
};

enum nd_trust_source {
	ND_TRUST_SRC_TABLE,	/* the driver's apptrust table */
	ND_TRUST_SRC_APP,	/* derived from DSCP APP entries, as mlx5 and ice switch trust */
};

struct nd_dcb {
	unsigned int have;		/* enum nd_dcb_have */
	struct ieee_ets ets;
	struct ieee_pfc pfc;
	struct ieee_maxrate maxrate;
	struct dcbnl_buffer buffer;
	uint8_t dcbx;			/* DCB_CAP_DCBX_* flags */
	struct dcb_app *apps;		/* the APP table, by selector, protocol, priority */
	size_t n_apps;
	uint8_t trust[ND_TRUST_MAX];	/* apptrust selectors, most trusted first */
	size_t n_trust;
};

void nd_dcb_free(struct nd_dcb *dcb);
/* The port's trust: the apptrust table when present, else DSCP iff a DSCP APP entry exists. */
enum nd_trust nd_dcb_trust(const struct nd_dcb *dcb, enum nd_trust_source *source);
/* dscp2prio[d] = priority, or -1 where no APP entry maps DSCP d. */
void nd_dcb_dscp_map(const struct nd_dcb *dcb, int dscp2prio[ND_DSCP_MAX]);

const char *nd_tsa_name(uint8_t tsa);
const char *nd_app_selector_name(uint8_t selector);
const char *nd_trust_name(enum nd_trust trust);

#ifdef __cplusplus
}
#endif

#endif
