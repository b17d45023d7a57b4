/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: ECN and DCQCN on the NIC. */
#ifndef NODROP_ECN_H
#define NODROP_ECN_H

#include <nodrop/base.h>

#ifdef __cplusplus
extern "C" {
#endif

enum nd_ecn_backend {
	ND_ECN_NONE,		/* no interface this driver offers; nothing is guessed */
	ND_ECN_MLNX_SYSFS,	/* MLNX_OFED: /sys/class/net/IF/ecn/roce_{np,rp}/ */
	ND_ECN_MLX5_DEBUGFS,	/* upstream mlx5: <debugfs>/mlx5/BDF/cc_params/ */
};

#define ND_ECN_PARAM_MAX 40
#define ND_ECN_NAME_MAX 40

/* One DCQCN/CNP parameter under its canonical (upstream cc_params) name, e.g. "rp_time_reset". */
struct nd_ecn_param {
	char name[ND_ECN_NAME_MAX];
	uint32_t value;
};

struct nd_ecn {
	enum nd_ecn_backend backend;
	char note[256];		/* what audit should know of this backend: why a part is not
				 * readable; no parentheses, as show and path put it in theirs */
	bool have_enable;	/* per-priority enables readable (MLNX_OFED sysfs only) */
	uint8_t np_en, rp_en;	/* priority bitmaps: notification point, reaction point */
	struct nd_ecn_param params[ND_ECN_PARAM_MAX];	/* includes np_cnp_dscp, np_cnp_prio */
	size_t n_params;
};

const char *nd_ecn_backend_name(enum nd_ecn_backend backend);
/* Is @name a canonical DCQCN/CNP parameter name (profiles are checked against this)? */
bool nd_ecn_param_known(const char *name);
/* Value of a canonical parameter in @ecn; -ENOENT when the backend does not expose it. */
int nd_ecn_param_get(const struct nd_ecn *ecn, const char *name, uint32_t *value);
/*
 * Detect the backend of a port (by netdev name and PCI address) and read what it exposes.
 * A port with no backend is not an error: backend ND_ECN_NONE and a note saying why.
 */
int nd_ecn_read(const char *ifname, const char *bus_info, struct nd_ecn *ecn, struct nd_err *e);
/* Enable or disable ECN at the notification (@np true) or reaction point for one priority. */
int nd_ecn_set_enable(const char *ifname, const char *bus_info, enum nd_ecn_backend backend,
		      bool np, unsigned int prio, bool on, struct nd_err *e);
/* Write one canonical parameter through the port's backend. */
int nd_ecn_set_param(const char *ifname, const char *bus_info, enum nd_ecn_backend backend,
		     const char *name, uint32_t value, struct nd_err *e);

#ifdef __cplusplus
}
#endif

#endif
