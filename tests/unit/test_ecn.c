// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* ECN / DCQCN backends on fixture trees: detection, reads, and writes to a copy of a fixture. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "unit.h"

#define BDF "0000:3b:00.0"
#define OFED "/sys/class/net/eth2/ecn/"
#define CC "/sys/kernel/debug/mlx5/" BDF "/cc_params/"

static char tmp_root[64];	/* /tmp/nd-ecn-XXXXXX */

static void use_root(const char *path)
{
	setenv("NODROP_SYSROOT", path, 1);
	nd_sysroot_reset();
}

static void use_fixture(const char *name)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", unit_fixtures(), name);
	use_root(path);
}

/* Writes go to a copy: the committed fixtures never change. */
static void use_copy(const char *name)
{
	char cmd[PATH_MAX * 2 + 32];

	snprintf(tmp_root, sizeof(tmp_root), "/tmp/nd-ecn-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmp_root));
	snprintf(cmd, sizeof(cmd), "cp -R '%s/%s/.' '%s'", unit_fixtures(), name, tmp_root);
	ck_assert_int_eq(system(cmd), 0);
	use_root(tmp_root);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 16];

	if (tmp_root[0]) {
		snprintf(cmd, sizeof(cmd), "chmod -R u+rwx '%s'; rm -rf '%s'", tmp_root, tmp_root);
		ck_assert_int_eq(system(cmd), 0);
		tmp_root[0] = '\0';
	}
	unsetenv("NODROP_SYSROOT");
	nd_sysroot_reset();
}

/* Contents of a file in the current root. */
static const char *slurp(const char *path)
{
	static char buf[64];

	ck_assert_int_ge(nd_sys_read(buf, sizeof(buf), "%s", path), 0);
	return buf;
}

/* Overwrite a file in the copy with @text, as a broken driver might show it. */
static void put(const char *path, const char *text)
{
	ck_assert_int_eq(nd_sys_write(text, "%s", path), 0);
}

static uint32_t param(const struct nd_ecn *ecn, const char *name)
{
	uint32_t v = 0xdead;

	ck_assert_msg(nd_ecn_param_get(ecn, name, &v) == 0, "%s missing", name);
	return v;
}

START_TEST(names)
{
	ck_assert(nd_ecn_param_known("rp_time_reset"));
	ck_assert(nd_ecn_param_known("np_cnp_prio"));
	ck_assert(nd_ecn_param_known("np_cnp_prio_mode"));
	ck_assert(nd_ecn_param_known("rtt_resp_dscp_valid"));
	ck_assert(nd_ecn_param_known("rp_clamp_tgt_rate_ati"));
	/* MLNX_OFED file names are not canonical names */
	ck_assert(!nd_ecn_param_known("rpg_time_reset"));
	ck_assert(!nd_ecn_param_known("cnp_802p_prio"));
	ck_assert(!nd_ecn_param_known(""));
	ck_assert(!nd_ecn_param_known(NULL));
	ck_assert_str_eq(nd_ecn_backend_name(ND_ECN_NONE), "none");
	ck_assert_str_eq(nd_ecn_backend_name(ND_ECN_MLNX_SYSFS), "mlnx-sysfs");
	ck_assert_str_eq(nd_ecn_backend_name(ND_ECN_MLX5_DEBUGFS), "mlx5-debugfs");
	ck_assert_str_eq(nd_ecn_backend_name((enum nd_ecn_backend)7), "unknown");
}
END_TEST

START_TEST(read_ofed)
{
	struct nd_err e = { 0 };
	struct nd_ecn ecn;
	uint32_t v;

	use_fixture("ecn-ofed");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_MLNX_SYSFS);
	ck_assert_str_eq(ecn.note, "");
	ck_assert(ecn.have_enable);
	ck_assert_uint_eq(ecn.np_en, 0x28);	/* priorities 3 and 5 */
	ck_assert_uint_eq(ecn.rp_en, 0x08);
	/* 16 reaction point files, 3 notification point files, under their canonical names */
	ck_assert_uint_eq(ecn.n_params, 19);
	ck_assert_str_eq(ecn.params[0].name, "rp_clamp_tgt_rate");
	ck_assert_uint_eq(param(&ecn, "rp_time_reset"), 300);
	ck_assert_uint_eq(param(&ecn, "rp_byte_reset"), 32767);
	ck_assert_uint_eq(param(&ecn, "rp_ai_rate"), 5);
	ck_assert_uint_eq(param(&ecn, "rp_hai_rate"), 50);
	ck_assert_uint_eq(param(&ecn, "rp_min_dec_fac"), 50);
	ck_assert_uint_eq(param(&ecn, "rp_initial_alpha_value"), 1023);
	ck_assert_uint_eq(param(&ecn, "rp_dce_tcp_g"), 1019);
	ck_assert_uint_eq(param(&ecn, "rp_clamp_tgt_rate_ati"), 1);
	ck_assert_uint_eq(param(&ecn, "np_min_time_between_cnps"), 4);
	ck_assert_uint_eq(param(&ecn, "np_cnp_dscp"), 48);
	ck_assert_uint_eq(param(&ecn, "np_cnp_prio"), 6);
	/* upstream-only parameters are absent, not zero */
	ck_assert_int_eq(nd_ecn_param_get(&ecn, "np_cnp_prio_mode", &v), -ENOENT);
	ck_assert_int_eq(nd_ecn_param_get(&ecn, "rtt_resp_dscp", &v), -ENOENT);
}
END_TEST

