// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The JSON shape of `nodrop show`: keys, types and values, with dcb -j's names where shared. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "unit.h"

/* Run show's printer for @port with stdout sent to a file; return the output. */
static char *capture(const struct nd_port *port, bool json)
{
	FILE *tmp = tmpfile();
	int saved = dup(STDOUT_FILENO);
	char *out;
	long len;

	ck_assert_ptr_nonnull(tmp);
	fflush(stdout);
	dup2(fileno(tmp), STDOUT_FILENO);
	pr_init(json, false);
	pr_open_array(NULL);
	nd_show_port(port, NULL);
	pr_close_array();
	ck_assert_int_eq(pr_finish(), 0);
	fflush(stdout);
	dup2(saved, STDOUT_FILENO);
	close(saved);
	len = ftell(tmp);
	out = calloc(1, (size_t)len + 1);
	rewind(tmp);
	ck_assert_int_eq(fread(out, 1, (size_t)len, tmp), len);
	fclose(tmp);
	return out;
}

static struct json_object *get(struct json_object *o, const char *path)
{
	char key[64];
	const char *dot;

	while (o && *path) {
		dot = strchr(path, '.');
		snprintf(key, sizeof(key), "%.*s", dot ? (int)(dot - path) : (int)strlen(path), path);
		if (json_object_is_type(o, json_type_array))
			o = json_object_array_get_idx(o, (size_t)atoi(key));
		else if (!json_object_object_get_ex(o, key, &o))
			return NULL;
		path = dot ? dot + 1 : "";
	}
	return o;
}

static void rich_port(struct nd_port *p)
{
	static struct dcb_app apps[] = {
		{ .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = 3, .protocol = 26 },
		{ .selector = IEEE_8021QAZ_APP_SEL_DSCP, .priority = 6, .protocol = 48 },
		{ .selector = IEEE_8021QAZ_APP_SEL_ETHERTYPE, .priority = 5, .protocol = 0 },
		{ .selector = IEEE_8021QAZ_APP_SEL_ETHERTYPE, .priority = 4, .protocol = 0x8906 },
	};
	int i;

	memset(p, 0, sizeof(*p));
	p->link.ifindex = 4;
	strcpy(p->link.name, "nicsim0");
	strcpy(p->link.driver, "nicsim");
	strcpy(p->link.bus_info, "0000:5e:00.0");
	strcpy(p->link.operstate, "UP");
	p->link.mtu = 9000;
	p->link.speed_mbps = 100000;
	p->n_rdma = 1;
	strcpy(p->rdma[0].ibdev, "mlx5_0");
	p->rdma[0].port = 1;
	strcpy(p->rdma[0].link_layer, "Ethernet");
	strcpy(p->rdma[0].state, "ACTIVE");
	p->rdma[0].active_mtu = 4096;
	p->rdma[0].roce.configured = true;
	p->rdma[0].roce.tos = 106;
	strcpy(p->rdma[0].roce.mode, "RoCE v2");
	p->dcb.have = ND_DCB_HAVE_ETS | ND_DCB_HAVE_PFC | ND_DCB_HAVE_MAXRATE | ND_DCB_HAVE_BUFFER |
		      ND_DCB_HAVE_DCBX | ND_DCB_HAVE_APP;
	p->dcb.dcbx = DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE;
	p->dcb.pfc.pfc_cap = 8;
	p->dcb.pfc.pfc_en = 1 << 3;
	p->dcb.pfc.delay = 30;
	p->dcb.pfc.requests[3] = 5;
	p->dcb.ets.ets_cap = 8;
	for (i = 0; i < 8; i++) {
		p->dcb.ets.prio_tc[i] = (uint8_t)(i == 3);
		p->dcb.ets.tc_tsa[i] = IEEE_8021QAZ_TSA_ETS;
	}
	p->dcb.ets.tc_tx_bw[0] = 40;
	p->dcb.ets.tc_tx_bw[1] = 60;
	p->dcb.maxrate.tc_maxrate[2] = 25000000;
	p->dcb.buffer.prio2buffer[3] = 1;
	p->dcb.buffer.buffer_size[1] = 65536;
	p->dcb.buffer.total_size = 262144;
	p->dcb.apps = apps;
	p->dcb.n_apps = sizeof(apps) / sizeof(apps[0]);
}

