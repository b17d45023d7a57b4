// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * nodrop model: what a host's datapath should give a transfer, term by term, for each way its
 * buffers can reach the NIC; and the collectives on top of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"

enum {
	OPT_FABRIC = 256, OPT_VLAN, OPT_IPV6, OPT_GPU_PCIE, OPT_MPS, OPT_GPU, OPT_PATH,
	OPT_MEM_BW, OPT_SOCKET_BW, OPT_RC_P2P, OPT_COPY_RATE, OPT_PCIE_RTT, OPT_NIC_LAT,
	OPT_CABLE, OPT_SWITCHES, OPT_SWITCH_LAT, OPT_PCIE_SWITCH_LAT, OPT_SOCKET_LAT,
	OPT_COLL, OPT_NODES, OPT_GPUS, OPT_NICS, OPT_ALGO, OPT_BYTES, OPT_INTRA_BW, OPT_SIM,
};

struct model_args {
	bool ready;
	struct nd_model_params p;
	struct nd_coll_params c;
	char dev[64];
	unsigned int port;
	char gpu[ND_BDF_MAX];
	int mem;			/* -1: all */
	bool have_speed, have_mtu, have_fabric, have_nic, have_gpu_link, have_path;
	unsigned int mps;
	int coll;			/* -1: all; -2: none asked */
	int algo;			/* -1: both */
	const char *sim;
};

static const struct nd_opt model_opts[] = {
	{ "dev", 'd', "DEV[:PORT]", "RDMA device to read (default: the first in sysfs)" },
	{ "mem", 'm', "MEM", "host, gpudirect, staged, tcp or all (default all)" },
	{ "size", 's', "BYTES", "message size, e.g. 4096, 64K, 1M (default 64K)" },
	{ "op", 'o', "OP", "write, write-imm, send or read (default write)" },
	{ "speed", 'S', "SPEED", "the port's data rate, e.g. 400G (default: read from DEV)" },
	{ "fabric", OPT_FABRIC, "FABRIC", "roce or ib (default: DEV's link layer, else roce)" },
	{ "mtu", 'M', "BYTES", "RDMA MTU 256..4096 (default: from DEV's netdev, else 4096)" },
	{ "vlan", OPT_VLAN, NULL, "RoCE frames carry an 802.1Q tag" },
	{ "ipv6", OPT_IPV6, NULL, "RoCE over IPv6" },
	{ "pcie", 'P', "LINK", "the NIC's PCIe link, e.g. gen5x16 (default: read from DEV)" },
	{ "gpu-pcie", OPT_GPU_PCIE, "LINK", "the GPU's PCIe link (default: read from --gpu)" },
	{ "mps", OPT_MPS, "BYTES", "PCIe Max Payload Size of both links (default: read, else "
	  "256)" },
	{ "gpu", OPT_GPU, "BDF", "the GPU (default: the one nearest DEV, as doctor finds it)" },
	{ "path", OPT_PATH, "PATH", "GPU <-> NIC: PIX, PXB, PHB, NODE or SYS (default: read)" },
	{ "mem-bw", OPT_MEM_BW, "GBPS", "host memory bandwidth, GB/s (staged and tcp)" },
	{ "socket-bw", OPT_SOCKET_BW, "GBPS", "socket interconnect one way, GB/s (default 20.8)" },
	{ "rc-p2p", OPT_RC_P2P, "GBPS", "root complex peer-to-peer rate, GB/s (PHB, NODE)" },
	{ "copy-rate", OPT_COPY_RATE, "GBPS", "one core's memcpy, GB/s (tcp)" },
	{ "pcie-rtt", OPT_PCIE_RTT, "NS", "a DMA read's round trip, ns (default 400)" },
	{ "nic-latency", OPT_NIC_LAT, "NS", "the NIC's pipeline each side, ns (default 0)" },
	{ "cable", OPT_CABLE, "LENGTH", "each link's length (default 3m)" },
	{ "switches", OPT_SWITCHES, "N", "switch hops between the hosts (default 1)" },
	{ "switch-latency", OPT_SWITCH_LAT, "NS", "port to port, ns (default 250)" },
	{ "pcie-switch-latency", OPT_PCIE_SWITCH_LAT, "NS", "a PCIe switch hop, ns (default 0)" },
	{ "socket-latency", OPT_SOCKET_LAT, "NS", "crossing the socket link, ns (default 0)" },
	{ "collective", OPT_COLL, "NAME", "all-reduce, all-gather, reduce-scatter, all-to-all or "
	  "all" },
	{ "nodes", OPT_NODES, "N", "nodes in the collective (default 2)" },
	{ "gpus", OPT_GPUS, "N", "GPUs per node (default 1)" },
	{ "nics", OPT_NICS, "N", "NICs per node (default: one per GPU)" },
	{ "algo", OPT_ALGO, "ALGO", "ring, tree or all (default all)" },
	{ "bytes", OPT_BYTES, "SIZE", "the collective's size as nccl-tests counts it (default "
	  "1G)" },
	{ "intra-bw", OPT_INTRA_BW, "GBPS", "each GPU's intra-node bandwidth, GB/s" },
	{ "sim", OPT_SIM, "FILE", "each NIC's rate from a nodrop sim -j report (mean flow)" },
	{ 0 },
};

