// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The doctor on fixture trees of real topologies (tests/fixtures/doctor-gen.sh writes them):
 * doctor-dgx (8 GPUs, 8 NICs, 4 switches, 2 sockets: everything right), doctor-cross-socket (the
 * GPU's only NIC on the other socket; config space as an unprivileged reader sees it) and
 * doctor-misconfigured (ACS redirect, IOMMU translating, no peer memory, small and missing BAR1,
 * no RoCE v2 GID, MTU 1500, lldpad). Plus the classifier and the config-space walk on their own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <json-c/json.h>

#include "doctor/doctor_int.h"
#include "unit.h"

static void run(struct nd_doctor *d)
{
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_doctor_run(d, &e), 0);
	ck_assert_int_eq(e.code, 0);
}

/* The one finding of @id about @subject. */
static const struct nd_check *find(const struct nd_doctor *d, const char *id, const char *subject)
{
	const struct nd_check *k = NULL;
	size_t i, n = 0;

	for (i = 0; i < d->n_checks; i++) {
		if (strcmp(d->checks[i].id, id) || strcmp(d->checks[i].subject, subject))
			continue;
		k = &d->checks[i];
		n++;
	}
	ck_assert_msg(n == 1, "%zu findings of %s about '%s'", n, id, subject);
	return k;
}

static size_t count(const struct nd_doctor *d, const char *id, enum nd_check_status status)
{
	size_t i, n = 0;

	for (i = 0; i < d->n_checks; i++)
		n += (!id || !strcmp(d->checks[i].id, id)) && d->checks[i].status == status;
	return n;
}

static size_t rows(const struct nd_doctor *d, const char *id)
{
	size_t i, n = 0;

	for (i = 0; i < d->n_checks; i++)
		n += !strcmp(d->checks[i].id, id);
	return n;
}

#define ck_assert_has(s, sub) ck_assert_msg(strstr((s), (sub)), "'%s' lacks '%s'", (s), (sub))

/* ---- the classifier on its own ---- */

static struct nd_pci_dev dev(const char *path, int numa)
{
	struct nd_pci_dev d;

	memset(&d, 0, sizeof(d));
	snprintf(d.path, sizeof(d.path), "%s", path);
	snprintf(d.bdf, sizeof(d.bdf), "%s", strrchr(path, '/') + 1);
	d.numa_node = numa;
	return d;
}

static enum nd_pci_path classify(const char *a, int na, const char *b, int nb,
				 struct nd_pci_meet *m)
{
	struct nd_pci_dev x = dev(a, na), y = dev(b, nb);

	ck_assert_int_eq(nd_pci_classify(&x, &y, m), 0);
	return m->path;
}

#define SW "pci0000:15/0000:15:01.0/0000:16:00.0"

