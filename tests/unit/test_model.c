// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The datapath model against values computed by hand from the cited constants (each derivation
 * in the comment above it), the collectives against nccl-tests' relations, and the host reader
 * on doctor's fixture trees: a GPU beside the NIC (PIX) and one across the sockets (SYS) must
 * give different ceilings.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nodrop.h"
#include "unit.h"

#define TOL 1e-6

static const struct nd_model_term *bw_term(const struct nd_model *m, const char *key)
{
	size_t i;

	for (i = 0; i < m->n_bw; i++)
		if (!strcmp(m->bw[i].key, key))
			return &m->bw[i];
	return NULL;
}

static void link_of(struct nd_pcie_link *l, unsigned int gen, unsigned int width,
		    unsigned int mps)
{
	memset(l, 0, sizeof(*l));
	l->gen = gen;
	l->width = width;
	l->mps = mps;
}

/*
 * Gen4 x16, MPS 256: 16 GT/s x 128/130 x 16 = 252.0615 Gb/s. DLLPs: an Ack and an UpdateFC of
 * 8 bytes every 168 bytes (Base 5.0 Tables 3-7, 2-46), SKP 4 in 1538: x (1 - 16/168 - 4/1538)
 * = 227.4001. 64 KiB in memory writes: 256 TLPs x (8 + 16) bytes: x 65536/71680 = 207.9087;
 * in completions with a 64-byte WQE: 256 x (8 + 12) + 64 + 20: x 65536/70740 = 210.6714.
 */
START_TEST(test_pcie_gen4_x16)
{
	struct nd_pcie_link l;

	link_of(&l, 4, 16, 256);
	ck_assert_double_eq_tol(nd_pcie_raw_gbps(&l), 252.0615384615, TOL);
	ck_assert_double_eq_tol(nd_pcie_tlp_gbps(&l), 227.4001209887, TOL);
	ck_assert_double_eq_tol(nd_pcie_payload_gbps(&l, 65536, 16, 0), 207.9086820468, TOL);
	ck_assert_double_eq_tol(nd_pcie_payload_gbps(&l, 65536, 12, 64), 210.6713928345, TOL);
}
END_TEST

/* Gen5 x16, MPS 256: 504.1231 raw, 454.8002 after DLLPs, 415.8174 in 64 KiB writes. */
START_TEST(test_pcie_gen5_x16)
{
	struct nd_pcie_link l;

	link_of(&l, 5, 16, 256);
	ck_assert_double_eq_tol(nd_pcie_raw_gbps(&l), 504.1230769231, TOL);
	ck_assert_double_eq_tol(nd_pcie_tlp_gbps(&l), 454.8002419774, TOL);
	ck_assert_double_eq_tol(nd_pcie_payload_gbps(&l, 65536, 16, 0), 415.8173640936, TOL);
	/* the pcie-model's published check: Gen3 x8, MPS 256, 57.88 Gb/s at the TLP layer */
	link_of(&l, 3, 8, 256);
	ck_assert_double_eq_tol(nd_pcie_tlp_gbps(&l), 57.8847656267, TOL);
	/* Gen1 8b/10b, no DLLP table for x3, Gen6 flits: 236 of 256 bytes, no DLLP share */
	link_of(&l, 1, 1, 128);
	ck_assert_double_eq_tol(nd_pcie_raw_gbps(&l), 2.0, TOL);
	link_of(&l, 4, 3, 256);
	ck_assert_double_eq(nd_pcie_tlp_gbps(&l), 0);
	link_of(&l, 6, 16, 256);
	ck_assert_double_eq_tol(nd_pcie_tlp_gbps(&l), 64 * 16 * 236.0 / 256, TOL);
	ck_assert_double_eq_tol(nd_pcie_payload_gbps(&l, 4096, 16, 0),
				64 * 16 * 236.0 / 256 * 4096 / (4096 + 16 * 16), TOL);
}
END_TEST

/*
 * 400G RoCE v2, MTU 4096: 82 bytes a packet (preamble and gap 20, Ethernet 14, IPv4 20, UDP 8,
 * BTH 12, ICRC 4, FCS 4). A 64 KiB WRITE: 16 packets and RETH 16: 400 x 65536/66864 =
 * 392.0555; a 4096-byte SEND 400 x 4096/4178 = 392.1494, 391.7743 with a VLAN tag; one byte
 * pads its 63-byte frame to 64: 400/84. InfiniBand EDR: 26 bytes (LRH 8, BTH 12, ICRC 4, VCRC 2):
 * 100 x 4096/4122 = 99.3692.
 */
