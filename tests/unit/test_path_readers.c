// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * What nodrop path reads: the job (env files with their errors, NCCL's conf files, /proc/PID)
 * and the GID table from sysfs.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_path.h"
#include "unit.h"

static char *tmpfile_with(const char *text)
{
	static char path[64];
	FILE *f;
	int fd;

	snprintf(path, sizeof(path), "/tmp/nd-path-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

START_TEST(env_files)
{
	struct nd_job job;
	struct nd_err e = { 0 };
	const char *origin;
	char *path, conf[64], want[128];

	path = tmpfile_with("# a job script's exports\n\nexport NCCL_IB_TC=106\n"
			    "NCCL_IB_HCA='=mlx5_0,mlx5_1'\n  UCX_NET_DEVICES=\"mlx5_0:1\"\r\n"
			    "NCCL_IB_TC=98\n");
	ck_assert_int_eq(nd_job_from_file(&job, path, &e), 0);
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_TC", &origin), "98");
	snprintf(want, sizeof(want), "%s:6", path);
	ck_assert_str_eq(origin, want);
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_HCA", NULL), "=mlx5_0,mlx5_1");
	ck_assert_str_eq(nd_job_get(&job, "UCX_NET_DEVICES", NULL), "mlx5_0:1");
	ck_assert_ptr_null(nd_job_get(&job, "NCCL_IB_SL", NULL));
	/* NCCL's conf file fills in what the job leaves unset, never over it */
	snprintf(conf, sizeof(conf), "%s", tmpfile_with("NCCL_IB_TC=0\nNCCL_IB_SL=3\n"));
	ck_assert_int_eq(nd_job_read_nccl_conf(&job, conf, &e), 0);
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_TC", NULL), "98");
	ck_assert_str_eq(nd_job_get(&job, "NCCL_IB_SL", &origin), "3");
	snprintf(want, sizeof(want), "%s:2", conf);
	ck_assert_str_eq(origin, want);
	nd_job_free(&job);
	unlink(conf);
	unlink(path);

	/* bad lines are named by file, line and column */
	path = tmpfile_with("NCCL_IB_TC=106\n  9LIVES=1\n");
	ck_assert_int_eq(nd_job_from_file(&job, path, &e), -EINVAL);
	snprintf(want, sizeof(want), "%s:2:3: expected NAME=VALUE", path);
	ck_assert_msg(strstr(e.msg, want), "%s", e.msg);
	unlink(path);
	path = tmpfile_with("NCCL_IB_TC=\"106\n");
	ck_assert_int_eq(nd_job_from_file(&job, path, &e), -EINVAL);
	snprintf(want, sizeof(want), "%s:1:12: the quote", path);
	ck_assert_msg(strstr(e.msg, want), "%s", e.msg);
	unlink(path);
	ck_assert_int_eq(nd_job_from_file(&job, "/nonexistent/job.env", &e), -ENOENT);
	ck_assert_msg(strstr(e.msg, "/nonexistent/job.env: cannot read it"), "%s", e.msg);
}
END_TEST

START_TEST(from_pid)
{
	struct nd_job job;
	struct nd_err e = { 0 };
	char want[64];

	unit_no_root();
	setenv("NCCL_IB_TC", "106", 1);
	ck_assert_int_eq(nd_job_from_pid(&job, getpid(), &e), 0);
	/* /proc/PID/environ is the environment the process started with */
	snprintf(want, sizeof(want), "pid %d (", (int)getpid());
	ck_assert_ptr_nonnull(strstr(job.source, want));
	ck_assert_str_eq(job.root + strlen(job.root) - 5, "/root");
	nd_job_free(&job);
	unsetenv("NCCL_IB_TC");
	ck_assert_int_eq(nd_job_from_pid(&job, 999999999, &e), -ESRCH);
	ck_assert_msg(strstr(e.msg, "no such process"), "%s", e.msg);
}
END_TEST

static void put_file(const char *root, const char *path, const char *text)
{
	char full[512], cmd[600];
	FILE *f;

	snprintf(full, sizeof(full), "%s%s", root, path);
	snprintf(cmd, sizeof(cmd), "mkdir -p \"$(dirname '%s')\"", full);
	ck_assert_int_eq(system(cmd), 0);
	f = fopen(full, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

START_TEST(gid_table)
{
	char root[] = "/tmp/nd-gids-XXXXXX", cmd[128];
	const char *d = "/sys/class/infiniband/rxe0/ports/1";
	struct nd_gid *g;
	struct nd_err e = { 0 };
	char p[200];
	size_t n;

	ck_assert_ptr_nonnull(mkdtemp(root));
	snprintf(p, sizeof(p), "%s/gids/0", d);
	put_file(root, p, "fe80:0000:0000:0000:5054:00ff:fe12:3456\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/types/0", d);
	put_file(root, p, "IB/RoCE v1\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/ndevs/0", d);
	put_file(root, p, "eth0\n");
	snprintf(p, sizeof(p), "%s/gids/1", d);
	put_file(root, p, "0000:0000:0000:0000:0000:0000:0000:0000\n");
	snprintf(p, sizeof(p), "%s/gids/2", d);
	put_file(root, p, "0000:0000:0000:0000:0000:ffff:c612:6401\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/types/2", d);
	put_file(root, p, "RoCE v2\n");
	snprintf(p, sizeof(p), "%s/gid_attrs/ndevs/2", d);
	put_file(root, p, "eth0.100\n");
	put_file(root, "/proc/net/vlan/eth0.100", "eth0.100  VID: 100\t REORDER_HDR: 1  "
		 "dev->priv_flags: 1021\n         total frames received            0\n"
		 "Device: eth0\nINGRESS priority mappings: 0:0  1:0  2:0  3:0  4:0  5:0  6:0 7:0\n"
		 " EGRESS priority mappings: 2:3 6:6 \n");
	setenv("NODROP_SYSROOT", root, 1);
	nd_sysroot_reset();
	ck_assert_int_eq(nd_gids_read("rxe0", 1, &g, &n, &e), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_int_eq(g[0].type, ND_GID_ROCE_V1);
	ck_assert(!g[0].ipv4);
	ck_assert_str_eq(g[0].ndev, "eth0");
	ck_assert_int_eq(g[0].vlan, -1);
	ck_assert_int_eq(g[1].type, ND_GID_EMPTY);
	ck_assert_int_eq(g[2].type, ND_GID_ROCE_V2);
	ck_assert(g[2].ipv4);
	ck_assert_str_eq(g[2].addr, "198.18.100.1");
	ck_assert_int_eq(g[2].vlan, 100);
	ck_assert_str_eq(g[2].lower, "eth0");
	ck_assert_int_eq(g[2].egress_qos[2], 3);
	ck_assert_int_eq(g[2].egress_qos[6], 6);
	ck_assert_int_eq(g[2].egress_qos[0], -1);
	free(g);
	ck_assert_int_eq(nd_gids_read("mlx5_9", 1, &g, &n, &e), -ENOENT);
	ck_assert_msg(strstr(e.msg, "mlx5_9/1: cannot read its GID table"), "%s", e.msg);
	unit_no_root();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

TCase *tcase_path_readers(void)
{
	TCase *tc = tcase_create("readers");

	tcase_add_test(tc, env_files);
	tcase_add_test(tc, from_pid);
	tcase_add_test(tc, gid_table);
	return tc;
}