static const char *mem_value(unsigned int i)
{
	return i < ND_MM_COUNT ? nd_model_mem_name(i) : i == ND_MM_COUNT ? "all" : NULL;
}

static const char *coll_value(unsigned int i)
{
	return i < ND_COLL_COUNT ? nd_coll_name(i) : i == ND_COLL_COUNT ? "all" : NULL;
}

static const char *path_value(unsigned int i)
{
	return i < ND_PATH_UNKNOWN ? nd_pci_path_name(i) : NULL;
}

static const char *op_value(unsigned int i)
{
	return i < ND_OP_COUNT ? nd_op_name(i) : NULL;
}

static const struct nd_comp model_complete[] = {
	{ .opt = "dev", .kind = ND_COMP_RDMADEV },
	{ .opt = "mem", .value = mem_value },
	{ .opt = "op", .value = op_value },
	{ .opt = "fabric", .kind = "roce|ib" },
	{ .opt = "path", .value = path_value },
	{ .opt = "collective", .value = coll_value },
	{ .opt = "algo", .kind = "ring|tree|all" },
	{ .opt = "sim", .kind = ND_COMP_JSON },
	{ 0 },
};

static int bad(const char *opt, const char *arg, const char *want)
{
	fprintf(stderr, "nodrop model: --%s '%s': %s\n", opt, arg, want);
	return ND_EXIT_USAGE;
}

static int num(const char *opt, const char *arg, double min, double max, double *v)
{
	char want[80], *end;

	*v = strtod(arg, &end);
	if (end == arg || *end || !isfinite(*v) || *v < min || *v > max) {
		snprintf(want, sizeof(want), "give a number %g..%g", min, max);
		return bad(opt, arg, want);
	}
	return 0;
}

static int whole(const char *opt, const char *arg, uint32_t min, uint32_t max, uint32_t *v)
{
	double d;
	int ret = num(opt, arg, min, max, &d);

	if (!ret && d != floor(d))
		return bad(opt, arg, "give a whole number");
	*v = (uint32_t)d;
	return ret;
}

/* 1G, 512M, 64K (powers of 1024, as nccl-tests' -b/-e), or bytes */
static int parse_bytes(const char *opt, const char *arg, uint64_t *v)
{
	static const char units[] = "KMGT";
	char *end;
	const char *u;
	double d = strtod(arg, &end);

	if (end != arg && *end && !end[1] && (u = strchr(units, *end)))
		for (int k = 0; k <= u - units; k++)
			d *= 1024;
	else if (end == arg || *end)
		d = -1;
	if (!(d >= 1 && d <= 1e15) || d != floor(d))
		return bad(opt, arg, "give bytes, e.g. 4096, 64K, 1G");
	*v = (uint64_t)d;
	return 0;
}

static int parse_link(const char *opt, const char *arg, struct nd_pcie_link *l)
{
	struct nd_err e = { 0 };

	return nd_pcie_link_parse(arg, l, &e) ? bad(opt, arg, e.msg) : 0;
}

