// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress without a device: memory providers (host memory; CUDA where the driver is absent or
 * not a driver, which must fail cleanly and say what to do), registration errors as people
 * meet them, RoCE GID choice and link rates.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress/gen_rt.h"
#include "unit.h"

static void teardown(void)
{
	unsetenv("NODROP_LIBCUDA");
}

START_TEST(host_memory)
{
	struct nd_mem_spec spec = { .kind = ND_MEM_HOST, .gpu = -1 };
	struct nd_mem m;
	struct nd_err e = { 0 };
	uint8_t scratch[16];
	const uint8_t *p;

	ck_assert_int_eq(nd_mem_open(&m, &spec, 100000, &e), 0);
	ck_assert_uint_ge(m.size, 100000);
	ck_assert(!m.gpu);
	ck_assert_str_eq(m.desc, "host");
	ck_assert_uint_eq(m.nic_base, (uintptr_t)m.host);
	ck_assert_int_eq(nd_mem_put(&m, 99990, "0123456789", 10), 0);
	p = nd_mem_view(&m, 99990, 10, scratch);
	ck_assert_ptr_eq(p, m.host + 99990);
	ck_assert_mem_eq(p, "0123456789", 10);
	ck_assert_int_eq(nd_mem_put(&m, m.size - 4, "0123456789", 10), -ERANGE);
	ck_assert_ptr_null(nd_mem_view(&m, m.size, 1, scratch));
	/* host memory is staged by nobody: no copies, no cost */
	ck_assert_int_eq(nd_mem_stage_out(&m, 0, 4096), 0);
	ck_assert_uint_eq(m.staged_bytes, 0);
	nd_mem_close(&m);
}
END_TEST

START_TEST(host_hugepages)
{
	struct nd_mem_spec spec = { .kind = ND_MEM_HOST, .gpu = -1, .hugepages = true };
	struct nd_mem m;
	struct nd_err e = { 0 };
	int ret = nd_mem_open(&m, &spec, 1, &e);

	/* hosts without reserved hugepages say how to reserve them */
	if (ret) {
		ck_assert_ptr_nonnull(strstr(e.msg, "hugepages"));
		ck_assert_ptr_nonnull(strstr(e.msg, "sysctl vm.nr_hugepages="));
		return;
	}
	ck_assert_uint_eq(m.size, 2u << 20);
	ck_assert_str_eq(m.desc, "host hugepages");
	nd_mem_close(&m);
}
END_TEST

START_TEST(cuda_driver_absent)
{
	struct nd_mem_spec spec;
	struct nd_mem m;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_mem_spec_parse("cuda:0", &spec, &e), 0);
	setenv("NODROP_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
	ck_assert_int_eq(nd_mem_open(&m, &spec, 1 << 20, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "GPU memory needs the NVIDIA driver's "
				     "/nonexistent/libcuda.so.1, which cannot be loaded here"));
	ck_assert_ptr_nonnull(strstr(e.msg, "install the driver, or use --mem host"));
	nd_mem_close(&m);
}
END_TEST

START_TEST(cuda_not_a_driver)
{
	struct nd_mem_spec spec;
	struct nd_cuda *c = NULL;
	struct nd_err e = { 0 };

	/* a library that loads but is no CUDA driver: the entry point is missing */
	ck_assert_int_eq(nd_mem_spec_parse("cuda:0000:19:00.0,dmabuf", &spec, &e), 0);
	setenv("NODROP_LIBCUDA", "libc.so.6", 1);
	ck_assert_int_eq(nd_cuda_open(&spec, &c, &e), -ENOENT);
	ck_assert_ptr_null(c);
	ck_assert_str_eq(e.msg, "libc.so.6 has no cuGetProcAddress: the GPU driver is older than "
			 "CUDA 11.3; update it");
}
END_TEST