START_TEST(classify_paths)
{
	struct nd_pci_meet m;

	/* one switch: meet at its upstream port, one downstream port on each side */
	ck_assert_int_eq(classify(SW "/0000:17:00.0/0000:18:00.0", 0,
				  SW "/0000:17:01.0/0000:19:00.0", 0, &m), ND_PATH_PIX);
	ck_assert_str_eq(m.at, "0000:16:00.0");
	ck_assert_str_eq(m.port_a, "0000:17:00.0");
	ck_assert_str_eq(m.port_b, "0000:17:01.0");
	/* two functions of one device below a downstream port: no port between them */
	ck_assert_int_eq(classify(SW "/0000:17:00.0/0000:18:00.0", 0,
				  SW "/0000:17:00.0/0000:18:00.1", 0, &m), ND_PATH_PIX);
	ck_assert_str_eq(m.at, "0000:17:00.0");
	ck_assert_str_eq(m.port_a, "");
	ck_assert_str_eq(m.port_b, "");
	/* a second switch below the first on one side */
	ck_assert_int_eq(classify(SW "/0000:17:00.0/0000:18:00.0/0000:19:00.0/0000:1a:00.0", 0,
				  SW "/0000:17:01.0/0000:1b:00.0", 0, &m), ND_PATH_PXB);
	ck_assert_str_eq(m.port_a, "0000:17:00.0");
	ck_assert_str_eq(m.port_b, "0000:17:01.0");
	/* different root ports of one host bridge */
	ck_assert_int_eq(classify("pci0000:15/0000:15:01.0/0000:16:00.0", 0,
				  "pci0000:15/0000:15:03.0/0000:2a:00.0", 0, &m), ND_PATH_PHB);
	ck_assert_str_eq(m.at, "pci0000:15");
	/* devices straight on the host bridge, as in most VMs */
	ck_assert_int_eq(classify("pci0000:00/0000:00:04.0", -1, "pci0000:00/0000:00:05.0", -1,
				  &m), ND_PATH_PHB);
	/* a VMD domain (a host bridge below a device) on one side */
	ck_assert_int_eq(classify("pci0000:d7/0000:d7:05.5/pci10000:00/10000:00:02.0/10000:01:00.0",
				  0, "pci0000:d7/0000:d7:05.5/0000:d8:00.0", 0, &m), ND_PATH_PHB);
	/* host bridges of one NUMA node, of two, and of none known */
	ck_assert_int_eq(classify("pci0000:97/0000:97:01.0/0000:98:00.0", 1,
				  "pci0000:b6/0000:b6:01.0/0000:b7:00.0", 1, &m), ND_PATH_NODE);
	ck_assert_str_eq(m.bridge_a, "pci0000:97");
	ck_assert_str_eq(m.bridge_b, "pci0000:b6");
	ck_assert_int_eq(classify("pci0000:16/0000:16:01.0/0000:17:00.0", 0,
				  "pci0000:a0/0000:a0:01.0/0000:a3:00.0", 1, &m), ND_PATH_SYS);
	ck_assert_int_eq(classify("pci0000:00/0000:00:01.0", -1, "pci0000:80/0000:80:01.0", -1,
				  &m), ND_PATH_NODE);
	ck_assert_int_eq(classify("pci0000:00/0000:00:01.0", 1, "pci0000:80/0000:80:01.0", -1,
				  &m), ND_PATH_NODE);
}
END_TEST

START_TEST(classify_rejects_non_pci)
{
	struct nd_pci_dev a = dev("pci0000:00/0000:00:01.0", 0), b = dev("virtual/x/rxe0", 0);
	struct nd_pci_meet m;

	ck_assert_int_eq(nd_pci_classify(&a, &b, &m), -EINVAL);
	b.path[0] = '\0';
	ck_assert_int_eq(nd_pci_classify(&a, &b, &m), -EINVAL);
	ck_assert_str_eq(nd_pci_path_name(ND_PATH_NODE), "NODE");
	ck_assert_str_eq(nd_pci_path_name((enum nd_pci_path)42), "unknown");
	ck_assert_str_eq(nd_check_status_name(ND_CHECK_SKIP), "skip");
	ck_assert_str_eq(nd_check_status_name((enum nd_check_status)-1), "unknown");
}
END_TEST

/* ---- (a) doctor-dgx ---- */

/* GPU g and NIC n sit on switch g / 2 and n / 2; switches 0, 1 share host bridge pci0000:15. */
static enum nd_pci_path dgx_path(size_t g, size_t n)
{
	size_t sg = g / 2, sn = n / 2;

	if (sg == sn)
		return ND_PATH_PIX;
	if (sg / 2 != sn / 2)
		return ND_PATH_SYS;
	return sg / 2 == 0 ? ND_PATH_PHB : ND_PATH_NODE;
}

START_TEST(dgx_topology)
{
	static const char *const gpus[] = {
		"0000:18:00.0", "0000:1a:00.0", "0000:2c:00.0", "0000:2e:00.0",
		"0000:9a:00.0", "0000:9c:00.0", "0000:b9:00.0", "0000:bb:00.0",
	};
	static const char *const nics[] = {
		"0000:19:00.0", "0000:1b:00.0", "0000:2d:00.0", "0000:2f:00.0",
		"0000:9b:00.0", "0000:9d:00.0", "0000:ba:00.0", "0000:bc:00.0",
	};
	struct nd_doctor d;
	char name[16];
	size_t g, n;

	unit_use_fixture("doctor-dgx");
	run(&d);
	ck_assert_uint_eq(d.n_gpus, 8);
	ck_assert_uint_eq(d.n_nics, 8);
	for (g = 0; g < 8; g++) {
		ck_assert_str_eq(d.gpus[g].bdf, gpus[g]);
		ck_assert_uint_eq(d.gpus[g].vendor, 0x10de);
		ck_assert_uint_eq(d.gpus[g].device, 0x2330);
		ck_assert_uint_eq(d.gpus[g].pci_class, 0x030200);
		ck_assert_int_eq(d.gpus[g].numa_node, g < 4 ? 0 : 1);
		snprintf(name, sizeof(name), "mlx5_%zu", g);
		ck_assert_str_eq(d.nics[g].name, name);
		ck_assert_str_eq(d.nics[g].bdf, nics[g]);
		ck_assert_int_eq(d.nics[g].numa_node, g < 4 ? 0 : 1);
		for (n = 0; n < 8; n++)
			ck_assert_msg(nd_doctor_path(&d, g, n) == dgx_path(g, n),
				      "GPU %zu NIC %zu: %s, want %s", g, n,
				      nd_pci_path_name(nd_doctor_path(&d, g, n)),
				      nd_pci_path_name(dgx_path(g, n)));
	}
	ck_assert_str_eq(d.gpus[0].path, "pci0000:15/0000:15:01.0/0000:16:00.0/0000:17:00.0/"
			 "0000:18:00.0");
	nd_doctor_free(&d);
	ck_assert_ptr_null(d.checks);
}
END_TEST

