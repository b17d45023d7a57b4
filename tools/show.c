// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop show: the whole lossless picture of each port; JSON keys follow `dcb -j` where shared. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"

#define NPRIO ND_PRIO_MAX

static const struct {
	uint8_t flag;
	const char *name;	/* text and, with '-' -> '_', JSON */
	const char *json;
} dcbx_flags[] = {
	{ DCB_CAP_DCBX_HOST, "host", "host" },
	{ DCB_CAP_DCBX_LLD_MANAGED, "lld-managed", "lld_managed" },
	{ DCB_CAP_DCBX_VER_CEE, "cee", "cee" },
	{ DCB_CAP_DCBX_VER_IEEE, "ieee", "ieee" },
	{ DCB_CAP_DCBX_STATIC, "static", "static" },
};

/* "tc-bw 0:50 1:50 ..." as text (none when @label is NULL), "tc_bw": [50, 50, ...] as JSON. */
static void print_u64s(const char *key, const char *label, const uint64_t *v, size_t n)
{
	size_t i;

	pr_open_array(key);
	if (label)
		pr_text(" %s", label);
	for (i = 0; i < n; i++) {
		pr_uint(PR_JSON, NULL, NULL, v[i]);
		if (label)
			pr_text(" %zu:%" PRIu64, i, v[i]);
	}
	pr_close_array();
}

static void print_u8s(const char *key, const char *label, const uint8_t *v, size_t n)
{
	uint64_t wide[NPRIO];
	size_t i;

	for (i = 0; i < n && i < NPRIO; i++)
		wide[i] = v[i];
	print_u64s(key, label, wide, i);
}

static void print_u32s(const char *key, const char *label, const uint32_t *v, size_t n)
{
	uint64_t wide[NPRIO];
	size_t i;

	for (i = 0; i < n && i < NPRIO; i++)
		wide[i] = v[i];
	print_u64s(key, label, wide, i);
}

static void print_bools(const char *key, const char *label, uint8_t bitmap)
{
	size_t i;

	pr_open_array(key);
	pr_text(" %s", label);
	for (i = 0; i < NPRIO; i++) {
		pr_on_off(PR_JSON, NULL, NULL, bitmap & (1u << i));
		pr_text(" %zu:%s", i, bitmap & (1u << i) ? "on" : "off");
	}
	pr_close_array();
}

static void print_tsas(const char *key, const char *label, const uint8_t *v)
{
	size_t i;

	pr_open_array(key);
	pr_text(" %s", label);
	for (i = 0; i < NPRIO; i++) {
		pr_string(PR_JSON, NULL, NULL, nd_tsa_name(v[i]));
		pr_text(" %zu:%s", i, nd_tsa_name(v[i]));
	}
	pr_close_array();
}

static void print_link(const struct nd_link *l)
{
	pr_string(PR_ANY, "ifname", "%s:", l->name);
	pr_uint(PR_JSON, "ifindex", NULL, (unsigned int)l->ifindex);
	pr_string(PR_ANY, "driver", " driver %s", l->driver[0] ? l->driver : "unknown");
	if (l->bus_info[0])
		pr_string(PR_ANY, "bus_info", " bus-info %s", l->bus_info);
	if (l->kind[0])
		pr_string(PR_ANY, "kind", " kind %s", l->kind);
	pr_string(PR_ANY, "operstate", " state %s", l->operstate);
	if (l->speed_mbps >= 0)
		pr_int(PR_ANY, "speed", " speed %" PRId64 "Mb/s", l->speed_mbps);
	else
		pr_null(PR_JSON, "speed", NULL);
	pr_uint(PR_ANY, "mtu", " mtu %" PRIu64, l->mtu);
	if (l->max_mtu) {
		pr_uint(PR_JSON, "min_mtu", NULL, l->min_mtu);
		pr_uint(PR_ANY, "max_mtu", " (max %" PRIu64 ")", l->max_mtu);
	}
	pr_nl();
}

