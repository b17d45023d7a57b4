// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stress: patterns -> flows, message sizes, memory specs, job checks, ToS from a profile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stress/gen.h"
#include "unit.h"

static struct nd_stress_job job_of(enum nd_stress_pattern pat)
{
	struct nd_stress_job j;

	nd_stress_job_init(&j);
	j.pattern = pat;
	return j;
}

START_TEST(plan_pair_and_bidir)
{
	struct nd_stress_job j = job_of(ND_SP_PAIR);
	struct nd_gen_plan p;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_gen_plan_build(&j, 2, &p, &e), 0);
	ck_assert_uint_eq(p.n_flows, 1);
	ck_assert_uint_eq(p.flows[0].src, 1);
	ck_assert_uint_eq(p.flows[0].dst, 0);
	ck_assert_str_eq(p.label, "pair");
	nd_gen_plan_free(&p);
	ck_assert_int_eq(nd_gen_plan_build(&j, 3, &p, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "pattern pair needs exactly 2 ranks (1 -> 0), not 3 (at most "
			 "4096)");
	j = job_of(ND_SP_BIDIR);
	ck_assert_int_eq(nd_gen_plan_build(&j, 2, &p, &e), 0);
	ck_assert_uint_eq(p.n_flows, 2);
	ck_assert_uint_eq(p.flows[1].src, 0);
	ck_assert_uint_eq(p.flows[1].dst, 1);
	nd_gen_plan_free(&p);
}
END_TEST

START_TEST(plan_incast_outcast)
{
	struct nd_stress_job j = job_of(ND_SP_INCAST);
	struct nd_gen_plan p;
	struct nd_err e = { 0 };
	size_t i;

	ck_assert_int_eq(nd_gen_plan_build(&j, 4, &p, &e), 0);
	ck_assert_uint_eq(p.n_flows, 3);
	ck_assert_str_eq(p.label, "incast 3:1");
	for (i = 0; i < 3; i++) {
		ck_assert_uint_eq(p.flows[i].src, i + 1);
		ck_assert_uint_eq(p.flows[i].dst, 0);
		ck_assert_uint_eq(p.flows[i].id, i);
	}
	nd_gen_plan_free(&p);
	j = job_of(ND_SP_OUTCAST);
	ck_assert_int_eq(nd_gen_plan_build(&j, 3, &p, &e), 0);
	ck_assert_str_eq(p.label, "outcast 1:2");
	ck_assert_uint_eq(p.flows[1].src, 0);
	ck_assert_uint_eq(p.flows[1].dst, 2);
	nd_gen_plan_free(&p);
	ck_assert_int_eq(nd_gen_plan_build(&j, 1, &p, &e), -EINVAL);
}
END_TEST

START_TEST(plan_all_to_all_and_victim)
{
	struct nd_stress_job j = job_of(ND_SP_ALL2ALL);
	struct nd_gen_plan p;
	struct nd_err e = { 0 };
	size_t i, victims = 0;

	ck_assert_int_eq(nd_gen_plan_build(&j, 4, &p, &e), 0);
	ck_assert_uint_eq(p.n_flows, 12);
	for (i = 0; i < p.n_flows; i++)
		ck_assert_uint_ne(p.flows[i].src, p.flows[i].dst);
	nd_gen_plan_free(&p);
	/* victim over 5 ranks: 1,2,3 -> 0 and 1 -> 4, the uncongested receiver */
	j = job_of(ND_SP_VICTIM);
	ck_assert_int_eq(nd_gen_plan_build(&j, 5, &p, &e), 0);
	ck_assert_uint_eq(p.n_flows, 4);
	for (i = 0; i < p.n_flows; i++)
		victims += p.flows[i].victim;
	ck_assert_uint_eq(victims, 1);
	ck_assert(p.flows[3].victim);
	ck_assert_uint_eq(p.flows[3].src, 1);
	ck_assert_uint_eq(p.flows[3].dst, 4);
	ck_assert_str_eq(p.label, "victim (incast 3:1 + 1)");
	nd_gen_plan_free(&p);
	ck_assert_int_eq(nd_gen_plan_build(&j, 2, &p, &e), -EINVAL);
}
END_TEST

START_TEST(plan_active_side)
{
	struct nd_gen_flow f = { 0, 3, 0, false };

	/* READ pulls: the data sink posts */
	ck_assert_uint_eq(nd_gen_flow_active(&f, ND_OP_WRITE), 3);
	ck_assert_uint_eq(nd_gen_flow_active(&f, ND_OP_SEND), 3);
	ck_assert_uint_eq(nd_gen_flow_active(&f, ND_OP_READ), 0);
}
END_TEST

