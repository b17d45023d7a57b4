// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ECN / DCQCN on the NIC. No stable kernel interface exists, so each port gets the backend its
 * driver offers: MLNX_OFED's sysfs (/sys/class/net/IF/ecn/roce_{np,rp}/, with per-priority
 * enables) or upstream mlx5's debugfs (<debugfs>/mlx5/BDF/cc_params/, root only, no enables).
 * Parameters carry the upstream cc_params names everywhere; one table maps them onto each
 * backend's files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define OFED_DIR "/sys/class/net/%s/ecn/"
#define DEBUGFS_DIR "/sys/kernel/debug/mlx5/%s/cc_params/"
#define NO_BACKEND "no MLNX_OFED ecn sysfs, no mlx5 debugfs cc_params"

struct ecn_param_row {
	const char *name;	/* canonical: the upstream cc_params file */
	const char *ofed;	/* MLNX_OFED file under ecn/, NULL when it has none */
	const char *debugfs;	/* upstream cc_params file, NULL when it has none */
};

/* In the order mlx5's cong.c lists them, which is the order audit prints them in. */
static const struct ecn_param_row params[] = {
	{ "rp_clamp_tgt_rate", "roce_rp/clamp_tgt_rate", "rp_clamp_tgt_rate" },
	{ "rp_clamp_tgt_rate_ati", "roce_rp/clamp_tgt_rate_after_time_inc",
	  "rp_clamp_tgt_rate_ati" },
	{ "rp_time_reset", "roce_rp/rpg_time_reset", "rp_time_reset" },
	{ "rp_byte_reset", "roce_rp/rpg_byte_reset", "rp_byte_reset" },
	{ "rp_threshold", "roce_rp/rpg_threshold", "rp_threshold" },
	{ "rp_ai_rate", "roce_rp/rpg_ai_rate", "rp_ai_rate" },
	{ "rp_max_rate", "roce_rp/rpg_max_rate", "rp_max_rate" },
	{ "rp_hai_rate", "roce_rp/rpg_hai_rate", "rp_hai_rate" },
	{ "rp_min_dec_fac", "roce_rp/rpg_min_dec_fac", "rp_min_dec_fac" },
	{ "rp_min_rate", "roce_rp/rpg_min_rate", "rp_min_rate" },
	{ "rp_rate_to_set_on_first_cnp", "roce_rp/rate_to_set_on_first_cnp",
	  "rp_rate_to_set_on_first_cnp" },
	{ "rp_dce_tcp_g", "roce_rp/dce_tcp_g", "rp_dce_tcp_g" },
	{ "rp_dce_tcp_rtt", "roce_rp/dce_tcp_rtt", "rp_dce_tcp_rtt" },
	{ "rp_rate_reduce_monitor_period", "roce_rp/rate_reduce_monitor_period",
	  "rp_rate_reduce_monitor_period" },
	{ "rp_initial_alpha_value", "roce_rp/initial_alpha_value", "rp_initial_alpha_value" },
	{ "rp_gd", "roce_rp/rpg_gd", "rp_gd" },
	{ "np_min_time_between_cnps", "roce_np/min_time_between_cnps",
	  "np_min_time_between_cnps" },
	{ "np_cnp_dscp", "roce_np/cnp_dscp", "np_cnp_dscp" },
	{ "np_cnp_prio_mode", NULL, "np_cnp_prio_mode" },
	{ "np_cnp_prio", "roce_np/cnp_802p_prio", "np_cnp_prio" },
	{ "rtt_resp_dscp_valid", NULL, "rtt_resp_dscp_valid" },
	{ "rtt_resp_dscp", NULL, "rtt_resp_dscp" },
};

_Static_assert(ND_ARRAY_SIZE(params) <= ND_ECN_PARAM_MAX, "ND_ECN_PARAM_MAX too small");

static const char *const backend_names[] = {
	[ND_ECN_NONE] = "none",
	[ND_ECN_MLNX_SYSFS] = "mlnx-sysfs",
	[ND_ECN_MLX5_DEBUGFS] = "mlx5-debugfs",
};

const char *nd_ecn_backend_name(enum nd_ecn_backend backend)
{
	if ((unsigned int)backend < ND_ARRAY_SIZE(backend_names))
		return backend_names[backend];
	return "unknown";
}

static const struct ecn_param_row *param_row(const char *name)
{
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(params); i++)
		if (!strcmp(params[i].name, name))
			return &params[i];
	return NULL;
}

bool nd_ecn_param_known(const char *name)
{
	return name && param_row(name);
}