START_TEST(json_port_shape)
{
	struct nd_port p;
	struct json_object *doc, *port;
	char *out;

	rich_port(&p);
	out = capture(&p, true);
	doc = json_tokener_parse(out);
	ck_assert_msg(doc != NULL, "not JSON: %s", out);
	ck_assert(json_object_is_type(doc, json_type_array));
	port = json_object_array_get_idx(doc, 0);
	ck_assert_str_eq(json_object_get_string(get(port, "ifname")), "nicsim0");
	ck_assert_int_eq(json_object_get_int(get(port, "mtu")), 9000);
	ck_assert_int_eq(json_object_get_int(get(port, "speed")), 100000);
	ck_assert_str_eq(json_object_get_string(get(port, "rdma.0.ibdev")), "mlx5_0");
	ck_assert_int_eq(json_object_get_int(get(port, "rdma.0.active_mtu")), 4096);
	ck_assert_int_eq(json_object_get_int(get(port, "rdma.0.roce.tos")), 106);
	ck_assert_int_eq(json_object_get_int(get(port, "rdma.0.roce.dscp")), 26);
	ck_assert_int_eq(json_object_get_int(get(port, "rdma.0.roce.ecn")), 2);
	ck_assert_str_eq(json_object_get_string(get(port, "rdma.0.roce.source")), "configfs");
	ck_assert(json_object_get_boolean(get(port, "dcb.supported")));
	ck_assert(json_object_get_boolean(get(port, "dcb.dcbx.host")));
	ck_assert(json_object_get_boolean(get(port, "dcb.dcbx.ieee")));
	ck_assert_ptr_null(get(port, "dcb.dcbx.cee"));
	ck_assert_str_eq(json_object_get_string(get(port, "dcb.trust")), "dscp");
	ck_assert_str_eq(json_object_get_string(get(port, "dcb.trust_source")),
			 "derived from the APP table");
	/* dcb -j pfc show */
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.pfc.pfc_cap")), 8);
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.pfc.delay")), 30);
	ck_assert(!json_object_get_boolean(get(port, "dcb.pfc.macsec_bypass")));
	ck_assert(json_object_is_type(get(port, "dcb.pfc.prio_pfc.3"), json_type_boolean));
	ck_assert(json_object_get_boolean(get(port, "dcb.pfc.prio_pfc.3")));
	ck_assert(!json_object_get_boolean(get(port, "dcb.pfc.prio_pfc.2")));
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.pfc.requests.3")), 5);
	ck_assert_uint_eq(json_object_array_length(get(port, "dcb.pfc.indications")), 8);
	/* dcb -j ets show */
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.ets.tc_bw.1")), 60);
	ck_assert_str_eq(json_object_get_string(get(port, "dcb.ets.tc_tsa.0")), "ets");
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.ets.prio_tc.3")), 1);
	ck_assert_uint_eq(json_object_array_length(get(port, "dcb.ets.pg_bw")), 8);
	ck_assert(!json_object_get_boolean(get(port, "dcb.ets.willing")));
	/* dcb -j app show */
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.app.dscp_prio.0.0")), 26);
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.app.dscp_prio.0.1")), 3);
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.app.dscp_prio.1.0")), 48);
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.app.ethtype_prio.0.0")), 0x8906);
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.app.default_prio.0")), 5);
	ck_assert_ptr_null(get(port, "dcb.app.pcp_prio"));
	/* dcb -j buffer show, dcb -j maxrate show (kbit/s, as the kernel and dcb 6.1 give it) */
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.buffer.prio_buffer.3")), 1);
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.buffer.buffer_size.1")), 65536);
	ck_assert_int_eq(json_object_get_int(get(port, "dcb.buffer.total_size")), 262144);
	ck_assert_int_eq(json_object_get_int64(get(port, "dcb.maxrate.tc_maxrate.2")), 25000000);
	json_object_put(doc);
	free(out);
}
END_TEST

