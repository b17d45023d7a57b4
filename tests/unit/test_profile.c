// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Profiles: the shipped ones, every key with its location, extends, the value forms, and the
 * bad-profile corpus (tests/profiles/bad/NAME.yaml fails with exactly NAME.err).
 *
 * "Changes nothing" is structural here: the parser reads files and memory only and touches no
 * system state, so there is nothing to snapshot and compare.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/internal.h"
#include "unit.h"

static const struct nd_profile zero;

/* Relative to the repository root, where `make unit` runs; the .err files name them so. */
static const char *corpus_dir(void)
{
	const char *dir = getenv("ND_PROFILES");

	return dir && *dir ? dir : "tests/profiles";
}

static const char *shipped_dir(void)
{
	const char *dir = getenv("ND_SHIPPED_PROFILES");

	return dir && *dir ? dir : "profiles";
}

static bool is_zero(const struct nd_profile *p)
{
	return !memcmp(p, &zero, sizeof(*p));
}

static int parse(const char *yaml, struct nd_profile *p, struct nd_err *e)
{
	return nd_profile_parse(yaml, strlen(yaml), "t.yaml", NULL, p, e);
}

#define ck_assert_loc(p, f, file_, line_, col_)						\
	do {										\
		ck_assert_msg((p)->set & (1u << (f)), "%s not set", nd_field_key(f));	\
		ck_assert_str_eq((p)->loc[f].file, file_);				\
		ck_assert_uint_eq((p)->loc[f].line, line_);				\
		ck_assert_uint_eq((p)->loc[f].col, col_);				\
	} while (0)

static int yaml_file(const struct dirent *de)
{
	size_t len = strlen(de->d_name);

	return len > 5 && !strcmp(de->d_name + len - 5, ".yaml");
}

START_TEST(shipped_profiles_load)
{
	char path[PATH_MAX + NAME_MAX + 2];
	struct dirent **names;
	struct nd_profile p;
	struct nd_err e = { 0 };
	int n, i;

	n = scandir(shipped_dir(), &names, yaml_file, alphasort);
	ck_assert_int_ge(n, 3);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", shipped_dir(), names[i]->d_name);
		ck_assert_msg(nd_profile_load(path, &p, &e) == 0, "%s: %s", path, e.msg);
		/* every shipped profile names itself after its file */
		ck_assert_int_eq(strncmp(p.name, names[i]->d_name, strlen(p.name)), 0);
		ck_assert_str_eq(names[i]->d_name + strlen(p.name), ".yaml");
		nd_profile_free(&p);
		free(names[i]);
	}
	free(names);
}
END_TEST

