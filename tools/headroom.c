// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop headroom: the PFC headroom a lossless priority needs, per model, every term shown. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"

enum {
	OPT_PEER_MTU = 256,
	OPT_GEARBOX,
	OPT_MAC_PHY,
	OPT_ASIC,
};

struct headroom_args {
	struct nd_hdrm_params p;
	bool ready;			/* the defaults are in */
	bool have_speed, have_cable;
	int model;			/* -1: all */
};

static const struct nd_opt headroom_opts[] = {
	{ "speed", 's', "SPEED", "port speed, e.g. 100G, 25G, 400G (required)" },
	{ "cable", 'c', "LENGTH", "cable length, e.g. 40m (required)" },
	{ "mtu", 'm', "BYTES", "this port's MTU (default 9216)" },
	{ "peer-mtu", OPT_PEER_MTU, "BYTES", "the link partner's MTU (default: --mtu)" },
	{ "model", 'M', "MODEL", "basic, ieee, spectrum or all (default all)" },
	{ "gearbox", OPT_GEARBOX, "NS", "delay of one gearbox on the link, nanoseconds (0)" },
	{ "mac-phy", OPT_MAC_PHY, "BYTES", "basic model: PHY/MAC/pipeline bytes (0)" },
	{ "asic", OPT_ASIC, "SPC", "spectrum model: spc1..spc5 (default spc3)" },
	{ 0 },
};

/* --model's words: the library's models, then all of them */
static const char *model_value(unsigned int i)
{
	if (i < ND_HDRM_MODEL_COUNT)
		return nd_hdrm_model_name(i);
	return i == ND_HDRM_MODEL_COUNT ? "all" : NULL;
}

static const char *asic_value(unsigned int i)
{
	return i < ND_SPC_COUNT ? nd_spc_name(i) : NULL;
}

static const struct nd_comp headroom_complete[] = {
	{ .opt = "model", .value = model_value },
	{ .opt = "asic", .value = asic_value },
	{ 0 },
};

static int bad(const char *opt, const char *arg, const char *why)
{
	fprintf(stderr, "nodrop headroom: --%s '%s': %s\n", opt, arg, why);
	return ND_EXIT_USAGE;
}

static int parse_uint(const char *opt, const char *arg, unsigned long max, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (arg[0] < '0' || arg[0] > '9')
		return bad(opt, arg, "expected a whole number");
	v = strtoul(arg, &end, 10);
	if (*end || v > max)
		return bad(opt, arg, "expected a whole number in range");
	*out = (unsigned int)v;
	return 0;
}

static int parse_model(const char *arg, int *model)
{
	int m;

	if (!strcmp(arg, "all")) {
		*model = -1;
		return 0;
	}
	for (m = 0; m < ND_HDRM_MODEL_COUNT; m++)
		if (!strcmp(arg, nd_hdrm_model_name(m))) {
			*model = m;
			return 0;
		}
	return bad("model", arg, "use basic, ieee, spectrum or all");
}

static int parse_asic(const char *arg, enum nd_spc *asic)
{
	int a;

	for (a = 0; a < ND_SPC_COUNT; a++)
		if (!strcmp(arg, nd_spc_name(a))) {
			*asic = a;
			return 0;
		}
	return bad("asic", arg, "use spc1, spc2, spc3, spc4 or spc5");
}

static int headroom_opt(int key, const char *arg, void *data)
{
	struct headroom_args *a = data;
	struct nd_err e = { 0 };
	uint64_t bps;

	if (!a->ready) {
		nd_hdrm_params_init(&a->p);
		a->model = -1;
		a->ready = true;
	}
	switch (key) {
	case 's':
		if (nd_speed_parse(arg, &bps, &e))
			return bad("speed", arg, e.msg);
		a->p.speed_mbps = bps / 1000000;
		a->have_speed = true;
		return 0;
	case 'c':
		if (nd_length_parse(arg, &a->p.cable_m, &e))
			return bad("cable", arg, e.msg);
		a->have_cable = true;
		return 0;
	case 'm':
		return parse_uint("mtu", arg, 65535, &a->p.mtu);
	case OPT_PEER_MTU:
		return parse_uint("peer-mtu", arg, 65535, &a->p.peer_mtu);
	case 'M':
		return parse_model(arg, &a->model);
	case OPT_GEARBOX:
		return parse_uint("gearbox", arg, 1000000, &a->p.gearbox_ns);
	case OPT_MAC_PHY:
		return parse_uint("mac-phy", arg, 1000000, &a->p.mac_phy);
	case OPT_ASIC:
		return parse_asic(arg, &a->p.asic);
	}
	return ND_EXIT_USAGE;
}