static void print_roce(const struct nd_roce *r)
{
	pr_open_object("roce");
	pr_uint(PR_ANY, "tos", "    roce tos %" PRIu64, (unsigned int)r->tos);
	pr_uint(PR_ANY, "dscp", " (dscp %" PRIu64, (unsigned int)r->tos >> 2);
	pr_uint(PR_ANY, "ecn", " ecn %" PRIu64 ")", (unsigned int)r->tos & 3);
	pr_string(PR_ANY, "mode", " mode %s", r->mode);
	pr_string(PR_ANY, "source", " (%s)", r->configured ? "configfs" : "kernel default");
	pr_close_object();
	pr_nl();
}

static void print_rdma(const struct nd_port *p)
{
	size_t i;

	pr_open_array("rdma");
	for (i = 0; i < p->n_rdma; i++) {
		const struct nd_rdma_port *r = &p->rdma[i];

		pr_open_object(NULL);
		pr_string(PR_ANY, "ibdev", "    rdma %s", r->ibdev);
		pr_uint(PR_ANY, "port", "/%" PRIu64, r->port);
		pr_string(PR_ANY, "link_layer", " link-layer %s", r->link_layer);
		pr_string(PR_ANY, "state", " state %s", r->state);
		pr_string(PR_ANY, "phys_state", " phys-state %s", r->phys_state);
		if (r->active_mtu)
			pr_uint(PR_ANY, "active_mtu", " active-mtu %" PRIu64, r->active_mtu);
		else
			pr_null(PR_JSON, "active_mtu", NULL);
		if (r->max_mtu)
			pr_uint(PR_ANY, "max_mtu", " max-mtu %" PRIu64, r->max_mtu);
		if (r->rate[0])
			pr_string(PR_ANY, "rate", " rate \"%s\"", r->rate);
		pr_nl();
		if (!strcmp(r->link_layer, "Ethernet"))
			print_roce(&r->roce);
		pr_close_object();
	}
	pr_close_array();
}

static void print_dcbx(uint8_t dcbx)
{
	size_t i;

	pr_open_object("dcbx");
	pr_text("    dcbx");
	for (i = 0; i < sizeof(dcbx_flags) / sizeof(dcbx_flags[0]); i++) {
		if (!(dcbx & dcbx_flags[i].flag))
			continue;
		pr_bool(PR_JSON, dcbx_flags[i].json, NULL, true);
		pr_text(" %s", dcbx_flags[i].name);
	}
	pr_close_object();
	pr_nl();
}

/* Text: consecutive DSCPs with one priority folded into a range ("0-7:0 26:3"). */
static void print_dscp_text(const struct nd_dcb *dcb)
{
	int map[ND_DSCP_MAX], d = 0, end;

	nd_dcb_dscp_map(dcb, map);
	pr_text("    dscp-prio");
	while (d < ND_DSCP_MAX) {
		if (map[d] < 0) {
			d++;
			continue;
		}
		for (end = d; end + 1 < ND_DSCP_MAX && map[end + 1] == map[d]; end++)
			;
		if (end > d)
			pr_text(" %d-%d:%d", d, end, map[d]);
		else
			pr_text(" %d:%d", d, map[d]);
		d = end + 1;
	}
	pr_nl();
}

static bool app_is(const struct dcb_app *a, uint8_t sel)
{
	/* ethtype 0 is the port's default priority, listed apart as `dcb app` does */
	if (sel == IEEE_8021QAZ_APP_SEL_ETHERTYPE && a->protocol == 0)
		return false;
	return a->selector == sel;
}