START_TEST(dgx_all_ready)
{
	const struct nd_check *k;
	struct nd_doctor d;

	unit_use_fixture("doctor-dgx");
	run(&d);
	ck_assert_uint_eq(rows(&d, "gpu-nic-affinity"), 8);
	ck_assert_uint_eq(count(&d, "gpu-nic-affinity", ND_CHECK_PASS), 8);
	k = find(&d, "gpu-nic-affinity", "GPU 0000:9c:00.0");
	ck_assert_str_eq(k->evidence, "nearest RDMA NIC mlx5_4 (0000:9b:00.0) is PIX: one PCIe "
			 "switch, the paths meet at 0000:98:00.0; also mlx5_5");
	ck_assert_str_eq(k->fix, "");
	/* each GPU with both NICs of its switch */
	ck_assert_uint_eq(rows(&d, "acs"), 16);
	ck_assert_uint_eq(count(&d, "acs", ND_CHECK_PASS), 16);
	k = find(&d, "acs", "GPU 0000:bb:00.0 <-> mlx5_7");
	ck_assert_str_eq(k->evidence, "PIX: peer traffic turns at 0000:b7:00.0; GPU-side port "
			 "0000:b8:02.0: ACS control 0x0001 (SrcValid); NIC-side port 0000:b8:03.0: "
			 "ACS control 0x0001 (SrcValid)");
	k = find(&d, "iommu", "host");
	ck_assert_int_eq(k->status, ND_CHECK_PASS);
	ck_assert_str_eq(k->evidence, "IOMMU units: dmar0 dmar1 dmar2 dmar3; 17 groups; kernel "
			 "command line: intel_iommu=on iommu=pt; identity (pass-through): 16 of "
			 "the 16 GPU and NIC functions");
	k = find(&d, "peer-memory", "host");
	ck_assert_int_eq(k->status, ND_CHECK_PASS);
	ck_assert_has(k->evidence, "peer memory: nvidia_peermem loaded");
	ck_assert_has(k->evidence, "535.183.01 with the proprietary kernel modules");
	ck_assert_uint_eq(count(&d, "bar1", ND_CHECK_PASS), 8);
	ck_assert_str_eq(find(&d, "bar1", "GPU 0000:18:00.0")->evidence,
			 "BAR1 (resource line 1, 64-bit prefetchable) "
			 "0x200000000000-0x201fffffffff: 128 GiB");
	ck_assert_uint_eq(count(&d, "roce-gid", ND_CHECK_PASS), 8);
	ck_assert_str_eq(find(&d, "roce-gid", "mlx5_5/1 (eth5)")->evidence,
			 "RoCE v2 GID 3: 10.0.5.1 (4 GIDs in use)");
	ck_assert_uint_eq(count(&d, "roce-mtu", ND_CHECK_PASS), 8);
	ck_assert_has(find(&d, "roce-mtu", "mlx5_0/1 (eth0)")->evidence,
		      "eth0 MTU 9000 >= 4096 + 96 (GRH 40 + UDP 8 + BTH 12 + XRC 4 + AtomicETH 28 "
		      "+ ICRC 4) = 4192: RoCE can use 4096-byte packets");
	ck_assert_int_eq(find(&d, "lldp-agent", "host")->status, ND_CHECK_PASS);
	/* nothing fails, nothing is skipped; memlock is the process's own (its own test) */
	ck_assert_uint_eq(count(&d, NULL, ND_CHECK_FAIL), 0);
	ck_assert_uint_eq(count(&d, NULL, ND_CHECK_SKIP), 0);
	ck_assert_uint_eq(count(&d, NULL, ND_CHECK_WARN), count(&d, "memlock", ND_CHECK_WARN));
	nd_doctor_free(&d);
}
END_TEST

