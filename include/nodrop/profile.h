/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: desired state: a profile (nodrop-profile(5)). */
#ifndef NODROP_PROFILE_H
#define NODROP_PROFILE_H

#include <nodrop/port.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Everything a profile can set; bit (1 << field) in nd_profile.set. */
enum nd_field {
	ND_F_MTU,
	ND_F_DCBX,
	ND_F_TRUST,
	ND_F_DSCP_MAP,
	ND_F_PFC_EN,
	ND_F_PFC_DELAY,		/* cable length, metres (ieee_pfc.delay) */
	ND_F_ETS_PRIO_TC,
	ND_F_ETS_TSA,
	ND_F_ETS_BW,
	ND_F_BUF_PRIO,
	ND_F_BUF_SIZE,
	ND_F_MAXRATE,
	ND_F_ECN_NP,
	ND_F_ECN_RP,
	ND_F_CNP_DSCP,
	ND_F_CNP_PRIO,
	ND_F_DCQCN,
	ND_F_ROCE_TOS,
	ND_F_ROCE_MODE,
	ND_F_COUNT
};

/* The profile key of a field, e.g. "pfc.priorities", for messages. */
const char *nd_field_key(enum nd_field field);

/* Where a value came from: file, 1-based line and column. */
struct nd_loc {
	char file[256];
	unsigned int line, col;
};

#define ND_MATCH_MAX 16

/* Which ports a profile is for: every non-empty list must match (globs, fnmatch(3)). */
struct nd_match {
	char *names[ND_MATCH_MAX];	/* netdev names */
	size_t n_names;
	char *drivers[ND_MATCH_MAX];	/* ethtool driver names */
	size_t n_drivers;
	char *pci[ND_MATCH_MAX];	/* PCI addresses (ethtool bus-info) */
	size_t n_pci;
	char *rdma[ND_MATCH_MAX];	/* RDMA device names */
	size_t n_rdma;
};

struct nd_profile {
	char name[64];
	struct nd_loc origin;		/* the top-level file (line and column 0: the whole file) */
	struct nd_match match;
	uint32_t set;			/* 1 << enum nd_field for every field the profile gives */
	struct nd_loc loc[ND_F_COUNT];	/* where each given field's value is */
	unsigned int mtu;
	uint8_t dcbx;			/* DCB_CAP_DCBX_* */
	enum nd_trust trust;
	int dscp2prio[ND_DSCP_MAX];	/* -1: no APP entry for that DSCP */
	uint8_t pfc_en;			/* priority bitmap */
	uint16_t pfc_delay;
	uint8_t prio_tc[ND_PRIO_MAX];
	uint8_t tc_tsa[ND_PRIO_MAX];	/* IEEE_8021QAZ_TSA_* */
	uint8_t tc_bw[ND_PRIO_MAX];
	uint8_t prio2buffer[ND_PRIO_MAX];
	uint32_t buffer_size[ND_PRIO_MAX];	/* bytes */
	uint64_t maxrate[ND_PRIO_MAX];	/* kbit/s, 0 unlimited */
	uint8_t ecn_np, ecn_rp;		/* priority bitmaps */
	uint8_t cnp_dscp, cnp_prio;
	struct nd_ecn_param dcqcn[ND_ECN_PARAM_MAX];
	struct nd_loc dcqcn_loc[ND_ECN_PARAM_MAX];
	size_t n_dcqcn;
	uint8_t roce_tos;
	char roce_mode[16];		/* "RoCE v2" or "IB/RoCE v1", as configfs spells it */
	bool roce_reset;		/* rollback only: remove the rdma_cm group (kernel defaults) */
	/* audit: what the site accepts unverified, 1 << enum nd_field each, and ND_ACCEPT_PEER */
	uint32_t accept_unverified;
};

/* audit's accept-unverified bit for a link partner not heard (past the fields' bits) */
#define ND_ACCEPT_PEER (1u << ND_F_COUNT)
/* The accept-unverified bit of @name (@len bytes): a profile key or "peer"; 0 for neither. */
uint32_t nd_profile_accept_bit(const char *name, size_t len);

#define ND_PROFILE_MAX_BYTES (1024 * 1024)
#define ND_PROFILE_MAX_DEPTH 8		/* extends chain */

/*
 * Load and validate a profile file (and what it extends). On error *@p is zeroed and @e says
 * "FILE:LINE:COL: what is wrong; what to do".
 */
int nd_profile_load(const char *path, struct nd_profile *p, struct nd_err *e);
/* The same from memory (@name stands for the file; extends resolves against @dir, NULL: error). */
int nd_profile_parse(const char *buf, size_t len, const char *name, const char *dir,
		     struct nd_profile *p, struct nd_err *e);
void nd_profile_free(struct nd_profile *p);
/* Does the profile apply to @port? */
bool nd_profile_matches(const struct nd_profile *p, const struct nd_port *port);

#ifdef __cplusplus
}
#endif

#endif