static void print_app(const struct nd_dcb *dcb)
{
	static const struct {
		uint8_t sel;
		const char *key;
		const char *label;
	} groups[] = {
		{ IEEE_8021QAZ_APP_SEL_ETHERTYPE, "ethtype_prio", "ethtype-prio" },
		{ IEEE_8021QAZ_APP_SEL_DSCP, "dscp_prio", NULL },
		{ IEEE_8021QAZ_APP_SEL_STREAM, "stream_port_prio", "stream-port-prio" },
		{ IEEE_8021QAZ_APP_SEL_DGRAM, "dgram_port_prio", "dgram-port-prio" },
		{ IEEE_8021QAZ_APP_SEL_ANY, "port_prio", "port-prio" },
		{ ND_DCB_APP_SEL_PCP, "pcp_prio", "pcp-prio" },
	};
	size_t g, i, n;

	pr_open_object("app");
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		for (i = n = 0; i < dcb->n_apps; i++)
			n += app_is(&dcb->apps[i], groups[g].sel);
		if (!n)
			continue;
		if (!groups[g].label)
			print_dscp_text(dcb);
		else
			pr_text("    %s", groups[g].label);
		pr_open_array(groups[g].key);
		for (i = 0; i < dcb->n_apps; i++) {
			const struct dcb_app *a = &dcb->apps[i];

			if (!app_is(a, groups[g].sel))
				continue;
			pr_open_array(NULL);
			pr_uint(PR_JSON, NULL, NULL, a->protocol);
			pr_uint(PR_JSON, NULL, NULL, a->priority);
			pr_close_array();
			if (groups[g].label)
				pr_text(a->selector == IEEE_8021QAZ_APP_SEL_ETHERTYPE ? " %#x:%u" :
											" %u:%u",
					a->protocol, a->priority);
		}
		pr_close_array();
		if (groups[g].label)
			pr_nl();
	}
	for (i = n = 0; i < dcb->n_apps; i++) {
		const struct dcb_app *a = &dcb->apps[i];

		if (a->selector != IEEE_8021QAZ_APP_SEL_ETHERTYPE || a->protocol)
			continue;
		if (!n++) {
			pr_open_array("default_prio");
			pr_text("    default-prio");
		}
		pr_uint(PR_ANY, NULL, " %" PRIu64, a->priority);
	}
	if (n) {
		pr_close_array();
		pr_nl();
	}
	pr_close_object();
}

static void print_pfc(const struct ieee_pfc *pfc)
{
	pr_open_object("pfc");
	pr_uint(PR_ANY, "pfc_cap", "    pfc pfc-cap %" PRIu64, pfc->pfc_cap);
	pr_on_off(PR_ANY, "macsec_bypass", " macsec-bypass %s", pfc->mbc);
	pr_uint(PR_ANY, "delay", " delay %" PRIu64, pfc->delay);
	pr_nl();
	pr_text("       ");
	print_bools("prio_pfc", "prio-pfc", pfc->pfc_en);
	pr_nl();
	pr_text("       ");
	print_u64s("requests", "requests", (const uint64_t *)pfc->requests, NPRIO);
	pr_nl();
	pr_text("       ");
	print_u64s("indications", "indications", (const uint64_t *)pfc->indications, NPRIO);
	pr_nl();
	pr_close_object();
}

static void print_ets(const struct ieee_ets *ets)
{
	pr_open_object("ets");
	pr_on_off(PR_ANY, "willing", "    ets willing %s", ets->willing);
	pr_uint(PR_ANY, "ets_cap", " ets-cap %" PRIu64, ets->ets_cap);
	pr_on_off(PR_ANY, "cbs", " cbs %s", ets->cbs);
	pr_nl();
	pr_text("       ");
	print_u8s("prio_tc", "prio-tc", ets->prio_tc, NPRIO);
	pr_nl();
	pr_text("       ");
	print_tsas("tc_tsa", "tc-tsa", ets->tc_tsa);
	pr_nl();
	pr_text("       ");
	print_u8s("tc_bw", "tc-bw", ets->tc_tx_bw, NPRIO);
	pr_nl();
	/* the rest is there for JSON consumers that compare with `dcb -j ets show` */
	print_u8s("pg_bw", NULL, ets->tc_rx_bw, NPRIO);
	print_u8s("reco_tc_bw", NULL, ets->tc_reco_bw, NPRIO);
	pr_open_array("reco_tc_tsa");
	for (size_t i = 0; i < NPRIO; i++)
		pr_string(PR_JSON, NULL, NULL, nd_tsa_name(ets->tc_reco_tsa[i]));
	pr_close_array();
	print_u8s("reco_prio_tc", NULL, ets->reco_prio_tc, NPRIO);
	pr_close_object();
}

static void print_buffer(const struct dcbnl_buffer *b)
{
	pr_open_object("buffer");
	pr_text("    buffer");
	print_u8s("prio_buffer", "prio-buffer", b->prio2buffer, NPRIO);
	pr_nl();
	pr_text("       ");
	print_u32s("buffer_size", "buffer-size", b->buffer_size, DCBX_MAX_BUFFERS);
	pr_uint(PR_ANY, "total_size", " total-size %" PRIu64, b->total_size);
	pr_nl();
	pr_close_object();
}