/* ---- (b) doctor-cross-socket ---- */

START_TEST(cross_socket_sys)
{
	const struct nd_check *k;
	struct nd_doctor d;

	unit_use_fixture("doctor-cross-socket");
	run(&d);
	ck_assert_uint_eq(d.n_gpus, 2);
	ck_assert_uint_eq(d.n_nics, 1);
	ck_assert_int_eq(nd_doctor_path(&d, 0, 0), ND_PATH_SYS);
	ck_assert_int_eq(nd_doctor_path(&d, 1, 0), ND_PATH_PIX);
	k = find(&d, "gpu-nic-affinity", "GPU 0000:17:00.0");
	ck_assert_int_eq(k->status, ND_CHECK_FAIL);
	ck_assert_str_eq(k->evidence, "nearest RDMA NIC mlx5_0 (0000:a3:00.0) is SYS: GPU on NUMA "
			 "node 0 (host bridge pci0000:16), NIC on NUMA node 1 (pci0000:a0): peer "
			 "traffic crosses the socket interconnect; NCCL uses GPUDirect RDMA only "
			 "up to PXB unless NCCL_NET_GDR_LEVEL says otherwise, and stages through "
			 "host memory beyond it");
	ck_assert_has(k->fix, "put an RDMA NIC on NUMA node 0");
	ck_assert_int_eq(find(&d, "gpu-nic-affinity", "GPU 0000:a4:00.0")->status, ND_CHECK_PASS);
	/* SYS: ACS is beside the point; PIX: config space beyond the header is root's */
	k = find(&d, "acs", "GPU 0000:17:00.0");
	ck_assert_int_eq(k->status, ND_CHECK_SKIP);
	ck_assert_has(k->evidence, "its nearest NIC mlx5_0 is SYS");
	k = find(&d, "acs", "GPU 0000:a4:00.0 <-> mlx5_0");
	ck_assert_int_eq(k->status, ND_CHECK_SKIP);
	ck_assert_str_eq(k->evidence, "needs root to read PCIe extended config space: an "
			 "unprivileged read of /sys/bus/pci/devices/0000:a2:01.0/config ends after "
			 "its 64-byte header");
	ck_assert_str_eq(k->fix, "run nodrop doctor as root to see ACS on the switch ports");
	k = find(&d, "iommu", "host");
	ck_assert_int_eq(k->status, ND_CHECK_PASS);
	ck_assert_str_eq(k->evidence, "no IOMMU translates DMA: /sys/class/iommu is empty and "
			 "there are no IOMMU groups; kernel command line: no IOMMU option");
	/* no peermem, but dma-buf: open kernel modules 550 on Linux 6.8 */
	k = find(&d, "peer-memory", "host");
	ck_assert_int_eq(k->status, ND_CHECK_PASS);
	ck_assert_has(k->evidence, "neither nvidia_peermem nor nv_peer_mem is loaded; dma-buf: "
		      "NVIDIA driver 550.54.15, open kernel modules, kernel 6.8.0-31-generic: "
		      "usable");
	/* a 64-bit BAR0 moves the aperture to resource line 2 */
	ck_assert_str_eq(find(&d, "bar1", "GPU 0000:a4:00.0")->evidence,
			 "BAR1 (resource line 2, 64-bit prefetchable) 0x31000000000-0x31fffffffff: "
			 "64 GiB");
	ck_assert_str_eq(find(&d, "roce-gid", "host")->evidence, "no RoCE port: mlx5_0/1 "
			 "InfiniBand");
	ck_assert_int_eq(find(&d, "roce-mtu", "host")->status, ND_CHECK_SKIP);
	ck_assert_uint_eq(count(&d, NULL, ND_CHECK_FAIL), 1);
	nd_doctor_free(&d);
}
END_TEST

/* ---- (c) doctor-misconfigured ---- */

