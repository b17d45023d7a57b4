// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The shipped counter maps against each driver family: which maps a driver selects, priorities
 * in raw names, and fixture name lists (ethtool strings, RDMA hw_counters, PMA) through the maps:
 * every counter such a driver lists must come out mapped. Then samples of fixture trees: a
 * batch of ports, and one sampler over a series while the tree changes.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_counters.h"
#include "unit.h"

static struct nd_ctr_maps shipped;

static void load_shipped(void)
{
	struct nd_err e = { 0 };

	ck_assert_msg(!nd_ctr_maps_load(&shipped, unit_counter_maps(), &e), "%s", e.msg);
}

static void free_shipped(void)
{
	nd_ctr_maps_free(&shipped);
	unit_counter_root(NULL);
}

static void select_for(const char *driver, const char *ibdev, struct nd_ctr_sel *sel)
{
	const char *drivers[1] = { driver };
	struct nd_err e = { 0 };

	ck_assert_msg(!nd_ctr_select(&shipped, drivers, 1, ibdev, ND_CTR_SRC_ALL, sel, &e), "%s",
		      e.msg);
}

static bool selected(const struct nd_ctr_sel *sel, const char *file)
{
	size_t i;

	for (i = 0; i < sel->n; i++)
		if (strstr(sel->map[i]->file, file))
			return true;
	return false;
}

START_TEST(selection)
{
	struct nd_ctr_sel sel;

	select_for("nicsim", NULL, &sel);
	ck_assert_uint_eq(sel.n, 3);
	ck_assert(strstr(sel.map[0]->file, "/mlx5.map"));
	ck_assert(selected(&sel, "/ib-pma.map") && selected(&sel, "/ethtool-pause.map"));
	select_for("veth", "rxe0", &sel);
	ck_assert(strstr(sel.map[0]->file, "/rxe.map"));
	ck_assert(!selected(&sel, "/mlx5.map"));
	select_for("", "mlx5_3", &sel);
	ck_assert(selected(&sel, "/mlx5.map"));
	select_for("ice", NULL, &sel);
	ck_assert(selected(&sel, "/ice.map") && !selected(&sel, "/bnxt.map"));
	select_for("virtio_net", NULL, &sel);
	ck_assert_uint_eq(sel.n, 2);
}
END_TEST

START_TEST(lookup_priorities)
{
	const struct nd_ctr_rule *r;
	struct nd_ctr_sel sel;
	int prio;

	select_for("mlx5_core", NULL, &sel);
	r = nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio3_pause", &prio);
	ck_assert_ptr_nonnull(r);
	ck_assert_str_eq(nd_ctr_rule_info(r)->name, "pfc_rx_frames");
	ck_assert_int_eq(prio, 3);
	r = nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio7_pause_duration", &prio);
	ck_assert_str_eq(nd_ctr_rule_info(r)->name, "pfc_rx_duration_us");
	ck_assert_int_eq(prio, 7);
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio8_pause", &prio));
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio33_pause", &prio));
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "rx_prio_pause", &prio));
	ck_assert_int_eq(prio, -1);
	/* the source is part of the name: out_of_buffer is an RDMA counter, not a driver string */
	ck_assert_ptr_null(nd_ctr_lookup(&sel, ND_CTR_ETHTOOL, "out_of_buffer", &prio));
	r = nd_ctr_lookup(&sel, ND_CTR_RDMA, "out_of_buffer", &prio);
	ck_assert_uint_eq(r->width, 32);
	ck_assert_int_eq(prio, -1);
}
END_TEST

/* ---- driver families: fixture name lists through the shipped maps ---- */

/* Feed "NAME VALUE" lines of a fixture's ethtool.txt as ethtool triples. */
static void feed_ethtool(struct nd_ctr_build *b, const char *fixture, size_t *count)
{
	char path[PATH_MAX], line[256], name[128];
	unsigned long long v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/ethtool.txt", unit_fixtures(), fixture);
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	*count = 0;
	while (fgets(line, sizeof(line), f)) {
		if (line[0] == '#')
			continue;
		ck_assert_int_eq(sscanf(line, "%127s %llu", name, &v), 2);
		ck_assert_int_eq(nd_ctr_add(b, ND_CTR_ETHTOOL, name, v), 0);
		(*count)++;
	}
	fclose(f);
}