static int parse_dev(struct model_args *a, const char *arg)
{
	const char *colon = strchr(arg, ':');
	size_t n = colon ? (size_t)(colon - arg) : strlen(arg);

	if (!n || n >= sizeof(a->dev))
		return bad("dev", arg, "give DEV or DEV:PORT");
	memcpy(a->dev, arg, n);
	a->dev[n] = '\0';
	return colon ? whole("dev", colon + 1, 1, 255, &a->port) : 0;
}

static int parse_named(const char *opt, const char *arg, const char *(*name)(unsigned int),
		       bool all, int *out)
{
	unsigned int i;

	for (i = 0; name(i); i++) {
		if (!strcmp(arg, name(i))) {
			*out = all && !strcmp(arg, "all") ? -1 : (int)i;
			return 0;
		}
	}
	return bad(opt, arg, "not one of the values --help lists");
}

static const char *algo_value(unsigned int i)
{
	static const char *const v[] = { "ring", "tree", "all" };

	return i < 3 ? v[i] : NULL;
}

static void defaults(struct model_args *a)
{
	nd_model_params_init(&a->p);
	nd_coll_params_init(&a->c);
	a->c.nodes = 2;
	a->c.bytes = 1ull << 30;
	a->mem = -1;
	a->coll = -2;
	a->algo = -1;
	a->ready = true;
}

static int link_opt(struct model_args *a, int key, const char *arg)
{
	double d;
	int v = 0, ret;

	switch (key) {
	case 'P':
		a->have_nic = true;
		return parse_link("pcie", arg, &a->p.nic);
	case OPT_GPU_PCIE:
		a->have_gpu_link = true;
		return parse_link("gpu-pcie", arg, &a->p.gpu);
	case OPT_MPS:
		ret = whole("mps", arg, 128, 4096, &a->mps);
		if (!ret && (a->mps & (a->mps - 1)))
			return bad("mps", arg, "128, 256, ... 4096");
		return ret;
	case OPT_GPU:
		if (strlen(arg) >= sizeof(a->gpu))
			return bad("gpu", arg, "give a PCI address, e.g. 0000:17:00.0");
		strcpy(a->gpu, arg);
		return 0;
	case OPT_PATH:
		ret = parse_named("path", arg, path_value, false, &v);
		a->p.path = (enum nd_pci_path)v;
		a->have_path = true;
		return ret;
	case OPT_MEM_BW:
		return num("mem-bw", arg, 0.001, 1e5, &a->p.mem_gbs);
	case OPT_SOCKET_BW:
		return num("socket-bw", arg, 0.001, 1e5, &a->p.socket_gbs);
	case OPT_RC_P2P:
		return num("rc-p2p", arg, 0.001, 1e5, &a->p.rc_p2p_gbs);
	case OPT_COPY_RATE:
		return num("copy-rate", arg, 0.001, 1e5, &a->p.copy_gbs);
	case OPT_PCIE_RTT:
		return num("pcie-rtt", arg, 0, 1e6, &a->p.pcie_rtt_ns);
	case OPT_NIC_LAT:
		return num("nic-latency", arg, 0, 1e6, &a->p.nic_ns);
	case OPT_CABLE:
		return num("cable", arg, 0, 1e5, &d) ? ND_EXIT_USAGE : (a->p.cable_m = d, 0);
	case OPT_SWITCHES:
		return whole("switches", arg, 0, 64, &a->p.switches);
	case OPT_SWITCH_LAT:
		return num("switch-latency", arg, 0, 1e6, &a->p.switch_ns);
	case OPT_PCIE_SWITCH_LAT:
		return num("pcie-switch-latency", arg, 0, 1e6, &a->p.pcie_switch_ns);
	case OPT_SOCKET_LAT:
		return num("socket-latency", arg, 0, 1e6, &a->p.socket_ns);
	}
	return -1;
}

