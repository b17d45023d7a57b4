/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libnodrop: the lossless state of RDMA ports, read from the kernel's own interfaces.
 *
 * Conventions: functions return 0 (or a count) on success and a negative errno on failure, and
 * fill the caller's struct nd_err with one human sentence that names the port, the operation, the
 * kernel's reason and, where there is one, the fix. The library never prints.
 */
#ifndef NODROP_H
#define NODROP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <linux/dcbnl.h>

#define ND_ERR_MSG_MAX 512
#define ND_IFNAMSIZ 16		/* IFNAMSIZ, without pulling in <net/if.h> or <linux/if.h> */

struct nd_err {
	int code;			/* negative errno, 0 when clear */
	char msg[ND_ERR_MSG_MAX];	/* one sentence for a person */
};

/* Set @e to @code with a printf-style message; returns @code so callers can "return nd_err_set()". */
int nd_err_set(struct nd_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix the message already in @e with "@fmt: " (adds context on the way up); returns e->code. */
int nd_err_wrap(struct nd_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void nd_err_clear(struct nd_err *e);

/* ---- rooted access to /sys, /proc, configfs, debugfs (env NODROP_SYSROOT) ---- */

/* The prefix every kernel file path gets; "" on a real system, a fixture tree in tests. */
const char *nd_sysroot(void);
/* Re-read NODROP_SYSROOT (tests change it between cases). */
void nd_sysroot_reset(void);
/* Build the rooted path of an absolute path such as "/sys/class/net/eth0/mtu". */
int nd_sys_path(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Read a small text file, strip the trailing newline; returns the length or -errno. */
int nd_sys_read(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Read a file holding one unsigned decimal (or 0x hex) number. */
int nd_sys_read_u64(uint64_t *val, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The last path component of a symlink's target (e.g. the driver of a device). */
int nd_sys_link_name(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
bool nd_sys_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
 * Call @fn for each entry of a directory, in name order, skipping "." and "..".
 * Stops and returns @fn's value when it is non-zero; returns -errno when the directory cannot be read.
 */
typedef int (*nd_sys_dir_fn)(const char *name, void *data);
int nd_sys_dir(nd_sys_dir_fn fn, void *data, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- DCB (IEEE 802.1Qaz/Qbb) state of one netdev, as dcbnl reports it ---- */

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
/* The port's trust: the explicit apptrust table when present, else DSCP iff a DSCP APP entry exists. */
enum nd_trust nd_dcb_trust(const struct nd_dcb *dcb, enum nd_trust_source *source);
/* dscp2prio[d] = priority, or -1 where no APP entry maps DSCP d. */
void nd_dcb_dscp_map(const struct nd_dcb *dcb, int dscp2prio[ND_DSCP_MAX]);

const char *nd_tsa_name(uint8_t tsa);
const char *nd_app_selector_name(uint8_t selector);
const char *nd_trust_name(enum nd_trust trust);

/* ---- ECN / DCQCN on the NIC ---- */

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
	char note[160];		/* why nothing or only part is readable, for audit to say */
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

/* ---- one port: netdev + DCB + RDMA device/port + rdma_cm defaults ---- */

struct nd_roce {
	bool configured;	/* rdma_cm configfs group exists; else kernel defaults apply */
	int tos;		/* full ToS byte: DSCP << 2 | ECN */
	char mode[16];		/* "RoCE v2", "IB/RoCE v1" */
};

struct nd_rdma_port {
	char ibdev[64];
	unsigned int port;
	char link_layer[16];	/* "Ethernet", "InfiniBand" */
	char state[24];		/* "ACTIVE", "DOWN", ... */
	char phys_state[24];
	char rate[48];
	unsigned int active_mtu;	/* bytes, 0 unknown */
	unsigned int max_mtu;		/* bytes, 0 unknown */
	struct nd_roce roce;
};

#define ND_RDMA_PER_NETDEV 4

struct nd_link {
	int ifindex;
	char name[ND_IFNAMSIZ];
	unsigned int mtu;
	unsigned int min_mtu, max_mtu;	/* 0 unknown */
	char operstate[16];
	char kind[16];		/* rtnl link kind ("veth"), "" for physical devices */
	char driver[32];
	char bus_info[32];
	int64_t speed_mbps;	/* -1 unknown */
	unsigned int arptype;
};

struct nd_port {
	struct nd_link link;
	int dcb_status;		/* 0, or the negative errno of reading DCB (-EOPNOTSUPP: no DCB) */
	char dcb_error[ND_ERR_MSG_MAX];
	struct nd_dcb dcb;
	struct nd_rdma_port rdma[ND_RDMA_PER_NETDEV];
	size_t n_rdma;
	struct nd_ecn ecn;
};

struct nd_ctx;

int nd_ctx_new(struct nd_ctx **ctx, struct nd_err *e);
void nd_ctx_free(struct nd_ctx *ctx);

/*
 * Read the whole lossless picture of the named netdevs (all of them when @n is 0) into a new array.
 * A port whose driver lacks DCB is still returned (dcb_status says why). An unknown name fails the
 * call with -ENODEV before anything else is read.
 */
int nd_ports_read(struct nd_ctx *ctx, const char *const *names, size_t n,
		  struct nd_port **ports, size_t *count, struct nd_err *e);
void nd_ports_free(struct nd_port *ports, size_t count);

/* ---- desired state: a profile (see nodrop-profile(5)) ---- */

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
	struct nd_loc origin;		/* the top-level file */
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
};

#define ND_PROFILE_MAX_BYTES (1024 * 1024)
#define ND_PROFILE_MAX_DEPTH 8		/* extends chain */

/*
 * Load and validate a profile file (and what it extends). On error nothing is returned and
 * @e says "FILE:LINE:COL: what is wrong; what to do".
 */
int nd_profile_load(const char *path, struct nd_profile *p, struct nd_err *e);
/* The same from memory (@name stands for the file in messages; extends resolves against @dir). */
int nd_profile_parse(const char *buf, size_t len, const char *name, const char *dir,
		     struct nd_profile *p, struct nd_err *e);
void nd_profile_free(struct nd_profile *p);
/* Does the profile apply to @port? */
bool nd_profile_matches(const struct nd_profile *p, const struct nd_port *port);

/* ---- lints: consistency rules over a port's (current or planned) state ---- */

enum nd_severity {
	ND_SEV_INFO,
	ND_SEV_WARN,
	ND_SEV_ERROR,
};

const char *nd_severity_name(enum nd_severity sev);

struct nd_lint {
	const char *id;			/* stable, e.g. "roce-prio-not-lossless" */
	enum nd_severity severity;
	char evidence[256];		/* the values that break the rule */
	char fix[256];			/* what to do */
	struct nd_loc loc;		/* the profile value involved, file "" when none */
};

/*
 * Run every rule over @port (for apply --dry-run: the state after the plan) with @profile for
 * profile-only rules and locations (may be NULL). Returns the number of lints in *@lints
 * (caller frees) or -errno.
 */
int nd_lint_port(const struct nd_port *port, const struct nd_profile *profile,
		 struct nd_lint **lints, struct nd_err *e);

#endif /* NODROP_H */