START_TEST(read_upstream)
{
	struct nd_err e = { 0 };
	struct nd_ecn ecn;
	uint32_t v;

	use_fixture("ecn-upstream");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_MLX5_DEBUGFS);
	ck_assert(!ecn.have_enable);
	ck_assert_uint_eq(ecn.np_en | ecn.rp_en, 0);
	ck_assert_str_eq(ecn.note, "upstream mlx5 has no per-priority ECN enable; firmware "
			 "ROCE_CC_PRIO_MASK, set by mlxconfig, picks the priorities");
	/* the fixture is a kernel without the rtt_resp_dscp files: skipped, not an error */
	ck_assert_uint_eq(ecn.n_params, 20);
	ck_assert_uint_eq(param(&ecn, "rp_time_reset"), 300);
	ck_assert_uint_eq(param(&ecn, "np_cnp_prio_mode"), 0);
	ck_assert_uint_eq(param(&ecn, "np_cnp_prio"), 6);
	ck_assert_uint_eq(param(&ecn, "np_cnp_dscp"), 48);
	ck_assert_int_eq(nd_ecn_param_get(&ecn, "rtt_resp_dscp_valid", &v), -ENOENT);
	/* another PCI function of the same host has no cc_params */
	ck_assert_int_eq(nd_ecn_read("eth2", "0000:3b:00.1", &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_NONE);
}
END_TEST

START_TEST(read_none)
{
	struct nd_err e = { 0 };
	struct nd_ecn ecn;

	use_fixture("ecn-none");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_NONE);
	ck_assert_str_eq(ecn.note, "no MLNX_OFED ecn sysfs, no mlx5 debugfs cc_params");
	ck_assert_uint_eq(ecn.n_params, 0);
	ck_assert(!ecn.have_enable);
	/* a virtual netdev has no bus address at all */
	ck_assert_int_eq(nd_ecn_read("eth2", "", &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_NONE);
	ck_assert_int_eq(nd_ecn_read("eth2", NULL, &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_NONE);
	ck_assert_int_eq(e.code, 0);
}
END_TEST

START_TEST(read_bad_value)
{
	struct nd_err e = { 0 };
	struct nd_ecn ecn;

	use_copy("ecn-ofed");
	put(OFED "roce_rp/rpg_ai_rate", "fast\n");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "eth2: ECN setting /sys/class/net/eth2/ecn/roce_rp/rpg_ai_rate "
			 "holds 'fast', not a number");
	put(OFED "roce_rp/rpg_ai_rate", "4294967296");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), -EINVAL);
	put(OFED "roce_rp/rpg_ai_rate", "-1");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), -EINVAL);
	put(OFED "roce_rp/rpg_ai_rate", "5");
	put(OFED "roce_np/enable/3", "2");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "eth2: ECN setting /sys/class/net/eth2/ecn/roce_np/enable/3 "
			 "holds 2, not 0 or 1");
}
END_TEST

START_TEST(read_unreadable_and_absent)
{
	char path[PATH_MAX];
	struct nd_err e = { 0 };
	struct nd_ecn ecn;

	use_copy("ecn-ofed");
	/* a file that is there but cannot be read fails the read, naming the file */
	snprintf(path, sizeof(path), "%s" OFED "roce_rp/rpg_gd", tmp_root);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), -EISDIR);
	ck_assert_str_eq(e.msg, "eth2: cannot read ECN setting /sys/class/net/eth2/ecn/roce_rp/"
			 "rpg_gd: Is a directory");
	/* an absent one is skipped: drivers differ in what they have */
	ck_assert_int_eq(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s" OFED "roce_rp/enable/7", tmp_root);
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_uint_eq(ecn.n_params, 18);
	ck_assert(ecn.have_enable);
}
END_TEST