static void ethtool_sample(const char *fixture, const char *driver, struct nd_sample *smp,
			   size_t *count)
{
	struct nd_ctr_build b;
	struct nd_ctr_sel sel;

	memset(smp, 0, sizeof(*smp));
	strcpy(smp->ifname, "fixture");
	select_for(driver, NULL, &sel);
	ck_assert_int_eq(nd_ctr_build_start(&b, smp, &sel, NULL), 0);
	feed_ethtool(&b, fixture, count);
	ck_assert_int_eq(nd_ctr_build_finish(&b), 0);
}

static size_t raw_count(const struct nd_sample *smp)
{
	size_t i, n = 0;

	for (i = 0; i < smp->n; i++)
		n += !smp->c[i].mapped;
	return n;
}

/* The value of a canonical counter from @src, failing the test when it is absent. */
static uint64_t val(const struct nd_sample *smp, const char *name, int prio,
		    enum nd_ctr_source src)
{
	size_t i;

	for (i = 0; i < smp->n; i++)
		if (smp->c[i].mapped && smp->c[i].prio == prio && smp->c[i].source == src &&
		    !strcmp(smp->c[i].name, name))
			return smp->c[i].value;
	ck_abort_msg("%s prio %d not in the sample", name, prio);
	return 0;
}

static const struct nd_counter *ctr(const struct nd_sample *smp, const char *name, int prio)
{
	const struct nd_counter *c = nd_sample_find(smp, name, prio);

	ck_assert_msg(c != NULL, "%s prio %d not in the sample", name, prio);
	return c;
}

/* Sample @ifname of a fixture tree: its sysfs sources (RDMA hw_counters, PMA). */
static void sysfs_sample(const char *fixture, const char *ifname, struct nd_sample *smp)
{
	struct nd_sampler *s;
	struct nd_err e = { 0 };

	unit_counter_root(fixture);
	ck_assert_msg(!nd_sampler_new(&s, unit_counter_maps(), &e), "%s", e.msg);
	ck_assert_msg(!nd_sample_port(s, ifname, smp, &e), "%s", e.msg);
	nd_sampler_free(s);
	ck_assert(!smp->rdma_netlink);
	ck_assert_uint_gt(smp->t_ns, 0);
}

START_TEST(mlx5_ethtool)
{
	struct nd_sample smp;
	size_t n, p;

	ethtool_sample("ctr-mlx5", "mlx5_core", &smp, &n);
	ck_assert_uint_eq(n, 88);
	ck_assert_uint_eq(raw_count(&smp), 0);
	ck_assert_uint_eq(val(&smp, "pfc_rx_frames", 3, ND_CTR_ETHTOOL), 1053);
	ck_assert_uint_eq(val(&smp, "pfc_tx_duration_us", 3, ND_CTR_ETHTOOL), 1056);
	ck_assert_uint_eq(val(&smp, "pfc_rx_transitions", 3, ND_CTR_ETHTOOL), 1057);
	ck_assert_ptr_null(nd_sample_find(&smp, "pfc_rx_frames", 2));
	/* the MAC counter wins over the global-pause one, which is then left out */
	ck_assert_uint_eq(val(&smp, "pause_rx_frames", -1, ND_CTR_ETHTOOL), 1010);
	ck_assert_str_eq(ctr(&smp, "pause_rx_frames", -1)->raw, "rx_pause_ctrl_phy");
	ck_assert_uint_eq(val(&smp, "pause_tx_duration_us", -1, ND_CTR_ETHTOOL), 1061);
	ck_assert_uint_eq(val(&smp, "pause_storm_errors", -1, ND_CTR_ETHTOOL), 1064);
	/* port traffic from the _phy counters, which count RoCE too */
	ck_assert_uint_eq(val(&smp, "rx_packets", -1, ND_CTR_ETHTOOL), 1006);
	ck_assert_str_eq(ctr(&smp, "rx_packets", -1)->raw, "rx_packets_phy");
	ck_assert_uint_eq(val(&smp, "rx_nobuf_discards", -1, ND_CTR_ETHTOOL), 1012);
	ck_assert_uint_eq(ctr(&smp, "rx_no_wqe_discards", -1)->width, 32);
	for (p = 0; p < 8; p++) {
		ck_assert_uint_eq(val(&smp, "rx_prio_packets", (int)p, ND_CTR_ETHTOOL),
				  1014 + 5 * p);
		ck_assert_uint_eq(val(&smp, "rx_prio_discards", (int)p, ND_CTR_ETHTOOL),
				  1015 + 5 * p);
		ck_assert_uint_eq(val(&smp, "rx_ecn_marked", (int)p, ND_CTR_ETHTOOL), 1067 + 3 * p);
	}
	/* mapped first, in the table's order */
	ck_assert_str_eq(smp.c[0].name, "pfc_rx_frames");
	nd_sample_free(&smp);
}
END_TEST