START_TEST(json_port_without_dcb)
{
	struct nd_port p = { 0 };
	struct json_object *doc, *port;
	char *out;

	strcpy(p.link.name, "veth0");
	p.link.speed_mbps = -1;
	p.dcb_status = -EOPNOTSUPP;
	out = capture(&p, true);
	doc = json_tokener_parse(out);
	port = json_object_array_get_idx(doc, 0);
	ck_assert(json_object_is_type(get(port, "speed"), json_type_null));
	ck_assert(!json_object_get_boolean(get(port, "dcb.supported")));
	ck_assert_str_eq(json_object_get_string(get(port, "dcb.error")), "not supported by driver");
	ck_assert_uint_eq(json_object_array_length(get(port, "rdma")), 0);
	json_object_put(doc);
	free(out);
}
END_TEST

START_TEST(text_port)
{
	struct nd_port p;
	char *out;

	rich_port(&p);
	out = capture(&p, false);
	ck_assert_msg(strstr(out, "nicsim0: driver nicsim bus-info 0000:5e:00.0 state UP "
				  "speed 100000Mb/s mtu 9000\n"), "%s", out);
	ck_assert_msg(strstr(out, "rdma mlx5_0/1 link-layer Ethernet"), "%s", out);
	ck_assert_msg(strstr(out, "roce tos 106 (dscp 26 ecn 2) mode RoCE v2 (configfs)"), "%s",
		      out);
	ck_assert_msg(strstr(out, "dscp-prio 26:3 48:6\n"), "%s", out);
	ck_assert_msg(strstr(out, "prio-pfc 0:off 1:off 2:off 3:on 4:off"), "%s", out);
	ck_assert_msg(strstr(out, "tc-maxrate 0:unlimited 1:unlimited 2:25Gbit"), "%s", out);
	ck_assert_msg(strstr(out, "default-prio 5\n"), "%s", out);
	ck_assert_msg(strstr(out, "ethtype-prio 0x8906:4\n"), "%s", out);
	free(out);
	p.dcb_status = -EOPNOTSUPP;
	out = capture(&p, false);
	ck_assert_msg(strstr(out, "DCB: not supported by driver\n"), "%s", out);
	free(out);
}
END_TEST

START_TEST(text_dscp_ranges)
{
	struct dcb_app apps[64];
	struct nd_port p;
	char *out;
	int d;

	/* mlnx_qos --trust dscp on an upstream driver: 64 entries, dscp d -> prio d >> 3 */
	rich_port(&p);
	for (d = 0; d < 64; d++)
		apps[d] = (struct dcb_app){ IEEE_8021QAZ_APP_SEL_DSCP, (uint8_t)(d >> 3),
					    (uint16_t)d };
	apps[26].priority = 5;
	p.dcb.apps = apps;
	p.dcb.n_apps = 64;
	out = capture(&p, false);
	ck_assert_msg(strstr(out, "dscp-prio 0-7:0 8-15:1 16-23:2 24-25:3 26:5 27-31:3 32-39:4 "
				  "40-47:5 48-55:6 56-63:7\n"), "%s", out);
	free(out);
}
END_TEST

Suite *suite_show(void)
{
	Suite *s = suite_create("show");
	TCase *tc = tcase_create("output");

	tcase_add_test(tc, json_port_shape);
	tcase_add_test(tc, json_port_without_dcb);
	tcase_add_test(tc, text_port);
	tcase_add_test(tc, text_dscp_ranges);
	suite_add_tcase(s, tc);
	return s;
}
