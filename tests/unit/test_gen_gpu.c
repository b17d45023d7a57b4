// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress on a GPU host (`make check-gpu`: ND_GPU=1, optional ND_GPU_MEM=cuda:N or
 * cuda:BUS_ID): GPU memory through the CUDA provider, dmabuf export, registration on the first
 * RDMA device when there is one, and the cost of the host-staged copies, printed. Without
 * ND_GPU these cases return at once: the unit tier runs everywhere.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stress/gen_rt.h"
#include "unit.h"

#define BYTES (64u << 20)
#define ROUNDS 8

static bool gpu_wanted(struct nd_mem_spec *spec, const char *reg)
{
	const char *mem = getenv("ND_GPU_MEM");
	char buf[96];

	if (!getenv("ND_GPU"))
		return false;
	snprintf(buf, sizeof(buf), "%s%s%s", mem && *mem ? mem : "cuda:0", reg ? "," : "",
		 reg ? reg : "");
	ck_assert_int_eq(nd_mem_spec_parse(buf, spec, NULL), 0);
	return true;
}

START_TEST(gpu_alloc_and_copy)
{
	struct nd_mem_spec spec;
	struct nd_mem m;
	struct nd_err e = { 0 };
	uint8_t *a, *b;
	size_t i;

	if (!gpu_wanted(&spec, NULL))
		return;
	a = malloc(1 << 20);
	b = calloc(1, 1 << 20);
	ck_assert_ptr_nonnull(a);
	ck_assert_ptr_nonnull(b);
	for (i = 0; i < 1 << 20; i++)
		a[i] = (uint8_t)(i * 7 + 1);
	ck_assert_msg(!nd_mem_open(&m, &spec, BYTES, &e), "%s", e.msg);
	ck_assert(m.gpu);
	ck_assert_ptr_null(m.host);
	ck_assert_uint_eq(m.size % (64u << 10), 0);
	ck_assert_int_eq(nd_mem_put(&m, BYTES - (1 << 20), a, 1 << 20), 0);
	ck_assert_ptr_eq(nd_mem_view(&m, BYTES - (1 << 20), 1 << 20, b), b);
	ck_assert_mem_eq(a, b, 1 << 20);
	printf("gpu: %s, %zu MiB allocated, written and read back\n", m.desc, m.size >> 20);
	nd_mem_close(&m);
	free(a);
	free(b);
}
END_TEST

START_TEST(gpu_dmabuf_export)
{
	struct nd_mem_spec spec;
	struct nd_cuda *c;
	struct nd_err e = { 0 };
	uint64_t dptr;
	size_t size;
	int fd = -1, ret;

	if (!gpu_wanted(&spec, NULL))
		return;
	ck_assert_msg(!nd_cuda_open(&spec, &c, &e), "%s", e.msg);
	ck_assert_msg(!nd_cuda_alloc(c, BYTES, &dptr, &size, &e), "%s", e.msg);
	ret = nd_cuda_dmabuf_fd(c, dptr, size, &fd, &e);
	if (nd_cuda_dmabuf_supported(c)) {
		ck_assert_msg(!ret, "%s", e.msg);
		ck_assert_int_ge(fd, 0);
		printf("gpu: %s exported %zu MiB as dmabuf fd %d\n", nd_cuda_name(c), size >> 20,
		       fd);
		close(fd);
	} else {
		ck_assert_int_eq(ret, -EOPNOTSUPP);
		printf("gpu: %s: no dmabuf export: %s\n", nd_cuda_name(c), e.msg);
	}
	nd_cuda_free(c, dptr);
	nd_cuda_close(c);
}
END_TEST

/* Registration as stress does it, on the first RDMA device, for each way to GPU memory. */
START_TEST(gpu_registration)
{
	static const char *const regs[] = { "dmabuf", "peermem", "staged" };
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct nd_mem_spec spec;
	struct nd_mem m;
	struct nd_err e;
	size_t i;
	int n = 0;

	if (!gpu_wanted(&spec, NULL))
		return;
	list = ibv_get_device_list(&n);
	if (!list || !n) {
		printf("gpu: no RDMA device here: registration not tried\n");
		if (list)
			ibv_free_device_list(list);
		return;
	}
	ctx = ibv_open_device(list[0]);
	ck_assert_ptr_nonnull(ctx);
	pd = ibv_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	for (i = 0; i < ND_ARRAY_SIZE(regs); i++) {
		memset(&e, 0, sizeof(e));
		gpu_wanted(&spec, regs[i]);
		ck_assert_msg(!nd_mem_open(&m, &spec, BYTES, &e), "%s", e.msg);
		if (nd_mem_reg(&m, pd, &e))
			printf("gpu: %s on %s: %s\n", regs[i], ibv_get_device_name(list[0]), e.msg);
		else
			printf("gpu: %s on %s: registered, lkey 0x%x\n", m.desc,
			       ibv_get_device_name(list[0]), m.mr->lkey);
		nd_mem_close(&m);
	}
	ibv_dealloc_pd(pd);
	ibv_close_device(ctx);
	ibv_free_device_list(list);
}
END_TEST

/* The double-copy path's price: what staging costs per byte, each way. */
START_TEST(gpu_staged_copy_cost)
{
	struct nd_mem_spec spec;
	struct nd_mem m;
	struct nd_err e = { 0 };
	double out_s, in_s;
	int r;

	if (!gpu_wanted(&spec, "staged"))
		return;
	ck_assert_msg(!nd_mem_open(&m, &spec, BYTES, &e), "%s", e.msg);
	ck_assert_ptr_nonnull(m.host);
	ck_assert_uint_eq(m.nic_base, (uintptr_t)m.host);
	for (r = 0; r < ROUNDS; r++)
		ck_assert_int_eq(nd_mem_stage_out(&m, 0, m.size), 0);
	out_s = (double)m.staged_ns / 1e9;
	m.staged_ns = 0;
	for (r = 0; r < ROUNDS; r++)
		ck_assert_int_eq(nd_mem_stage_in(&m, 0, m.size), 0);
	in_s = (double)m.staged_ns / 1e9;
	ck_assert_uint_eq(m.staged_bytes, 2ull * ROUNDS * m.size);
	printf("gpu: staged copy cost (%s, %u x %zu MiB): device->host %.2f GB/s (%.1f us/MiB), "
	       "host->device %.2f GB/s (%.1f us/MiB)\n", m.desc, ROUNDS, m.size >> 20,
	       (double)ROUNDS * (double)m.size / out_s / 1e9,
	       out_s * 1e6 / ((double)ROUNDS * (double)(m.size >> 20)),
	       (double)ROUNDS * (double)m.size / in_s / 1e9,
	       in_s * 1e6 / ((double)ROUNDS * (double)(m.size >> 20)));
	nd_mem_close(&m);
}
END_TEST

Suite *suite_gen_gpu(void)
{
	Suite *s = suite_create("gen_gpu");
	TCase *tc = tcase_create("gpu");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, gpu_alloc_and_copy);
	tcase_add_test(tc, gpu_dmabuf_export);
	tcase_add_test(tc, gpu_registration);
	tcase_add_test(tc, gpu_staged_copy_cost);
	suite_add_tcase(s, tc);
	return s;
}
