// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A scenario's DCQCN from a NIC's own parameters, as nd_ecn_read() read them (MLNX_OFED sysfs or
 * mlx5 debugfs cc_params, under the cc_params names), so "what would my cluster do" runs with
 * the values the cluster's NICs hold. Units are ConnectX's: times in us, rates in Mb/s, the byte
 * counter in 64 bytes (mlxconfig's help says bytes; NVIDIA's DCQCN article as Google's isekai
 * reads it, and Spirent's 2 MB default, say 64: 32767 is the field's largest value), alpha and
 * g in 1024ths.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"

enum nic_unit {
	NIC_MEGA,	/* us -> ps, Mb/s -> bit/s: both times a million */
	NIC_BYTES64,	/* 64-byte units (rpg_byte_reset: 32767 is about 2 MB) */
	NIC_COUNT,
	NIC_BOOL,
	NIC_ALPHA,	/* 1024ths: the value itself */
	NIC_G,		/* 1024ths kept of alpha per update: g = (1024 - v) / 1024 */
};

/* A cc_params name and the scenario field it sets (nodrop-sim(8) names the keys). */
struct nic_key {
	const char *param;
	enum nic_unit unit;
	size_t off;
};

#define AT(f) offsetof(struct nd_scenario, dcqcn.f)

static const struct nic_key nic_keys[] = {
	{ "rp_time_reset", NIC_MEGA, AT(timer_ps) },
	{ "rp_byte_reset", NIC_BYTES64, AT(byte_counter) },
	{ "rp_threshold", NIC_COUNT, AT(fast_recovery) },
	{ "rp_ai_rate", NIC_MEGA, AT(ai_bps) },
	{ "rp_hai_rate", NIC_MEGA, AT(hai_bps) },
	{ "rp_min_rate", NIC_MEGA, AT(min_bps) },
	{ "rp_dce_tcp_g", NIC_G, AT(g) },
	{ "rp_dce_tcp_rtt", NIC_MEGA, AT(alpha_timer_ps) },
	{ "rp_initial_alpha_value", NIC_ALPHA, AT(alpha) },
	{ "rp_rate_reduce_monitor_period", NIC_MEGA, AT(reduce_period_ps) },
	{ "rp_clamp_tgt_rate", NIC_BOOL, AT(clamp) },
	{ "np_min_time_between_cnps", NIC_MEGA, AT(cnp_interval_ps) },
};

/*
 * Parameters the model has no place for, with the value at which leaving them out changes
 * nothing: a NIC that holds another is named in the note.
 */
static const struct {
	const char *param;
	uint32_t neutral;
	const char *why;
} nic_unmodelled[] = {
	{ "rp_rate_to_set_on_first_cnp", 0, "the first CNP sets no rate of its own" },
	{ "rp_max_rate", 0, "no rate cap below the link" },
	{ "rp_min_dec_fac", 50, "a cut is at most a halving, which alpha <= 1 gives anyway" },
	/* a cut is Rc (1 - alpha / 2^gd) with alpha in 1024ths: 11 is the paper's alpha / 2 */
	{ "rp_gd", 11, "a cut is Rc (1 - alpha/2)" },
	/* clamp-target-rate false is clamp_tgt_rate 0 with Rt = Rc after a rise (ati 1) */
	{ "rp_clamp_tgt_rate_ati", 1, "a cut after a rise sets the target rate" },
};

static void set_key(struct nd_scenario *s, const struct nic_key *k, uint32_t v)
{
	char *p = (char *)s + k->off;

	switch (k->unit) {
	case NIC_MEGA:
		*(uint64_t *)p = (uint64_t)v * 1000000;
		break;
	case NIC_BYTES64:
		*(uint64_t *)p = (uint64_t)v * 64;
		break;
	case NIC_COUNT:
		*(unsigned int *)p = v;
		break;
	case NIC_BOOL:
		*(bool *)p = v != 0;
		break;
	case NIC_ALPHA:
		*(double *)p = v / 1024.0;
		break;
	case NIC_G:
		*(double *)p = (1024.0 - v) / 1024.0;
		break;
	}
}

/* Append a clause to @note ("; " between two), as much as fits. */
static void __attribute__((format(printf, 3, 4))) note_add(char *note, size_t len,
							   const char *fmt, ...)
{
	size_t n = strlen(note);
	va_list ap;

	if (n && n + 2 < len)
		n += (size_t)snprintf(note + n, len - n, "; ");
	if (n + 1 >= len)
		return;
	va_start(ap, fmt);
	vsnprintf(note + n, len - n, fmt, ap);
	va_end(ap);
}

int nd_scenario_dcqcn_from_nic(struct nd_scenario *s, const struct nd_ecn *ecn, const char *dev,
			       char *note, size_t len, struct nd_err *e)
{
	struct nd_scenario t = *s;
	unsigned int prio = s->priority;
	uint32_t v;
	size_t i, got = 0;
	int ret;

	note[0] = '\0';
	if (ecn->backend == ND_ECN_NONE)
		return nd_err_set(e, -ENOENT, "%s: no DCQCN parameters to read: %s", dev,
				  ecn->note);
	for (i = 0; i < ND_ARRAY_SIZE(nic_keys); i++) {
		if (nd_ecn_param_get(ecn, nic_keys[i].param, &v))
			continue;
		set_key(&t, &nic_keys[i], v);
		got++;
	}
	if (!got)
		return nd_err_set(e, -ENOENT, "%s: the %s backend exposes none of the DCQCN "
				  "parameters the model takes (rp_time_reset, rp_ai_rate, ...)", dev,
				  nd_ecn_backend_name(ecn->backend));
	for (i = 0; i < ND_ARRAY_SIZE(nic_unmodelled); i++)
		if (!nd_ecn_param_get(ecn, nic_unmodelled[i].param, &v) &&
		    v != nic_unmodelled[i].neutral)
			note_add(note, len, "%s %u is not modelled (%s)", nic_unmodelled[i].param,
				 v, nic_unmodelled[i].why);
	/* MLNX_OFED says per priority whether each point runs; mlx5 debugfs cannot */
	if (ecn->have_enable && prio < 8) {
		t.dcqcn.on = (ecn->rp_en >> prio & 1) && (ecn->np_en >> prio & 1);
		if (!t.dcqcn.on)
			note_add(note, len, "DCQCN is off on priority %u of this NIC (%s): the run "
				 "has no rate control", prio, ecn->rp_en >> prio & 1 ?
				 "no notification point" : "no reaction point");
	} else {
		t.dcqcn.on = true;
	}
	ret = nd_scenario_check(&t, e);
	if (ret)
		return nd_err_wrap(e, "%s: its DCQCN parameters make no scenario", dev);
	*s = t;
	return 0;
}
