// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A test double of the CUDA driver API, for the parts of nodrop's CUDA provider that run
 * without a GPU: loaded in place of libcuda.so.1 with NODROP_LIBCUDA. "Device" memory is host
 * memory the double keeps track of, so copies outside an allocation, double frees, leaks and
 * unbalanced contexts are caught; dmabuf export hands out a memfd (a soft RDMA device refuses
 * it as it refuses any dmabuf). It proves the provider's logic, never a GPU: `make check-gpu`
 * on a GPU host is what does that.
 *
 * Set in the environment, read at cuInit:
 *   FAKECUDA_DEVICES=N   devices 0..N-1 at PCI 0000:19+i:00.0 (default 1; 0: none)
 *   FAKECUDA_DRIVER=V    cuDriverGetVersion (default 12040)
 *   FAKECUDA_DMABUF=0    devices say they cannot export dmabufs
 *   FAKECUDA_HIDE=SYM    cuGetProcAddress does not know SYM (an older driver)
 *   FAKECUDA_FAIL=SYM    SYM fails (cuInit: no device; cuMemAlloc*: out of memory)
 * fakecuda_live() reports live allocations and context references, for leak checks.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

enum {
	OK = 0,
	INVALID_VALUE = 1,
	OUT_OF_MEMORY = 2,
	NOT_INITIALIZED = 3,
	NO_DEVICE = 100,
	INVALID_DEVICE = 101,
	INVALID_CONTEXT = 201,
	NOT_FOUND = 500,
	ATTR_DMA_BUF = 124,
	MAX_ALLOCS = 64,
	MAX_DEVICES = 8,
};

static struct {
	int init, devices, driver, dmabuf;
	const char *fail;
	int ctx_refs[MAX_DEVICES];
	int current;	/* the device of the current context, -1 for none */
	struct alloc {
		uintptr_t p;
		size_t size;
		int device;	/* -1: pinned host memory */
	} a[MAX_ALLOCS];
} st = { .current = -1 };

static int env_int(const char *name, int dflt)
{
	const char *v = getenv(name);

	return v && *v ? atoi(v) : dflt;
}

static int failing(const char *sym)
{
	return st.fail && !strcmp(st.fail, sym);
}

static int cuInit(unsigned int flags)
{
	st.devices = env_int("FAKECUDA_DEVICES", 1);
	st.driver = env_int("FAKECUDA_DRIVER", 12040);
	st.dmabuf = env_int("FAKECUDA_DMABUF", 1);
	st.fail = getenv("FAKECUDA_FAIL");
	if (flags)
		return INVALID_VALUE;
	if (failing("cuInit") || st.devices <= 0)
		return NO_DEVICE;
	if (st.devices > MAX_DEVICES)
		st.devices = MAX_DEVICES;
	st.init = 1;
	return OK;
}

static int cuDriverGetVersion(int *v)
{
	*v = st.driver;
	return OK;
}

static int cuDeviceGet(int *d, int ordinal)
{
	if (!st.init)
		return NOT_INITIALIZED;
	if (ordinal < 0 || ordinal >= st.devices)
		return INVALID_DEVICE;
	*d = ordinal;
	return OK;
}

static int cuDeviceGetByPCIBusId(int *d, const char *bus_id)
{
	unsigned int dom, bus, dev, fn;
	int i;

	if (!st.init)
		return NOT_INITIALIZED;
	if (sscanf(bus_id, "%x:%x:%x.%x", &dom, &bus, &dev, &fn) != 4)
		return INVALID_VALUE;
	for (i = 0; i < st.devices; i++)
		if (!dom && bus == 0x19u + (unsigned int)i && !dev && !fn) {
			*d = i;
			return OK;
		}
	return INVALID_DEVICE;
}

static int valid_device(int d)
{
	return st.init && d >= 0 && d < st.devices;
}

static int cuDeviceGetName(char *name, int len, int d)
{
	if (!valid_device(d))
		return INVALID_DEVICE;
	snprintf(name, (size_t)len, "Fake GPU %d", d);
	return OK;
}

static int cuDeviceGetAttribute(int *v, int attr, int d)
{
	if (!valid_device(d))
		return INVALID_DEVICE;
	/* CU_DEVICE_ATTRIBUTE_PCI_BUS_ID (33): device d is 0000:(19 + d):00.0, as by bus id */
	*v = attr == ATTR_DMA_BUF ? st.dmabuf : attr == 33 ? 0x19 + d : 0;
	return OK;
}

static int cuDevicePrimaryCtxRetain(void **ctx, int d)
{
	if (!valid_device(d))
		return INVALID_DEVICE;
	st.ctx_refs[d]++;
	*ctx = &st.ctx_refs[d];
	return OK;
}

static int cuDevicePrimaryCtxRelease(int d)
{
	if (!valid_device(d) || !st.ctx_refs[d])
		return INVALID_CONTEXT;
	if (!--st.ctx_refs[d] && st.current == d)
		st.current = -1;
	return OK;
}

static int cuCtxSetCurrent(void *ctx)
{
	int d = ctx ? (int)((int *)ctx - st.ctx_refs) : -1;

	if (ctx && (d < 0 || d >= st.devices || !st.ctx_refs[d]))
		return INVALID_CONTEXT;
	st.current = d;
	return OK;
}

static int track(uintptr_t p, size_t size, int device)
{
	int i;

	for (i = 0; i < MAX_ALLOCS; i++)
		if (!st.a[i].p) {
			st.a[i] = (struct alloc){ p, size, device };
			return OK;
		}
	return OUT_OF_MEMORY;
}