START_TEST(shipped_roce_lossless)
{
	struct nd_profile p;
	struct nd_err e = { 0 };
	char path[PATH_MAX];
	uint32_t v;
	int d;

	snprintf(path, sizeof(path), "%s/roce-lossless.yaml", shipped_dir());
	ck_assert_msg(nd_profile_load(path, &p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.mtu, 9000);
	ck_assert_uint_eq(p.dcbx, DCB_CAP_DCBX_HOST | DCB_CAP_DCBX_VER_IEEE);
	ck_assert_int_eq(p.trust, ND_TRUST_DSCP);
	for (d = 0; d < ND_DSCP_MAX; d++)
		ck_assert_int_eq(p.dscp2prio[d], d >> 3);
	ck_assert_int_eq(p.dscp2prio[26], 3);
	ck_assert_int_eq(p.dscp2prio[48], 6);
	ck_assert_uint_eq(p.pfc_en, 1u << 3);
	ck_assert_uint_eq(p.pfc_delay, 30);
	ck_assert_uint_eq(p.prio_tc[3], 3);
	ck_assert_uint_eq(p.prio_tc[6], 6);
	ck_assert_uint_eq(p.tc_tsa[3], IEEE_8021QAZ_TSA_ETS);
	ck_assert_uint_eq(p.tc_tsa[6], IEEE_8021QAZ_TSA_STRICT);
	ck_assert_uint_gt(p.tc_bw[3], 0);
	ck_assert_uint_eq(p.ecn_np, 1u << 3);
	ck_assert_uint_eq(p.ecn_rp, 1u << 3);
	ck_assert_uint_eq(p.cnp_dscp, 48);
	ck_assert_uint_eq(p.cnp_prio, 6);
	ck_assert_uint_eq(p.roce_tos, 106);
	ck_assert_str_eq(p.roce_mode, "RoCE v2");
	ck_assert_uint_eq(p.match.n_drivers, 1);
	ck_assert_str_eq(p.match.drivers[0], "mlx5_core");
	for (d = 0; d < (int)p.n_dcqcn; d++)
		ck_assert(nd_ecn_param_known(p.dcqcn[d].name));
	ck_assert_uint_ge(p.n_dcqcn, 8);
	for (d = 0; d < (int)p.n_dcqcn && strcmp(p.dcqcn[d].name, "rp_time_reset"); d++)
		;
	v = d < (int)p.n_dcqcn ? p.dcqcn[d].value : 0;
	ck_assert_uint_eq(v, 300);
	nd_profile_free(&p);

	snprintf(path, sizeof(path), "%s/roce-ecn-only.yaml", shipped_dir());
	ck_assert_msg(nd_profile_load(path, &p, &e) == 0, "%s", e.msg);
	ck_assert(p.set & (1u << ND_F_PFC_EN));	/* [] is "PFC off", not "leave PFC alone" */
	ck_assert_uint_eq(p.pfc_en, 0);
	ck_assert_uint_eq(p.ecn_np, 1u << 3);
	ck_assert_uint_eq(p.roce_tos & 3, 2);	/* ECT(0): switches may mark it */
	nd_profile_free(&p);

	snprintf(path, sizeof(path), "%s/infiniband.yaml", shipped_dir());
	ck_assert_msg(nd_profile_load(path, &p, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(p.set, 1u << ND_F_MTU);	/* no DCB on InfiniBand */
	ck_assert_uint_eq(p.mtu, 4092);
	ck_assert_uint_eq(p.match.n_rdma, 1);
	nd_profile_free(&p);
}
END_TEST

START_TEST(every_key)
{
	struct nd_profile p;
	struct nd_err e = { 0 };
	char path[PATH_MAX], file[PATH_MAX];
	const uint8_t prio_tc[8] = { 0, 0, 0, 3, 0, 0, 6, 0 };
	const uint8_t tsa[8] = { 2, 0, 0, 2, 0, 0, 0, 0 };
	int f;

	snprintf(path, sizeof(path), "%s/good/every-key.yaml", corpus_dir());
	snprintf(file, sizeof(file), "%s", path);
	ck_assert_msg(nd_profile_load(path, &p, &e) == 0, "%s", e.msg);
	ck_assert_str_eq(p.name, "every-key");
	ck_assert_str_eq(p.origin.file, file);
	ck_assert_uint_eq(p.set, (1u << ND_F_COUNT) - 1);
	ck_assert_uint_eq(p.match.n_names, 2);
	ck_assert_str_eq(p.match.names[1], "ens1f*");
	ck_assert_uint_eq(p.match.n_drivers, 1);	/* a single string is a list of one */
	ck_assert_str_eq(p.match.pci[0], "0000:3b:00.*");
	ck_assert_str_eq(p.match.rdma[0], "mlx5_*");
	ck_assert_uint_eq(p.mtu, 9000);
	ck_assert_uint_eq(p.dcbx, DCB_CAP_DCBX_LLD_MANAGED | DCB_CAP_DCBX_VER_IEEE);
	ck_assert_int_eq(p.trust, ND_TRUST_DSCP);
	ck_assert_int_eq(p.dscp2prio[0], -1);
	ck_assert_int_eq(p.dscp2prio[26], 3);
	ck_assert_int_eq(p.dscp2prio[48], 6);
	ck_assert_int_eq(p.dscp2prio[63], -1);
	ck_assert_uint_eq(p.pfc_en, 0x18);
	ck_assert_uint_eq(p.pfc_delay, 40);
	ck_assert_mem_eq(p.prio_tc, prio_tc, 8);
	ck_assert_mem_eq(p.tc_tsa, tsa, 8);
	ck_assert_uint_eq(p.tc_bw[0], 40);
	ck_assert_uint_eq(p.tc_bw[3], 60);
	ck_assert_uint_eq(p.prio2buffer[3], 1);
	ck_assert_uint_eq(p.prio2buffer[2], 0);
	ck_assert_uint_eq(p.buffer_size[0], 131072);
	ck_assert_uint_eq(p.buffer_size[1], 1048576);
	ck_assert_uint_eq(p.buffer_size[2], 0);
	ck_assert_uint_eq(p.maxrate[0], 0);
	ck_assert_uint_eq(p.maxrate[6], 25000000);
	ck_assert_uint_eq(p.maxrate[7], 800000);
	ck_assert_uint_eq(p.ecn_np, 0x08);
	ck_assert_uint_eq(p.ecn_rp, 0x18);
	ck_assert_uint_eq(p.cnp_dscp, 46);
	ck_assert_uint_eq(p.cnp_prio, 5);
	ck_assert_uint_eq(p.n_dcqcn, 2);
	ck_assert_str_eq(p.dcqcn[1].name, "rp_ai_rate");
	ck_assert_uint_eq(p.dcqcn[1].value, 5);
	ck_assert_uint_eq(p.dcqcn_loc[1].line, 27);
	ck_assert_uint_eq(p.dcqcn_loc[1].col, 43);
	ck_assert_uint_eq(p.roce_tos, 106);
	ck_assert_str_eq(p.roce_mode, "IB/RoCE v1");
	/* the location of each value: line and column of the value, not the key */
	ck_assert_loc(&p, ND_F_MTU, file, 8, 6);
	ck_assert_loc(&p, ND_F_DCBX, file, 9, 7);
	ck_assert_loc(&p, ND_F_TRUST, file, 10, 8);
	ck_assert_loc(&p, ND_F_DSCP_MAP, file, 11, 11);
	ck_assert_loc(&p, ND_F_PFC_EN, file, 13, 15);
	ck_assert_loc(&p, ND_F_PFC_DELAY, file, 14, 17);
	ck_assert_loc(&p, ND_F_ETS_PRIO_TC, file, 16, 12);
	ck_assert_loc(&p, ND_F_ETS_TSA, file, 17, 8);
	ck_assert_loc(&p, ND_F_ETS_BW, file, 18, 14);
	ck_assert_loc(&p, ND_F_BUF_PRIO, file, 20, 16);
	ck_assert_loc(&p, ND_F_BUF_SIZE, file, 21, 9);
	ck_assert_loc(&p, ND_F_MAXRATE, file, 22, 10);
	ck_assert_loc(&p, ND_F_ECN_NP, file, 24, 7);
	ck_assert_loc(&p, ND_F_ECN_RP, file, 25, 7);
	ck_assert_loc(&p, ND_F_CNP_DSCP, file, 26, 15);
	ck_assert_loc(&p, ND_F_CNP_PRIO, file, 26, 29);
	ck_assert_loc(&p, ND_F_DCQCN, file, 27, 10);
	ck_assert_loc(&p, ND_F_ROCE_TOS, file, 29, 8);
	ck_assert_loc(&p, ND_F_ROCE_MODE, file, 30, 9);
	for (f = 0; f < ND_F_COUNT; f++)
		ck_assert_str_ne(nd_field_key(f), "unknown");
	nd_profile_free(&p);
	ck_assert(is_zero(&p));
	nd_profile_free(&p);	/* twice is harmless */
}
END_TEST

START_TEST(extends_override)
{
	struct nd_profile p;
	struct nd_err e = { 0 };
	char child[PATH_MAX], parent[PATH_MAX];
	const uint8_t prio_tc[8] = { 0, 0, 0, 3, 0, 5, 6, 0 };

	snprintf(child, sizeof(child), "%s/good/child.yaml", corpus_dir());
	snprintf(parent, sizeof(parent), "%s/good/every-key.yaml", corpus_dir());
	ck_assert_msg(nd_profile_load(child, &p, &e) == 0, "%s", e.msg);
	/* a profile is named by its own file, not by what it extends */
	ck_assert_str_eq(p.name, "child");
	ck_assert_str_eq(p.origin.file, child);
	ck_assert_uint_eq(p.set, (1u << ND_F_COUNT) - 1);
	/* scalars override, locations follow */
	ck_assert_uint_eq(p.mtu, 4200);
	ck_assert_loc(&p, ND_F_MTU, child, 5, 6);
	ck_assert_uint_eq(p.pfc_delay, 40);
	ck_assert_loc(&p, ND_F_PFC_DELAY, parent, 14, 17);
	/* ports replace the parent's entirely */
	ck_assert_uint_eq(p.match.n_names, 0);
	ck_assert_uint_eq(p.match.n_drivers, 0);
	ck_assert_uint_eq(p.match.n_rdma, 1);
	ck_assert_str_eq(p.match.rdma[0], "bnxt_re*");
	/* a mapping without `all` starts from the parent's values; a list replaces them */
	ck_assert_mem_eq(p.prio_tc, prio_tc, 8);
	ck_assert_loc(&p, ND_F_ETS_PRIO_TC, child, 7, 12);
	ck_assert_uint_eq(p.tc_bw[0], 50);
	ck_assert_uint_eq(p.tc_bw[3], 50);
	/* DCQCN parameters merge by name */
	ck_assert_uint_eq(p.n_dcqcn, 3);
	ck_assert_str_eq(p.dcqcn[0].name, "rp_time_reset");
	ck_assert_uint_eq(p.dcqcn[0].value, 300);
	ck_assert_str_eq(p.dcqcn_loc[0].file, parent);
	ck_assert_str_eq(p.dcqcn[1].name, "rp_ai_rate");
	ck_assert_uint_eq(p.dcqcn[1].value, 10);
	ck_assert_str_eq(p.dcqcn_loc[1].file, child);
	ck_assert_uint_eq(p.dcqcn_loc[1].line, 10);
	ck_assert_str_eq(p.dcqcn[2].name, "rp_gd");
	ck_assert_uint_eq(p.dcqcn[2].value, 7);
	ck_assert_loc(&p, ND_F_DCQCN, child, 10, 10);
	nd_profile_free(&p);
}
END_TEST

START_TEST(extends_from_memory)
{
	const char *yaml = "extends: every-key.yaml\nmtu: 1500\n";
	struct nd_profile p;
	struct nd_err e = { 0 };
	char dir[PATH_MAX];

	/* no directory: a clean error, nothing read */
	ck_assert_int_eq(nd_profile_parse(yaml, strlen(yaml), "<stdin>", NULL, &p, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "<stdin>:1:10: extends: this profile was not read from a file, so "
			 "every-key.yaml cannot be found; load the profile from its file");
	ck_assert(is_zero(&p));
	snprintf(dir, sizeof(dir), "%s/good", corpus_dir());
	ck_assert_int_eq(nd_profile_parse(yaml, strlen(yaml), "<stdin>", dir, &p, &e), 0);
	ck_assert_uint_eq(p.mtu, 1500);
	ck_assert_str_eq(p.name, "<stdin>");
	ck_assert_uint_eq(p.tc_bw[3], 60);
	nd_profile_free(&p);
}
END_TEST

START_TEST(map_forms)
{
	const uint8_t want[8] = { 0, 0, 0, 3, 0, 0, 6, 0 };
	struct nd_profile p;
	struct nd_err e = { 0 };

	ck_assert_int_eq(parse("ets: {prio-tc: [0, 0, 0, 3, 0, 0, 6, 0]}", &p, &e), 0);
	ck_assert_mem_eq(p.prio_tc, want, 8);
	nd_profile_free(&p);
	/* `all` applies first wherever it is written */
	ck_assert_int_eq(parse("ets: {prio-tc: {3: 3, 6: 6, all: 0}}", &p, &e), 0);
	ck_assert_mem_eq(p.prio_tc, want, 8);
	nd_profile_free(&p);
	ck_assert_int_eq(parse("ets:\n  prio-tc:\n    0: 0\n    1: 0\n    2: 0\n    3: 3\n"
			       "    4: 0\n    5: 0\n    6: 6\n    7: 0\n", &p, &e), 0);
	ck_assert_mem_eq(p.prio_tc, want, 8);
	nd_profile_free(&p);
	ck_assert_int_eq(parse("ets: {tsa: [ets, strict, cbs, vendor, ets, ets, ets, ets],\n"
			       "      bandwidth: [20, 0, 0, 0, 20, 20, 20, 20]}", &p, &e), 0);
	ck_assert_uint_eq(p.tc_tsa[1], IEEE_8021QAZ_TSA_STRICT);
	ck_assert_uint_eq(p.tc_tsa[2], IEEE_8021QAZ_TSA_CB_SHAPER);
	ck_assert_uint_eq(p.tc_tsa[3], IEEE_8021QAZ_TSA_VENDOR);
	nd_profile_free(&p);
	/* the DSCP map is sparse: DSCPs not given have no APP entry */
	ck_assert_int_eq(parse("dscp-map: {26: 3, 48: 6}", &p, &e), 0);
	ck_assert_int_eq(p.dscp2prio[25], -1);
	ck_assert_int_eq(p.dscp2prio[26], 3);
	ck_assert_int_eq(p.dscp2prio[48], 6);
	nd_profile_free(&p);
	ck_assert_int_eq(parse("dscp-map: {all: 0, 46: 5}", &p, &e), 0);
	ck_assert_int_eq(p.dscp2prio[0], 0);
	ck_assert_int_eq(p.dscp2prio[46], 5);
	ck_assert_int_eq(p.dscp2prio[63], 0);
	nd_profile_free(&p);
	/* an empty priority list is "PFC off", and quoting does not change a value */
	ck_assert_int_eq(parse("pfc: {priorities: []}\nmtu: \"9000\"", &p, &e), 0);
	ck_assert_uint_eq(p.set, (1u << ND_F_PFC_EN) | (1u << ND_F_MTU));
	ck_assert_uint_eq(p.pfc_en, 0);
	ck_assert_uint_eq(p.mtu, 9000);
	nd_profile_free(&p);
}
END_TEST

START_TEST(dscp_shift)
{
	struct nd_profile p;
	struct nd_err e = { 0 };
	int d;

	ck_assert_int_eq(parse("trust: pcp\ndscp-map: dscp>>3\n", &p, &e), 0);
	for (d = 0; d < ND_DSCP_MAX; d++)
		ck_assert_int_eq(p.dscp2prio[d], d >> 3);
	ck_assert_int_eq(p.trust, ND_TRUST_PCP);
	ck_assert_str_eq(p.name, "t");
	ck_assert_uint_eq(p.loc[ND_F_DSCP_MAP].line, 2);
	nd_profile_free(&p);
	/* an unset map stays "no entries" */
	ck_assert_int_eq(parse("mtu: 9000", &p, &e), 0);
	ck_assert_int_eq(p.dscp2prio[26], -1);
	nd_profile_free(&p);
}
END_TEST

START_TEST(size_suffixes)
{
	static const struct {
		const char *text;
		uint32_t bytes;
	} cases[] = {
		{ "0", 0 }, { "131072", 131072 }, { "128K", 131072 }, { "128KiB", 131072 },
		{ "1M", 1048576 }, { "1MiB", 1048576 }, { "4095M", 4095u << 20 },
		{ "4294967295", 4294967295u },
	};
	struct nd_profile p;
	struct nd_err e = { 0 };
	char yaml[128];
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(cases); i++) {
		snprintf(yaml, sizeof(yaml), "buffer: {size: {all: 0, 2: %s}}", cases[i].text);
		ck_assert_msg(parse(yaml, &p, &e) == 0, "%s: %s", cases[i].text, e.msg);
		ck_assert_uint_eq(p.buffer_size[2], cases[i].bytes);
		ck_assert_uint_eq(p.buffer_size[1], 0);
		nd_profile_free(&p);
	}
	ck_assert_int_eq(parse("buffer: {size: {all: 1k}}", &p, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "t.yaml:1:22: buffer.size: unknown size suffix \"k\"; use K or "
			 "KiB (1024 bytes), M or MiB (1048576 bytes), or none for bytes");
	ck_assert(is_zero(&p));
}
END_TEST

START_TEST(maxrate_units)
{
	static const struct {
		const char *text;
		uint64_t kbit;
	} cases[] = {
		{ "0", 0 }, { "unlimited", 0 }, { "100Kbit", 100 }, { "800Mbit", 800000 },
		{ "25Gbit", 25000000 }, { "400gbit", 400000000 }, { "10 Gbit", 10000000 },
		{ "0Gbit", 0 },
	};
	struct nd_profile p;
	struct nd_err e = { 0 };
	char yaml[128];
	size_t i;

	for (i = 0; i < ND_ARRAY_SIZE(cases); i++) {
		snprintf(yaml, sizeof(yaml), "maxrate: {all: unlimited, 6: %s}", cases[i].text);
		ck_assert_msg(parse(yaml, &p, &e) == 0, "%s: %s", cases[i].text, e.msg);
		ck_assert_uint_eq(p.maxrate[6], cases[i].kbit);
		nd_profile_free(&p);
	}
	ck_assert_int_eq(parse("maxrate: [1Gbit, 2Gbit, 3Gbit, 4Gbit, 5Gbit, 6Gbit, 7Gbit, "
			       "8Gbit]", &p, &e), 0);
	ck_assert_uint_eq(p.maxrate[7], 8000000);
	nd_profile_free(&p);
	ck_assert_int_eq(parse("maxrate: {all: 2.5Gbit}", &p, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "t.yaml:1:16: maxrate: expected a whole number with a unit, got "
			 "\"2.5Gbit\"; write it like 25Gbit, 800Mbit or unlimited");
}
END_TEST

/* Read the one line of @path into @buf, without its newline. */
static void read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	size_t len;

	ck_assert_msg(f, "%s: %s", path, strerror(errno));
	ck_assert_msg(fgets(buf, (int)size, f), "%s is empty", path);
	fclose(f);
	len = strlen(buf);
	if (len && buf[len - 1] == '\n')
		buf[--len] = '\0';
}

START_TEST(bad_corpus)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 2], err[sizeof(path) + 4];
	char want[ND_ERR_MSG_MAX + 2];
	struct dirent **names;
	struct nd_profile p;
	struct nd_err e;
	int n, i, ret;

	snprintf(dir, sizeof(dir), "%s/bad", corpus_dir());
	n = scandir(dir, &names, yaml_file, alphasort);
	ck_assert_int_ge(n, 30);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		snprintf(err, sizeof(err), "%.*s.err", (int)strlen(path) - 5, path);
		read_line(err, want, sizeof(want));
		memset(&p, 0x5a, sizeof(p));	/* the loader must not rely on a clean output */
		nd_err_clear(&e);
		ret = nd_profile_load(path, &p, &e);
		ck_assert_msg(ret < 0, "%s loaded", path);
		ck_assert_int_eq(e.code, ret);
		ck_assert_msg(!strcmp(e.msg, want), "%s:\n got: %s\nwant: %s", path, e.msg, want);
		ck_assert_msg(is_zero(&p), "%s: profile not zeroed", path);
		free(names[i]);
	}
	free(names);
}
END_TEST

START_TEST(file_errors)
{
	char dir[] = "/tmp/nd-profile-XXXXXX", path[64], want[ND_ERR_MSG_MAX];
	struct nd_profile p;
	struct nd_err e;
	size_t i;
	FILE *f;

	ck_assert_int_eq(nd_profile_load("no/such/profile.yaml", &p, &e), -ENOENT);
	ck_assert_str_eq(e.msg, "no/such/profile.yaml: cannot open: No such file or directory; "
			 "check the path");
	ck_assert(is_zero(&p));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(nd_profile_load(dir, &p, &e), -EISDIR);
	ck_assert(is_zero(&p));
	/* over the limit: refused from its size, before parsing (generated, not committed) */
	snprintf(path, sizeof(path), "%s/huge.yaml", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("mtu: 9000\n", f);
	for (i = 0; i < ND_PROFILE_MAX_BYTES / 64 + 1; i++)
		fprintf(f, "# %-61s\n", "padding");	/* 64 bytes a line */
	fclose(f);
	ck_assert_int_eq(nd_profile_load(path, &p, &e), -E2BIG);
	snprintf(want, sizeof(want), "%s: is 1048650 bytes, over the 1048576-byte limit for a "
		 "profile; a profile is a few kilobytes of YAML", path);
	ck_assert_str_eq(e.msg, want);
	ck_assert(is_zero(&p));
	unlink(path);
	rmdir(dir);
}
END_TEST

START_TEST(memory_errors)
{
	size_t len = ND_PROFILE_MAX_BYTES + 1;
	struct nd_profile p;
	struct nd_err e;
	char *big = malloc(len);

	ck_assert_ptr_nonnull(big);
	memset(big, ' ', len);
	ck_assert_int_eq(nd_profile_parse(big, len, "big.yaml", NULL, &p, &e), -E2BIG);
	ck_assert_str_eq(e.msg, "big.yaml: is 1048577 bytes, over the 1048576-byte limit for a "
			 "profile; a profile is a few kilobytes of YAML");
	free(big);
	ck_assert(is_zero(&p));
	/* no error context is fine, and an empty buffer is an empty profile */
	ck_assert_int_eq(nd_profile_parse(NULL, 0, NULL, NULL, &p, NULL), -EINVAL);
	ck_assert_int_eq(nd_profile_parse("mtu: 9000", 9, NULL, NULL, &p, NULL), 0);
	ck_assert_str_eq(p.name, "<profile>");
	nd_profile_free(&p);
	/* a NUL inside the text is not the end of it */
	ck_assert_int_eq(nd_profile_parse("mtu: 9000\0x", 11, "nul.yaml", NULL, &p, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "nul.yaml:1:10: control characters are not allowed (byte 0x00); "
			 "a profile is UTF-8 text");
	ck_assert_int_eq(parse("name: \"a\\0b\"", &p, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "t.yaml:1:7: name: the value holds a NUL character; remove it");
	ck_assert(is_zero(&p));
}
END_TEST

START_TEST(match_ports)
{
	struct nd_port port = { 0 };
	struct nd_profile p;
	struct nd_err e = { 0 };

	snprintf(port.link.name, sizeof(port.link.name), "ens1f0np0");
	snprintf(port.link.driver, sizeof(port.link.driver), "mlx5_core");
	snprintf(port.link.bus_info, sizeof(port.link.bus_info), "0000:3b:00.0");
	port.n_rdma = 2;
	snprintf(port.rdma[0].ibdev, sizeof(port.rdma[0].ibdev), "rxe0");
	snprintf(port.rdma[1].ibdev, sizeof(port.rdma[1].ibdev), "mlx5_0");

	/* no ports: every port */
	ck_assert_int_eq(parse("mtu: 9000", &p, &e), 0);
	ck_assert(nd_profile_matches(&p, &port));
	nd_profile_free(&p);
	ck_assert_int_eq(parse("ports: {names: [eth2, \"ens1f*\"], drivers: mlx5_core,\n"
			       "        pci: [\"0000:3b:00.*\"], rdma: [\"mlx5_*\"]}", &p, &e), 0);
	ck_assert(nd_profile_matches(&p, &port));
	/* AND across keys */
	snprintf(port.link.driver, sizeof(port.link.driver), "ice");
	ck_assert(!nd_profile_matches(&p, &port));
	snprintf(port.link.driver, sizeof(port.link.driver), "mlx5_core");
	/* any RDMA device of the port */
	snprintf(port.rdma[1].ibdev, sizeof(port.rdma[1].ibdev), "irdma0");
	ck_assert(!nd_profile_matches(&p, &port));
	port.n_rdma = 0;
	ck_assert(!nd_profile_matches(&p, &port));
	nd_profile_free(&p);
	ck_assert_int_eq(parse("ports: {names: eth2}", &p, &e), 0);
	ck_assert(!nd_profile_matches(&p, &port));
	nd_profile_free(&p);
	/* `ports: {}` is every port (it clears what an extended profile said) */
	ck_assert_int_eq(parse("ports: {}\nmtu: 9000", &p, &e), 0);
	ck_assert(nd_profile_matches(&p, &port));
	nd_profile_free(&p);
}
END_TEST

START_TEST(field_keys)
{
	ck_assert_str_eq(nd_field_key(ND_F_MTU), "mtu");
	ck_assert_str_eq(nd_field_key(ND_F_PFC_EN), "pfc.priorities");
	ck_assert_str_eq(nd_field_key(ND_F_PFC_DELAY), "pfc.cable-length");
	ck_assert_str_eq(nd_field_key(ND_F_ETS_PRIO_TC), "ets.prio-tc");
	ck_assert_str_eq(nd_field_key(ND_F_BUF_SIZE), "buffer.size");
	ck_assert_str_eq(nd_field_key(ND_F_CNP_PRIO), "ecn.cnp.priority");
	ck_assert_str_eq(nd_field_key(ND_F_DCQCN), "ecn.dcqcn");
	ck_assert_str_eq(nd_field_key(ND_F_ROCE_TOS), "roce.tos");
	ck_assert_str_eq(nd_field_key(ND_F_COUNT), "unknown");
	ck_assert_str_eq(nd_field_key((enum nd_field)-1), "unknown");
}
END_TEST

/* audit's accept-unverified: profile keys and peer, as bits; the command line adds to it */
START_TEST(accept_unverified)
{
	struct nd_profile p;
	struct nd_err e = { 0 };

	ck_assert_int_eq(parse("name: a\necn: {np: [3], rp: [3]}\n"
			       "audit: {accept-unverified: [ecn.np, ecn.rp, peer]}\n", &p, &e), 0);
	ck_assert_uint_eq(p.accept_unverified,
			  1u << ND_F_ECN_NP | 1u << ND_F_ECN_RP | ND_ACCEPT_PEER);
	ck_assert_uint_eq(p.set, 1u << ND_F_ECN_NP | 1u << ND_F_ECN_RP);	/* not a field */
	nd_profile_free(&p);
	ck_assert_int_eq(parse("name: a\nmtu: 9000\naudit: {accept-unverified: mtu}\n", &p, &e),
			 0);
	ck_assert_uint_eq(p.accept_unverified, 1u << ND_F_MTU);
	nd_profile_free(&p);
	ck_assert_uint_eq(nd_profile_accept_bit("ecn.dcqcn", 9), 1u << ND_F_DCQCN);
	ck_assert_uint_eq(nd_profile_accept_bit("peer", 4), ND_ACCEPT_PEER);
	ck_assert_uint_eq(nd_profile_accept_bit("ecn.d", 5), 0);
}
END_TEST

START_TEST(default_name)
{
	struct nd_profile p;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_profile_parse("mtu: 9000", 9, "a/b/site.yml", NULL, &p, &e), 0);
	ck_assert_str_eq(p.name, "site");
	ck_assert_str_eq(p.origin.file, "a/b/site.yml");
	nd_profile_free(&p);
	ck_assert_int_eq(nd_profile_parse("mtu: 9000\nname: x.y_z-1", 23, "a.yaml", NULL, &p, &e),
			 0);
	ck_assert_str_eq(p.name, "x.y_z-1");
	nd_profile_free(&p);
}
END_TEST

Suite *suite_profile(void)
{
	Suite *s = suite_create("profile");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, shipped_profiles_load);
	tcase_add_test(tc, shipped_roce_lossless);
	tcase_add_test(tc, every_key);
	tcase_add_test(tc, extends_override);
	tcase_add_test(tc, extends_from_memory);
	tcase_add_test(tc, map_forms);
	tcase_add_test(tc, dscp_shift);
	tcase_add_test(tc, size_suffixes);
	tcase_add_test(tc, maxrate_units);
	tcase_add_test(tc, bad_corpus);
	tcase_add_test(tc, file_errors);
	tcase_add_test(tc, memory_errors);
	tcase_add_test(tc, match_ports);
	tcase_add_test(tc, field_keys);
	tcase_add_test(tc, default_name);
	tcase_add_test(tc, accept_unverified);
	suite_add_tcase(s, tc);
	return s;
}
