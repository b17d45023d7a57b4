// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The rooted accessor, the netdev -> RDMA mapping and rdma_cm defaults, on fixture trees; the
 * whole-file reader every input file goes through.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "unit.h"

/* With a trailing "/", unlike unit_use_fixture(): root_prefix checks it is folded. */
static void use_fixture(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s/", unit_fixtures(), name);
	setenv("NODROP_SYSROOT", path, 1);
	nd_sysroot_reset();
}

static void roce_host(void)
{
	use_fixture("roce-host");
}

START_TEST(root_prefix)
{
	char path[PATH_MAX], want[PATH_MAX];

	snprintf(want, sizeof(want), "%s/roce-host/sys/class/net/eth2/speed", unit_fixtures());
	ck_assert_int_eq(nd_sys_path(path, sizeof(path), "/sys/class/net/%s/speed", "eth2"), 0);
	/* the trailing '/' of NODROP_SYSROOT is folded */
	ck_assert_str_eq(path, want);
	unit_no_root();
	ck_assert_str_eq(nd_sysroot(), "");
	ck_assert_int_eq(nd_sys_path(path, sizeof(path), "/sys/x"), 0);
	ck_assert_str_eq(path, "/sys/x");
}
END_TEST

START_TEST(read_values)
{
	char buf[64];
	uint64_t v = 7;

	ck_assert_int_eq(nd_sys_read(buf, sizeof(buf), "/sys/class/infiniband/%s/ports/1/state",
				     "mlx5_0"), 9);
	ck_assert_str_eq(buf, "4: ACTIVE");
	ck_assert_str_eq(nd_strip_state_prefix(buf), "ACTIVE");
	ck_assert_str_eq(nd_strip_state_prefix("Ethernet"), "Ethernet");
	ck_assert_int_eq(nd_sys_read_u64(&v, "/sys/class/net/eth2/speed"), 0);
	ck_assert_uint_eq(v, 100000);
	ck_assert_int_eq(nd_sys_read_u64(&v, "/sys/class/net/eth4/hexval"), 0);
	ck_assert_uint_eq(v, 16);
	ck_assert_int_eq(nd_sys_read_u64(&v, "/sys/class/net/eth4/speed"), -EINVAL);
	ck_assert_int_eq(nd_sys_read_u64(&v, "/sys/class/net/eth4/negval"), -EINVAL);
	ck_assert_int_eq(nd_sys_read_u64(&v, "/sys/class/net/eth3/speed"), -EINVAL);
	ck_assert_int_eq(nd_sys_read_u64(&v, "/sys/class/net/eth9/speed"), -ENOENT);
	ck_assert_uint_eq(v, 16);	/* failures leave the output alone */
	/* a short buffer truncates, terminated, trailing blanks stripped */
	ck_assert_int_eq(nd_sys_read(buf, 4, "/sys/class/infiniband/mlx5_0/ports/1/state"), 2);
	ck_assert_str_eq(buf, "4:");
	ck_assert(nd_sys_exists("/sys/class/net/%s", "ib0"));
	ck_assert(!nd_sys_exists("/sys/class/net/%s", "ib9"));
}
END_TEST

START_TEST(names_cannot_escape_root)
{
	char buf[64];
	uint64_t v;

	ck_assert_int_eq(nd_sys_read(buf, sizeof(buf), "/sys/class/net/%s/speed", "../../.."),
			 -EINVAL);
	ck_assert_int_eq(nd_sys_read_u64(&v, "/sys/class/net/%s", ".."), -EINVAL);
	ck_assert_int_eq(nd_sys_read(buf, sizeof(buf), "sys/relative"), -EINVAL);
	ck_assert(!nd_sys_exists("/sys/class/net/.."));
}
END_TEST

static int collect(const char *name, void *data)
{
	char *out = data;

	strcat(out, name);
	strcat(out, ",");
	return strcmp(name, "mlx5_2") ? 0 : 42;
}

START_TEST(dir_order_and_stop)
{
	char seen[256] = "";

	ck_assert_int_eq(nd_sys_dir(collect, seen, "/sys/class/infiniband"), 42);
	ck_assert_str_eq(seen, "mlx5_0,mlx5_1,mlx5_2,");
	ck_assert_int_eq(nd_sys_dir(collect, seen, "/sys/class/nothing"), -ENOENT);
}
END_TEST

START_TEST(link_name)
{
	char buf[64];

	ck_assert_int_eq(nd_sys_link_name(buf, sizeof(buf), "/sys/class/net/ib0/device"), 0);
	ck_assert_str_eq(buf, "0000:3b:00.0");
	ck_assert_int_eq(nd_sys_link_name(buf, sizeof(buf), "/sys/class/net/eth2/speed"),
			 -EINVAL);
}
END_TEST