START_TEST(registration_errors)
{
	struct nd_mem m = { .size = 64u << 20 };
	struct nd_err e = { 0 };

	snprintf(m.desc, sizeof(m.desc), "host");
	ck_assert_int_eq(nd_mem_reg_error(&m, ENOMEM, "ibv_reg_mr", &e), -ENOMEM);
	ck_assert_ptr_nonnull(strstr(e.msg, "ibv_reg_mr of 64 MiB of host memory failed: Cannot "
				     "allocate memory; RLIMIT_MEMLOCK is "));
	ck_assert_ptr_nonnull(strstr(e.msg, "raise it (ulimit -l unlimited"));
	ck_assert_int_eq(nd_mem_reg_error(&m, EPERM, "ibv_reg_mr", &e), -EPERM);
	ck_assert_ptr_nonnull(strstr(e.msg, "RLIMIT_MEMLOCK"));
	m.gpu = true;
	ck_assert_int_eq(nd_mem_reg_error(&m, EFAULT, "ibv_reg_mr on GPU memory", &e), -EFAULT);
	ck_assert_ptr_nonnull(strstr(e.msg, "load nvidia_peermem (modprobe nvidia_peermem), or "
				     "use dmabuf"));
}
END_TEST

static void gid(struct ibv_gid_entry *x, uint32_t index, uint32_t type, const char *hex)
{
	size_t i;

	memset(x, 0, sizeof(*x));
	x->gid_index = index;
	x->gid_type = type;
	x->port_num = 1;
	for (i = 0; i < 16; i++)
		sscanf(hex + 2 * i, "%2hhx", &x->gid.raw[i]);
}

START_TEST(gid_choice)
{
	struct ibv_gid_entry v[6];
	char why[160];

	/* as rxe/mlx5 list them: link-local v1/v2, then IPv4 v1/v2, then global IPv6 */
	gid(&v[0], 0, IBV_GID_TYPE_ROCE_V1, "fe800000000000000000000000000001");
	gid(&v[1], 1, IBV_GID_TYPE_ROCE_V2, "fe800000000000000000000000000001");
	gid(&v[2], 2, IBV_GID_TYPE_ROCE_V1, "00000000000000000000ffffc6120001");
	gid(&v[3], 3, IBV_GID_TYPE_ROCE_V2, "00000000000000000000ffffc6120001");
	gid(&v[4], 4, IBV_GID_TYPE_ROCE_V2, "20010db8000000000000000000000001");
	gid(&v[5], 5, IBV_GID_TYPE_ROCE_V1, "20010db8000000000000000000000001");
	ck_assert_int_eq(nd_gen_pick_gid(v, 6, NULL, why, sizeof(why)), 3);
	ck_assert_int_eq(nd_gen_pick_gid(v, 6, "198.18.0.1", why, sizeof(why)), 3);
	ck_assert_int_eq(nd_gen_pick_gid(v, 6, "2001:db8::1", why, sizeof(why)), 4);
	ck_assert_int_eq(nd_gen_pick_gid(v, 2, NULL, why, sizeof(why)), 1);
	ck_assert_int_eq(nd_gen_pick_gid(v, 6, "198.18.0.9", why, sizeof(why)), -ENOENT);
	ck_assert_str_eq(why, "no GID holds 198.18.0.9: is the address on the RDMA device's "
			 "netdev (ip addr, rdma link)?");
	ck_assert_int_eq(nd_gen_pick_gid(v, 6, "not-an-ip", why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(nd_gen_pick_gid(v, 0, NULL, why, sizeof(why)), -ENOENT);
}
END_TEST

START_TEST(link_rates)
{
	struct ibv_port_attr pa = { 0 };

	pa.active_speed = 32;	/* EDR */
	pa.active_width = 2;	/* 4x */
	ck_assert(nd_gen_link_gbps(&pa) == 100);
	pa.active_speed = 64;	/* HDR */
	ck_assert(nd_gen_link_gbps(&pa) == 200);
	pa.active_width = 3;
	ck_assert(nd_gen_link_gbps(&pa) == 0);
}
END_TEST

Suite *suite_gen_mem(void)
{
	Suite *s = suite_create("gen_mem");
	TCase *tc = tcase_create("mem");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, host_memory);
	tcase_add_test(tc, host_hugepages);
	tcase_add_test(tc, cuda_driver_absent);
	tcase_add_test(tc, cuda_not_a_driver);
	tcase_add_test(tc, registration_errors);
	tcase_add_test(tc, gid_choice);
	tcase_add_test(tc, link_rates);
	suite_add_tcase(s, tc);
	return s;
}