static int alloc(uintptr_t *p, size_t size, int device, const char *sym)
{
	void *m;

	if (device >= 0 && st.current < 0)
		return INVALID_CONTEXT;
	if (!size)
		return INVALID_VALUE;
	if (failing(sym))
		return OUT_OF_MEMORY;
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return OUT_OF_MEMORY;
	if (track((uintptr_t)m, size, device)) {
		munmap(m, size);
		return OUT_OF_MEMORY;
	}
	*p = (uintptr_t)m;
	return OK;
}

static int release(uintptr_t p, int host)
{
	int i;

	for (i = 0; i < MAX_ALLOCS; i++)
		if (st.a[i].p == p && (st.a[i].device < 0) == host) {
			munmap((void *)p, st.a[i].size);
			st.a[i].p = 0;
			return OK;
		}
	return INVALID_VALUE;
}

/* Device memory holding [p, p + len). */
static struct alloc *device_range(uintptr_t p, size_t len)
{
	int i;

	for (i = 0; i < MAX_ALLOCS; i++)
		if (st.a[i].p && st.a[i].device >= 0 && p >= st.a[i].p &&
		    len <= st.a[i].size && p - st.a[i].p <= st.a[i].size - len)
			return &st.a[i];
	return NULL;
}

static int cuMemAlloc(unsigned long long *p, size_t size)
{
	uintptr_t u = 0;
	int r = alloc(&u, size, st.current, "cuMemAlloc");

	*p = u;
	return r;
}

static int cuMemFree(unsigned long long p)
{
	return release((uintptr_t)p, 0);
}

static int cuMemAllocHost(void **p, size_t size)
{
	uintptr_t u = 0;
	int r = alloc(&u, size, -1, "cuMemAllocHost");

	*p = (void *)u;
	return r;
}

static int cuMemFreeHost(void *p)
{
	return release((uintptr_t)p, 1);
}

static int cuMemcpyHtoD(unsigned long long dst, const void *src, size_t len)
{
	if (!device_range((uintptr_t)dst, len))
		return INVALID_VALUE;
	memcpy((void *)(uintptr_t)dst, src, len);
	return OK;
}

static int cuMemcpyDtoH(void *dst, unsigned long long src, size_t len)
{
	if (!device_range((uintptr_t)src, len))
		return INVALID_VALUE;
	memcpy(dst, (const void *)(uintptr_t)src, len);
	return OK;
}

static int cuPointerSetAttribute(const void *value, int attr, unsigned long long p)
{
	(void)value;
	(void)attr;
	return device_range((uintptr_t)p, 1) ? OK : INVALID_VALUE;
}

static int cuMemGetHandleForAddressRange(void *handle, unsigned long long p, size_t size,
					 int type, unsigned long long flags)
{
	struct alloc *a = device_range((uintptr_t)p, size);
	int fd;

	if (!a || type != 1 || flags || !st.dmabuf)
		return INVALID_VALUE;
	fd = memfd_create("fakecuda-dmabuf", MFD_CLOEXEC);
	if (fd < 0)
		return OUT_OF_MEMORY;
	*(int *)handle = fd;
	return OK;
}

static int cuGetErrorString(int r, const char **s)
{
	switch (r) {
	case OK: *s = "no error"; break;
	case INVALID_VALUE: *s = "invalid argument"; break;
	case OUT_OF_MEMORY: *s = "out of memory"; break;
	case NOT_INITIALIZED: *s = "initialization error"; break;
	case NO_DEVICE: *s = "no CUDA-capable device is detected"; break;
	case INVALID_DEVICE: *s = "invalid device ordinal"; break;
	case INVALID_CONTEXT: *s = "invalid device context"; break;
	case NOT_FOUND: *s = "named symbol not found"; break;
	default: return INVALID_VALUE;
	}
	return OK;
}

/* What a loader finds by name; the rest only through cuGetProcAddress, as nodrop asks. */
int cuGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags);
void fakecuda_live(int *allocs, int *ctx_refs);

#define SYM(name) { #name, (void *)name }
static const struct {
	const char *name;
	void *fn;
} syms[] = {
	SYM(cuInit), SYM(cuDriverGetVersion), SYM(cuDeviceGet), SYM(cuDeviceGetByPCIBusId),
	SYM(cuDeviceGetName), SYM(cuDeviceGetAttribute), SYM(cuDevicePrimaryCtxRetain),
	SYM(cuDevicePrimaryCtxRelease), SYM(cuCtxSetCurrent), SYM(cuMemAlloc), SYM(cuMemFree),
	SYM(cuMemAllocHost), SYM(cuMemFreeHost), SYM(cuMemcpyHtoD), SYM(cuMemcpyDtoH),
	SYM(cuPointerSetAttribute), SYM(cuMemGetHandleForAddressRange), SYM(cuGetErrorString),
};

int cuGetProcAddress(const char *symbol, void **pfn, int version, unsigned long long flags)
{
	const char *hide = getenv("FAKECUDA_HIDE");
	size_t i;

	*pfn = NULL;
	if (version < 11030 || flags)
		return INVALID_VALUE;
	if (hide && !strcmp(hide, symbol))
		return NOT_FOUND;
	for (i = 0; i < sizeof(syms) / sizeof(syms[0]); i++)
		if (!strcmp(syms[i].name, symbol)) {
			*pfn = syms[i].fn;
			return OK;
		}
	return NOT_FOUND;
}

/* For tests: live device and pinned allocations, and retained contexts. */
void fakecuda_live(int *allocs, int *ctx_refs)
{
	int i;

	*allocs = 0;
	*ctx_refs = 0;
	for (i = 0; i < MAX_ALLOCS; i++)
		*allocs += !!st.a[i].p;
	for (i = 0; i < MAX_DEVICES; i++)
		*ctx_refs += st.ctx_refs[i];
}