/* kbit/s as a person reads it; 0 is "no limit" in the kernel's struct. */
static void print_maxrate(const struct ieee_maxrate *m)
{
	size_t i;

	pr_open_object("maxrate");
	pr_open_array("tc_maxrate");
	pr_text("    maxrate tc-maxrate");
	for (i = 0; i < NPRIO; i++) {
		uint64_t kbit = m->tc_maxrate[i];

		pr_uint(PR_JSON, NULL, NULL, kbit);
		if (!kbit)
			pr_text(" %zu:unlimited", i);
		else if (kbit % 1000000 == 0)
			pr_text(" %zu:%" PRIu64 "Gbit", i, kbit / 1000000);
		else if (kbit % 1000 == 0)
			pr_text(" %zu:%" PRIu64 "Mbit", i, kbit / 1000);
		else
			pr_text(" %zu:%" PRIu64 "Kbit", i, kbit);
	}
	pr_close_array();
	pr_nl();
	pr_close_object();
}

static void print_ecn(const struct nd_ecn *ecn)
{
	size_t i;

	pr_open_object("ecn");
	pr_string(PR_ANY, "backend", "    ecn %s", nd_ecn_backend_name(ecn->backend));
	if (ecn->have_enable) {
		print_bools("np", "np", ecn->np_en);
		print_bools("rp", "rp", ecn->rp_en);
	}
	if (ecn->note[0])
		pr_string(PR_ANY, "note", " (%s)", ecn->note);
	pr_nl();
	if (ecn->n_params) {
		pr_open_object("params");
		pr_text("       ");
		for (i = 0; i < ecn->n_params; i++) {
			pr_uint(PR_JSON, ecn->params[i].name, NULL, ecn->params[i].value);
			pr_text(" %s %u", ecn->params[i].name, ecn->params[i].value);
		}
		pr_close_object();
		pr_nl();
	}
	pr_close_object();
}

static void print_dcb(const struct nd_port *p)
{
	const struct nd_dcb *dcb = &p->dcb;
	enum nd_trust_source src;
	enum nd_trust trust;

	pr_open_object("dcb");
	if (p->dcb_status) {
		pr_bool(PR_JSON, "supported", NULL, p->dcb_status != -EOPNOTSUPP);
		if (p->dcb_status == -EOPNOTSUPP)
			pr_string(PR_ANY, "error", "    DCB: %s", "not supported by driver");
		else
			pr_string(PR_ANY, "error", "    DCB: %s", p->dcb_error);
		pr_nl();
		pr_close_object();
		return;
	}
	pr_bool(PR_JSON, "supported", NULL, true);
	if (dcb->have & ND_DCB_HAVE_DCBX)
		print_dcbx(dcb->dcbx);
	trust = nd_dcb_trust(dcb, &src);
	pr_string(PR_ANY, "trust", "    trust %s", nd_trust_name(trust));
	pr_string(PR_ANY, "trust_source", " (%s)",
		  src == ND_TRUST_SRC_TABLE ? "apptrust" : "derived from the APP table");
	pr_nl();
	print_app(dcb);
	if (dcb->have & ND_DCB_HAVE_PFC)
		print_pfc(&dcb->pfc);
	if (dcb->have & ND_DCB_HAVE_ETS)
		print_ets(&dcb->ets);
	if (dcb->have & ND_DCB_HAVE_BUFFER)
		print_buffer(&dcb->buffer);
	if (dcb->have & ND_DCB_HAVE_MAXRATE)
		print_maxrate(&dcb->maxrate);
	pr_close_object();
}