START_TEST(readlink_whole_target)
{
	const char *want = "../../../devices/pci0000:00/0000:3b:00.0";
	char buf[64];

	ck_assert_int_eq(nd_sys_readlink(buf, sizeof(buf), "/sys/class/net/%s/device", "ib0"), 0);
	ck_assert_str_eq(buf, want);
	/* exactly room for the target and its NUL, then one byte short */
	ck_assert_int_eq(nd_sys_readlink(buf, strlen(want) + 1, "/sys/class/net/ib0/device"), 0);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(nd_sys_readlink(buf, strlen(want), "/sys/class/net/ib0/device"),
			 -ENAMETOOLONG);
	ck_assert_int_eq(nd_sys_readlink(buf, sizeof(buf), "/sys/class/net/eth2/speed"), -EINVAL);
	ck_assert_int_eq(nd_sys_readlink(buf, sizeof(buf), "/sys/class/net/eth9/device"), -ENOENT);
	ck_assert_int_eq(nd_sys_readlink(buf, sizeof(buf), "/sys/class/net/%s", ".."), -EINVAL);
	ck_assert_int_eq(nd_sys_readlink(buf, 0, "/sys/class/net/ib0/device"), -EINVAL);
}
END_TEST

START_TEST(read_bin_bytes)
{
	uint8_t cfg[4096];
	char buf[16];

	/* the bytes as stored: no NUL added, the newline kept */
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(nd_sys_read_bin(buf, sizeof(buf), 0, "/sys/class/net/eth2/speed"), 7);
	ck_assert_mem_eq(buf, "100000\nx", 8);
	/* from an offset, and short at end of file */
	ck_assert_int_eq(nd_sys_read_bin(buf, sizeof(buf), 4, "/sys/class/net/eth2/speed"), 3);
	ck_assert_mem_eq(buf, "00\n", 3);
	/* no more than asked */
	memset(buf, 'x', sizeof(buf));
	ck_assert_int_eq(nd_sys_read_bin(buf, 2, 1, "/sys/class/net/eth2/speed"), 2);
	ck_assert_mem_eq(buf, "00x", 3);
	ck_assert_int_eq(nd_sys_read_bin(buf, sizeof(buf), 7, "/sys/class/net/eth2/speed"), 0);
	ck_assert_int_eq(nd_sys_read_bin(buf, sizeof(buf), 100, "/sys/class/net/eth2/speed"), 0);
	ck_assert_int_eq(nd_sys_read_bin(buf, sizeof(buf), 0, "/sys/class/net/eth9/speed"),
			 -ENOENT);
	ck_assert_int_eq(nd_sys_read_bin(buf, sizeof(buf), 0, "/sys/class/net/eth2"), -EISDIR);
	ck_assert_int_eq(nd_sys_read_bin(buf, sizeof(buf), 0, "/sys/class/net/%s/speed", ".."),
			 -EINVAL);
	/* config space as an unprivileged reader sees it: the 64-byte header, through the link */
	unit_use_fixture("doctor-cross-socket");
	ck_assert_int_eq(nd_sys_read_bin(cfg, sizeof(cfg), 0, "/sys/bus/pci/devices/%s/config",
					 "0000:16:01.0"), 64);
	unit_use_fixture("doctor-dgx");
	ck_assert_int_eq(nd_sys_read_bin(cfg, sizeof(cfg), 0,
					 "/sys/bus/pci/devices/0000:16:00.0/config"), 4096);
}
END_TEST