START_TEST(mlx5_rdma)
{
	struct nd_sample smp;

	sysfs_sample("ctr-mlx5", "eth2", &smp);
	ck_assert_str_eq(smp.driver, "mlx5_core");
	ck_assert_str_eq(smp.ibdev, "mlx5_0");
	ck_assert_uint_eq(smp.ibport, 1);
	ck_assert_uint_eq(smp.n, 17);
	/* lifespan is no counter; an unmapped one stays, under its own name */
	ck_assert_ptr_null(nd_sample_find(&smp, "lifespan", -1));
	ck_assert_uint_eq(raw_count(&smp), 1);
	ck_assert(!ctr(&smp, "resp_cqe_error", -1)->mapped);
	ck_assert_uint_eq(ctr(&smp, "resp_cqe_error", -1)->value, 117);
	ck_assert_uint_eq(val(&smp, "rx_no_wqe_discards", -1, ND_CTR_RDMA), 101);
	ck_assert_uint_eq(ctr(&smp, "rx_no_wqe_discards", -1)->width, 32);
	ck_assert_uint_eq(val(&smp, "seq_err_naks", -1, ND_CTR_RDMA), 104);
	ck_assert_uint_eq(val(&smp, "transport_retries", -1, ND_CTR_RDMA), 105);
	ck_assert_uint_eq(val(&smp, "retry_exceeded", -1, ND_CTR_RDMA), 107);
	ck_assert_uint_eq(val(&smp, "roce_rx_ecn_marked", -1, ND_CTR_RDMA), 109);
	ck_assert_uint_eq(val(&smp, "cnp_sent", -1, ND_CTR_RDMA), 110);
	ck_assert_uint_eq(val(&smp, "cnp_handled", -1, ND_CTR_RDMA), 111);
	ck_assert_uint_eq(val(&smp, "cnp_ignored", -1, ND_CTR_RDMA), 112);
	ck_assert_uint_eq(ctr(&smp, "cnp_ignored", -1)->width, 64);
	ck_assert_uint_eq(val(&smp, "rdma_tx_bytes", -1, ND_CTR_RDMA), 116);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(bnxt_ethtool)
{
	struct nd_sample smp;
	uint64_t sum = 0;
	size_t n, p;

	ethtool_sample("ctr-bnxt", "bnxt_en", &smp, &n);
	ck_assert_uint_eq(n, 95);
	ck_assert_uint_eq(raw_count(&smp), 0);
	for (p = 0; p < 8; p++) {
		ck_assert_uint_eq(val(&smp, "pfc_rx_frames", (int)p, ND_CTR_ETHTOOL),
				  2008 + 11 * p);
		ck_assert_uint_eq(val(&smp, "pfc_tx_transitions", (int)p, ND_CTR_ETHTOOL),
				  2013 + 11 * p);
		ck_assert_uint_eq(val(&smp, "tx_prio_packets", (int)p, ND_CTR_ETHTOOL),
				  2017 + 11 * p);
		sum += 2018 + 11 * p;
	}
	/* per-CoS discards add up to the port's */
	ck_assert_uint_eq(val(&smp, "rx_nobuf_discards", -1, ND_CTR_ETHTOOL), sum);
	ck_assert_str_eq(ctr(&smp, "rx_nobuf_discards", -1)->raw, "rx_discard_packets_cos0");
	ck_assert_uint_eq(val(&smp, "pause_tx_frames", -1, ND_CTR_ETHTOOL), 2006);
	ck_assert_uint_eq(val(&smp, "pause_storm_warnings", -1, ND_CTR_ETHTOOL), 2007);
	ck_assert_uint_eq(val(&smp, "rx_packets", -1, ND_CTR_ETHTOOL), 2001);
	nd_sample_free(&smp);
}
END_TEST

/* The old and the new bnxt_re names give the same canonical counters. */
START_TEST(bnxt_rdma_old_and_new)
{
	static const char *const both[] = { "roce_rx_ecn_marked", "cnp_sent", "cnp_handled",
					    "seq_err_naks", "transport_retries", "retry_exceeded",
					    "out_of_sequence", "duplicate_requests",
					    "rnr_naks_rcvd", "rx_no_wqe_discards" };
	struct nd_sample old, new;
	size_t i;

	sysfs_sample("ctr-bnxt", "ens1f0np0", &old);
	sysfs_sample("ctr-bnxt", "ens1f1np1", &new);
	ck_assert_str_eq(old.ibdev, "bnxt_re0");
	ck_assert_str_eq(new.ibdev, "bnxt_re1");
	ck_assert_uint_eq(raw_count(&old), 0);
	ck_assert_uint_eq(raw_count(&new), 0);
	ck_assert_uint_eq(old.n, 14);
	ck_assert_uint_eq(new.n, 10);
	for (i = 0; i < sizeof(both) / sizeof(both[0]); i++) {
		ck_assert_uint_ge(val(&old, both[i], -1, ND_CTR_RDMA), 201);
		ck_assert_uint_ge(val(&new, both[i], -1, ND_CTR_RDMA), 301);
	}
	ck_assert_uint_eq(val(&old, "cnp_sent", -1, ND_CTR_RDMA), 202);
	ck_assert_uint_eq(val(&new, "cnp_sent", -1, ND_CTR_RDMA), 302);
	ck_assert_uint_eq(val(&old, "rdma_rx_bytes", -1, ND_CTR_RDMA), 213);
	ck_assert_uint_eq(val(&new, "rx_no_wqe_discards", -1, ND_CTR_RDMA), 309);
	nd_sample_free(&old);
	nd_sample_free(&new);
}
END_TEST

START_TEST(ice_xon_xoff_add_up)
{
	struct nd_sample smp;
	size_t n, p;

	ethtool_sample("ctr-ice", "ice", &smp, &n);
	ck_assert_uint_eq(n, 45);
	ck_assert_uint_eq(raw_count(&smp), 0);
	for (p = 0; p < 8; p++) {
		uint64_t xon = 3014 + 4 * p;

		ck_assert_uint_eq(val(&smp, "pfc_rx_frames", (int)p, ND_CTR_ETHTOOL),
				  xon + xon + 1);
		ck_assert_uint_eq(val(&smp, "pfc_tx_frames", (int)p, ND_CTR_ETHTOOL),
				  (xon + 2) + (xon + 3));
	}
	ck_assert_str_eq(ctr(&smp, "pfc_rx_frames", 5)->raw, "rx_priority_5_xon.nic");
	ck_assert_uint_eq(val(&smp, "pause_rx_frames", -1, ND_CTR_ETHTOOL), 3010 + 3011);
	ck_assert_uint_eq(val(&smp, "pause_tx_frames", -1, ND_CTR_ETHTOOL), 3012 + 3013);
	ck_assert_uint_eq(val(&smp, "rx_packets", -1, ND_CTR_ETHTOOL), 3001 + 3002 + 3003);
	ck_assert_uint_eq(val(&smp, "rx_nobuf_discards", -1, ND_CTR_ETHTOOL), 3009);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(irdma_rdma)
{
	struct nd_sample smp;

	sysfs_sample("ctr-ice", "ens2f0", &smp);
	ck_assert_str_eq(smp.driver, "ice");
	ck_assert_str_eq(smp.ibdev, "irdma0");
	ck_assert_uint_eq(raw_count(&smp), 0);
	ck_assert_uint_eq(smp.n, 8);
	ck_assert_uint_eq(val(&smp, "roce_rx_ecn_marked", -1, ND_CTR_RDMA), 401);
	ck_assert_uint_eq(val(&smp, "cnp_sent", -1, ND_CTR_RDMA), 402);
	ck_assert_uint_eq(val(&smp, "cnp_handled", -1, ND_CTR_RDMA), 403);
	ck_assert_uint_eq(val(&smp, "cnp_ignored", -1, ND_CTR_RDMA), 404);
	ck_assert_uint_eq(val(&smp, "rdma_rx_packets", -1, ND_CTR_RDMA), 405 + 406);
	ck_assert_uint_eq(val(&smp, "rdma_tx_bytes", -1, ND_CTR_RDMA), 411 + 412);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(rxe_every_counter)
{
	static const struct {
		const char *name;
		uint64_t value;
	} want[] = {
		{ "rdma_tx_packets", 500 }, { "rdma_rx_packets", 501 },
		{ "duplicate_requests", 502 }, { "out_of_sequence", 503 },
		{ "rnr_naks_rcvd", 504 }, { "rnr_naks_sent", 505 }, { "seq_err_naks", 506 },
		{ "acks_deferred", 507 }, { "retry_exceeded", 508 }, { "rnr_retry_exceeded", 509 },
		{ "transport_retries", 510 }, { "send_errors", 511 }, { "ib_link_downed", 512 },
		{ "send_ops", 513 }, { "recv_ops", 514 },
	};
	struct nd_sample smp;
	size_t i;

	sysfs_sample("ctr-rxe", "veth0", &smp);
	/* a veth has no device: the map is chosen by the RDMA device's name */
	ck_assert_str_eq(smp.driver, "");
	ck_assert_str_eq(smp.ibdev, "rxe0");
	ck_assert_uint_eq(smp.n, 15);
	ck_assert_uint_eq(raw_count(&smp), 0);
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		ck_assert_uint_eq(val(&smp, want[i].name, -1, ND_CTR_RDMA), want[i].value);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(ib_hca_pma)
{
	static const struct {
		const char *name;
		uint64_t value;
		uint8_t width;
		bool sat;
	} want[] = {
		{ "ib_xmit_wait", 4294967295u, 32, true }, { "ib_xmit_bytes", 4000, 64, false },
		{ "ib_rcv_bytes", 8000, 64, false }, { "ib_xmit_packets", 601, 64, false },
		{ "ib_rcv_packets", 602, 64, false }, { "ib_symbol_errors", 65535, 16, true },
		{ "ib_link_error_recovery", 3, 8, true }, { "ib_link_downed", 255, 8, true },
		{ "ib_rcv_errors", 604, 16, true },
		{ "ib_rcv_remote_physical_errors", 605, 16, true },
		{ "ib_rcv_switch_relay_errors", 606, 16, true },
		{ "ib_xmit_discards", 607, 16, true },
		{ "ib_xmit_constraint_errors", 8, 8, true },
		{ "ib_rcv_constraint_errors", 9, 8, true },
		{ "ib_local_link_integrity_errors", 15, 4, true },
		{ "ib_excessive_buffer_overrun_errors", 2, 4, true },
		{ "ib_vl15_dropped", 610, 16, true },
	};
	struct nd_sample smp;
	size_t i;

	sysfs_sample("ctr-ib", "ib0", &smp);
	/* IPoIB: the HCA under the same PCI function */
	ck_assert_str_eq(smp.ibdev, "mlx5_ib0");
	ck_assert_str_eq(smp.driver, "mlx5_core");
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct nd_counter *c = ctr(&smp, want[i].name, -1);

		ck_assert_int_eq(c->source, ND_CTR_PMA);
		ck_assert_uint_eq(c->value, want[i].value);
		ck_assert_uint_eq(c->width, want[i].width);
		ck_assert_int_eq(c->saturates, want[i].sat);
	}
	/* an unmapped PMA counter stays raw; one the PMA cannot answer is left out */
	ck_assert_uint_eq(raw_count(&smp), 1);
	ck_assert(!ctr(&smp, "unicast_xmit_packets", -1)->mapped);
	ck_assert_ptr_null(nd_sample_find(&smp, "port_rcv_packets_dropped", -1));
	ck_assert_uint_eq(val(&smp, "rx_no_wqe_discards", -1, ND_CTR_RDMA), 701);
	nd_sample_free(&smp);
}
END_TEST

START_TEST(unknown_device)
{
	struct nd_sampler *s;
	struct nd_sample smp;
	struct nd_err e = { 0 };

	unit_counter_root("ctr-rxe");
	ck_assert_int_eq(nd_sampler_new(&s, unit_counter_maps(), &e), 0);
	ck_assert_int_eq(nd_sample_port(s, "eth9", &smp, &e), -ENODEV);
	ck_assert_str_eq(e.msg, "no network device 'eth9' (see 'ip link' for the names)");
	ck_assert_int_eq(nd_sample_port(s, "../x", &smp, &e), -ENODEV);
	ck_assert_int_eq(nd_sample_port(s, "", &smp, &e), -ENODEV);
	nd_sampler_free(s);
	ck_assert_int_eq(nd_sampler_new(&s, "/nonexistent", &e), -EINVAL);
	ck_assert_int_eq(e.code, -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent"));
}
END_TEST

/* A batch is each port's sample; a bad port anywhere fails it whole, with its name. */
START_TEST(sample_batch)
{
	const char *two[] = { "veth0", "veth0" }, *bad[] = { "veth0", "eth9" };
	struct nd_sample one, smp[2];
	struct nd_sampler *s;
	struct nd_err e = { 0 };
	size_t i, k;

	unit_counter_root("ctr-rxe");
	ck_assert_int_eq(nd_sampler_new(&s, unit_counter_maps(), &e), 0);
	ck_assert_msg(!nd_sample_port(s, "veth0", &one, &e), "%s", e.msg);
	ck_assert_msg(!nd_sample_ports(s, two, 2, smp, &e), "%s", e.msg);
	for (k = 0; k < 2; k++) {
		ck_assert_str_eq(smp[k].ifname, "veth0");
		ck_assert_str_eq(smp[k].ibdev, one.ibdev);
		ck_assert_uint_eq(smp[k].n, one.n);
		for (i = 0; i < one.n; i++) {
			ck_assert_str_eq(smp[k].c[i].name, one.c[i].name);
			ck_assert_uint_eq(smp[k].c[i].value, one.c[i].value);
		}
		nd_sample_free(&smp[k]);
	}
	ck_assert_int_eq(nd_sample_ports(s, bad, 2, smp, &e), -ENODEV);
	ck_assert_str_eq(e.msg, "no network device 'eth9' (see 'ip link' for the names)");
	ck_assert(!smp[0].c && !smp[0].n && !smp[1].c);
	ck_assert_int_eq(nd_sample_ports(s, bad, 0, smp, &e), 0);
	nd_sample_free(&one);
	nd_sampler_free(s);
}
END_TEST

static void put_text(const char *dir, const char *sub, const char *name, const char *text)
{
	char path[PATH_MAX + 128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_ib0/ports/1/%s/%s", dir, sub,
		 name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

/*
 * One sampler over a series of samples (its builds replay the last one's layout) while the
 * port's counters change: values, RDMA counters that come and go (two at once: as many as
 * before, other names), PMA counters that stop answering and answer again. Each sample must be
 * what a new sampler reads from the tree at that moment.
 */
START_TEST(sample_series_follows_the_tree)
{
	static const char *const hw[] = { "out_of_buffer", "out_of_sequence", "np_cnp_sent",
					   "zz_vendor_extra", "zz_other" };
	char dir[] = "/tmp/nd-ctr-series-XXXXXX", cmd[PATH_MAX + 64], pma[32][256], text[32];
	char path[PATH_MAX + 128];
	struct nd_sampler *s, *fresh;
	struct nd_sample got, want;
	struct nd_err e = { 0 };
	uint64_t rng = 0x9e3779b97f4a7c15ULL;
	unsigned int round, k, n_pma = 0, same = 0;
	struct dirent *de;
	size_t last_n = 0;
	DIR *d;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(cmd, sizeof(cmd), "cp -a %s/ctr-ib/. %s", unit_fixtures(), dir);
	ck_assert_int_eq(system(cmd), 0);
	snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_ib0/ports/1/counters", dir);
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)) && n_pma < 32)
		if (de->d_name[0] != '.')
			snprintf(pma[n_pma++], sizeof(pma[0]), "%s", de->d_name);
	closedir(d);
	ck_assert_uint_gt(n_pma, 10);
	setenv("NODROP_SYSROOT", dir, 1);
	nd_sysroot_reset();
	ck_assert_int_eq(nd_sampler_new(&s, unit_counter_maps(), &e), 0);
	for (round = 0; round < 80; round++) {
		switch (unit_rand(&rng) % 4) {
		case 0:
			for (k = 0; k < 2; k++) {
				const char *name = hw[unit_rand(&rng) % 5];

				snprintf(path, sizeof(path), "%s/sys/class/infiniband/mlx5_ib0/ports/"
					 "1/hw_counters/%s", dir, name);
				if (unit_rand(&rng) % 2)
					unlink(path);
				else
					put_text(dir, "hw_counters", name, "42\n");
			}
			break;
		case 1:
			if (unit_rand(&rng) % 3)
				snprintf(text, sizeof(text), "%" PRIu64 "\n",
					 unit_rand(&rng) >> 40);
			else
				snprintf(text, sizeof(text), "N/A (no PMA)\n");
			put_text(dir, "counters", pma[unit_rand(&rng) % n_pma], text);
			break;
		case 2:
			snprintf(text, sizeof(text), "%u\n", round);
			put_text(dir, "hw_counters", "out_of_sequence", text);
			break;
		}
		ck_assert_msg(!nd_sample_port(s, "ib0", &got, &e), "%s", e.msg);
		ck_assert_int_eq(nd_sampler_new(&fresh, unit_counter_maps(), &e), 0);
		ck_assert_msg(!nd_sample_port(fresh, "ib0", &want, &e), "%s", e.msg);
		check_same_sample(&got, &want);
		same += got.n == last_n;
		last_n = got.n;
		nd_sample_free(&got);
		nd_sample_free(&want);
		nd_sampler_free(fresh);
	}
	/* the series had both: samples like the last one and samples of another list */
	ck_assert_uint_gt(same, 10);
	ck_assert_uint_lt(same, 75);
	nd_sampler_free(s);
	unit_counter_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

TCase *tcase_counters_drivers(void)
{
	TCase *tc = tcase_create("drivers");

	tcase_add_checked_fixture(tc, load_shipped, free_shipped);
	tcase_add_test(tc, selection);
	tcase_add_test(tc, lookup_priorities);
	tcase_add_test(tc, mlx5_ethtool);
	tcase_add_test(tc, mlx5_rdma);
	tcase_add_test(tc, bnxt_ethtool);
	tcase_add_test(tc, bnxt_rdma_old_and_new);
	tcase_add_test(tc, ice_xon_xoff_add_up);
	tcase_add_test(tc, irdma_rdma);
	tcase_add_test(tc, rxe_every_counter);
	tcase_add_test(tc, ib_hca_pma);
	tcase_add_test(tc, unknown_device);
	tcase_add_test(tc, sample_batch);
	tcase_add_test(tc, sample_series_follows_the_tree);
	return tc;
}