START_TEST(misconfigured_topology_and_acs)
{
	const struct nd_check *k;
	struct nd_doctor d;

	unit_use_fixture("doctor-misconfigured");
	run(&d);
	/* the GPU's HD audio function (class 0x0403) is not a GPU */
	ck_assert_uint_eq(d.n_gpus, 2);
	ck_assert_str_eq(d.gpus[0].bdf, "0000:03:00.0");
	ck_assert_str_eq(d.gpus[1].bdf, "0000:07:00.0");
	ck_assert_int_eq(d.gpus[0].numa_node, -1);
	ck_assert_int_eq(nd_doctor_path(&d, 0, 0), ND_PATH_PIX);
	ck_assert_int_eq(nd_doctor_path(&d, 1, 0), ND_PATH_PXB);
	ck_assert_str_eq(find(&d, "gpu-nic-affinity", "GPU 0000:07:00.0")->evidence,
			 "nearest RDMA NIC mlx5_0 (0000:04:00.0) is PXB: cascaded PCIe switches "
			 "below 0000:01:00.0, no host bridge crossed");
	ck_assert_uint_eq(count(&d, "gpu-nic-affinity", ND_CHECK_PASS), 2);
	k = find(&d, "acs", "GPU 0000:03:00.0 <-> mlx5_0");
	ck_assert_int_eq(k->status, ND_CHECK_FAIL);
	ck_assert_str_eq(k->evidence, "PIX: peer traffic turns at 0000:01:00.0; GPU-side port "
			 "0000:02:00.0: ACS control 0x001d (SrcValid ReqRedir CmpltRedir "
			 "UpstreamFwd); NIC-side port 0000:02:01.0: ACS control 0x0008 "
			 "(CmpltRedir): peer requests are redirected up to the root complex, where "
			 "GPUDirect RDMA runs slowly or, with an IOMMU translating, not at all");
	ck_assert_str_eq(k->fix, "turn ACS redirect off on the switch ports between GPUs and NICs: "
			 "the BIOS's PCIe ACS setting, or at each boot setpci -s 0000:02:00.0 "
			 "ECAP_ACS+0x6.w=0000; setpci -s 0000:02:01.0 ECAP_ACS+0x6.w=0000; Linux "
			 "turns ACS on at boot when an IOMMU driver is active: keep it only where "
			 "VMs need isolation");
	/*
	 * Completion redirect alone is a warning. 06:00.0 redirects requests too, but GPU1's
	 * traffic leaves switch L2 through its upstream port, which ACS does not redirect.
	 */
	k = find(&d, "acs", "GPU 0000:07:00.0 <-> mlx5_0");
	ck_assert_int_eq(k->status, ND_CHECK_WARN);
	ck_assert_str_eq(k->evidence, "PXB: peer traffic turns at 0000:01:00.0; GPU-side port "
			 "0000:02:02.0: no ACS capability; NIC-side port 0000:02:01.0: ACS control "
			 "0x0008 (CmpltRedir): peer completions or egress are redirected to the "
			 "root complex");
	ck_assert_has(k->fix, "at each boot setpci -s 0000:02:01.0 ECAP_ACS+0x6.w=0000; Linux");
	nd_doctor_free(&d);
}
END_TEST

START_TEST(misconfigured_host)
{
	const struct nd_check *k;
	struct nd_doctor d;

	unit_use_fixture("doctor-misconfigured");
	run(&d);
	k = find(&d, "iommu", "host");
	ck_assert_int_eq(k->status, ND_CHECK_WARN);
	ck_assert_has(k->evidence, "IOMMU units: dmar0; 3 groups; kernel command line: "
		      "intel_iommu=on; not identity: GPU 0000:03:00.0 (group 12, DMA-FQ), GPU "
		      "0000:07:00.0 (group 14, DMA-FQ), mlx5_0 0000:04:00.0 (group 13, DMA): ");
	ck_assert_has(k->fix, "boot with iommu=pt");
	k = find(&d, "peer-memory", "host");
	ck_assert_int_eq(k->status, ND_CHECK_FAIL);
	ck_assert_str_eq(k->evidence, "peer memory: neither nvidia_peermem nor nv_peer_mem is "
			 "loaded; dma-buf: NVIDIA driver 470.223.02, dma-buf export needs 515 or "
			 "later: GPU memory cannot be registered for RDMA (ibv_reg_mr fails with "
			 "EFAULT)");
	ck_assert_has(k->fix, "modprobe nvidia_peermem");
	k = find(&d, "bar1", "GPU 0000:03:00.0");
	ck_assert_int_eq(k->status, ND_CHECK_WARN);
	ck_assert_has(k->evidence, "BAR1 (resource line 1, 64-bit prefetchable) "
		      "0xe0000000-0xefffffff: 256 MiB < 1 GiB: ");
	k = find(&d, "bar1", "GPU 0000:07:00.0");
	ck_assert_int_eq(k->status, ND_CHECK_FAIL);
	ck_assert_has(k->evidence, "BAR1 is not assigned (resource line 1: 0x0-0x0 flags 0x0)");
	ck_assert_str_eq(k->fix, "enable Above 4G Decoding (and Resizable BAR) in the BIOS");
	k = find(&d, "lldp-agent", "host");
	ck_assert_int_eq(k->status, ND_CHECK_WARN);
	ck_assert_has(k->evidence, "lldpad is running (pid 731)");
	nd_doctor_free(&d);
}
END_TEST