START_TEST(test_wire_roce_400g)
{
	struct nd_model_params p;

	nd_model_params_init(&p);
	p.line_gbps = 400;
	p.mtu = 4096;
	p.msg_size = 65536;
	ck_assert_uint_eq(nd_wire_packet_overhead(&p), 82);
	ck_assert_double_eq_tol(nd_wire_payload_gbps(&p), 392.0555156736, TOL);
	p.write = false;
	p.msg_size = 4096;
	ck_assert_double_eq_tol(nd_wire_payload_gbps(&p), 392.1493537578, TOL);
	p.vlan = true;
	ck_assert_double_eq_tol(nd_wire_payload_gbps(&p), 391.7742706839, TOL);
	p.vlan = false;
	p.msg_size = 1;
	ck_assert_double_eq_tol(nd_wire_payload_gbps(&p), 400.0 / 84, TOL);
	p.fabric = ND_MF_IB;
	p.line_gbps = 100;
	p.msg_size = 4096;
	ck_assert_uint_eq(nd_wire_packet_overhead(&p), 26);
	ck_assert_double_eq_tol(nd_wire_payload_gbps(&p), 99.3692382339, TOL);
}
END_TEST

/* The whole model: every term present, the smallest names the ceiling, latency adds up. */
START_TEST(test_model_terms)
{
	struct nd_model_params p;
	struct nd_err e = { 0 };
	struct nd_model m;
	double sum = 0;
	size_t i;

	nd_model_params_init(&p);
	p.line_gbps = 400;
	p.mtu = 4096;
	link_of(&p.nic, 4, 16, 256);
	link_of(&p.gpu, 5, 16, 256);
	p.mem = ND_MM_GPUDIRECT;
	p.path = ND_PATH_PIX;
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), 0);
	ck_assert_ptr_nonnull(bw_term(&m, "wire"));
	ck_assert_ptr_nonnull(bw_term(&m, "pcie_gpu"));
	ck_assert_ptr_null(bw_term(&m, "socket_link"));
	/* the Gen4 NIC is the bottleneck of a 400G port: writes 207.91, completions 210.67 */
	ck_assert_str_eq(m.bw[m.rx_limit].key, "pcie_nic");
	ck_assert_double_eq_tol(m.rx_gbps, 207.9086820468, TOL);
	ck_assert_double_eq_tol(m.tx_gbps, 210.6713928345, TOL);
	for (i = 0; i < m.n_lat; i++)
		sum += m.lat[i].ns;
	ck_assert_double_eq_tol(m.latency_ns, sum, 1e-9);
	/* doorbell 200 + WQE 400 + payload 400 + write 200, 2 x 3 m, one 250 ns switch */
	ck_assert_double_eq_tol(m.latency_ns, 1000 + 200 + 30 + 250 + 65536 * 8 / 207.9086820468 +
				82 * 8 / 400.0, 1e-6);
	/* SYS: the socket link (20.8 GB/s = 166.4 Gb/s) becomes the limit */
	p.path = ND_PATH_SYS;
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), 0);
	ck_assert_str_eq(m.bw[m.tx_limit].key, "socket_link");
	ck_assert_double_eq_tol(m.tx_gbps, 166.4, TOL);
	/* staged: host memory crossed twice; TCP-like: four times and one core's copy */
	p.mem = ND_MM_STAGED;
	p.mem_gbs = 100;
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), 0);
	ck_assert_double_eq_tol(bw_term(&m, "host_memory")->tx_gbps, 400, TOL);
	p.mem = ND_MM_TCP;
	p.copy_gbs = 10;
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), 0);
	ck_assert_double_eq_tol(bw_term(&m, "host_memory")->tx_gbps, 200, TOL);
	ck_assert_str_eq(m.bw[m.tx_limit].key, "cpu_copy");
	ck_assert_double_eq_tol(m.tx_gbps, 80, TOL);
	/* what is not known is left out and said */
	p.mem = ND_MM_HOST;
	p.mem_gbs = 0;
	memset(&p.nic, 0, sizeof(p.nic));
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), 0);
	ck_assert_ptr_null(bw_term(&m, "pcie_nic"));
	ck_assert_uint_ge(m.n_notes, 2);
	ck_assert_ptr_nonnull(strstr(m.notes[0], "pcie_nic"));
}
END_TEST