int nd_ecn_param_get(const struct nd_ecn *ecn, const char *name, uint32_t *value)
{
	size_t i;

	for (i = 0; i < ecn->n_params; i++) {
		if (!strcmp(ecn->params[i].name, name)) {
			*value = ecn->params[i].value;
			return 0;
		}
	}
	return -ENOENT;
}

/* The backend's file for @row, as an absolute (unrooted) path; "" when the backend has none. */
static void param_path(char *buf, size_t len, enum nd_ecn_backend backend, const char *ifname,
		       const char *bus_info, const struct ecn_param_row *row)
{
	buf[0] = '\0';
	if (backend == ND_ECN_MLNX_SYSFS && row->ofed)
		snprintf(buf, len, OFED_DIR "%s", ifname, row->ofed);
	else if (backend == ND_ECN_MLX5_DEBUGFS && row->debugfs)
		snprintf(buf, len, DEBUGFS_DIR "%s", bus_info, row->debugfs);
}

/* What a person can do about an errno from reading or writing one of these files. */
static const char *errno_fix(int err)
{
	switch (err) {
	case -EACCES:
	case -EPERM:
		return "; run as root";
	case -ENOENT:
		return "; this driver has no such parameter";
	case -EINVAL:
	case -ERANGE:
		return "; the driver refused the value, check its range";
	case -EOPNOTSUPP:
		return "; the firmware does not allow changing it";
	default:
		return "";
	}
}

/*
 * Read one decimal value. Absent (-ENOENT) is returned silently: drivers differ in what they have.
 * Anything else is an error naming the file.
 */
static int read_value(const char *ifname, const char *path, uint32_t *value, struct nd_err *e)
{
	char buf[32], *end;
	unsigned long long v;
	int ret;

	ret = nd_sys_read(buf, sizeof(buf), "%s", path);
	if (ret == -ENOENT)
		return ret;
	if (ret < 0)
		return nd_err_set(e, ret, "%s: cannot read ECN setting %s: %s%s", ifname, path,
				  strerror(-ret), ret == -EACCES || ret == -EPERM ?
				  "; run as root" : "");
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf || *end || buf[0] == '-' || v > UINT32_MAX)
		return nd_err_set(e, -EINVAL, "%s: ECN setting %s holds '%s', not a number", ifname,
				  path, buf);
	*value = (uint32_t)v;
	return 0;
}

static int read_params(const char *ifname, const char *bus_info, struct nd_ecn *ecn,
		       struct nd_err *e)
{
	char path[256];
	uint32_t v;
	size_t i;
	int ret;

	for (i = 0; i < ND_ARRAY_SIZE(params); i++) {
		param_path(path, sizeof(path), ecn->backend, ifname, bus_info, &params[i]);
		if (!path[0])
			continue;
		ret = read_value(ifname, path, &v, e);
		if (ret == -ENOENT)
			continue;
		if (ret)
			return ret;
		nd_strlcpy(ecn->params[ecn->n_params].name, params[i].name, ND_ECN_NAME_MAX);
		ecn->params[ecn->n_params++].value = v;
	}
	return 0;
}

/* MLNX_OFED: roce_{np,rp}/enable/<prio>, each 0 or 1. */
static int read_enables(const char *ifname, struct nd_ecn *ecn, struct nd_err *e)
{
	static const char *const side[] = { "np", "rp" };
	uint8_t *bits[] = { &ecn->np_en, &ecn->rp_en };
	char path[256];
	unsigned int s, p;
	uint32_t v;
	int ret;

	for (s = 0; s < 2; s++) {
		for (p = 0; p < ND_PRIO_MAX; p++) {
			snprintf(path, sizeof(path), OFED_DIR "roce_%s/enable/%u", ifname,
				 side[s], p);
			ret = read_value(ifname, path, &v, e);
			if (ret == -ENOENT)
				continue;
			if (ret)
				return ret;
			if (v > 1)
				return nd_err_set(e, -EINVAL,
						  "%s: ECN setting %s holds %u, not 0 or 1", ifname,
						  path, v);
			ecn->have_enable = true;
			if (v)
				*bits[s] |= (uint8_t)(1u << p);
		}
	}
	return 0;
}

static int dir_any(const char *name, void *data)
{
	(void)name;
	(void)data;
	return 0;
}

