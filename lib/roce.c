// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rdma_cm defaults for RoCE: configfs rdma_cm/<ibdev>/ports/<n>/default_roce_{tos,mode}.
 * The group exists only once someone created it (mkdir); until then the kernel's defaults hold
 * (ToS 0, RoCE v2 where the port supports it), and reading must not create it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
