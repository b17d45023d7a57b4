// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The CUDA driver API without its headers or its library at link time: libcuda.so.1 is opened
 * with dlopen, cuGetProcAddress resolves each entry point at the ABI version we were written
 * for, and the few types and constants used are declared here. A host without a GPU driver
 * gets a clear error at the moment GPU memory is asked for, and nothing else changes.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_rt.h"

/* The driver API's types, as its ABI has them on 64-bit Linux. */
typedef int cu_result;			/* CUresult: 0 is CUDA_SUCCESS */
typedef int cu_device;			/* CUdevice */
typedef void *cu_context;		/* CUcontext */
typedef unsigned long long cu_ptr;	/* CUdeviceptr (the _v2 ABI) */

enum {
	CU_SUCCESS = 0,
	CU_ERROR_NO_DEVICE = 100,
	CU_ERROR_NOT_FOUND = 500,
	CU_ATTR_DMA_BUF_SUPPORTED = 124,	/* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
	CU_ATTR_PCI_BUS_ID = 33,		/* CU_DEVICE_ATTRIBUTE_PCI_BUS_ID */
	CU_ATTR_PCI_DEVICE_ID = 34,		/* CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID */
	CU_ATTR_PCI_DOMAIN_ID = 50,		/* CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID */
	CU_POINTER_ATTR_SYNC_MEMOPS = 6,	/* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS */
	CU_RANGE_HANDLE_DMA_BUF_FD = 1,		/* CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD */
	CU_PROC_DEFAULT = 0,			/* CU_GET_PROC_ADDRESS_DEFAULT */
	/* the ABI we ask cuGetProcAddress for: 11.7, where the dmabuf export appeared */
	ND_CUDA_ABI = 11070,
};

#define GPU_PAGE (64u << 10)

typedef cu_result (*get_proc_fn)(const char *symbol, void **pfn, int version,
				 unsigned long long flags);

struct nd_cuda_api {
	cu_result (*init)(unsigned int flags);
	cu_result (*driver_version)(int *v);
	cu_result (*device_get)(cu_device *d, int ordinal);
	cu_result (*device_by_bus_id)(cu_device *d, const char *bus_id);
	cu_result (*device_name)(char *name, int len, cu_device d);
	cu_result (*device_attr)(int *v, int attr, cu_device d);
	cu_result (*ctx_retain)(cu_context *c, cu_device d);
	cu_result (*ctx_release)(cu_device d);
	cu_result (*ctx_set)(cu_context c);
	cu_result (*mem_alloc)(cu_ptr *p, size_t size);
	cu_result (*mem_free)(cu_ptr p);
	cu_result (*mem_alloc_host)(void **p, size_t size);
	cu_result (*mem_free_host)(void *p);
	cu_result (*htod)(cu_ptr dst, const void *src, size_t len);
	cu_result (*dtoh)(void *dst, cu_ptr src, size_t len);
	cu_result (*ptr_set_attr)(const void *value, int attr, cu_ptr p);
	cu_result (*error_string)(cu_result r, const char **s);
	/* optional: older drivers lack it, and dmabuf is then unavailable */
	cu_result (*range_handle)(void *handle, cu_ptr p, size_t size, int type,
				  unsigned long long flags);
};

struct nd_cuda {
	void *dl;
	struct nd_cuda_api api;
	cu_device dev;
	cu_context ctx;
	bool ctx_held;
	int driver;
	char name[128];
	char bdf[ND_BDF_MAX];		/* "0000:17:00.0"; "" when the driver does not say */
	bool dmabuf;
};

/* One row per entry point: where it goes and whether a run can do without it. */
static const struct {
	const char *sym;
	size_t off;
	bool optional;
} entries[] = {
#define E(sym, field, opt) { sym, offsetof(struct nd_cuda_api, field), opt }
	E("cuInit", init, false),
	E("cuDriverGetVersion", driver_version, false),
	E("cuDeviceGet", device_get, false),
	E("cuDeviceGetByPCIBusId", device_by_bus_id, false),
	E("cuDeviceGetName", device_name, false),
	E("cuDeviceGetAttribute", device_attr, false),
	E("cuDevicePrimaryCtxRetain", ctx_retain, false),
	E("cuDevicePrimaryCtxRelease", ctx_release, false),
	E("cuCtxSetCurrent", ctx_set, false),
	E("cuMemAlloc", mem_alloc, false),
	E("cuMemFree", mem_free, false),
	E("cuMemAllocHost", mem_alloc_host, false),
	E("cuMemFreeHost", mem_free_host, false),
	E("cuMemcpyHtoD", htod, false),
	E("cuMemcpyDtoH", dtoh, false),
	E("cuPointerSetAttribute", ptr_set_attr, false),
	E("cuGetErrorString", error_string, false),
	E("cuMemGetHandleForAddressRange", range_handle, true),
#undef E
};