static void print_terms(const struct nd_headroom *h)
{
	size_t i;

	pr_open_array("terms");
	for (i = 0; i < h->n_terms; i++) {
		const struct nd_hdrm_term *t = &h->terms[i];

		pr_open_object(NULL);
		pr_string(PR_JSON, "term", NULL, t->key);
		pr_string(PR_TEXT, NULL, "  %-18s", t->label);
		pr_float(PR_ANY, "bytes", " %10.1f B", t->bytes);
		pr_string(PR_ANY, "how", "  %s\n", t->how);
		pr_close_object();
	}
	pr_close_array();
}

/* One model: its result and terms, or why it has none for these inputs (also in @e). */
static int print_model(const struct headroom_args *a, enum nd_hdrm_model m, struct nd_err *e)
{
	struct nd_headroom h;
	int ret = nd_headroom_calc(&a->p, m, &h, e);

	pr_open_object(NULL);
	pr_string(PR_ANY, "model", "\n%s", nd_hdrm_model_name(m));
	if (m == ND_HDRM_SPECTRUM)
		pr_string(PR_ANY, "asic", " (%s)", nd_spc_name(a->p.asic));
	if (ret) {
		pr_string(PR_ANY, "error", ": %s\n", e->msg);
		pr_close_object();
		return ret;
	}
	pr_uint(PR_ANY, "size", ": %" PRIu64 " B per lossless priority", h.size);
	pr_uint(PR_ANY, "xoff", " (xoff %" PRIu64, h.xoff);
	pr_uint(PR_ANY, "xon", ", xon %" PRIu64 ")\n", h.xon);
	pr_float(PR_JSON, "occupancy", NULL, h.occupancy);
	print_terms(&h);
	pr_close_object();
	return 0;
}

static int headroom_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct headroom_args *a = data;
	struct nd_err e = { 0 };
	int m, ok = 0, ret = 0;

	(void)argv;
	if (argc || !a->have_speed || !a->have_cable) {
		fprintf(stderr, "nodrop headroom: %s; e.g. nodrop headroom --speed 100G "
			"--cable 40m\n", argc ? "takes no operands" : "give --speed and --cable");
		return ND_EXIT_USAGE;
	}
	pr_init(cli->json, cli->pretty);
	pr_open_object(NULL);
	pr_uint(PR_JSON, "speed_mbps", NULL, a->p.speed_mbps);
	pr_float(PR_TEXT, NULL, "%g Gb/s", (double)a->p.speed_mbps / 1000);
	pr_float(PR_ANY, "cable_m", ", %g m of cable", a->p.cable_m);
	pr_uint(PR_ANY, "mtu", ", MTU %" PRIu64, a->p.mtu);
	pr_uint(PR_ANY, "peer_mtu", " (peer %" PRIu64 ")",
		a->p.peer_mtu ? a->p.peer_mtu : a->p.mtu);
	pr_uint(PR_ANY, "gearbox_ns", ", gearbox %" PRIu64 " ns\n", a->p.gearbox_ns);
	pr_open_array("models");
	for (m = 0; m < ND_HDRM_MODEL_COUNT; m++) {
		if (a->model >= 0 && m != a->model)
			continue;
		ret = print_model(a, m, &e);
		ok += !ret;
	}
	pr_close_array();
	pr_close_object();
	if (pr_finish())
		return ND_EXIT_SYSTEM;
	/* all: a model without values for this speed is noted, not fatal */
	if (ok)
		return ND_EXIT_OK;
	fprintf(stderr, "nodrop headroom: %s\n", e.msg);
	return nd_cli_exit_code(ret);
}

const struct nd_cmd nd_cmd_headroom = {
	.name = "headroom",
	.args = "",
	.summary = "PFC headroom a lossless priority needs for a speed, cable and MTU: the basic, "
		   "IEEE 802.1Qbb and Spectrum models, every term shown",
	.opts = headroom_opts,
	.opt = headroom_opt,
	.run = headroom_run,
	.data_size = sizeof(struct headroom_args),
	.complete = headroom_complete,
};