START_TEST(names_round_trip)
{
	enum nd_stress_pattern p;
	enum nd_op op;
	int i;

	for (i = 0; i < ND_SP_COUNT; i++) {
		ck_assert_int_eq(nd_stress_pattern_parse(nd_stress_pattern_name(i), &p), 0);
		ck_assert_int_eq(p, i);
	}
	for (i = 0; i < ND_OP_COUNT; i++) {
		ck_assert_int_eq(nd_op_parse(nd_op_name(i), &op), 0);
		ck_assert_int_eq(op, i);
	}
	ck_assert_int_eq(nd_op_parse("atomic", &op), -EINVAL);
	ck_assert_str_eq(nd_stress_pattern_name(ND_SP_ALL2ALL), "all-to-all");
	ck_assert_str_eq(nd_op_name(99), "unknown");
}
END_TEST

START_TEST(sizes_fixed_and_units)
{
	struct nd_sizes z;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_sizes_parse("4096", &z, &e), 0);
	ck_assert_int_eq(z.kind, ND_SIZES_FIXED);
	ck_assert_uint_eq(z.size[0], 4096);
	ck_assert_int_eq(nd_sizes_parse("64K", &z, &e), 0);
	ck_assert_uint_eq(z.size[0], 65536);
	ck_assert_int_eq(nd_sizes_parse("1G", &z, &e), 0);
	ck_assert_uint_eq(z.size[0], 1u << 30);
	ck_assert_int_eq(nd_sizes_parse("2G", &z, &e), -EINVAL);
	ck_assert_int_eq(nd_sizes_parse("0", &z, &e), -EINVAL);
	ck_assert_int_eq(nd_sizes_parse("12x", &z, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "--size: '12x' is not a size (1..1G, K/M/G binary units), a sweep "
		     "such as 64-1M, or @FILE");
	ck_assert_int_eq(nd_sizes_parse("-4", &z, &e), -EINVAL);
}
END_TEST

START_TEST(sizes_sweep)
{
	struct nd_sizes z;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_sizes_parse("64-1M", &z, &e), 0);
	ck_assert_int_eq(z.kind, ND_SIZES_SWEEP);
	ck_assert_uint_eq(z.n, 15);
	ck_assert_uint_eq(z.size[0], 64);
	ck_assert_uint_eq(z.size[1], 128);
	ck_assert_uint_eq(z.size[14], 1u << 20);
	ck_assert_uint_eq(nd_sizes_min(&z), 64);
	ck_assert_uint_eq(nd_sizes_max(&z), 1u << 20);
	/* not powers of two: doubling, then the top */
	ck_assert_int_eq(nd_sizes_parse("100-1000", &z, &e), 0);
	ck_assert_uint_eq(z.n, 5);
	ck_assert_uint_eq(z.size[3], 800);
	ck_assert_uint_eq(z.size[4], 1000);
	ck_assert_int_eq(nd_sizes_parse("1M-64", &z, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "--size 1M-64: a sweep goes from a smaller to a larger size, at "
		     "most 1G");
	ck_assert_int_eq(nd_sizes_parse("64-", &z, &e), -EINVAL);
}
END_TEST

START_TEST(sizes_distribution)
{
	struct nd_sizes z;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_sizes_parse_dist("# web search\n64 0.5\n\n4K 0.25 # mid\n1M\t0.25\n",
					     "d.txt", &z, &e), 0);
	ck_assert_int_eq(z.kind, ND_SIZES_DIST);
	ck_assert_uint_eq(z.n, 3);
	ck_assert_uint_eq(z.size[1], 4096);
	ck_assert(z.weight[2] == 0.25);
	ck_assert_int_eq(nd_sizes_parse_dist("64 0\n", "d.txt", &z, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "d.txt:1: the weight must be a number above 0");
	ck_assert_int_eq(nd_sizes_parse_dist("64\n", "d.txt", &z, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "d.txt:1: want 'SIZE WEIGHT' (such as '4096 0.25'), not '64'");
	ck_assert_int_eq(nd_sizes_parse_dist("# nothing\n", "d.txt", &z, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "d.txt: no sizes (lines 'SIZE WEIGHT')");
	ck_assert_int_eq(nd_sizes_parse_dist("64 1 2\n", "d.txt", &z, &e), -EINVAL);
	ck_assert_int_eq(nd_sizes_parse("@/nonexistent/sizes", &z, &e), -ENOENT);
	ck_assert_ptr_nonnull(strstr(e.msg, "/nonexistent/sizes"));
}
END_TEST

START_TEST(sizes_distribution_file)
{
	char path[] = "/tmp/nd-sizes-XXXXXX", arg[64];
	struct nd_sizes z;
	struct nd_err e = { 0 };
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "512 3\n8K 1\n", 11), 11);
	close(fd);
	snprintf(arg, sizeof(arg), "@%s", path);
	ck_assert_int_eq(nd_sizes_parse(arg, &z, &e), 0);
	ck_assert_uint_eq(z.n, 2);
	ck_assert_uint_eq(nd_sizes_max(&z), 8192);
	unlink(path);
}
END_TEST