static const char *cu_str(const struct nd_cuda *c, cu_result r)
{
	const char *s = NULL;

	if (c && c->api.error_string && c->api.error_string(r, &s) == CU_SUCCESS && s)
		return s;
	return "unknown CUDA error";
}

static int resolve(struct nd_cuda *c, const char *lib, struct nd_err *e)
{
	get_proc_fn get;
	void *fn;
	size_t i;

	*(void **)&get = dlsym(c->dl, "cuGetProcAddress");
	if (!get)
		return nd_err_set(e, -ENOENT, "%s has no cuGetProcAddress: the GPU driver is older "
				  "than CUDA 11.3; update it", lib);
	for (i = 0; i < ND_ARRAY_SIZE(entries); i++) {
		fn = NULL;
		if (get(entries[i].sym, &fn, ND_CUDA_ABI, CU_PROC_DEFAULT) != CU_SUCCESS || !fn) {
			if (entries[i].optional)
				continue;
			return nd_err_set(e, -ENOENT, "%s lacks %s: update the GPU driver", lib,
					  entries[i].sym);
		}
		memcpy((char *)&c->api + entries[i].off, &fn, sizeof(fn));
	}
	return 0;
}

static int pick_device(struct nd_cuda *c, const struct nd_mem_spec *spec, struct nd_err *e)
{
	cu_result r;
	int v = 0, dom, bus, slot;

	if (spec->gpu >= 0)
		r = c->api.device_get(&c->dev, spec->gpu);
	else
		r = c->api.device_by_bus_id(&c->dev, spec->gpu_bus_id);
	if (r != CU_SUCCESS) {
		if (spec->gpu >= 0)
			return nd_err_set(e, -ENODEV, "no CUDA device %d: %s (nvidia-smi -L lists "
					  "them)", spec->gpu, cu_str(c, r));
		return nd_err_set(e, -ENODEV, "no CUDA device at PCI %s: %s (nvidia-smi "
				  "--query-gpu=pci.bus_id --format=csv lists them)",
				  spec->gpu_bus_id, cu_str(c, r));
	}
	if (c->api.device_name(c->name, (int)sizeof(c->name), c->dev) != CU_SUCCESS)
		snprintf(c->name, sizeof(c->name), "GPU");
	/* the GPU's PCI address, for the datapath model: its link and its path to the NIC */
	if (c->api.device_attr(&dom, CU_ATTR_PCI_DOMAIN_ID, c->dev) == CU_SUCCESS &&
	    c->api.device_attr(&bus, CU_ATTR_PCI_BUS_ID, c->dev) == CU_SUCCESS &&
	    c->api.device_attr(&slot, CU_ATTR_PCI_DEVICE_ID, c->dev) == CU_SUCCESS)
		snprintf(c->bdf, sizeof(c->bdf), "%04x:%02x:%02x.0", (unsigned int)dom & 0xffff,
			 (unsigned int)bus & 0xff, (unsigned int)slot & 0x1f);
	c->dmabuf = c->api.range_handle &&
		    c->api.device_attr(&v, CU_ATTR_DMA_BUF_SUPPORTED, c->dev) == CU_SUCCESS && v;
	r = c->api.ctx_retain(&c->ctx, c->dev);
	if (r == CU_SUCCESS) {
		c->ctx_held = true;
		r = c->api.ctx_set(c->ctx);
	}
	if (r != CU_SUCCESS)
		return nd_err_set(e, -EIO, "cannot make a context on %s: %s", c->name,
				  cu_str(c, r));
	return 0;
}