START_TEST(test_model_bad_inputs)
{
	struct nd_model_params p;
	struct nd_pcie_link l = { 0 };
	struct nd_err e = { 0 };
	struct nd_model m;

	nd_model_params_init(&p);
	p.mtu = 4096;
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "--speed"));
	p.line_gbps = 100;
	p.mtu = 1500;
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "1500"));
	p.mtu = 1024;
	p.nic.gen = 7;
	ck_assert_int_eq(nd_model_calc(&p, &m, &e), -EINVAL);
	ck_assert_int_eq(nd_pcie_link_parse("gen4x16", &l, &e), 0);
	ck_assert_uint_eq(l.gen, 4);
	ck_assert_uint_eq(l.width, 16);
	ck_assert_uint_eq(l.mps, 256);
	ck_assert_int_eq(nd_pcie_link_parse("32GT/s x8", &l, &e), 0);
	ck_assert_uint_eq(l.gen, 5);
	ck_assert_int_eq(nd_pcie_link_parse("Gen3 x4", &l, &e), 0);
	ck_assert_uint_eq(l.gen, 3);
	ck_assert_int_eq(nd_pcie_link_parse("gen4x12", &l, &e), -EINVAL);
	ck_assert_int_eq(nd_pcie_link_parse("gen9x16", &l, &e), -EINVAL);
	ck_assert_int_eq(nd_pcie_link_parse("gen4x16junk", &l, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "gen4x16"));
}
END_TEST

/*
 * A ring all-reduce of 8 nodes, one GPU and one 400 Gb/s NIC each, 1 GiB: busbw factor
 * 2 x 7/8 = 1.75; 1.75 x 2^30 bytes over 50 GB/s = 37580.964 us; NCCL's latency 8.4 + 14 steps
 * across nodes x 14 us = 204.4 us. algbw = 2^30 / 37785.364 us = 28.4169 GB/s, busbw 49.7295.
 * The tree: 2 x 2^30 over 50 GB/s = 42949.673 us, 8.4 + 2 log2(8) x 14 = 92.4 us.
 */
START_TEST(test_ring_allreduce_8_nodes)
{
	struct nd_coll_params p;
	struct nd_coll_result r;
	struct nd_err e = { 0 };

	nd_coll_params_init(&p);
	p.nodes = 8;
	p.nic_gbps = 400;
	p.bytes = 1ull << 30;
	ck_assert_int_eq(nd_coll_calc(&p, &r, &e), 0);
	ck_assert_double_eq_tol(r.factor, 1.75, TOL);
	ck_assert_double_eq_tol(r.bw_us, 37580.96384, TOL);
	ck_assert_double_eq_tol(r.lat_us, 204.4, TOL);
	ck_assert_uint_eq(r.inter_steps, 14);
	ck_assert_double_eq_tol(r.algbw_gbs, 28.4168713724, TOL);
	ck_assert_double_eq_tol(r.busbw_gbs, 49.7295249017, TOL);
	p.algo = ND_ALGO_TREE;
	ck_assert_int_eq(nd_coll_calc(&p, &r, &e), 0);
	ck_assert_double_eq_tol(r.bw_us, 42949.67296, TOL);
	ck_assert_double_eq_tol(r.lat_us, 92.4, TOL);
	/* busbw is S/t x 2(n-1)/n whatever the algorithm: nccl-tests' definition */
	ck_assert_double_eq_tol(r.busbw_gbs, r.algbw_gbs * 1.75, TOL);
}
END_TEST