static int coll_opt(struct model_args *a, int key, const char *arg)
{
	switch (key) {
	case OPT_COLL:
		return parse_named("collective", arg, coll_value, true, &a->coll);
	case OPT_NODES:
		return whole("nodes", arg, 1, 65536, &a->c.nodes) ? ND_EXIT_USAGE :
		       (a->coll = a->coll == -2 ? -1 : a->coll, 0);
	case OPT_GPUS:
		return whole("gpus", arg, 1, 64, &a->c.gpus);
	case OPT_NICS:
		return whole("nics", arg, 1, 64, &a->c.nics);
	case OPT_ALGO:
		return parse_named("algo", arg, algo_value, true, &a->algo);
	case OPT_BYTES:
		return parse_bytes("bytes", arg, &a->c.bytes);
	case OPT_INTRA_BW:
		return num("intra-bw", arg, 0.001, 1e5, &a->c.intra_gbs);
	case OPT_SIM:
		a->sim = arg;
		return 0;
	}
	return -1;
}

static int model_opt(int key, const char *arg, void *data)
{
	struct model_args *a = data;
	struct nd_sizes z;
	struct nd_err e = { 0 };
	uint64_t bps;
	double mtu;
	int v = 0, ret;

	if (!a->ready)
		defaults(a);
	switch (key) {
	case 'd':
		return parse_dev(a, arg);
	case 'm':
		return parse_named("mem", arg, mem_value, true, &a->mem);
	case 's':
		if (nd_sizes_parse(arg, &z, &e) || z.kind != ND_SIZES_FIXED)
			return bad("size", arg, z.kind != ND_SIZES_FIXED && !e.code ?
				   "give one size" : e.msg);
		a->p.msg_size = z.size[0];
		return 0;
	case 'o':
		ret = parse_named("op", arg, op_value, false, &v);
		a->p.write = v == ND_OP_WRITE || v == ND_OP_WRITE_IMM;
		a->p.recv_cqe = v == ND_OP_SEND || v == ND_OP_WRITE_IMM;
		return ret;
	case 'S':
		if (nd_speed_parse(arg, &bps, &e))
			return bad("speed", arg, e.msg);
		a->p.line_gbps = (double)bps / 1e9;
		a->have_speed = true;
		return 0;
	case OPT_FABRIC:
		if (strcmp(arg, "roce") && strcmp(arg, "ib"))
			return bad("fabric", arg, "roce or ib");
		a->p.fabric = strcmp(arg, "ib") ? ND_MF_ROCE : ND_MF_IB;
		a->have_fabric = true;
		return 0;
	case 'M':
		if (num("mtu", arg, 256, 4096, &mtu))
			return ND_EXIT_USAGE;
		a->p.mtu = (unsigned int)mtu;
		a->have_mtu = true;
		return 0;
	case OPT_VLAN:
		a->p.vlan = true;
		return 0;
	case OPT_IPV6:
		a->p.ipv6 = true;
		return 0;
	}
	ret = link_opt(a, key, arg);
	if (ret < 0)
		ret = coll_opt(a, key, arg);
	return ret < 0 ? ND_EXIT_USAGE : ret;
}

/* What the host says, where the options left something out. */
static int read_host(struct model_args *a, struct nd_model_port *port, struct nd_err *e)
{
	struct nd_model_host h = { .path = ND_PATH_UNKNOWN };
	/* host memory alone needs no GPU: no PCI scan for one, unless one is named */
	int ret = a->mem == ND_MM_HOST && !a->gpu[0] ?
		  nd_model_read_port(a->dev, a->port, &h.port, e) :
		  nd_model_read_host(a->dev, a->port, a->gpu, &h, e);

	if (ret)
		return ret;
	*port = h.port;
	if (!a->have_speed)
		a->p.line_gbps = port->line_gbps;
	if (!a->have_fabric)
		a->p.fabric = port->fabric;
	if (!a->have_mtu && port->mtu)
		a->p.mtu = port->mtu;
	if (!a->have_nic)
		a->p.nic = port->link;
	snprintf(a->gpu, sizeof(a->gpu), "%s", h.gpu);
	if (!a->have_path)
		a->p.path = h.path;
	if (!a->have_gpu_link)
		a->p.gpu = h.gpu_link;
	return 0;
}

