// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CUDA provider against tests/gpu/fakecuda.c (ND_FAKECUDA, loaded as NODROP_LIBCUDA): the
 * device choice, the driver's errors as the user reads them, allocation, copies, the staged
 * path and dmabuf export, and that everything taken is given back. The double checks ranges
 * and counts; what a real GPU does is `make check-gpu`'s part.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stress/gen_rt.h"
#include "unit.h"

static const char *fake(void)
{
	const char *p = getenv("ND_FAKECUDA");

	return p && *p ? p : "build/libfakecuda.so";
}

/* Use the double, configured by FAKECUDA_* NAME=VALUE pairs (this test's process only). */
static void use_fake(const char *name, const char *value)
{
	ck_assert_msg(access(fake(), R_OK) == 0, "%s is missing (make builds it)", fake());
	setenv("NODROP_LIBCUDA", fake(), 1);
	if (name)
		setenv(name, value, 1);
}

/* Nothing the provider took from the driver is still held. */
static void assert_all_returned(void)
{
	void (*live)(int *, int *);
	void *dl = dlopen(fake(), RTLD_NOW | RTLD_NOLOAD);
	int allocs = -1, refs = -1;

	ck_assert_ptr_nonnull(dl);
	*(void **)&live = dlsym(dl, "fakecuda_live");
	ck_assert_ptr_nonnull(live);
	live(&allocs, &refs);
	ck_assert_int_eq(allocs, 0);
	ck_assert_int_eq(refs, 0);
	dlclose(dl);
}

static void open_mem(struct nd_mem *m, const char *spec_str, size_t size)
{
	struct nd_mem_spec spec;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_mem_spec_parse(spec_str, &spec, &e), 0);
	ck_assert_msg(!nd_mem_open(m, &spec, size, &e), "%s", e.msg);
}

static int open_err(const char *spec_str, struct nd_err *e)
{
	struct nd_mem_spec spec;
	struct nd_mem m;
	int ret;

	ck_assert_int_eq(nd_mem_spec_parse(spec_str, &spec, e), 0);
	ret = nd_mem_open(&m, &spec, 1 << 20, e);
	if (!ret)
		nd_mem_close(&m);
	return ret;
}

START_TEST(fake_alloc_and_copy)
{
	uint8_t a[4096], b[4096];
	struct nd_mem m;
	size_t i;

	use_fake(NULL, NULL);
	open_mem(&m, "cuda:0", 100000);
	ck_assert(m.gpu);
	ck_assert_ptr_null(m.host);
	ck_assert_uint_eq(m.size, 128u << 10);	/* whole 64 KiB GPU pages */
	ck_assert_str_eq(m.desc, "cuda:0 auto");
	ck_assert_str_eq(m.gpu_bdf, "0000:19:00.0");	/* from the driver's PCI attributes */
	for (i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i * 13 + 5);
	ck_assert_int_eq(nd_mem_put(&m, m.size - sizeof(a), a, sizeof(a)), 0);
	ck_assert_ptr_eq(nd_mem_view(&m, m.size - sizeof(a), sizeof(b), b), b);
	ck_assert_mem_eq(a, b, sizeof(a));
	/* past the end: refused before the driver sees it */
	ck_assert_int_eq(nd_mem_put(&m, m.size - 1, a, 2), -ERANGE);
	ck_assert_ptr_null(nd_mem_view(&m, m.size, 1, b));
	nd_mem_close(&m);
	assert_all_returned();
}
END_TEST

START_TEST(fake_by_bus_id)
{
	struct nd_mem m;

	use_fake("FAKECUDA_DEVICES", "2");
	open_mem(&m, "cuda:0000:1a:00.0,staged", 1 << 20);
	ck_assert_str_eq(m.desc, "cuda:0000:1a:00.0 staged");
	ck_assert_str_eq(m.gpu_bdf, "0000:1a:00.0");
	nd_mem_close(&m);
	assert_all_returned();
}
END_TEST

/* What the driver refuses, as the user reads it; what was taken before goes back. */
START_TEST(fake_open_errors)
{
	static const struct {
		const char *var, *value, *spec;
		int ret;
		const char *msg;
	} cases[] = {
		{ "FAKECUDA_DEVICES", "2", "cuda:0000:3b:00.0", -ENODEV,
		  "no CUDA device at PCI 0000:3b:00.0: invalid device ordinal (nvidia-smi "
		  "--query-gpu=pci.bus_id --format=csv lists them)" },
		{ "FAKECUDA_DEVICES", "2", "cuda:2", -ENODEV,
		  "no CUDA device 2: invalid device ordinal (nvidia-smi -L lists them)" },
		{ "FAKECUDA_DEVICES", "0", "cuda:0", -ENODEV,
		  "cuInit failed: no CUDA-capable device is detected (the driver sees no GPU)" },
		{ "FAKECUDA_HIDE", "cuMemcpyHtoD", "cuda:0", -ENOENT,
		  "lacks cuMemcpyHtoD: update the GPU driver" },
		{ "FAKECUDA_FAIL", "cuMemAlloc", "cuda:0", -ENOMEM,
		  "cannot allocate 1 MiB on Fake GPU 0: out of memory" },
		{ "FAKECUDA_FAIL", "cuMemAllocHost", "cuda:0,staged", -ENOMEM,
		  "cannot allocate 1 MiB of pinned host memory: out of memory" },
	};
	struct nd_err e;
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(cases); i++) {
		unsetenv("FAKECUDA_DEVICES");
		unsetenv("FAKECUDA_HIDE");
		unsetenv("FAKECUDA_FAIL");
		use_fake(cases[i].var, cases[i].value);
		memset(&e, 0, sizeof(e));
		ck_assert_int_eq(open_err(cases[i].spec, &e), cases[i].ret);
		ck_assert_msg(strstr(e.msg, cases[i].msg), "case %zu: %s", i, e.msg);
		assert_all_returned();
	}
}
END_TEST