/* Every collective's relations, on seeded random shapes. */
START_TEST(test_collectives_random)
{
	struct nd_coll_params p;
	struct nd_coll_result r;
	struct nd_err e = { 0 };
	unsigned int seed = 1795, i;

	for (i = 0; i < 500; i++) {
		double n, S;

		nd_coll_params_init(&p);
		p.coll = (enum nd_coll)(rand_r(&seed) % ND_COLL_COUNT);
		p.nodes = 2 + (uint32_t)(rand_r(&seed) % 64);
		p.gpus = 1 + (uint32_t)(rand_r(&seed) % 8);
		p.nic_gbps = 25 + rand_r(&seed) % 800;
		p.intra_gbs = rand_r(&seed) % 2 ? 0 : 10 + rand_r(&seed) % 900;
		p.bytes = 1 + ((uint64_t)rand_r(&seed) << 8);
		ck_assert_int_eq(nd_coll_calc(&p, &r, &e), 0);
		n = (double)p.nodes * p.gpus;
		S = (double)p.bytes;
		ck_assert_double_eq_tol(r.time_us, r.bw_us + r.lat_us, 1e-9);
		ck_assert_double_eq_tol(r.algbw_gbs, S / (r.time_us * 1e3), 1e-9);
		ck_assert_double_eq_tol(r.factor, p.coll == ND_COLL_ALLREDUCE ? 2 * (n - 1) / n :
					(n - 1) / n, 1e-12);
		/* the network alone: never faster than the node's NICs allow */
		if (p.coll != ND_COLL_ALLTOALL)
			ck_assert(r.bw_us * 1e3 * p.gpus * p.nic_gbps / 8 >=
				  r.factor * S * (1 - 1e-9));
	}
	p.coll = ND_COLL_ALLGATHER;
	p.algo = ND_ALGO_TREE;
	ck_assert_int_eq(nd_coll_calc(&p, &r, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "all-reduce only"));
	p.algo = ND_ALGO_RING;
	p.nic_gbps = 0;
	ck_assert_int_eq(nd_coll_calc(&p, &r, &e), -EINVAL);
}
END_TEST

static void model_of(const struct nd_model_host *h, struct nd_model *m)
{
	struct nd_model_params p;
	struct nd_err e = { 0 };

	nd_model_params_init(&p);
	p.mem = ND_MM_GPUDIRECT;
	p.fabric = h->port.fabric;
	p.line_gbps = h->port.line_gbps;
	p.mtu = h->port.mtu;
	p.nic = h->port.link;
	p.gpu = h->gpu_link;
	p.path = h->path;
	ck_assert_msg(!nd_model_calc(&p, m, &e), "%s", e.msg);
}

/* Doctor's fixtures: the GPU beside the HCA (PIX) and the one across the sockets (SYS). */
START_TEST(test_host_pix_vs_sys)
{
	struct nd_model_host h;
	struct nd_err e = { 0 };
	struct nd_model pix, sys;

	unit_use_fixture("doctor-cross-socket");
	ck_assert_msg(!nd_model_read_host("mlx5_0", 0, NULL, &h, &e), "%s", e.msg);
	ck_assert_int_eq(h.port.fabric, ND_MF_IB);
	ck_assert_double_eq_tol(h.port.line_gbps, 200, TOL);	/* 4X HDR: 50 per lane */
	ck_assert_uint_eq(h.port.mtu, 4096);
	ck_assert_str_eq(h.gpu, "0000:a4:00.0");		/* the nearest */
	ck_assert_int_eq(h.path, ND_PATH_PIX);
	ck_assert_uint_eq(h.port.link.gen, 4);
	ck_assert(!h.port.link.mps_read);			/* 64 bytes of config: assumed */
	model_of(&h, &pix);
	ck_assert_str_eq(pix.bw[pix.tx_limit].key, "wire");
	ck_assert_double_eq_tol(pix.tx_gbps, 200.0 * 65536 / (65536 + 16 * 26 + 16), TOL);
	ck_assert_msg(!nd_model_read_host("mlx5_0", 1, "0000:17:00.0", &h, &e), "%s", e.msg);
	ck_assert_int_eq(h.path, ND_PATH_SYS);
	model_of(&h, &sys);
	ck_assert_str_eq(sys.bw[sys.tx_limit].key, "socket_link");
	ck_assert(sys.tx_gbps < pix.tx_gbps - 30);
	ck_assert_int_eq(nd_model_read_host("mlx5_0", 1, "0000:99:00.0", &h, &e), -ENODEV);
	ck_assert_ptr_nonnull(strstr(e.msg, "0000:99:00.0"));

	/* the DGX: RoCE at the netdev's 200000 Mb/s, MPS 512 read from config space */
	unit_use_fixture("doctor-dgx");
	ck_assert_msg(!nd_model_read_host("mlx5_0", 0, NULL, &h, &e), "%s", e.msg);
	ck_assert_int_eq(h.port.fabric, ND_MF_ROCE);
	ck_assert_double_eq_tol(h.port.line_gbps, 200, TOL);
	ck_assert_uint_eq(h.port.mtu, 4096);			/* 9000 - 96 */
	ck_assert(h.port.link.mps_read);
	ck_assert_uint_eq(h.port.link.mps, 512);
	ck_assert_uint_eq(h.gpu_link.gen, 5);
	ck_assert_int_eq(h.path, ND_PATH_PIX);
	model_of(&h, &pix);
	ck_assert_str_eq(pix.bw[pix.tx_limit].key, "wire");
	/* a GPU of the other socket: 20.8 GB/s of UPI under the 200G wire */
	ck_assert_msg(!nd_model_read_host("mlx5_0", 0, "0000:9a:00.0", &h, &e), "%s", e.msg);
	ck_assert_int_eq(h.path, ND_PATH_SYS);
	model_of(&h, &sys);
	ck_assert_str_eq(sys.bw[sys.rx_limit].key, "socket_link");
	ck_assert_double_eq_tol(sys.rx_gbps, 166.4, TOL);
	/* the neighbour switch of the same socket: PHB, no root-complex rate given: the wire */
	ck_assert_msg(!nd_model_read_host("mlx5_0", 0, "0000:2c:00.0", &h, &e), "%s", e.msg);
	ck_assert_int_eq(h.path, ND_PATH_PHB);
	model_of(&h, &sys);
	ck_assert_str_eq(sys.bw[sys.rx_limit].key, "wire");
	ck_assert_ptr_nonnull(strstr(sys.notes[0], "NCCL leaves GPUDirect RDMA off beyond PXB"));

	/* a workstation: MTU 1500 gives RDMA MTU 1024; 25G; Gen3 x8 MPS 128 */
	unit_use_fixture("doctor-misconfigured");
	ck_assert_msg(!nd_model_read_host(NULL, 0, NULL, &h, &e), "%s", e.msg);
	ck_assert_uint_eq(h.port.mtu, 1024);
	ck_assert_double_eq_tol(h.port.line_gbps, 25, TOL);
	ck_assert_uint_eq(h.port.link.mps, 128);
	ck_assert_uint_eq(h.port.link.width, 8);
	ck_assert_int_eq(nd_model_read_port("mlx5_9", 0, &h.port, &e), -ENODEV);
}
END_TEST

