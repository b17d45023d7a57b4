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
#include <sys/types.h>
#include <linux/dcbnl.h>

#define ND_ERR_MSG_MAX 512
#define ND_IFNAMSIZ 16		/* IFNAMSIZ, without pulling in <net/if.h> or <linux/if.h> */

struct nd_err {
	int code;			/* negative errno, 0 when clear */
	char msg[ND_ERR_MSG_MAX];	/* one sentence for a person */
};

/* Set @e to @code with a printf-style message; returns @code ("return nd_err_set(...)"). */
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
/* A symlink's whole target, NUL-terminated; -ENAMETOOLONG when it does not fit in @len. */
int nd_sys_readlink(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Up to @len bytes of a binary file (PCI config space) from @off, short reads retried; returns the
 * count, below @len only at end of file, or -errno.
 */
ssize_t nd_sys_read_bin(void *buf, size_t len, off_t off, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool nd_sys_exists(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Write a small text value (sysfs/debugfs attribute) with one write(); returns 0 or -errno. */
int nd_sys_write(const char *value, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Call @fn for each entry of a directory, in name order, skipping "." and "..".
 * Stops and returns @fn's value when it is non-zero; -errno when the directory cannot be read.
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
/* The port's trust: the apptrust table when present, else DSCP iff a DSCP APP entry exists. */
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
	char note[256];		/* what audit should know of this backend: why a part is not readable */
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
};

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

/* ---- apply, audit, rollback ---- */

/* One change an apply makes (or an audit finds missing), as a person reads it. */
struct nd_change {
	enum nd_field field;
	char from[512], to[512];	/* a whole DSCP map fits */
	char warning[320];
	bool skipped;		/* cannot be read or written on this port; not drift, not applied */
	int unsupported;	/* skipped because the port cannot give this field: -EOPNOTSUPP
				 * (not supported by the driver) or -EIO (reading it failed); a
				 * finding in audit, a refusal in apply (see warning) */
};

struct nd_port_report {
	struct nd_port port;		/* the state read before anything was done */
	struct nd_change *changes;
	size_t n_changes;
	struct nd_lint *lints;		/* on the planned state (apply) or current state (audit) */
	size_t n_lints;
};

enum nd_outcome {
	ND_OUTCOME_DRY_RUN,
	ND_OUTCOME_NOOP,		/* already in the desired state: nothing written */
	ND_OUTCOME_APPLIED,		/* written and verified by reading back */
	ND_OUTCOME_REFUSED,		/* lints at error severity; nothing written (see force) */
	ND_OUTCOME_ROLLED_BACK,		/* a step failed; the pre-state is back, verified */
	ND_OUTCOME_ROLLBACK_FAILED,	/* ...and restoring it failed too: see the journal */
	ND_OUTCOME_AUDITED,
	ND_OUTCOME_CONFLICT,		/* rollback: fields changed since the apply; nothing done */
};

const char *nd_outcome_name(enum nd_outcome outcome);

struct nd_apply_opts {
	const char *state_dir;		/* journal and lock; default /var/lib/nodrop */
	int wait_s;			/* how long to wait for another apply's lock */
	bool dry_run;
	bool force;			/* apply: despite lints at error severity or fields the
					 * driver does not support; rollback: despite conflicts */
	const char *const *devs;	/* restrict to these netdevs (all when n_devs is 0) */
	size_t n_devs;
};

/* A field someone else changed after the apply: rollback will not overwrite it silently. */
struct nd_conflict {
	char ifname[ND_IFNAMSIZ];
	enum nd_field field;
	char applied[160];		/* the value the apply left */
	char now[160];			/* the value the port holds now */
};

struct nd_report {
	struct nd_port_report *ports;
	size_t n;
	enum nd_outcome outcome;
	char failure[ND_ERR_MSG_MAX];	/* the step that failed, when rolled back; or why refused */
	char journal[512];		/* where the pre-state was written */
	char note[512];			/* rollback: why there was nothing to do */
	struct nd_conflict *conflicts;	/* rollback */
	size_t n_conflicts;
};

#define ND_STATE_DIR "/var/lib/nodrop"

/*
 * Apply @profile transactionally: read every matching port, plan, lint, take the per-host lock,
 * journal the pre-state durably, write in a safe order, read back and verify; on any failure
 * restore the pre-state and verify that. Returns 0 when the run ended as planned (applied,
 * no-op, dry-run), -EINVAL for a profile that does not fit the ports, -EBUSY when another
 * apply holds the lock, another negative errno when a step failed (see @r->outcome).
 */
int nd_apply(struct nd_ctx *ctx, const struct nd_profile *profile,
	     const struct nd_apply_opts *opts, struct nd_report *r, struct nd_err *e);
/* Compare the ports with @profile: drift per field and lints on the current state. */
int nd_audit(struct nd_ctx *ctx, const struct nd_profile *profile, const char *const *devs,
	     size_t n_devs, struct nd_report *r, struct nd_err *e);
/*
 * Restore the pre-state journalled by the last apply that wrote (also after a crash or kill
 * mid-apply). Nothing to do (@r->note says why) for a journal already rolled back or an apply
 * stopped before its first write. A field changed since the apply by someone else stops it:
 * @r->conflicts lists them, outcome ND_OUTCOME_CONFLICT, nothing written (@opts->force restores
 * anyway).
 */
int nd_rollback(struct nd_ctx *ctx, const char *journal, const struct nd_apply_opts *opts,
		struct nd_report *r, struct nd_err *e);
void nd_report_free(struct nd_report *r);

/* ---- counters (see nodrop-counters(8)) ---- */

/*
 * One meaning, one name, for every driver: "pfc_rx_frames" prio 3 is mlx5's rx_prio3_pause,
 * bnxt's rx_pfc_ena_frames_pri3 and ice's rx_priority_3_xon.nic + rx_priority_3_xoff.nic. The
 * meanings are code (nd_counter_info); which driver calls them what is data (driver map files,
 * installed with the tool, so a new driver needs a file and no rebuild).
 */
enum nd_ctr_source {
	ND_CTR_ETHTOOL,		/* ethtool ioctl string set / stats (driver counters) */
	ND_CTR_PAUSE,		/* ethtool netlink standard pause stats (802.3x) */
	ND_CTR_RDMA,		/* RDMA netlink statistics, sysfs hw_counters as fallback */
	ND_CTR_PMA,		/* IB PMA: /sys/class/infiniband/DEV/ports/N/counters */
};

#define ND_CTR_NAME_MAX 64

/* "ethtool", "pause", "rdma", "pma" */
const char *nd_ctr_source_name(enum nd_ctr_source source);

struct nd_counter {
	char name[ND_CTR_NAME_MAX];	/* canonical name, or the raw name when no map knows it */
	int prio;			/* 0..7 for per-priority counters, -1 otherwise */
	bool mapped;			/* false: unmapped raw counter, kept under its own name */
	enum nd_ctr_source source;
	char raw[ND_CTR_NAME_MAX];	/* the driver's name (the first of several that add up) */
	uint64_t value;
	uint8_t width;			/* bits before it wraps: 64, 32, or a PMA field's width */
	bool saturates;			/* IB PMA error counters stick at their maximum */
};

/* What a canonical counter means (NULL for names no map defines). */
struct nd_counter_info {
	const char *name;
	bool per_prio;
	const char *unit;		/* "frames", "us", "packets", "bytes", "events", "ticks" */
	bool loss;			/* a loss indicator: moves only when data was lost or resent */
	const char *help;		/* one line, for --prometheus HELP and the man page */
};

const struct nd_counter_info *nd_counter_info(const char *name);
/* Every canonical counter, NULL-terminated by name. */
const struct nd_counter_info *nd_counter_infos(size_t *n);

/* All sources of one port read together: a consistent snapshot with one monotonic timestamp. */
struct nd_sample {
	char ifname[ND_IFNAMSIZ];
	char driver[32];
	char ibdev[64];			/* the RDMA device whose counters are in it, "" none */
	unsigned int ibport;
	bool rdma_netlink;		/* RDMA counters came by netlink (false: sysfs fallback) */
	uint64_t t_ns;			/* CLOCK_MONOTONIC when the snapshot was taken */
	struct nd_counter *c;
	size_t n;
};

struct nd_sampler;

/*
 * @maps: the directory of driver map files; NULL for env NODROP_COUNTER_MAPS, else data/counters
 * of the source tree when the program runs from its build directory, else the installed default
 * (DATADIR/counters). A bad map file fails with -EINVAL and "FILE:LINE: ...".
 */
int nd_sampler_new(struct nd_sampler **s, const char *maps, struct nd_err *e);
void nd_sampler_free(struct nd_sampler *s);
/* Take one sample of @ifname (its ethtool counters, pause stats, RDMA and PMA counters). */
int nd_sample_port(struct nd_sampler *s, const char *ifname, struct nd_sample *out,
		   struct nd_err *e);
void nd_sample_free(struct nd_sample *smp);
/*
 * The counter @name (canonical or raw) for @prio (-1: not per priority), NULL when absent. A
 * canonical name wins over a raw one; of two sources the first of ethtool, pause, rdma, pma.
 */
const struct nd_counter *nd_sample_find(const struct nd_sample *smp, const char *name, int prio);

enum nd_delta_status {
	ND_DELTA_OK,
	ND_DELTA_WRAPPED,	/* passed its width once: delta computed modulo 2^width */
	ND_DELTA_SATURATED,	/* a saturating counter at its maximum: at least this much */
	ND_DELTA_RESET,		/* went backwards without wrapping (driver reload): no delta */
	ND_DELTA_NEW,		/* not in the first sample (a PFC priority enabled meanwhile) */
	ND_DELTA_GONE,		/* not in the second sample */
};

struct nd_delta {
	char name[ND_CTR_NAME_MAX];
	int prio;
	bool mapped;
	enum nd_ctr_source source;	/* one name can come from two sources (pause frames) */
	uint64_t value;			/* in the second sample (GONE: the last value seen) */
	uint64_t delta;			/* 0 unless status OK, WRAPPED or SATURATED */
	double rate;			/* delta per second of the samples' time apart */
	enum nd_delta_status status;
};

/* "ok", "wrapped", "saturated", "reset", "new", "gone" */
const char *nd_delta_status_name(enum nd_delta_status status);

/* Deltas from @a to @b (same port, @b later): one per counter in either sample. */
int nd_sample_diff(const struct nd_sample *a, const struct nd_sample *b, struct nd_delta **out,
		   size_t *n, struct nd_err *e);
/* The delta of @name/@prio in @d (NULL when absent); the same preference as nd_sample_find. */
const struct nd_delta *nd_delta_find(const struct nd_delta *d, size_t n, const char *name,
				     int prio);

/* ---- triage: rules over a port's state and counter deltas (see nodrop-triage(8)) ---- */

#define ND_FINDING_EV_MAX 12

/* One counter behind a finding: how far it moved between the two samples. */
struct nd_finding_ev {
	char name[ND_CTR_NAME_MAX];	/* canonical counter name (nd_counter_info) */
	int prio;			/* 0..7, -1 not per priority */
	uint64_t delta;			/* 0 unless status is OK, WRAPPED or SATURATED */
	double rate;			/* per second */
	enum nd_delta_status status;
};

struct nd_finding {
	const char *id;			/* stable rule id, e.g. "pfc-storm", or a lint's id */
	enum nd_severity severity;
	char ifname[ND_IFNAMSIZ];
	int prio;			/* the priority it concerns, -1 the port as a whole */
	double interval_s;		/* the samples' time apart; 0 for a config lint */
	char summary[256];		/* one line: what happened, with the numbers */
	struct nd_finding_ev ev[ND_FINDING_EV_MAX];
	size_t n_ev;
	char action[320];		/* what to do */
	struct nd_loc loc;		/* config lints: the profile value involved, file "" if none */
};

/* Thresholds; nd_triage_opts_init() sets the defaults documented in nodrop-triage(8). */
struct nd_triage_opts {
	double storm_fraction;		/* rx pause time / interval that is a PFC storm: 0.99 */
	double pause_heavy_fraction;	/* above this (and not a storm): pause-heavy, 0.5 */
	uint64_t loss_events;		/* RDMA loss events per interval that are rdma-loss: 1 */
	double rnr_rate;		/* RNR NAKs per second that are an rnr-storm: 100 */
	uint64_t xmit_wait_ticks;	/* port_xmit_wait ticks per interval: 1000 */
	const struct nd_profile *profile;	/* also lint the ports it matches; NULL none */
	const char *maps;		/* counter map directory for nd_sampler_new(), NULL default */
};

void nd_triage_opts_init(struct nd_triage_opts *o);
/* Every canonical counter name some rule reads, NULL-terminated (checked against the maps). */
const char *const *nd_triage_counters(size_t *n);

/*
 * Run every rule over one port: its state (@port, for PFC priorities and ECN enables) and the
 * deltas of its counters over @interval_s seconds (@d, @n from nd_sample_diff()), plus the
 * config lints when @o->profile matches the port (@o NULL: the defaults). Returns the number of
 * findings in *@out (caller frees) or -errno. Pure: no kernel access but the lints' own.
 */
int nd_triage(const struct nd_port *port, const struct nd_delta *d, size_t n, double interval_s,
	      const struct nd_triage_opts *o, struct nd_finding **out, struct nd_err *e);

struct nd_triage_port {
	struct nd_port port;		/* the state read before the first sample */
	int status;			/* 0, or the negative errno of sampling it (see error) */
	char error[ND_ERR_MSG_MAX];
	double interval_s;		/* its own two samples apart */
	size_t n_counters;		/* counters in its second sample */
	size_t n_moved;			/* of them, how many moved */
};

struct nd_triage_report {
	double interval_s;		/* asked for */
	struct nd_triage_port *ports;
	size_t n;
	struct nd_finding *findings;	/* every port's, in port order */
	size_t n_findings;
};

/*
 * Read the state of the named netdevs (all but loopback when @n is 0), sample each one's
 * counters, sleep @seconds, sample again and triage each port. An unknown name fails with
 * -ENODEV before anything is sampled; a port that cannot be sampled is reported in its entry
 * (status, error) and the others go on. Returns 0 or -errno.
 */
int nd_triage_run(struct nd_ctx *ctx, const char *const *names, size_t n, double seconds,
		  const struct nd_triage_opts *o, struct nd_triage_report *r, struct nd_err *e);
void nd_triage_report_free(struct nd_triage_report *r);

/* ---- doctor: GPUDirect RDMA readiness of this host, from sysfs and procfs ---- */

enum nd_check_status {
	ND_CHECK_PASS,
	ND_CHECK_WARN,
	ND_CHECK_FAIL,
	ND_CHECK_SKIP,		/* could not be checked here; the evidence says why */
};

const char *nd_check_status_name(enum nd_check_status status);

/*
 * How traffic between a GPU and a NIC crosses PCIe, in nvidia-smi topo -m's words, best first.
 * A PCIe switch (its upstream port and downstream ports) counts as one bridge, as NVML counts it.
 */
enum nd_pci_path {
	ND_PATH_PIX,		/* at most one bridge: the same PCIe switch */
	ND_PATH_PXB,		/* several bridges (cascaded switches), not the host bridge */
	ND_PATH_PHB,		/* through a PCIe host bridge (the root complex) */
	ND_PATH_NODE,		/* across host bridges of one NUMA node */
	ND_PATH_SYS,		/* across NUMA nodes: the socket interconnect */
	ND_PATH_UNKNOWN,	/* sysfs does not place one of them in the PCI hierarchy */
};

const char *nd_pci_path_name(enum nd_pci_path path);

/* One finding: a check's verdict on one subject, with the values read and what to do. */
struct nd_check {
	const char *id;			/* stable: "gpu-nic-affinity", "acs", "iommu", ... */
	enum nd_check_status status;
	char subject[96];		/* "GPU 0000:19:00.0", "mlx5_0/1 (eth2)", "host" */
	char evidence[1024];
	char fix[512];			/* "" when there is nothing to do */
};

#define ND_BDF_MAX 24

/* A GPU or an RDMA NIC as sysfs places it in the PCI hierarchy. */
struct nd_pci_dev {
	char bdf[ND_BDF_MAX];		/* "0000:19:00.0" */
	char name[64];			/* the RDMA device of a NIC ("mlx5_0"), "" for a GPU */
	uint16_t vendor, device;
	uint32_t pci_class;		/* 0x030200 */
	int numa_node;			/* -1: the firmware gives none */
	char path[256];			/* below /sys/devices: host bridge, bridges, the function */
};

struct nd_doctor {
	struct nd_pci_dev *gpus;
	size_t n_gpus;
	struct nd_pci_dev *nics;
	size_t n_nics;
	enum nd_pci_path *paths;	/* paths[gpu * n_nics + nic] */
	struct nd_check *checks;	/* in check order, grouped by id */
	size_t n_checks;
};

/*
 * Run every check on this host (or the tree under NODROP_SYSROOT). What cannot be read is a
 * skipped check saying why, not an error; returns 0, or -ENOMEM.
 */
int nd_doctor_run(struct nd_doctor *d, struct nd_err *e);
void nd_doctor_free(struct nd_doctor *d);
/* The PCIe path between a GPU and a NIC of @d. */
enum nd_pci_path nd_doctor_path(const struct nd_doctor *d, size_t gpu, size_t nic);

/* ---- headroom and sim: PFC headroom models, a RoCE/InfiniBand fabric simulator ---- */

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

/*
 * sim (nodrop-sim(8), scenarios in nodrop-scenario(5)): a discrete-event model of hosts, links
 * and shared-buffer switches with PFC, ECN/DCQCN and go-back-N (RoCE) or per-VL credits
 * (InfiniBand). Deterministic for a seed. Its result is a struct nd_run_report, as stress's is.
 */
enum nd_fabric {
	ND_FABRIC_ROCE,
	ND_FABRIC_IB,
	ND_FABRIC_COUNT
};

enum nd_topo {
	ND_TOPO_SINGLE,			/* every host on one switch */
	ND_TOPO_LEAF_SPINE,		/* two tiers, ECMP (a hash per flow) across spines */
};

enum nd_pattern {
	ND_PATTERN_PAIR,		/* host 2i -> host 2i+1 */
	ND_PATTERN_INCAST,		/* N senders -> one receiver */
	ND_PATTERN_VICTIM,		/* an incast, plus a flow to an idle host through it */
	ND_PATTERN_ALL_TO_ALL,
	ND_PATTERN_POISSON,		/* Poisson arrivals per host, sizes from a flow-size CDF */
	ND_PATTERN_COUNT
};

const char *nd_fabric_name(enum nd_fabric fabric);	/* "roce", "ib" */
const char *nd_pattern_name(enum nd_pattern pattern);	/* "pair", "incast", ... */

struct nd_sim_link {
	uint64_t speed_bps;
	uint64_t delay_ps;		/* propagation, one way (5 ns per metre of cable) */
};

/* A flow-size CDF point: P(size <= bytes) = pct %, linear between points. */
struct nd_cdf_point {
	double bytes, pct;
};

#define ND_SIM_HOSTS_MAX 4096
#define ND_SIM_FLOWS_MAX 1000000

struct nd_scenario {
	char name[64];
	char file[256];			/* the file it was read from, "" when built in code */
	uint64_t seed;
	enum nd_fabric fabric;		/* what runs without --compare */
	uint64_t duration_ps;
	unsigned int mtu;		/* payload bytes per packet (the RDMA path MTU) */
	unsigned int priority;		/* the data priority (InfiniBand: its VL), for names */
	unsigned int ack_every;		/* the receiver acknowledges every this many packets */
	uint64_t rto_ps;		/* go-back-N retransmission timeout */
	uint64_t series_ps;		/* per-flow throughput sample interval, 0: none */
	struct nd_sim_topo {
		enum nd_topo kind;
		unsigned int hosts;				/* single switch */
		unsigned int leaves, spines, hosts_per_leaf;	/* leaf-spine */
		struct nd_sim_link host, fabric;		/* host-switch, switch-switch */
	} topo;
	struct nd_sim_switch {
		uint64_t buffer;	/* shared buffer per switch, bytes */
		double alpha;		/* dynamic threshold: a PG may take alpha x the free buffer */
		uint64_t threshold;	/* static threshold per PG, bytes, when alpha is 0 */
		uint64_t headroom;	/* per lossless PG, bytes; 0: the basic model for its link */
		uint64_t xon_offset;	/* resume this far below the threshold */
	} sw;
	struct nd_sim_pfc {
		bool on;
		unsigned int quanta;	/* per PAUSE frame; re-sent at half time while congested */
		uint64_t response_ps;	/* a port's reaction time; UINT64_MAX: the quanta by speed */
	} pfc;
	struct nd_sim_ecn {
		bool on;
		uint64_t kmin, kmax;	/* egress queue bytes */
		double pmax;
	} ecn;
	struct nd_sim_dcqcn {
		bool on;
		double g, alpha;	/* alpha's EWMA gain; alpha before the first CNP */
		uint64_t timer_ps;	/* T: rate increase timer */
		uint64_t alpha_timer_ps;	/* K: alpha decays when no CNP came for this long */
		uint64_t cnp_interval_ps;	/* N: at most one CNP per flow per this (receiver) */
		uint64_t byte_counter;	/* B: rate increase every this many bytes sent */
		unsigned int fast_recovery;	/* F: stages of fast recovery */
		uint64_t ai_bps, hai_bps, min_bps;
	} dcqcn;
	struct nd_sim_ib {
		uint32_t vl_buffer;	/* receive buffer per VL per switch port, bytes */
	} ib;
	struct nd_sim_workload {
		enum nd_pattern pattern;
		unsigned int senders;	/* incast, victim: this many hosts send to the receiver, */
		unsigned int first_sender;	/* from this one up, skipping the receiver */
		unsigned int receiver;
		unsigned int pairs;	/* pair */
		uint64_t size;		/* bytes per flow, 0: sends until the end */
		unsigned int victim_src, victim_dst;
		double load;		/* poisson: share of each host's link */
		struct nd_cdf_point *cdf;	/* poisson: flow sizes (nd_scenario_free frees) */
		size_t n_cdf;
		char cdf_file[256];
		uint64_t jitter_ps;	/* each flow starts at a random time below this */
		unsigned int max_flows;	/* poisson: refuse arrivals that need more flows */
	} wl;
};

/* Defaults (see nodrop-scenario(5)): 8:1 incast on one switch at 100G, RoCE, PFC+ECN+DCQCN. */
void nd_scenario_init(struct nd_scenario *s);
/*
 * Load a scenario file; errors say "FILE:LINE:COL: KEY: what is wrong; what to do". A CDF file
 * is found relative to the scenario's directory. On error @s holds nothing to free.
 */
int nd_scenario_load(const char *path, struct nd_scenario *s, struct nd_err *e);
/* The same from memory; @dir resolves a relative CDF path (NULL: CDF files are refused). */
int nd_scenario_parse(const char *buf, size_t len, const char *name, const char *dir,
		      struct nd_scenario *s, struct nd_err *e);
/*
 * Checks across keys (hosts exist, ranges hold); the parser runs it too. The buffer against
 * each port's headroom needs the links: nd_sim_run() checks that.
 */
int nd_scenario_check(const struct nd_scenario *s, struct nd_err *e);
void nd_scenario_free(struct nd_scenario *s);

/* A flow-size CDF file: "BYTES PERCENT" per line, '#' comments; *@pts is the caller's to free. */
int nd_cdf_load(const char *path, struct nd_cdf_point **pts, size_t *n, struct nd_err *e);
/* Mean flow size of a CDF with linear interpolation between its points. */
double nd_cdf_mean(const struct nd_cdf_point *pts, size_t n);

/* Percentiles of a unitless distribution (FCT slowdowns). */
struct nd_sim_pct {
	uint64_t count;
	double p50, p95, p99, max, mean;
};

#define ND_SIM_BUCKETS 5

/* The model's own numbers, beside the report. */
struct nd_sim_stats {
	uint64_t seed;
	uint64_t events;		/* events the loop processed */
	uint64_t flows, flows_done;
	uint64_t packets;		/* data packets sent, retransmissions included */
	struct nd_sim_pct slowdown;	/* completed flows, FCT over the idle-fabric ideal */
	struct nd_sim_bucket {
		uint64_t lo, hi;	/* flows of lo <= size < hi bytes (hi 0: no bound) */
		struct nd_sim_pct slowdown;
	} buckets[ND_SIM_BUCKETS];
};

struct nd_run_report;

/*
 * Run @s with the flow control of @fabric: RoCE (PFC, ECN/DCQCN, go-back-N) or InfiniBand
 * (credits per VL, never a drop). Fills @r (nd_run_report_free() frees it) and @st. Returns 0,
 * -EINVAL for a scenario nd_scenario_check() refuses, or -ENOMEM.
 */
int nd_sim_run(const struct nd_scenario *s, enum nd_fabric fabric, struct nd_run_report *r,
	       struct nd_sim_stats *st, struct nd_err *e);

/* ---- stress: lossless traffic (GPUDirect RDMA) and its verdict (see nodrop-stress(8)) ---- */

enum nd_op {
	ND_OP_WRITE,		/* RDMA WRITE */
	ND_OP_WRITE_IMM,	/* RDMA WRITE with immediate: the receiver sees every message */
	ND_OP_SEND,		/* SEND/RECV */
	ND_OP_READ,		/* RDMA READ: the data sink pulls */
	ND_OP_COUNT
};

/* Who sends to whom; rank 0 (the coordinator's process) is the receiver where there is one. */
enum nd_stress_pattern {
	ND_SP_PAIR,		/* rank 1 -> rank 0 */
	ND_SP_BIDIR,		/* rank 1 <-> rank 0 */
	ND_SP_INCAST,		/* ranks 1..N -> rank 0 */
	ND_SP_OUTCAST,		/* rank 0 -> ranks 1..N */
	ND_SP_ALL2ALL,		/* every rank -> every other rank */
	ND_SP_VICTIM,		/* ranks 1..N -> rank 0, and rank 1 -> rank N+1 (uncongested) */
	ND_SP_COUNT
};

const char *nd_op_name(enum nd_op op);
int nd_op_parse(const char *name, enum nd_op *op);
const char *nd_stress_pattern_name(enum nd_stress_pattern pattern);
int nd_stress_pattern_parse(const char *name, enum nd_stress_pattern *pattern);

enum nd_mem_kind {
	ND_MEM_HOST,
	ND_MEM_CUDA,
};

/* How GPU memory reaches the NIC. */
enum nd_gpu_reg {
	ND_GPU_REG_AUTO,	/* dmabuf, else peer memory */
	ND_GPU_REG_DMABUF,	/* cuMemGetHandleForAddressRange + ibv_reg_dmabuf_mr */
	ND_GPU_REG_PEERMEM,	/* ibv_reg_mr on the device pointer (nvidia_peermem) */
	ND_GPU_REG_STAGED,	/* through host memory: a copy each way (the double-copy path) */
	ND_GPU_REG_COUNT
};

const char *nd_gpu_reg_name(enum nd_gpu_reg reg);

struct nd_mem_spec {
	enum nd_mem_kind kind;
	bool hugepages;			/* host memory from MAP_HUGETLB */
	int gpu;			/* CUDA device ordinal; -1 when given by PCI bus id */
	char gpu_bus_id[ND_BDF_MAX];
	enum nd_gpu_reg reg;
};

/* "host", "host:huge", "cuda:N" or "cuda:BUS_ID", a CUDA one optionally ",dmabuf|peermem|staged". */
int nd_mem_spec_parse(const char *s, struct nd_mem_spec *m, struct nd_err *e);

enum nd_sizes_kind {
	ND_SIZES_FIXED,		/* one size */
	ND_SIZES_SWEEP,		/* powers of two from size[0] to size[n - 1], one step each */
	ND_SIZES_DIST,		/* each message drawn from size[] with weight[] */
};

#define ND_SIZES_MAX 64
#define ND_MSG_MAX (1u << 30)

struct nd_sizes {
	enum nd_sizes_kind kind;
	uint32_t size[ND_SIZES_MAX];
	double weight[ND_SIZES_MAX];	/* distributions: relative, > 0 */
	size_t n;
};

/* "4096", "64K", "64-1M" (a sweep), "@FILE" (a distribution: lines "SIZE WEIGHT", # comments). */
int nd_sizes_parse(const char *s, struct nd_sizes *z, struct nd_err *e);
/* A distribution from the text of such a file; @name stands for the file in messages. */
int nd_sizes_parse_dist(const char *text, const char *name, struct nd_sizes *z, struct nd_err *e);
uint32_t nd_sizes_max(const struct nd_sizes *z);
uint32_t nd_sizes_min(const struct nd_sizes *z);

enum nd_connect {
	ND_CONN_CM,		/* rdma_cm by IP address (ToS through RDMA_OPTION_ID_TOS) */
	ND_CONN_VERBS,		/* plain verbs: QP numbers, GIDs or LIDs exchanged at rendezvous */
};

/*
 * The traffic of a job: the same on every rank (the coordinator compares them field by field
 * and names the first that differs). nd_stress_job_init() sets the defaults of nodrop-stress(8).
 */
struct nd_stress_job {
	enum nd_stress_pattern pattern;
	enum nd_op op;
	struct nd_sizes sizes;
	uint32_t qps;			/* QPs per flow */
	uint32_t tx_depth;		/* outstanding work requests per QP */
	uint32_t cq_mod;		/* one signalled completion per cq_mod work requests */
	double duration_s;		/* per size step; 0 with iters */
	uint64_t iters;			/* messages per QP and size step; 0: run for duration_s */
	double rate_gbps;		/* per flow; 0 unlimited */
	uint32_t burst_on_us, burst_off_us;	/* on/off bursts; 0: continuous */
	bool probes;			/* ping-pong latency probes beside each flow */
	uint32_t probe_size, probe_interval_us;
	bool validate;			/* sequence and payload checks at the receiver */
	double watchdog_s;		/* no completion for this long on a busy QP: FAILED */
	double interval_s;		/* time series resolution */
	double margin_s;		/* rates leave out this much of each step's start and end */
	enum nd_connect connect;
	int tos;			/* ToS byte (DSCP << 2); -1: rdma_cm's default, 0 for verbs */
	int sl;				/* InfiniBand service level; -1: 0 */
	int qp_timeout;			/* ACK timeout, 4.096 us << N; -1: rdma_cm's, 17 for verbs */
};

void nd_stress_job_init(struct nd_stress_job *job);
/* Consistency of a job on its own (sizes against validation, cq_mod against tx_depth, ...). */
int nd_stress_job_check(const struct nd_stress_job *job, struct nd_err *e);
/* The ToS byte of a profile's lossless class: roce.tos, else the DSCP mapped to a PFC priority. */
int nd_stress_tos_from_profile(const struct nd_profile *p, int *tos, int *prio, struct nd_err *e);

/* What one process brings: its device, address and memory (may differ between ranks). */
struct nd_stress_local {
	char dev[64];			/* RDMA device; "" the first with an active port */
	unsigned int port;		/* 0: the first active port */
	int gid_index;			/* -1: pick a RoCE v2 GID (address family of @addr) */
	char addr[64];			/* rdma_cm: the local IP; "" the device's IPv4 GID */
	struct nd_mem_spec mem;
	uint32_t inline_max;		/* host messages up to this size go inline */
	bool event;			/* sleep on completion events instead of busy polling */
	const char *counter_maps;	/* nd_sampler_new()'s @maps */
	const volatile int *stop;	/* set (by a signal handler) to end the run cleanly */
};

void nd_stress_local_init(struct nd_stress_local *l);

enum nd_rv_kind {
	ND_RV_TCP,		/* the built-in coordinator */
	ND_RV_MPI,		/* launched by mpirun/srun: MPI collectives through nodrop-mpi.so */
};

struct nd_rendezvous {
	enum nd_rv_kind kind;
	char coord[128];		/* HOST:PORT of the coordinator */
	bool serve;			/* this process listens there and is rank 0 */
	uint32_t nranks;		/* serve: processes in the job, this one included */
	int rank;			/* wanted rank, -1 the next free one */
	char token[64];			/* pairs the processes of one job */
	double timeout_s;		/* how long any rendezvous step waits for everyone */
};

void nd_rendezvous_init(struct nd_rendezvous *rv);
/* Launched by mpirun or srun (the environment says so): MPI rendezvous is then the default. */
bool nd_stress_mpi_launched(void);

/* One message size (the only one unless sweeping): all flows together. */
struct nd_stress_step {
	uint32_t size;			/* 0 for a distribution */
	uint64_t messages, bytes;
	double seconds;
	double peak_gbps, avg_gbps, mpps;
};

/* One process of the job. */
struct nd_stress_rank {
	uint32_t rank;
	char host[64];
	char dev[64];
	unsigned int port;
	char ifname[ND_IFNAMSIZ];	/* the netdev whose counters were sampled */
	char addr[64];			/* its GID's or rdma_cm's address */
	double link_gbps;		/* the port's data rate, 0 unknown */
	char mem[48];			/* "host", "cuda:0 dmabuf", ... */
	char pacing[16];		/* "none", "hardware" or "software" (rate limits) */
	double cpu_s;			/* user + system CPU during traffic */
	uint64_t bytes_tx, bytes_rx;
	double staged_s;		/* time in host-staged copies */
	uint64_t staged_bytes;
	int status;			/* 0, or the negative errno that ended its run */
	char error[ND_ERR_MSG_MAX];
};

/* The counters of one sampled port: evidence that the verdict looked. */
struct nd_stress_port {
	char where[96];			/* "host/ifname" */
	double interval_s;
	size_t n_counters;		/* in the second sample */
	size_t n_loss;			/* loss indicators among them */
	size_t n_loss_moved;
	uint64_t tx_packets, rx_packets;	/* RDMA packets, else the port's */
	int status;			/* sampling failed: negative errno, see error */
	char error[ND_ERR_MSG_MAX];
};

struct nd_run_report;
struct nd_dist;

/* What a rank takes home; the run report's types follow below, hence the pointers. */
struct nd_stress_result {
	struct nd_run_report *report;	/* the shared shape; flows and ports on rank 0 only */
	bool gathered;			/* this process holds every rank's results (rank 0) */
	uint32_t rank, nranks;
	char connect[16];		/* "rdma_cm", "verbs" */
	int tos, sl;
	struct nd_stress_step *steps;
	size_t n_steps;
	struct nd_stress_rank *ranks;
	size_t n_ranks;
	struct nd_stress_port *sampled;
	size_t n_sampled;
	struct nd_dist *completion;	/* work request post -> completion (report->latency: probes) */
	double cpu_s_per_gb;		/* all ranks' CPU over the bytes moved (qperf's cost) */
	uint64_t validated, corrupt, misordered, missing, overrun;
};

/*
 * Run one rank of a stress job: rendezvous, connect, sample counters, run traffic, sample again,
 * gather. On rank 0 @r holds the whole report (r->gathered); elsewhere the verdict rank 0 sent.
 * @r is filled (report and completion allocated) whenever the call returns 0.
 * Returns 0 when a verdict was reached (LOSSY and FAILED runs included: see r->report.verdict),
 * -EINVAL for a job that cannot run, another negative errno when this process could not take part.
 */
int nd_stress_run(const struct nd_stress_job *job, const struct nd_stress_local *local,
		  const struct nd_rendezvous *rv, struct nd_stress_result *r, struct nd_err *e);
void nd_stress_result_free(struct nd_stress_result *r);

/* ---- run reports: stress measures and sim models the same fields, so they compare ---- */

enum nd_verdict {
	ND_VERDICT_NONE,	/* no verdict asked (sim what-if runs) */
	ND_VERDICT_LOSSLESS,	/* no loss indicator moved and all data validated */
	ND_VERDICT_LOSSY,	/* data was lost or resent: evidence says where */
	ND_VERDICT_FAILED,	/* the run itself failed: QP errors, timeouts, a peer died */
};

const char *nd_verdict_name(enum nd_verdict v);

/* Percentiles of a latency or completion-time distribution, microseconds. */
struct nd_dist {
	uint64_t count;
	double p50_us, p99_us, p999_us, max_us, mean_us;
};

struct nd_flow_result {
	char name[64];			/* "h1->h0" or "rank 3 -> rank 0" */
	char src[64], dst[64];
	uint64_t bytes, messages;
	double gbps;			/* average goodput over the flow's active time */
	double fct_us;			/* completion time of a finite flow, 0 when not one */
	double slowdown;		/* fct over the ideal on an idle fabric, 0 when not known */
	uint64_t retransmits;
	double *series_gbps;		/* throughput per series_dt_s, n_series points */
	size_t n_series;
	double series_dt_s;
};

/* Congestion signals per port (a NIC port in stress, a switch or host port in sim). */
struct nd_port_result {
	char name[64];
	double pause_fraction;		/* share of the run the port was paused (RoCE PFC) */
	uint64_t pause_frames;
	uint64_t ecn_marked, cnp_sent, cnp_handled;
	double credit_wait_fraction;	/* share of the run waiting for credits (IB xmit_wait) */
	uint64_t drops;
};

/* One piece of evidence: a counter (or model quantity) that moved, and by how much. */
struct nd_evidence {
	char where[64];			/* port or host */
	char what[64];			/* canonical counter name */
	int prio;
	uint64_t delta;
};

struct nd_run_report {
	char kind[16];			/* "stress" or "sim" */
	char fabric[16];		/* "roce" or "ib" */
	char pattern[32];		/* "pair", "incast", "victim", "all-to-all", ... */
	double duration_s;
	struct nd_flow_result *flows;
	size_t n_flows;
	double aggregate_gbps;
	double jain;			/* Jain's fairness index over the flows' goodput */
	struct nd_dist latency;		/* probe or completion latency (stress) */
	struct nd_dist fct;		/* flow completion times (sim) */
	struct nd_port_result *ports;
	size_t n_ports;
	uint64_t drops, retransmits;
	enum nd_verdict verdict;
	char reason[256];
	struct nd_evidence *evidence;
	size_t n_evidence;
};

/* Jain's fairness index (sum x)^2 / (n * sum x^2); 1 for a single or empty set. */
double nd_jain(const double *x, size_t n);
/* Percentiles of @n samples (sorted in place). */
void nd_dist_of(double *samples_us, size_t n, struct nd_dist *out);
void nd_run_report_free(struct nd_run_report *r);

#endif /* NODROP_H */