START_TEST(mem_specs)
{
	struct nd_mem_spec m;
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_mem_spec_parse("host", &m, &e), 0);
	ck_assert_int_eq(m.kind, ND_MEM_HOST);
	ck_assert(!m.hugepages);
	ck_assert_int_eq(nd_mem_spec_parse("host:huge", &m, &e), 0);
	ck_assert(m.hugepages);
	ck_assert_int_eq(nd_mem_spec_parse("cuda:1", &m, &e), 0);
	ck_assert_int_eq(m.kind, ND_MEM_CUDA);
	ck_assert_int_eq(m.gpu, 1);
	ck_assert_int_eq(m.reg, ND_GPU_REG_AUTO);
	ck_assert_int_eq(nd_mem_spec_parse("cuda:0000:19:00.0,staged", &m, &e), 0);
	ck_assert_int_eq(m.gpu, -1);
	ck_assert_str_eq(m.gpu_bus_id, "0000:19:00.0");
	ck_assert_int_eq(m.reg, ND_GPU_REG_STAGED);
	ck_assert_int_eq(nd_mem_spec_parse("cuda:0,dmabuf", &m, &e), 0);
	ck_assert_int_eq(m.reg, ND_GPU_REG_DMABUF);
	ck_assert_int_eq(nd_mem_spec_parse("cuda:0,magic", &m, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "--mem: 'magic' is not a GPU registration (dmabuf, peermem, "
			 "staged)");
	ck_assert_int_eq(nd_mem_spec_parse("cuda:gpu0", &m, &e), -EINVAL);
	ck_assert_int_eq(nd_mem_spec_parse("rocm:0", &m, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "--mem: 'rocm:0' is not host, host:huge, cuda:N or cuda:BUS_ID");
}
END_TEST

START_TEST(job_checks)
{
	struct nd_stress_job j;
	struct nd_err e = { 0 };

	nd_stress_job_init(&j);
	ck_assert_int_eq(nd_stress_job_check(&j, &e), 0);
	j.cq_mod = j.tx_depth + 1;
	ck_assert_int_eq(nd_stress_job_check(&j, &e), -EINVAL);
	ck_assert_ptr_nonnull(strstr(e.msg, "--cq-mod"));
	nd_stress_job_init(&j);
	j.validate = true;
	j.sizes.size[0] = 16;
	ck_assert_int_eq(nd_stress_job_check(&j, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "--validate needs messages of at least 32 bytes (its header), "
			 "not 16");
	nd_stress_job_init(&j);
	j.burst_on_us = 10;
	ck_assert_int_eq(nd_stress_job_check(&j, &e), -EINVAL);
	nd_stress_job_init(&j);
	j.duration_s = 0;
	ck_assert_int_eq(nd_stress_job_check(&j, &e), -EINVAL);
	ck_assert_str_eq(e.msg, "give --duration or --iters");
	j.iters = 10;
	ck_assert_int_eq(nd_stress_job_check(&j, &e), 0);
}
END_TEST

START_TEST(tos_from_profile)
{
	struct nd_profile p;
	struct nd_err e = { 0 };
	int tos, prio, d;

	memset(&p, 0, sizeof(p));
	snprintf(p.name, sizeof(p.name), "t");
	for (d = 0; d < ND_DSCP_MAX; d++)
		p.dscp2prio[d] = -1;
	ck_assert_int_eq(nd_stress_tos_from_profile(&p, &tos, &prio, &e), -EINVAL);
	/* DSCP 26 -> priority 3, PFC on 3: ToS 104 */
	p.dscp2prio[26] = 3;
	p.pfc_en = 1 << 3;
	p.set = 1u << ND_F_PFC_EN | 1u << ND_F_DSCP_MAP;
	ck_assert_int_eq(nd_stress_tos_from_profile(&p, &tos, &prio, &e), 0);
	ck_assert_int_eq(tos, 104);
	ck_assert_int_eq(prio, 3);
	/* roce.tos wins when given */
	p.set |= 1u << ND_F_ROCE_TOS;
	p.roce_tos = 106;
	ck_assert_int_eq(nd_stress_tos_from_profile(&p, &tos, &prio, &e), 0);
	ck_assert_int_eq(tos, 106);
	ck_assert_int_eq(prio, 3);
}
END_TEST

Suite *suite_gen_plan(void)
{
	Suite *s = suite_create("gen_plan");
	TCase *tc = tcase_create("plan");

	tcase_add_test(tc, plan_pair_and_bidir);
	tcase_add_test(tc, plan_incast_outcast);
	tcase_add_test(tc, plan_all_to_all_and_victim);
	tcase_add_test(tc, plan_active_side);
	tcase_add_test(tc, names_round_trip);
	tcase_add_test(tc, sizes_fixed_and_units);
	tcase_add_test(tc, sizes_sweep);
	tcase_add_test(tc, sizes_distribution);
	tcase_add_test(tc, sizes_distribution_file);
	tcase_add_test(tc, mem_specs);
	tcase_add_test(tc, job_checks);
	tcase_add_test(tc, tos_from_profile);
	suite_add_tcase(s, tc);
	return s;
}