START_TEST(read_not_root)
{
	char path[PATH_MAX];
	struct nd_err e = { 0 };
	struct nd_ecn ecn;

	/* root reads through mode 0: the case exists only for a reader without privileges */
	if (geteuid() == 0)
		return;
	use_copy("ecn-upstream");
	snprintf(path, sizeof(path), "%s/sys/kernel/debug", tmp_root);
	ck_assert_int_eq(chmod(path, 0), 0);
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_NONE);
	ck_assert_str_eq(ecn.note, "DCQCN parameters are in debugfs, readable by root only");
	/* the directory open, a file closed (as cc_params files are, 0600 root) */
	ck_assert_int_eq(chmod(path, 0755), 0);
	snprintf(path, sizeof(path), "%s" CC "rp_gd", tmp_root);
	ck_assert_int_eq(chmod(path, 0), 0);
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_int_eq(ecn.backend, ND_ECN_MLX5_DEBUGFS);
	ck_assert_uint_eq(ecn.n_params, 0);
	ck_assert_str_eq(ecn.note, "DCQCN parameters are in debugfs, readable by root only");
	ck_assert_int_eq(e.code, 0);
	teardown();
	/* an MLNX_OFED file the reader may not open names the file and the fix */
	use_copy("ecn-ofed");
	snprintf(path, sizeof(path), "%s" OFED "roce_rp/rpg_gd", tmp_root);
	ck_assert_int_eq(chmod(path, 0), 0);
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), -EACCES);
	ck_assert_str_eq(e.msg, "eth2: cannot read ECN setting /sys/class/net/eth2/ecn/roce_rp/"
			 "rpg_gd: Permission denied; run as root");
}
END_TEST

START_TEST(write_value)
{
	use_copy("ecn-ofed");
	/* one write replaces the whole value, however long the old one was */
	ck_assert_int_eq(nd_sys_write("7", OFED "roce_rp/%s", "rpg_byte_reset"), 0);
	ck_assert_str_eq(slurp(OFED "roce_rp/rpg_byte_reset"), "7");
	/* never creates: an absent attribute is ENOENT */
	ck_assert_int_eq(nd_sys_write("1", OFED "roce_rp/no_such"), -ENOENT);
	ck_assert(!nd_sys_exists(OFED "roce_rp/no_such"));
	ck_assert_int_eq(nd_sys_write("1", "/sys/class/net/%s/mtu", "../../.."), -EINVAL);
	ck_assert_int_eq(nd_sys_write("1", OFED "roce_rp"), -EISDIR);
}
END_TEST

START_TEST(set_param_ofed)
{
	struct nd_err e = { 0 };
	struct nd_ecn ecn;

	use_copy("ecn-ofed");
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLNX_SYSFS, "rp_ai_rate", 10, &e), 0);
	ck_assert_str_eq(slurp(OFED "roce_rp/rpg_ai_rate"), "10");
	/* canonical names reach the driver's own files */
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLNX_SYSFS, "np_cnp_prio", 7, &e), 0);
	ck_assert_str_eq(slurp(OFED "roce_np/cnp_802p_prio"), "7");
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLNX_SYSFS, "rp_clamp_tgt_rate_ati",
					  0, &e), 0);
	ck_assert_str_eq(slurp(OFED "roce_rp/clamp_tgt_rate_after_time_inc"), "0");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_uint_eq(param(&ecn, "rp_ai_rate"), 10);
	ck_assert_uint_eq(param(&ecn, "np_cnp_prio"), 7);
}
END_TEST

START_TEST(set_param_upstream)
{
	struct nd_err e = { 0 };

	use_copy("ecn-upstream");
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLX5_DEBUGFS, "np_cnp_prio_mode", 1,
					  &e), 0);
	ck_assert_str_eq(slurp(CC "np_cnp_prio_mode"), "1");
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLX5_DEBUGFS, "rp_time_reset",
					  4294967295u, &e), 0);
	ck_assert_str_eq(slurp(CC "rp_time_reset"), "4294967295");
	/* a file this kernel does not have */
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLX5_DEBUGFS, "rtt_resp_dscp", 1, &e),
			 -ENOENT);
	ck_assert_str_eq(e.msg, "eth2: cannot set DCQCN parameter rtt_resp_dscp to 1 in "
			 "/sys/kernel/debug/mlx5/0000:3b:00.0/cc_params/rtt_resp_dscp: No such "
			 "file or directory; this driver has no such parameter");
}
END_TEST