/* The mean goodput of a sim report's flows: what each NIC got in the simulated fabric. */
static int sim_rate(const char *file, double *gbps)
{
	json_object *root = json_object_from_file(file), *top = root, *flows = NULL, *f, *g;
	size_t i, n = 0;
	double sum = 0;

	/* sim --compare writes one report per fabric: the first is the one asked for first */
	if (root && json_object_is_type(root, json_type_array))
		top = json_object_array_get_idx(root, 0);
	if (!top || !json_object_object_get_ex(top, "flows", &flows) ||
	    !json_object_is_type(flows, json_type_array)) {
		fprintf(stderr, "nodrop model: --sim %s: %s\n", file, root ? "no \"flows\" array: "
			"not a nodrop sim -j report" : json_util_get_last_err());
		json_object_put(root);
		return ND_EXIT_USAGE;
	}
	for (i = 0; i < json_object_array_length(flows); i++) {
		f = json_object_array_get_idx(flows, i);
		if (json_object_object_get_ex(f, "gbps", &g)) {
			sum += json_object_get_double(g);
			n++;
		}
	}
	json_object_put(root);
	/* a report edited by hand may hold 1e999 or a string: no rate to model from */
	if (!n || !(sum > 0) || !isfinite(sum)) {
		fprintf(stderr, "nodrop model: --sim %s: no flow with a finite rate\n", file);
		return ND_EXIT_USAGE;
	}
	*gbps = sum / n;
	return 0;
}

static void print_terms(const char *key, const struct nd_model_term *t, size_t n, bool bw)
{
	size_t i;

	pr_open_array(key);
	for (i = 0; i < n; i++) {
		pr_open_object(NULL);
		pr_string(PR_ANY, "term", "    %-16s", t[i].key);
		if (bw) {
			pr_float(PR_ANY, "tx_gbps", "%9.2f", t[i].tx_gbps);
			pr_float(PR_ANY, "rx_gbps", "%9.2f", t[i].rx_gbps);
		} else {
			pr_float(PR_ANY, "ns", "%9.0f ns", t[i].ns);
		}
		pr_string(PR_ANY, "how", "  %s\n", t[i].how);
		pr_close_object();
	}
	pr_close_array();
}

static void print_model(enum nd_model_mem mem, const struct nd_model *m)
{
	size_t i;

	pr_open_object(NULL);
	pr_string(PR_ANY, "mem", "\n%s", nd_model_mem_name(mem));
	pr_float(PR_ANY, "tx_gbps", ": sending %.2f Gb/s", m->tx_gbps);
	pr_string(PR_ANY, "tx_limit", " (%s)", m->bw[m->tx_limit].key);
	pr_float(PR_ANY, "rx_gbps", ", receiving %.2f Gb/s", m->rx_gbps);
	pr_string(PR_ANY, "rx_limit", " (%s)", m->bw[m->rx_limit].key);
	pr_float(PR_ANY, "latency_us", "; one message %.2f us one way\n", m->latency_ns / 1000);
	pr_text("    %-16s%9s%9s  %s\n", "term", "send", "receive", "Gb/s of payload");
	print_terms("terms", m->bw, m->n_bw, true);
	pr_text("    latency\n");
	print_terms("latency_terms", m->lat, m->n_lat, false);
	pr_open_array("notes");
	for (i = 0; i < m->n_notes; i++)
		pr_string(PR_ANY, NULL, "    note: %s\n", m->notes[i]);
	pr_close_array();
	pr_close_object();
}