static void put(const char *root, const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* How kernels up to 5.6 printed the speed, and a link that is down. */
START_TEST(test_link_speed_spellings)
{
	char root[] = "/tmp/nd-model-XXXXXX", cmd[64];
	struct nd_pcie_link l;
	struct nd_err e = { 0 };

	ck_assert_ptr_nonnull(mkdtemp(root));
	put(root, "sys/bus/pci/devices/0000:01:00.0/current_link_speed", "8 GT/s\n");
	put(root, "sys/bus/pci/devices/0000:01:00.0/current_link_width", "8\n");
	put(root, "sys/bus/pci/devices/0000:02:00.0/current_link_speed", "2.5 GT/s PCIe\n");
	put(root, "sys/bus/pci/devices/0000:02:00.0/current_link_width", "1\n");
	put(root, "sys/bus/pci/devices/0000:03:00.0/current_link_speed", "Unknown\n");
	put(root, "sys/bus/pci/devices/0000:03:00.0/current_link_width", "0\n");
	setenv("NODROP_SYSROOT", root, 1);
	nd_sysroot_reset();
	ck_assert_int_eq(nd_model_read_link("0000:01:00.0", &l, &e), 0);
	ck_assert_uint_eq(l.gen, 3);
	ck_assert_uint_eq(l.mps, 256);
	ck_assert(!l.mps_read);
	ck_assert_int_eq(nd_model_read_link("0000:02:00.0", &l, &e), 0);
	ck_assert_uint_eq(l.gen, 1);
	ck_assert_int_eq(nd_model_read_link("0000:03:00.0", &l, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "Unknown"));
	ck_assert_int_eq(nd_model_read_link("0000:04:00.0", &l, &e), -ENOENT);
	unsetenv("NODROP_SYSROOT");
	nd_sysroot_reset();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

Suite *suite_model(void)
{
	Suite *s = suite_create("model");
	TCase *tc = tcase_create("datapath");

	tcase_add_test(tc, test_pcie_gen4_x16);
	tcase_add_test(tc, test_pcie_gen5_x16);
	tcase_add_test(tc, test_wire_roce_400g);
	tcase_add_test(tc, test_model_terms);
	tcase_add_test(tc, test_model_bad_inputs);
	tcase_add_test(tc, test_ring_allreduce_8_nodes);
	tcase_add_test(tc, test_collectives_random);
	tcase_add_test(tc, test_host_pix_vs_sys);
	tcase_add_test(tc, test_link_speed_spellings);
	suite_add_tcase(s, tc);
	return s;
}