/* "dscp 26:3 udp 4791:3" as text, [{"selector": "dscp", "protocol": 26, "prio": 3}] as JSON */
static void print_peer_apps(const char *key, const struct nd_peer_app *app, size_t n, bool cee)
{
	pr_open_array(key);
	pr_text("      %s", cee ? "cee-app" : "app");
	for (size_t i = 0; i < n; i++) {
		const char *sel = nd_peer_app_sel_name(app[i].sel, cee);

		pr_open_object(NULL);
		pr_string(PR_ANY, "selector", " %s", sel);
		pr_uint(PR_ANY, "protocol", strcmp(sel, "ethertype") ? " %" PRIu64 :
			" 0x%04" PRIx64, app[i].protocol);
		pr_uint(PR_ANY, "prio", ":%" PRIu64, app[i].prio);
		pr_close_object();
	}
	if (!n)
		pr_text(" none");
	pr_nl();
	pr_close_array();
}

/* ETS configuration (@cfg: with its willing, CBS and max-TCs) or recommendation */
static void print_peer_ets(const char *key, const char *label, const struct nd_peer_ets *ets,
			   bool cfg)
{
	pr_open_object(key);
	pr_text("      %s", label);
	if (cfg) {
		pr_on_off(PR_ANY, "willing", " willing %s", ets->willing);
		pr_on_off(PR_ANY, "cbs", " cbs %s", ets->cbs);
		pr_uint(PR_ANY, "max_tcs", " max-tcs %" PRIu64, ets->max_tcs);
	}
	print_u8s("prio_tc", "prio-tc", ets->prio_tc, NPRIO);
	print_u8s("tc_bw", "tc-bw", ets->tc_bw, NPRIO);
	print_tsas("tc_tsa", "tc-tsa", ets->tsa);
	pr_nl();
	pr_close_object();
}

static void print_peer_cee(const struct nd_peer_cee *c)
{
	pr_open_object("cee");
	pr_text("      cee");
	if (c->control) {
		pr_uint(PR_ANY, "oper_version", " version %" PRIu64, c->oper_version);
		pr_uint(PR_ANY, "max_version", "/%" PRIu64, c->max_version);
	}
	if (c->pfc_hdr.present) {
		pr_on_off(PR_ANY, "pfc_enabled", " pfc %s", c->pfc_hdr.enabled);
		pr_on_off(PR_ANY, "pfc_willing", " willing %s", c->pfc_hdr.willing);
		print_bools("prio_pfc", "prio-pfc", c->pfc_enable);
	}
	if (c->pg_hdr.present) {
		pr_on_off(PR_ANY, "pg_willing", " pg willing %s", c->pg_hdr.willing);
		print_u8s("pgid", "pgid", c->pgid, NPRIO);
		print_u8s("pg_bw", "pg-bw", c->pg_bw, NPRIO);
	}
	pr_nl();
	if (c->app_hdr.present)
		print_peer_apps("app", c->app, c->n_app, true);
	pr_close_object();
}

/* What the switch across the cable advertised, or why nothing is known of it. */
static void print_peer(const struct nd_peer_wait *w)
{
	const struct nd_peer *p = &w->peer;

	pr_open_object("peer");
	pr_string(PR_JSON, "source", NULL, nd_peer_source_name(w->source));
	pr_bool(PR_JSON, "heard", NULL, w->heard);
	pr_uint(PR_JSON, "waited_ms", NULL, w->waited_ms);
	pr_uint(PR_JSON, "bad_frames", NULL, w->bad_frames);
	if (!w->heard) {
		pr_string(PR_ANY, "error", "    peer: %s", w->err.msg);
		pr_nl();
		pr_close_object();
		return;
	}
	pr_string(PR_JSON, "system_name", NULL, p->sys_name);
	pr_text("    peer %s", p->sys_name[0] ? p->sys_name : "-");
	pr_string(PR_ANY, "port_id", " port %s", p->port_id);
	pr_string(PR_JSON, "port_description", NULL, p->port_desc);
	if (p->port_desc[0])
		pr_text(" (%s)", p->port_desc);
	pr_string(PR_ANY, "chassis_id", " chassis %s", p->chassis_id);
	pr_uint(PR_ANY, "ttl", " ttl %" PRIu64, p->ttl);
	if (w->source == ND_PEER_SRC_DCBNL)
		pr_text(", from the NIC's DCBX engine (dcbnl)");
	else
		pr_uint(PR_TEXT, NULL, ", LLDP heard in %" PRIu64 " ms", w->waited_ms);
	pr_nl();
	if (p->pfc.present) {
		pr_open_object("pfc");
		pr_on_off(PR_ANY, "willing", "      pfc willing %s", p->pfc.willing);
		pr_on_off(PR_ANY, "macsec_bypass", " macsec-bypass %s", p->pfc.mbc);
		pr_uint(PR_ANY, "pfc_cap", " pfc-cap %" PRIu64, p->pfc.cap);
		print_bools("prio_pfc", "prio-pfc", p->pfc.enable);
		pr_nl();
		pr_close_object();
	}
	if (p->ets.present)
		print_peer_ets("ets", "ets", &p->ets, true);
	if (p->ets_reco.present)
		print_peer_ets("ets_reco", "ets-reco", &p->ets_reco, false);
	if (p->app_present)
		print_peer_apps("app", p->app, p->n_app, false);
	if (p->max_frame_present) {
		pr_uint(PR_ANY, "max_frame", "      max-frame %" PRIu64, p->max_frame);
		pr_nl();
	}
	if (p->cee.present)
		print_peer_cee(&p->cee);
	if (p->repeated)
		pr_uint(PR_ANY, "repeated", "      repeated DCB TLVs dropped (bits 0x%" PRIx64 ")\n",
			p->repeated);
	pr_close_object();
}