int nd_cuda_open(const struct nd_mem_spec *spec, struct nd_cuda **cp, struct nd_err *e)
{
	const char *lib = getenv("NODROP_LIBCUDA");
	struct nd_cuda *c;
	cu_result r;
	int ret;

	if (!lib || !*lib)
		lib = "libcuda.so.1";
	c = calloc(1, sizeof(*c));
	if (!c)
		return nd_err_set(e, -ENOMEM, "out of memory");
	c->dl = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!c->dl) {
		free(c);
		return nd_err_set(e, -ENOENT, "GPU memory needs the NVIDIA driver's %s, which "
				  "cannot be loaded here (%s): install the driver, or use "
				  "--mem host", lib, dlerror());
	}
	ret = resolve(c, lib, e);
	if (!ret) {
		r = c->api.init(0);
		if (r != CU_SUCCESS)
			ret = nd_err_set(e, r == CU_ERROR_NO_DEVICE ? -ENODEV : -EIO,
					 "cuInit failed: %s%s", cu_str(c, r),
					 r == CU_ERROR_NO_DEVICE ? " (the driver sees no GPU)" :
					 "");
	}
	if (!ret) {
		c->api.driver_version(&c->driver);
		ret = pick_device(c, spec, e);
	}
	if (ret) {
		nd_cuda_close(c);
		return ret;
	}
	*cp = c;
	return 0;
}

void nd_cuda_close(struct nd_cuda *c)
{
	if (!c)
		return;
	if (c->ctx_held)
		c->api.ctx_release(c->dev);
	/* the driver keeps threads and handlers of its own: never dlclose it */
	free(c);
}

const char *nd_cuda_bdf(const struct nd_cuda *c)
{
	return c->bdf;
}

const char *nd_cuda_name(const struct nd_cuda *c)
{
	return c->name;
}

bool nd_cuda_dmabuf_supported(const struct nd_cuda *c)
{
	return c->dmabuf;
}

int nd_cuda_alloc(struct nd_cuda *c, size_t size, uint64_t *dptr, size_t *alloc_size,
		  struct nd_err *e)
{
	unsigned int one = 1;
	cu_ptr p = 0;
	cu_result r;

	size = (size + GPU_PAGE - 1) & ~(size_t)(GPU_PAGE - 1);
	r = c->api.mem_alloc(&p, size);
	if (r != CU_SUCCESS)
		return nd_err_set(e, -ENOMEM, "cannot allocate %zu MiB on %s: %s", size >> 20,
				  c->name, cu_str(c, r));
	/* copies by the CPU and DMA by the NIC see the same bytes in order (as GPUDirect wants) */
	c->api.ptr_set_attr(&one, CU_POINTER_ATTR_SYNC_MEMOPS, p);
	*dptr = p;
	*alloc_size = size;
	return 0;
}

void nd_cuda_free(struct nd_cuda *c, uint64_t dptr)
{
	if (dptr)
		c->api.mem_free(dptr);
}

int nd_cuda_alloc_host(struct nd_cuda *c, size_t size, void **p, struct nd_err *e)
{
	cu_result r = c->api.mem_alloc_host(p, size);

	if (r != CU_SUCCESS)
		return nd_err_set(e, -ENOMEM, "cannot allocate %zu MiB of pinned host memory: %s",
				  size >> 20, cu_str(c, r));
	return 0;
}

void nd_cuda_free_host(struct nd_cuda *c, void *p)
{
	if (p)
		c->api.mem_free_host(p);
}

int nd_cuda_dmabuf_fd(struct nd_cuda *c, uint64_t dptr, size_t size, int *fd, struct nd_err *e)
{
	cu_result r;

	if (!c->dmabuf)
		return nd_err_set(e, -EOPNOTSUPP, "%s cannot export dmabufs (driver %d.%d): it "
				  "needs CUDA 11.7+ and the open GPU kernel modules 515+", c->name,
				  c->driver / 1000, c->driver % 1000 / 10);
	*fd = -1;
	r = c->api.range_handle(fd, dptr, size, CU_RANGE_HANDLE_DMA_BUF_FD, 0);
	if (r != CU_SUCCESS || *fd < 0)
		return nd_err_set(e, -EIO, "cuMemGetHandleForAddressRange on %s failed: %s",
				  c->name, cu_str(c, r));
	return 0;
}

int nd_cuda_htod(struct nd_cuda *c, uint64_t dptr, const void *src, size_t len)
{
	return c->api.htod(dptr, src, len) == CU_SUCCESS ? 0 : -EIO;
}

int nd_cuda_dtoh(struct nd_cuda *c, void *dst, uint64_t dptr, size_t len)
{
	return c->api.dtoh(dst, dptr, len) == CU_SUCCESS ? 0 : -EIO;
}