START_TEST(fake_staged_copies)
{
	uint8_t a[8192], b[8192];
	struct nd_mem m;
	size_t i;

	use_fake(NULL, NULL);
	open_mem(&m, "cuda:0,staged", 1 << 20);
	ck_assert_ptr_nonnull(m.host);
	ck_assert_uint_eq(m.nic_base, (uintptr_t)m.host);
	for (i = 0; i < sizeof(a); i++)
		a[i] = (uint8_t)(i ^ 0x5a);
	/* data written to the GPU reaches the NIC's buffer only by staging out */
	ck_assert_int_eq(nd_mem_put(&m, 65536, a, sizeof(a)), 0);
	ck_assert(memcmp(m.host + 65536, a, sizeof(a)) != 0);
	ck_assert_int_eq(nd_mem_stage_out(&m, 65536, sizeof(a)), 0);
	ck_assert_mem_eq(m.host + 65536, a, sizeof(a));
	/* what the NIC wrote reaches the GPU by staging in */
	memset(m.host, 0xc3, sizeof(b));
	ck_assert_int_eq(nd_mem_stage_in(&m, 0, sizeof(b)), 0);
	memset(m.host, 0, sizeof(b));
	ck_assert_ptr_eq(nd_mem_view(&m, 0, sizeof(b), b), b);
	for (i = 0; i < sizeof(b); i++)
		ck_assert_uint_eq(b[i], 0xc3);
	ck_assert_uint_eq(m.staged_bytes, 2 * sizeof(a));
	ck_assert_uint_gt(m.staged_ns, 0);
	ck_assert_int_eq(nd_mem_stage_out(&m, m.size - 1, 2), -ERANGE);
	nd_mem_close(&m);
	assert_all_returned();
}
END_TEST

START_TEST(fake_dmabuf_export)
{
	struct nd_mem_spec spec;
	struct nd_cuda *c;
	struct nd_err e = { 0 };
	uint64_t dptr;
	size_t size;
	int fd = -1;

	use_fake(NULL, NULL);
	ck_assert_int_eq(nd_mem_spec_parse("cuda:0,dmabuf", &spec, &e), 0);
	ck_assert_msg(!nd_cuda_open(&spec, &c, &e), "%s", e.msg);
	ck_assert(nd_cuda_dmabuf_supported(c));
	ck_assert_str_eq(nd_cuda_name(c), "Fake GPU 0");
	ck_assert_msg(!nd_cuda_alloc(c, 3u << 20, &dptr, &size, &e), "%s", e.msg);
	ck_assert_uint_eq(size, 3u << 20);
	ck_assert_msg(!nd_cuda_dmabuf_fd(c, dptr, size, &fd, &e), "%s", e.msg);
	ck_assert_int_ge(fd, 0);
	close(fd);
	/* a range the driver did not give out */
	ck_assert_int_eq(nd_cuda_dmabuf_fd(c, dptr + size, 4096, &fd, &e), -EIO);
	ck_assert_str_eq(e.msg, "cuMemGetHandleForAddressRange on Fake GPU 0 failed: invalid "
			 "argument");
	nd_cuda_free(c, dptr);
	nd_cuda_close(c);
	assert_all_returned();
}
END_TEST

/* A driver too old to export: the reason names the versions that can. */
START_TEST(fake_dmabuf_unsupported)
{
	struct nd_mem_spec spec;
	struct nd_cuda *c;
	struct nd_err e = { 0 };
	uint64_t dptr;
	size_t size;
	int fd = -1;

	use_fake("FAKECUDA_HIDE", "cuMemGetHandleForAddressRange");
	setenv("FAKECUDA_DRIVER", "11040", 1);
	ck_assert_int_eq(nd_mem_spec_parse("cuda:0", &spec, &e), 0);
	ck_assert_msg(!nd_cuda_open(&spec, &c, &e), "%s", e.msg);
	ck_assert(!nd_cuda_dmabuf_supported(c));
	ck_assert_msg(!nd_cuda_alloc(c, 1 << 20, &dptr, &size, &e), "%s", e.msg);
	ck_assert_int_eq(nd_cuda_dmabuf_fd(c, dptr, size, &fd, &e), -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "Fake GPU 0 cannot export dmabufs (driver 11.4): it needs CUDA "
			 "11.7+ and the open GPU kernel modules 515+");
	nd_cuda_free(c, dptr);
	nd_cuda_close(c);
	assert_all_returned();
}
END_TEST

Suite *suite_gen_cuda(void)
{
	Suite *s = suite_create("gen_cuda");
	TCase *tc = tcase_create("fake driver");

	tcase_add_test(tc, fake_alloc_and_copy);
	tcase_add_test(tc, fake_by_bus_id);
	tcase_add_test(tc, fake_open_errors);
	tcase_add_test(tc, fake_staged_copies);
	tcase_add_test(tc, fake_dmabuf_export);
	tcase_add_test(tc, fake_dmabuf_unsupported);
	suite_add_tcase(s, tc);
	return s;
}