START_TEST(misconfigured_roce)
{
	const struct nd_check *k;
	struct nd_doctor d;

	unit_use_fixture("doctor-misconfigured");
	run(&d);
	k = find(&d, "roce-gid", "mlx5_0/1 (eth0)");
	ck_assert_int_eq(k->status, ND_CHECK_FAIL);
	ck_assert_str_eq(k->evidence, "no RoCE v2 GID with an IPv4 or routable IPv6 address among "
			 "2 in use: 0 fe80::ac0:ebff:fe5b:1c2e IB/RoCE v1, 1 "
			 "fe80::ac0:ebff:fe5b:1c2e RoCE v2; rdma_cm and routed RoCE v2 address "
			 "peers by the IP of a RoCE v2 GID");
	ck_assert_has(k->fix, "give eth0 an IPv4 or global IPv6 address");
	k = find(&d, "roce-mtu", "mlx5_0/1 (eth0)");
	ck_assert_int_eq(k->status, ND_CHECK_WARN);
	ck_assert_str_eq(k->evidence, "eth0 MTU 1500 < 4096 + 96 (GRH 40 + UDP 8 + BTH 12 + XRC 4 "
			 "+ AtomicETH 28 + ICRC 4) = 4192: RoCE is held to 1024-byte packets, the "
			 "largest IB MTU <= 1500 - 96; the port's max MTU is not known without "
			 "verbs, 4096 is the RoCE maximum");
	ck_assert_str_eq(k->fix, "ip link set dev eth0 mtu 4200 (or 9000, with jumbo frames on "
			 "every switch port on the path)");
	/* ACS, peer memory, BAR1 of GPU1, GID */
	ck_assert_uint_eq(count(&d, NULL, ND_CHECK_FAIL), 4);
	nd_doctor_free(&d);
}
END_TEST

/* ---- config space ---- */

START_TEST(acs_register)
{
	uint16_t ctrl = 0;

	unit_use_fixture("doctor-misconfigured");
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:02:00.0", &ctrl), 1);
	ck_assert_uint_eq(ctrl, 0x001d);
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:02:01.0", &ctrl), 1);
	ck_assert_uint_eq(ctrl, 0x0008);
	/* AER only; a conventional 256-byte config space */
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:02:02.0", &ctrl), 0);
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:00:01.0", &ctrl), 0);
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:99:00.0", &ctrl), -ENOENT);
	unit_use_fixture("doctor-cross-socket");
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:a2:00.0", &ctrl), -EACCES);
}
END_TEST

static void write_config(const char *root, const uint8_t *cfg, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/sys", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/bus", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/bus/pci", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:01:00.0", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/sys/bus/pci/devices/0000:01:00.0/config", root);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(cfg, 1, len, f), len);
	fclose(f);
}

static void remove_tree(const char *root)
{
	static const char *const parts[] = {
		"/sys/bus/pci/devices/0000:01:00.0/config", "/sys/bus/pci/devices/0000:01:00.0",
		"/sys/bus/pci/devices", "/sys/bus/pci", "/sys/bus", "/sys", "",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
		snprintf(path, sizeof(path), "%s%s", root, parts[i]);
		ck_assert_int_eq(remove(path), 0);
	}
}

static void put32(uint8_t *cfg, size_t off, uint32_t v)
{
	cfg[off] = (uint8_t)v;
	cfg[off + 1] = (uint8_t)(v >> 8);
	cfg[off + 2] = (uint8_t)(v >> 16);
	cfg[off + 3] = (uint8_t)(v >> 24);
}