void nd_show_port(const struct nd_port *port, const struct nd_peer_wait *peer)
{
	pr_open_object(NULL);
	print_link(&port->link);
	print_rdma(port);
	print_dcb(port);
	print_ecn(&port->ecn);
	if (peer)
		print_peer(peer);
	pr_close_object();
}

static int show_opt(int key, const char *arg, void *data)
{
	return nd_peer_opt("show", data, key, arg);
}

static int show_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	const struct nd_peer_opts *a = data;
	struct nd_peer_wait *peers = NULL;
	struct nd_err e = { 0 };
	struct nd_port *ports;
	struct nd_ctx *ctx;
	size_t n, i;
	int ret, rc = ND_EXIT_OK;

	ret = nd_ctx_new(&ctx, &e);
	if (!ret)
		ret = nd_ports_read(ctx, (const char *const *)argv, (size_t)argc, &ports, &n, &e);
	if (ret) {
		fprintf(stderr, "nodrop show: %s\n", e.msg);
		nd_ctx_free(ctx);
		return nd_cli_exit_code(ret);
	}
	if (a->on && !(peers = nd_listen_peers("show", ports, sizeof(*ports), n, a))) {
		nd_ports_free(ports, n);
		nd_ctx_free(ctx);
		return ND_EXIT_SYSTEM;
	}
	pr_init(cli->json, cli->pretty);
	pr_open_array(NULL);
	for (i = 0; i < n; i++) {
		nd_show_port(&ports[i], peers ? &peers[i] : NULL);
		/* a read that failed for a reason other than "no DCB" is the system's failure */
		if (ports[i].dcb_status && ports[i].dcb_status != -EOPNOTSUPP) {
			fprintf(stderr, "nodrop show: %s\n", ports[i].dcb_error);
			rc = ND_EXIT_SYSTEM;
		}
	}
	pr_close_array();
	if (pr_finish())
		rc = ND_EXIT_SYSTEM;
	free(peers);
	nd_ports_free(ports, n);
	nd_ctx_free(ctx);
	return rc;
}

static const struct nd_opt show_opts[] = {
	{ "peer", ND_OPT_PEER, NULL, "listen for each port's link partner (LLDP) and show what it "
	  "advertises: PFC, ETS, APP, max frame size, CEE" },
	{ "peer-wait", ND_OPT_PEER_WAIT, "SECONDS", "how long to listen, all ports at once "
	  "(default 31: LLDP sends every 30 s); implies --peer" },
	{ 0 }
};

const struct nd_cmd nd_cmd_show = {
	.name = "show",
	.args = "[DEV...]",
	.summary = "Show the lossless state of ports: link, RDMA, RoCE defaults, DCBX, trust, "
		   "DSCP map, PFC, ETS, buffers, maxrate; with --peer, the switch's side",
	.opts = show_opts,
	.opt = show_opt,
	.run = show_run,
	.data_size = sizeof(struct nd_peer_opts),
};