START_TEST(set_param_refused)
{
	struct nd_err e = { 0 };

	use_copy("ecn-ofed");
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLNX_SYSFS, "rpg_ai_rate", 1, &e),
			 -EINVAL);
	ck_assert_str_eq(e.msg, "eth2: cannot set DCQCN parameter 'rpg_ai_rate': no such "
			 "parameter; use an upstream mlx5 cc_params name such as rp_ai_rate");
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLNX_SYSFS, "np_cnp_prio_mode", 1,
					  &e), -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "eth2: cannot set DCQCN parameter np_cnp_prio_mode: mlnx-sysfs "
			 "has no such file; leave it out of the profile for this port");
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_NONE, "rp_ai_rate", 1, &e),
			 -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "eth2: cannot set DCQCN parameter rp_ai_rate: the driver offers "
			 "no interface for it (no MLNX_OFED ecn sysfs, no mlx5 debugfs cc_params); "
			 "set it in the NIC firmware instead");
	/* the caller's backend is not what the port has: the file is not there */
	ck_assert_int_eq(nd_ecn_set_param("eth2", BDF, ND_ECN_MLX5_DEBUGFS, "rp_ai_rate", 1, &e),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "this driver has no such parameter"));
	ck_assert_str_eq(slurp(OFED "roce_rp/rpg_ai_rate"), "5");
}
END_TEST

START_TEST(set_enable)
{
	struct nd_err e = { 0 };
	struct nd_ecn ecn;

	use_copy("ecn-ofed");
	ck_assert_int_eq(nd_ecn_set_enable("eth2", BDF, ND_ECN_MLNX_SYSFS, true, 4, true, &e), 0);
	ck_assert_str_eq(slurp(OFED "roce_np/enable/4"), "1");
	ck_assert_int_eq(nd_ecn_set_enable("eth2", BDF, ND_ECN_MLNX_SYSFS, false, 3, false, &e), 0);
	ck_assert_str_eq(slurp(OFED "roce_rp/enable/3"), "0");
	ck_assert_int_eq(nd_ecn_read("eth2", BDF, &ecn, &e), 0);
	ck_assert_uint_eq(ecn.np_en, 0x38);
	ck_assert_uint_eq(ecn.rp_en, 0);
	ck_assert_int_eq(nd_ecn_set_enable("eth2", BDF, ND_ECN_MLNX_SYSFS, true, 8, true, &e),
			 -EINVAL);
	ck_assert_str_eq(e.msg, "eth2: cannot switch ECN notification point on priority 8: "
			 "priorities are 0-7");
	ck_assert_int_eq(nd_ecn_set_enable("eth2", BDF, ND_ECN_MLX5_DEBUGFS, false, 3, true, &e),
			 -EOPNOTSUPP);
	ck_assert_str_eq(e.msg, "eth2: cannot switch ECN reaction point on priority 3: upstream "
			 "mlx5 has no per-priority ECN enable; the firmware's ROCE_CC_PRIO_MASK "
			 "(mlxconfig) picks the priorities");
	ck_assert_int_eq(nd_ecn_set_enable("eth2", BDF, ND_ECN_NONE, false, 3, true, &e),
			 -EOPNOTSUPP);
	ck_assert_int_eq(nd_ecn_set_enable("eth9", BDF, ND_ECN_MLNX_SYSFS, false, 3, true, &e),
			 -ENOENT);
	ck_assert_str_eq(e.msg, "eth9: cannot set the ECN reaction point enable of priority 3 to "
			 "1 in /sys/class/net/eth9/ecn/roce_rp/enable/3: No such file or "
			 "directory; this driver has no such parameter");
}
END_TEST

Suite *suite_ecn(void)
{
	Suite *s = suite_create("ecn");
	TCase *tc = tcase_create("backends");

	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, names);
	tcase_add_test(tc, read_ofed);
	tcase_add_test(tc, read_upstream);
	tcase_add_test(tc, read_none);
	tcase_add_test(tc, read_bad_value);
	tcase_add_test(tc, read_unreadable_and_absent);
	tcase_add_test(tc, read_not_root);
	tcase_add_test(tc, write_value);
	tcase_add_test(tc, set_param_ofed);
	tcase_add_test(tc, set_param_upstream);
	tcase_add_test(tc, set_param_refused);
	tcase_add_test(tc, set_enable);
	suite_add_tcase(s, tc);
	return s;
}