/* Broken chains end the walk: a capability that points at itself, one that points below 0x100. */
START_TEST(acs_bad_chains)
{
	char root[] = "/tmp/nd-doctor-XXXXXX";
	static uint8_t cfg[4096];
	uint16_t ctrl = 7;

	ck_assert_ptr_nonnull(mkdtemp(root));
	setenv("NODROP_SYSROOT", root, 1);
	nd_sysroot_reset();
	memset(cfg, 0, sizeof(cfg));
	put32(cfg, 0x100, 0x0001 | 1 << 16 | 0x100u << 20);		/* AER -> itself */
	write_config(root, cfg, sizeof(cfg));
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:01:00.0", &ctrl), 0);
	put32(cfg, 0x100, 0x0001 | 1 << 16 | 0x040u << 20);		/* AER -> 0x40 */
	write_config(root, cfg, sizeof(cfg));
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:01:00.0", &ctrl), 0);
	put32(cfg, 0x100, 0xffffffff);					/* no extended space */
	write_config(root, cfg, sizeof(cfg));
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:01:00.0", &ctrl), 0);
	put32(cfg, 0x100, 0x0001 | 1 << 16 | 0xffcu << 20);		/* ACS in the last dword */
	put32(cfg, 0xffc, 0x000d | 1 << 16);
	write_config(root, cfg, sizeof(cfg));
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:01:00.0", &ctrl), 0);	/* control beyond the end */
	put32(cfg, 0x100, 0x0001 | 1 << 16 | 0xff8u << 20);
	put32(cfg, 0xff8, 0x000d | 1 << 16);
	put32(cfg, 0xffc, 0x0004u << 16 | 0x005f);
	write_config(root, cfg, sizeof(cfg));
	ck_assert_int_eq(nd_pci_acs_ctrl("0000:01:00.0", &ctrl), 1);
	ck_assert_uint_eq(ctrl, 0x0004);
	remove_tree(root);
}
END_TEST

/* ---- what a host without the pieces gets ---- */

START_TEST(host_without_pci)
{
	const struct nd_check *k;
	struct nd_doctor d;

	/* a RoCE fixture with no PCI bus and no GID tables: every check says why it is skipped */
	unit_use_fixture("roce-host");
	run(&d);
	ck_assert_uint_eq(d.n_gpus, 0);
	ck_assert_uint_eq(d.n_nics, 0);
	k = find(&d, "gpu-nic-affinity", "host");
	ck_assert_int_eq(k->status, ND_CHECK_SKIP);
	ck_assert_str_eq(k->evidence, "cannot read /sys/bus/pci/devices: No such file or "
			 "directory; no RDMA device on a PCI function; not on PCI (software RDMA): "
			 "mlx5_0, mlx5_1, mlx5_2, mlx5_3");
	ck_assert_str_eq(find(&d, "peer-memory", "host")->evidence, "no NVIDIA GPU");
	ck_assert_str_eq(find(&d, "bar1", "host")->evidence, "no GPU");
	ck_assert_str_eq(find(&d, "roce-gid", "mlx5_0/1 (eth2)")->evidence,
			 "no GID table: /sys/class/infiniband/mlx5_0/ports/1/gids is not readable");
	ck_assert_str_eq(find(&d, "roce-mtu", "mlx5_0/1 (eth2)")->evidence,
			 "the netdev's MTU is not readable");
	ck_assert_int_eq(find(&d, "lldp-agent", "host")->status, ND_CHECK_SKIP);
	ck_assert_uint_eq(count(&d, NULL, ND_CHECK_FAIL), 0);
	nd_doctor_free(&d);
}
END_TEST

/* ---- memlock: this process's own limit ---- */

START_TEST(memlock_limit)
{
	struct rlimit rl, low;
	const struct nd_check *k;
	struct nd_doctor d;

	unit_use_fixture("doctor-dgx");
	ck_assert_int_eq(getrlimit(RLIMIT_MEMLOCK, &rl), 0);
	low.rlim_cur = 64 << 10;
	low.rlim_max = rl.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &low), 0);
	run(&d);
	k = find(&d, "memlock", "this process");
	ck_assert_int_eq(k->status, ND_CHECK_WARN);
	ck_assert_has(k->evidence, "RLIMIT_MEMLOCK soft 64 KiB, hard ");
	ck_assert_has(k->fix, "LimitMEMLOCK=infinity");
	nd_doctor_free(&d);
	/* unlimited needs CAP_SYS_RESOURCE unless the hard limit already is */
	low.rlim_cur = low.rlim_max = RLIM_INFINITY;
	if (!setrlimit(RLIMIT_MEMLOCK, &low)) {
		run(&d);
		k = find(&d, "memlock", "this process");
		ck_assert_int_eq(k->status, ND_CHECK_PASS);
		ck_assert_str_eq(k->evidence, "RLIMIT_MEMLOCK soft unlimited, hard unlimited");
		ck_assert_uint_eq(count(&d, NULL, ND_CHECK_WARN), 0);
		nd_doctor_free(&d);
	}
	/* with CK_FORK=no the suites after this one share the process */
	setrlimit(RLIMIT_MEMLOCK, &rl);
}
END_TEST