START_TEST(roce_port_with_configfs)
{
	struct nd_rdma_port p[ND_RDMA_PER_NETDEV];
	struct nd_err e = { 0 };
	size_t n = 99;

	ck_assert_int_eq(nd_rdma_ports_of("eth2", p, ND_RDMA_PER_NETDEV, &n, 0, &e), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(p[0].ibdev, "mlx5_0");
	ck_assert_uint_eq(p[0].port, 1);
	ck_assert_str_eq(p[0].link_layer, "Ethernet");
	ck_assert_str_eq(p[0].state, "ACTIVE");
	ck_assert_str_eq(p[0].phys_state, "LinkUp");
	ck_assert_str_eq(p[0].rate, "100 Gb/sec (2X HDR)");
	/* verbs are not asked under a fixture root */
	ck_assert_uint_eq(p[0].active_mtu, 0);
	ck_assert(p[0].roce.configured);
	ck_assert_int_eq(p[0].roce.tos, 106);
	ck_assert_str_eq(p[0].roce.mode, "RoCE v2");
}
END_TEST

START_TEST(roce_port_kernel_defaults)
{
	struct nd_rdma_port p[ND_RDMA_PER_NETDEV];
	struct nd_err e = { 0 };
	size_t n;

	ck_assert_int_eq(nd_rdma_ports_of("eth3", p, ND_RDMA_PER_NETDEV, &n, 0, &e), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(p[0].ibdev, "mlx5_1");
	ck_assert(!p[0].roce.configured);
	ck_assert_int_eq(p[0].roce.tos, 0);
	ck_assert_str_eq(p[0].roce.mode, "RoCE v2");
}
END_TEST

START_TEST(roce_bad_configfs_value)
{
	struct nd_rdma_port p[ND_RDMA_PER_NETDEV];
	struct nd_err e = { 0 };
	size_t n;

	ck_assert_int_eq(nd_rdma_ports_of("eth4", p, ND_RDMA_PER_NETDEV, &n, 0, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "mlx5_3/1: rdma_cm default_roce_tos is 'abc', not a ToS byte");
}
END_TEST

START_TEST(ipoib_port)
{
	struct nd_rdma_port p[ND_RDMA_PER_NETDEV];
	struct nd_err e = { 0 };
	size_t n;

	ck_assert_int_eq(nd_rdma_ports_of("ib0", p, ND_RDMA_PER_NETDEV, &n, 0, &e), 0);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(p[0].ibdev, "mlx5_2");
	ck_assert_uint_eq(p[0].port, 1);
	ck_assert_str_eq(p[0].link_layer, "InfiniBand");
	ck_assert_str_eq(p[0].rate, "200 Gb/sec (4X HDR)");
}
END_TEST

START_TEST(netdev_without_rdma)
{
	struct nd_rdma_port p[ND_RDMA_PER_NETDEV];
	struct nd_err e = { 0 };
	size_t n = 5;

	ck_assert_int_eq(nd_rdma_ports_of("eth9", p, ND_RDMA_PER_NETDEV, &n, 0, &e), 0);
	ck_assert_uint_eq(n, 0);
	use_fixture("does-not-exist");
	ck_assert_int_eq(nd_rdma_ports_of("eth2", p, ND_RDMA_PER_NETDEV, &n, 0, &e), 0);
	ck_assert_uint_eq(n, 0);
}
END_TEST

START_TEST(strlcpy_truncates)
{
	char small[4];

	ck_assert_uint_eq(nd_strlcpy(small, "abcdef", sizeof(small)), 6);
	ck_assert_str_eq(small, "abc");
	ck_assert_uint_eq(nd_strlcpy(small, "ab", sizeof(small)), 2);
	ck_assert_str_eq(small, "ab");
}
END_TEST

/* A profile's or scenario's directory (for what it names relative to it) and default name. */
START_TEST(path_parts)
{
	static const char *const cases[][3] = {
		/* path, directory, stem */
		{ "a/b/c.yaml", "a/b", "c" }, { "/x.yml", "/", "x" }, { "x", "", "x" },
		{ "/a/b", "/a", "b" }, { "d/", "d", "" }, { ".yaml", "", ".yaml" },
		{ "p/x.yaml.bak", "p", "x.yaml.bak" }, { "q/r.yml.yaml", "q", "r.yml" },
	};
	char buf[16];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		nd_path_dir(cases[i][0], buf, sizeof(buf));
		ck_assert_msg(!strcmp(buf, cases[i][1]), "%s: dir %s", cases[i][0], buf);
		nd_path_stem(cases[i][0], buf, sizeof(buf));
		ck_assert_msg(!strcmp(buf, cases[i][2]), "%s: stem %s", cases[i][0], buf);
	}
	/* cut to the buffer, terminated */
	nd_path_stem("dir/abcdefghij.yaml", buf, 5);
	ck_assert_str_eq(buf, "abcd");
	nd_path_dir("abcdefghij/k", buf, 5);
	ck_assert_str_eq(buf, "abcd");
}
END_TEST

START_TEST(push_grows_by_one_zeroed)
{
	int *v = NULL, *slot;
	char **names = NULL;
	size_t n = 0, i;

	for (i = 0; i < 3; i++) {
		slot = nd_push((void **)&v, &n, sizeof(*v));
		ck_assert_ptr_nonnull(slot);
		ck_assert_int_eq(*slot, 0);
		*slot = (int)i + 1;
	}
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(v[0] + v[1] + v[2], 6);
	free(v);
	n = 0;
	ck_assert_int_eq(nd_strv_push(&names, &n, "eth0"), 0);
	ck_assert_int_eq(nd_strv_push(&names, &n, "eth1"), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(names[1], "eth1");
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}
END_TEST

/* A file of @len bytes of seeded random text (no NUL) in a new temporary directory. */
static void random_file(char *dir, char *path, size_t plen, size_t len, unsigned int seed)
{
	FILE *f;
	size_t i;

	snprintf(dir, 64, "/tmp/nd-file-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, plen, "%s/f", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	srand(seed);
	for (i = 0; i < len; i++)
		fputc('a' + rand() % 26, f);
	fclose(f);
}

/* Sizes around the limit and the buffer's doublings, seeded: read whole, or -E2BIG. */
START_TEST(file_read_sizes)
{
	static const size_t max = 5000;
	char dir[64], path[PATH_MAX], *buf, *want;
	unsigned int seed = 1795;
	size_t len, got, k;
	FILE *f;

	for (k = 0; k < 40; k++) {
		len = k < 4 ? (size_t[]){ 0, 1, max, max + 1 }[k] : (size_t)rand_r(&seed) % (2 * max);
		random_file(dir, path, sizeof(path), len, seed + k);
		buf = NULL;
		if (len > max) {
			ck_assert_int_eq(nd_file_read(path, max, &buf, &got, NULL), -E2BIG);
			ck_assert_ptr_null(buf);
		} else {
			ck_assert_int_eq(nd_file_read(path, max, &buf, &got, NULL), 0);
			ck_assert_uint_eq(got, len);
			ck_assert_uint_eq(strlen(buf), len);
			want = malloc(len + 1);
			f = fopen(path, "r");
			ck_assert_uint_eq(fread(want, 1, len + 1, f), len);
			fclose(f);
			ck_assert_int_eq(memcmp(buf, want, len), 0);
			free(want);
			free(buf);
		}
		unlink(path);
		rmdir(dir);
	}
}
END_TEST

/* Not regular files: a directory, a FIFO (refused without waiting for a writer), none at all. */
START_TEST(file_read_refuses)
{
	char dir[64] = "/tmp/nd-file-XXXXXX", path[PATH_MAX], *buf = NULL;
	size_t len;
	struct stat st;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(nd_file_read(dir, 100, &buf, &len, &st), -EISDIR);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_int_eq(nd_file_read(path, 100, &buf, &len, &st), -EINVAL);
	unlink(path);
	snprintf(path, sizeof(path), "%s/none", dir);
	ck_assert_int_eq(nd_file_read(path, 100, &buf, &len, NULL), -ENOENT);
	ck_assert_ptr_null(buf);
	rmdir(dir);
}
END_TEST

/* A file whose size stat() does not tell (procfs says 0) is still read whole. */
START_TEST(file_read_unsized)
{
	char *buf = NULL;
	size_t len;

	ck_assert_int_eq(nd_file_read("/proc/self/status", 1 << 20, &buf, &len, NULL), 0);
	ck_assert_uint_gt(len, 100);
	ck_assert_uint_eq(strlen(buf), len);
	ck_assert_ptr_nonnull(strstr(buf, "VmRSS:"));
	free(buf);
	ck_assert_int_eq(nd_file_read("/proc/self/status", 10, &buf, &len, NULL), -E2BIG);
}
END_TEST

Suite *suite_sysfs(void)
{
	Suite *s = suite_create("sysfs");
	TCase *tc = tcase_create("fixtures");

	tcase_add_checked_fixture(tc, roce_host, unit_no_root);
	tcase_add_test(tc, root_prefix);
	tcase_add_test(tc, read_values);
	tcase_add_test(tc, names_cannot_escape_root);
	tcase_add_test(tc, dir_order_and_stop);
	tcase_add_test(tc, link_name);
	tcase_add_test(tc, readlink_whole_target);
	tcase_add_test(tc, read_bin_bytes);
	tcase_add_test(tc, roce_port_with_configfs);
	tcase_add_test(tc, roce_port_kernel_defaults);
	tcase_add_test(tc, roce_bad_configfs_value);
	tcase_add_test(tc, ipoib_port);
	tcase_add_test(tc, netdev_without_rdma);
	tcase_add_test(tc, strlcpy_truncates);
	tcase_add_test(tc, path_parts);
	tcase_add_test(tc, push_grows_by_one_zeroed);
	tcase_add_test(tc, file_read_sizes);
	tcase_add_test(tc, file_read_refuses);
	tcase_add_test(tc, file_read_unsized);
	suite_add_tcase(s, tc);
	return s;
}
