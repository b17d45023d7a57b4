// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm defaults for RoCE: configfs rdma_cm/<ibdev>/ports/<n>/default_roce_{tos,mode}.
 * The group exists only once someone created it (mkdir); until then the kernel's defaults hold
 * (ToS 0, RoCE v2 where the port supports it), and reading must not create it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "internal.h"

#define CFS "/sys/kernel/config/rdma_cm/%s/ports/%u/"

int nd_roce_read(const char *ibdev, unsigned int port, struct nd_roce *roce, struct nd_err *e)
{
	char buf[32], *end;
	long tos;
	int ret;

	memset(roce, 0, sizeof(*roce));
	snprintf(roce->mode, sizeof(roce->mode), "RoCE v2");
	ret = nd_sys_read(buf, sizeof(buf), CFS "default_roce_tos", ibdev, port);
	if (ret == -ENOENT)
		return 0;
	if (ret < 0)
		return nd_err_set(e, ret, "%s/%u: cannot read rdma_cm default_roce_tos: %s", ibdev,
				  port, strerror(-ret));
	tos = strtol(buf, &end, 0);
	if (*end || tos < 0 || tos > 255)
		return nd_err_set(e, -EINVAL, "%s/%u: rdma_cm default_roce_tos is '%s', not a ToS byte",
				  ibdev, port, buf);
	roce->tos = (int)tos;
	ret = nd_sys_read(roce->mode, sizeof(roce->mode), CFS "default_roce_mode", ibdev, port);
	if (ret < 0)
		return nd_err_set(e, ret, "%s/%u: cannot read rdma_cm default_roce_mode: %s", ibdev,
				  port, strerror(-ret));
	roce->configured = true;
	return 0;
}

static int group_path(char *buf, size_t len, const char *ibdev)
{
	return nd_sys_path(buf, len, "/sys/kernel/config/rdma_cm/%s", ibdev);
}

static int configfs_error(int err, const char *ibdev, const char *what, struct nd_err *e)
{
	if (err == -EACCES || err == -EPERM)
		return nd_err_set(e, err, "%s: rdma_cm configfs %s: %s; run as root", ibdev, what,
				  strerror(-err));
	if (err == -ENOENT)
		return nd_err_set(e, err, "%s: rdma_cm configfs %s: %s; mount configfs on "
				  "/sys/kernel/config and load rdma_cm (modprobe rdma_cm)", ibdev,
				  what, strerror(-err));
	return nd_err_set(e, err, "%s: rdma_cm configfs %s: %s", ibdev, what, strerror(-err));
}

int nd_roce_write(const char *ibdev, unsigned int port, uint8_t tos, const char *mode,
		  struct nd_err *e)
{
	char path[PATH_MAX], val[8];
	int ret;

	ret = group_path(path, sizeof(path), ibdev);
	if (ret)
		return configfs_error(ret, ibdev, "path", e);
	/* creating the group is how rdma_cm exposes a device's defaults at all */
	if (mkdir(path, 0755) && errno != EEXIST)
		return configfs_error(-errno, ibdev, "mkdir", e);
	snprintf(val, sizeof(val), "%u", tos);
	ret = nd_sys_write(val, CFS "default_roce_tos", ibdev, port);
	if (ret)
		return configfs_error(ret, ibdev, "default_roce_tos", e);
	ret = nd_sys_write(mode, CFS "default_roce_mode", ibdev, port);
	if (ret == -EINVAL)
		return nd_err_set(e, ret, "%s/%u: rdma_cm refused RoCE mode '%s': the device does "
				  "not support it", ibdev, port, mode);
	if (ret)
		return configfs_error(ret, ibdev, "default_roce_mode", e);
	return 0;
}

int nd_roce_reset(const char *ibdev, struct nd_err *e)
{
	char path[PATH_MAX];
	int ret;

	ret = group_path(path, sizeof(path), ibdev);
	if (ret)
		return configfs_error(ret, ibdev, "path", e);
	if (rmdir(path) && errno != ENOENT)
		return configfs_error(-errno, ibdev, "rmdir", e);
	return 0;
}

/* The largest RoCE path MTU whose packets fit a netdev MTU (RoCE headers included). */
unsigned int nd_roce_mtu_for(unsigned int netdev_mtu)
{
	unsigned int mtu;

	for (mtu = 4096; mtu >= 256; mtu /= 2)
		if (netdev_mtu >= mtu + ND_ROCE_HDR_BYTES)
			return mtu;
	return 0;
}