/* ---- the command: exit codes and the JSON shape ---- */

static const char *nodrop(void)
{
	const char *bin = getenv("ND_NODROP");

	return bin && *bin ? bin : "build/nodrop";
}

/* Run `nodrop doctor ARGS` on a fixture; its stdout parsed as JSON into *@out when asked. */
static int doctor_cli(const char *fixture, const char *args, struct json_object **out)
{
	char cmd[PATH_MAX * 2], buf[1 << 16];
	size_t len;
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "NODROP_SYSROOT='%s/%s' '%s' doctor %s 2>/dev/null",
		 unit_fixtures(), fixture, nodrop(), args);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	len = fread(buf, 1, sizeof(buf) - 1, p);
	buf[len] = '\0';
	st = pclose(p);
	ck_assert(WIFEXITED(st));
	if (out) {
		*out = json_tokener_parse(buf);
		ck_assert_msg(*out != NULL, "not JSON: %s", buf);
	}
	return WEXITSTATUS(st);
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, key, &v), "no key %s", key);
	return v;
}

START_TEST(cli_json_and_exit)
{
	struct json_object *j, *checks, *k;
	size_t i;

	ck_assert_int_eq(doctor_cli("doctor-misconfigured", "-j", &j), 1);
	checks = get(j, "checks");
	ck_assert(json_object_is_type(checks, json_type_array));
	for (i = 0; i < json_object_array_length(checks); i++) {
		k = json_object_array_get_idx(checks, i);
		ck_assert_uint_eq(json_object_object_length(k), 5);
		get(k, "id");
		get(k, "status");
		get(k, "subject");
		get(k, "evidence");
		get(k, "fix");
	}
	k = json_object_array_get_idx(checks, 2);	/* affinity x2, then acs */
	ck_assert_str_eq(json_object_get_string(get(k, "id")), "acs");
	ck_assert_str_eq(json_object_get_string(get(k, "status")), "fail");
	ck_assert_str_eq(json_object_get_string(get(k, "subject")), "GPU 0000:03:00.0 <-> mlx5_0");
	k = json_object_array_get_idx(get(j, "gpus"), 1);
	ck_assert_str_eq(json_object_get_string(get(get(k, "paths"), "mlx5_0")), "PXB");
	ck_assert_int_eq(json_object_get_int(get(get(j, "summary"), "fail")), 4);
	json_object_put(j);
	/* warnings only (memlock, perhaps): exit 0 */
	ck_assert_int_eq(doctor_cli("doctor-dgx", "-j", &j), 0);
	ck_assert_int_eq(json_object_get_int(get(get(j, "summary"), "fail")), 0);
	ck_assert_ptr_null(get(json_object_array_get_idx(get(j, "checks"), 0), "fix"));
	json_object_put(j);
	ck_assert_int_eq(doctor_cli("doctor-cross-socket", "", NULL), 1);
	ck_assert_int_eq(doctor_cli("doctor-dgx", "eth0", NULL), 2);
}
END_TEST

Suite *suite_doctor(void)
{
	Suite *s = suite_create("doctor");
	TCase *tc = tcase_create("fixtures");

	tcase_add_checked_fixture(tc, NULL, unit_no_root);
	tcase_add_test(tc, classify_paths);
	tcase_add_test(tc, classify_rejects_non_pci);
	tcase_add_test(tc, dgx_topology);
	tcase_add_test(tc, dgx_all_ready);
	tcase_add_test(tc, cross_socket_sys);
	tcase_add_test(tc, misconfigured_topology_and_acs);
	tcase_add_test(tc, misconfigured_host);
	tcase_add_test(tc, misconfigured_roce);
	tcase_add_test(tc, acs_register);
	tcase_add_test(tc, acs_bad_chains);
	tcase_add_test(tc, host_without_pci);
	tcase_add_test(tc, memlock_limit);
	tcase_add_test(tc, cli_json_and_exit);
	suite_add_tcase(s, tc);
	return s;
}