int nd_ecn_read(const char *ifname, const char *bus_info, struct nd_ecn *ecn, struct nd_err *e)
{
	char drv[64];
	int ret;

	memset(ecn, 0, sizeof(*ecn));
	if (nd_sys_exists(OFED_DIR "roce_np", ifname)) {
		ecn->backend = ND_ECN_MLNX_SYSFS;
		ret = read_enables(ifname, ecn, e);
		return ret ? ret : read_params(ifname, bus_info, ecn, e);
	}
	ret = bus_info && *bus_info ? nd_sys_dir(dir_any, NULL, DEBUGFS_DIR, bus_info) : -ENOENT;
	if (!ret) {
		ecn->backend = ND_ECN_MLX5_DEBUGFS;
		snprintf(ecn->note, sizeof(ecn->note), "upstream mlx5 has no per-priority ECN "
			 "enable; firmware ROCE_CC_PRIO_MASK, set by mlxconfig, picks the "
			 "priorities");
		ret = read_params(ifname, bus_info, ecn, e);
		if (ret != -EACCES && ret != -EPERM)
			return ret;
		/* cc_params files are 0600, and kernel lockdown closes them even to root */
		nd_err_clear(e);
		ecn->n_params = 0;
		snprintf(ecn->note, sizeof(ecn->note), "DCQCN parameters are in debugfs, %s",
			 geteuid() ? "readable by root only" : "closed by kernel lockdown");
		return 0;
	}
	/*
	 * debugfs is mode 0700: an unprivileged reader cannot tell "no cc_params" from "not
	 * allowed", so say which it may be when the port is an mlx5 one (or the driver is unknown).
	 */
	if ((ret == -EACCES || ret == -EPERM) &&
	    (nd_sys_link_name(drv, sizeof(drv), "/sys/class/net/%s/device/driver", ifname) < 0 ||
	     !strcmp(drv, "mlx5_core"))) {
		snprintf(ecn->note, sizeof(ecn->note),
			 "DCQCN parameters are in debugfs, readable by root only");
		return 0;
	}
	snprintf(ecn->note, sizeof(ecn->note), NO_BACKEND);
	return 0;
}

static int write_value(const char *ifname, const char *path, const char *what, uint32_t value,
		       struct nd_err *e)
{
	char buf[16];
	int ret;

	snprintf(buf, sizeof(buf), "%u", value);
	ret = nd_sys_write(buf, "%s", path);
	if (ret)
		return nd_err_set(e, ret, "%s: cannot set %s to %u in %s: %s%s", ifname, what,
				  value, path, strerror(-ret), errno_fix(ret));
	return 0;
}

int nd_ecn_set_param(const char *ifname, const char *bus_info, enum nd_ecn_backend backend,
		     const char *name, uint32_t value, struct nd_err *e)
{
	const struct ecn_param_row *row = param_row(name);
	char path[256], what[64];

	if (!row)
		return nd_err_set(e, -EINVAL, "%s: cannot set DCQCN parameter '%s': no such "
				  "parameter; use an upstream mlx5 cc_params name such as "
				  "rp_ai_rate", ifname, name);
	if (backend == ND_ECN_NONE)
		return nd_err_set(e, -EOPNOTSUPP, "%s: cannot set DCQCN parameter %s: the driver "
				  "offers no interface for it (" NO_BACKEND "); set it in the NIC "
				  "firmware instead", ifname, name);
	param_path(path, sizeof(path), backend, ifname, bus_info, row);
	if (!path[0])
		return nd_err_set(e, -EOPNOTSUPP, "%s: cannot set DCQCN parameter %s: %s has no "
				  "such file; leave it out of the profile for this port", ifname,
				  name, nd_ecn_backend_name(backend));
	snprintf(what, sizeof(what), "DCQCN parameter %s", name);
	return write_value(ifname, path, what, value, e);
}

int nd_ecn_set_enable(const char *ifname, const char *bus_info, enum nd_ecn_backend backend,
		      bool np, unsigned int prio, bool on, struct nd_err *e)
{
	const char *point = np ? "notification point" : "reaction point";
	char path[256], what[64];

	(void)bus_info;
	if (prio >= ND_PRIO_MAX)
		return nd_err_set(e, -EINVAL, "%s: cannot switch ECN %s on priority %u: priorities "
				  "are 0-7", ifname, point, prio);
	if (backend != ND_ECN_MLNX_SYSFS)
		return nd_err_set(e, -EOPNOTSUPP, "%s: cannot switch ECN %s on priority %u: %s; "
				  "the firmware's ROCE_CC_PRIO_MASK (mlxconfig) picks the "
				  "priorities", ifname, point, prio,
				  backend == ND_ECN_MLX5_DEBUGFS ?
				  "upstream mlx5 has no per-priority ECN enable" :
				  "the driver offers no ECN interface");
	snprintf(path, sizeof(path), OFED_DIR "roce_%s/enable/%u", ifname, np ? "np" : "rp", prio);
	snprintf(what, sizeof(what), "the ECN %s enable of priority %u", point, prio);
	return write_value(ifname, path, what, on, e);
}