static void print_coll(enum nd_model_mem mem, enum nd_coll c, enum nd_coll_algo algo,
		       const struct nd_coll_result *r, double nic_gbps, double base_us)
{
	pr_open_object(NULL);
	pr_string(PR_ANY, "mem", "  %-10s", nd_model_mem_name(mem));
	pr_string(PR_ANY, "collective", " %-15s", nd_coll_name(c));
	pr_string(PR_ANY, "algo", " %-5s", nd_coll_algo_name(algo));
	pr_float(PR_ANY, "time_us", " %12.1f us", r->time_us);
	pr_float(PR_ANY, "algbw_gbs", " algbw %8.2f", r->algbw_gbs);
	pr_float(PR_ANY, "busbw_gbs", " busbw %8.2f GB/s", r->busbw_gbs);
	pr_float(PR_JSON, "nic_gbps", NULL, nic_gbps);
	pr_float(PR_JSON, "bw_us", NULL, r->bw_us);
	pr_float(PR_JSON, "lat_us", NULL, r->lat_us);
	pr_float(PR_JSON, "factor", NULL, r->factor);
	pr_uint(PR_JSON, "inter_steps", NULL, r->inter_steps);
	pr_uint(PR_JSON, "intra_steps", NULL, r->intra_steps);
	pr_bool(PR_JSON, "intra_limited", NULL, r->intra_limited);
	if (base_us > 0)
		pr_float(PR_ANY, "vs_gpudirect", "  %.2fx GPUDirect's time", r->time_us / base_us);
	pr_text("%s\n", r->intra_limited ? "  (intra-node bound)" : "");
	pr_close_object();
}

/* The collectives for each memory path; the time GPUDirect takes is what the others compare to. */
static int collectives(struct model_args *a, const struct nd_model *models, const bool *have,
		       double sim_gbps, struct nd_err *e)
{
	int c, algo, mem, ret;
	struct nd_coll_result r;
	double base[ND_COLL_COUNT][ND_ALGO_COUNT] = { { 0 } };

	pr_text("\ncollectives: %u nodes x %u GPUs, %" PRIu64 " bytes, each NIC at %s\n",
		a->c.nodes, a->c.gpus, a->c.bytes, sim_gbps > 0 ? "the sim's mean flow rate" :
		"the model's ceiling");
	pr_open_array("collectives");
	/* GPUDirect first: it is what the others are measured against */
	for (mem = 0; mem < ND_MM_COUNT; mem++) {
		int m = mem == 0 ? ND_MM_GPUDIRECT : mem == ND_MM_GPUDIRECT ? ND_MM_HOST : mem;

		if (!have[m])
			continue;
		a->c.nic_gbps = sim_gbps > 0 ? sim_gbps :
			       models[m].tx_gbps < models[m].rx_gbps ? models[m].tx_gbps :
								      models[m].rx_gbps;
		for (c = 0; c < ND_COLL_COUNT; c++) {
			if (a->coll >= 0 && c != a->coll)
				continue;
			for (algo = 0; algo < ND_ALGO_COUNT; algo++) {
				/* trees are all-reduce's: skipped for "all", refused when asked */
				if ((a->algo >= 0 && algo != a->algo) ||
				    (a->algo < 0 && algo == ND_ALGO_TREE && c != ND_COLL_ALLREDUCE))
					continue;
				a->c.coll = (enum nd_coll)c;
				a->c.algo = (enum nd_coll_algo)algo;
				ret = nd_coll_calc(&a->c, &r, e);
				if (ret)
					return ret;
				if (m == ND_MM_GPUDIRECT)
					base[c][algo] = r.time_us;
				print_coll(m, c, algo, &r, a->c.nic_gbps,
					   m == ND_MM_GPUDIRECT ? 0 : base[c][algo]);
			}
		}
	}
	pr_close_array();
	return 0;
}

static void print_inputs(const struct model_args *a, const struct nd_model_port *port)
{
	char link[64];

	pr_open_object("inputs");
	if (port->dev[0]) {
		pr_string(PR_ANY, "dev", "%s", port->dev);
		pr_uint(PR_ANY, "port", " port %" PRIu64, port->port);
		pr_string(PR_ANY, "netdev", " (%s)", port->netdev[0] ? port->netdev : "-");
		pr_string(PR_ANY, "rate_from", ": %s\n", port->rate_from);
		pr_string(PR_JSON, "nic_bdf", NULL, port->bdf);
	}
	pr_string(PR_ANY, "fabric", "%s", a->p.fabric == ND_MF_IB ? "InfiniBand" : "RoCE v2");
	pr_string(PR_JSON, "fabric", NULL, nd_model_fabric_name(a->p.fabric));
	pr_float(PR_ANY, "line_gbps", " %g Gb/s", a->p.line_gbps);
	pr_uint(PR_ANY, "mtu", ", MTU %" PRIu64, a->p.mtu);
	pr_uint(PR_ANY, "msg_size", ", messages of %" PRIu64 " B", a->p.msg_size);
	pr_string(PR_ANY, "op", " (%s)\n", a->p.write ? "RDMA WRITE" : "SEND or READ");
	snprintf(link, sizeof(link), a->p.nic.gen ? "Gen%u x%u MPS %u" : "unknown", a->p.nic.gen,
		 a->p.nic.width, a->p.nic.mps);
	pr_string(PR_ANY, "nic_pcie", "NIC PCIe %s", link);
	snprintf(link, sizeof(link), a->p.gpu.gen ? "Gen%u x%u MPS %u" : "unknown", a->p.gpu.gen,
		 a->p.gpu.width, a->p.gpu.mps);
	pr_string(PR_ANY, "gpu", "; GPU %s", a->gpu[0] ? a->gpu : "-");
	pr_string(PR_ANY, "gpu_pcie", " PCIe %s", link);
	pr_string(PR_ANY, "path", ", path %s\n", nd_pci_path_name(a->p.path));
	pr_close_object();
}

static int model_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct model_args *a = data;
	struct nd_model_port port = { 0 };
	struct nd_model models[ND_MM_COUNT];
	bool have[ND_MM_COUNT] = { false };
	struct nd_err e = { 0 };
	double sim_gbps = 0;
	int mem, ret;

	(void)argv;
	if (!a->ready)
		defaults(a);
	if (argc) {
		fprintf(stderr, "nodrop model: takes no operands; the device is --dev DEV\n");
		return ND_EXIT_USAGE;
	}
	if (a->mps)
		a->p.nic.mps = a->p.gpu.mps = a->mps;
	/* a speed given and no device named: a what-if, nothing read */
	if (!a->have_speed || a->dev[0]) {
		ret = read_host(a, &port, &e);
		if (ret) {
			fprintf(stderr, "nodrop model: %s\n", e.msg);
			return nd_cli_exit_code(ret);
		}
		if (a->mps)
			a->p.nic.mps = a->p.gpu.mps = a->mps;
	}
	if (!a->p.mtu)
		a->p.mtu = 4096;
	if (a->sim && (ret = sim_rate(a->sim, &sim_gbps)))
		return ret;
	for (mem = 0; mem < ND_MM_COUNT; mem++) {
		if (a->mem >= 0 && mem != a->mem)
			continue;
		a->p.mem = (enum nd_model_mem)mem;
		ret = nd_model_calc(&a->p, &models[mem], &e);
		if (ret) {
			fprintf(stderr, "nodrop model: %s\n", e.msg);
			return nd_cli_exit_code(ret);
		}
		have[mem] = true;
	}
	pr_init(cli->json, cli->pretty);
	pr_open_object(NULL);
	print_inputs(a, &port);
	pr_open_array("models");
	for (mem = 0; mem < ND_MM_COUNT; mem++)
		if (have[mem])
			print_model(mem, &models[mem]);
	pr_close_array();
	ret = a->coll != -2 ? collectives(a, models, have, sim_gbps, &e) : 0;
	pr_close_object();
	if (pr_finish())
		return ND_EXIT_SYSTEM;
	if (ret) {
		fprintf(stderr, "nodrop model: %s\n", e.msg);
		return nd_cli_exit_code(ret);
	}
	return ND_EXIT_OK;
}

const struct nd_cmd nd_cmd_model = {
	.name = "model",
	.args = "",
	.summary = "Model what the datapath should give a transfer: PCIe, path, memory and wire "
		   "terms per memory kind, latency, and collectives on top (GPUDirect vs staged vs "
		   "TCP-like)",
	.opts = model_opts,
	.opt = model_opt,
	.run = model_run,
	.data_size = sizeof(struct model_args),
	.complete = model_complete,
};
