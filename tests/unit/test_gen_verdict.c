// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* stress: ranks' results -> report and verdict (LOSSLESS, LOSSY with evidence, FAILED with why). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress/gen.h"
#include "unit.h"

#define N 3

/* An incast 2:1 over three ranks: 1 -> 0 and 2 -> 0, each rank on its own host. */
struct fixture {
	struct nd_stress_job job;
	struct nd_gen_plan plan;
	struct nd_gen_rank_result res[N];
	struct nd_gen_rank_result *ptr[N];
	struct nd_gen_flow_stats flows[N];
	struct nd_gen_step_stats steps[N];
	struct nd_gen_ctr ctrs[N][3];
	uint64_t series[N][4];
	struct nd_stress_result r;
};

static struct fixture fx;

static void setup(void)
{
	static const char *const names[3] = { "seq_err_naks", "transport_retries",
					       "rdma_tx_packets" };
	uint32_t i, k;

	memset(&fx, 0, sizeof(fx));
	nd_stress_job_init(&fx.job);
	fx.job.pattern = ND_SP_INCAST;
	fx.job.validate = true;
	ck_assert_int_eq(nd_gen_plan_build(&fx.job, N, &fx.plan, NULL), 0);
	for (i = 0; i < N; i++) {
		struct nd_gen_rank_result *res = &fx.res[i];

		fx.ptr[i] = res;
		res->info.rank = i;
		snprintf(res->info.host, sizeof(res->info.host), "h%u", i);
		snprintf(res->info.ifname, sizeof(res->info.ifname), "eth0");
		snprintf(res->boot_id, sizeof(res->boot_id), "boot-%u", i);
		res->info.cpu_s = 0.5;
		res->steps = &fx.steps[i];
		res->n_steps = 1;
		res->ctrs = fx.ctrs[i];
		res->n_ctrs = 3;
		res->ctr_total = 30;
		res->ctr_interval_s = 2;
		for (k = 0; k < 3; k++) {
			snprintf(fx.ctrs[i][k].name, sizeof(fx.ctrs[i][k].name), "%s", names[k]);
			fx.ctrs[i][k].prio = -1;
			fx.ctrs[i][k].loss = k < 2;
		}
		fx.ctrs[i][2].delta = 1000;
		res->validated = 50;
		if (!i)
			continue;
		/* a sender: 1 GB in 1 s (8 Gb/s), 100 messages */
		fx.flows[i] = (struct nd_gen_flow_stats){ i - 1, 1000000000, 100, 1, 1000000001,
							  fx.series[i], 4 };
		for (k = 0; k < 4; k++)
			fx.series[i][k] = 100000000 * (k + 1);
		res->flows = &fx.flows[i];
		res->n_flows = 1;
		fx.steps[i] = (struct nd_gen_step_stats){ 100, 1000000000, 1, 1000000001 };
	}
	ck_assert_int_eq(nd_gen_result_alloc(&fx.r), 0);
}

static void teardown(void)
{
	nd_stress_result_free(&fx.r);
	nd_gen_plan_free(&fx.plan);
}

static void report(void)
{
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_gen_report(&fx.job, &fx.plan, fx.ptr, N, &fx.r, &e), 0);
}

START_TEST(lossless_with_evidence)
{
	const struct nd_run_report *rep;

	report();
	rep = fx.r.report;
	ck_assert_int_eq(rep->verdict, ND_VERDICT_LOSSLESS);
	ck_assert_str_eq(rep->reason, "no loss counter moved (6 watched on 3 ports); 150 messages "
			 "validated, none corrupt, out of order or missing");
	ck_assert_uint_eq(fx.r.n_sampled, 3);
	ck_assert_uint_eq(fx.r.sampled[1].n_loss, 2);
	ck_assert_uint_eq(fx.r.sampled[1].tx_packets, 1000);
	ck_assert_str_eq(fx.r.sampled[2].where, "h2/eth0");
	ck_assert_uint_eq(rep->n_evidence, 0);
	ck_assert(fx.r.gathered);
}
END_TEST

START_TEST(report_numbers)
{
	const struct nd_run_report *rep;

	fx.flows[2].bytes = 500000000;
	report();
	rep = fx.r.report;
	ck_assert_str_eq(rep->kind, "stress");
	ck_assert_str_eq(rep->pattern, "incast");
	ck_assert_uint_eq(rep->n_flows, 2);
	ck_assert_str_eq(rep->flows[0].name, "rank 1 -> rank 0");
	ck_assert_str_eq(rep->flows[1].src, "rank 2 (h2)");
	ck_assert(rep->flows[0].gbps > 7.99 && rep->flows[0].gbps < 8.01);
	ck_assert(rep->flows[1].gbps > 3.99 && rep->flows[1].gbps < 4.01);
	/* (8 + 4)^2 / (2 * (64 + 16)) */
	ck_assert(rep->jain > 0.899 && rep->jain < 0.901);
	ck_assert_uint_eq(rep->flows[0].n_series, 4);
	ck_assert(rep->flows[0].series_gbps[0] > 7.99 && rep->flows[0].series_gbps[0] < 8.01);
	ck_assert_uint_eq(fx.r.n_steps, 1);
	ck_assert_uint_eq(fx.r.steps[0].messages, 200);
	ck_assert(fx.r.steps[0].mpps > 0.000199 && fx.r.steps[0].mpps < 0.000201);
	/* the series' best interval: 8 + 8 Gb/s times 4 */
	ck_assert(fx.r.steps[0].peak_gbps > 63.9 && fx.r.steps[0].peak_gbps < 64.1);
	/* 1.5 CPU-seconds over 1.5 GB */
	ck_assert(fx.r.cpu_s_per_gb > 0.99 && fx.r.cpu_s_per_gb < 1.01);
	ck_assert_uint_eq(fx.r.n_ranks, N);
}
END_TEST

/*
 * The incast's flows share the receiver's ceiling: rank 0 receives at most 20 Gb/s, the senders
 * send 100 each; each flow's ceiling is 20 / 2 = 10, set by rank 0 receiving. Flow 1 runs at
 * 8 Gb/s (80 %), flow 2 at 4 (40 %). --expect 50 finds flow 2 only; 30 none; 90 both, the
 * slowest named with the term.
 */
START_TEST(flows_against_their_ceilings)
{
	const struct nd_run_report *rep;
	char why[512];
	uint32_t i;

	fx.flows[2].bytes = 500000000;
	for (i = 0; i < N; i++) {
		fx.res[i].info.ceiling_tx_gbps = i ? 100 : 50;
		fx.res[i].info.ceiling_rx_gbps = i ? 100 : 20;
		snprintf(fx.res[i].info.limit_rx, sizeof(fx.res[i].info.limit_rx),
			 "wire: 25 Gb/s RoCE v2");
	}
	report();
	rep = fx.r.report;
	ck_assert_double_eq_tol(rep->flows[0].ceiling_gbps, 10, 1e-9);
	ck_assert_double_eq_tol(rep->flows[1].ceiling_gbps, 10, 1e-9);
	ck_assert_ptr_nonnull(strstr(rep->flows[0].limit, "rank 0 receiving, shared by its flows"));
	ck_assert_ptr_nonnull(strstr(rep->flows[0].limit, "wire: 25 Gb/s"));
	ck_assert_uint_eq(nd_stress_slow(&fx.r, 50, why, sizeof(why)), 1);
	ck_assert_ptr_nonnull(strstr(why, "rank 2 -> rank 0"));
	ck_assert_ptr_nonnull(strstr(why, "(40.0%)"));
	ck_assert_uint_eq(nd_stress_slow(&fx.r, 30, why, sizeof(why)), 0);
	ck_assert_str_eq(why, "");
	ck_assert_uint_eq(nd_stress_slow(&fx.r, 90, why, sizeof(why)), 2);
	ck_assert_ptr_nonnull(strstr(why, "2 flows below 90%"));
	ck_assert_ptr_nonnull(strstr(why, "slowest rank 2 -> rank 0"));
	ck_assert_ptr_nonnull(strstr(why, "wire: 25 Gb/s"));
}
END_TEST

/* A side without a model (rate unknown) leaves the flow unjudged; a sender's own limit. */
START_TEST(flows_without_a_ceiling)
{
	const struct nd_run_report *rep;

	fx.res[0].info.ceiling_rx_gbps = 0;
	fx.res[1].info.ceiling_tx_gbps = 1;
	fx.res[2].info.ceiling_tx_gbps = 1;
	report();
	rep = fx.r.report;
	ck_assert_double_eq(rep->flows[0].ceiling_gbps, 0);
	ck_assert_uint_eq(nd_stress_slow(&fx.r, 99, NULL, 0), 0);
	nd_stress_result_free(&fx.r);
	ck_assert_int_eq(nd_gen_result_alloc(&fx.r), 0);
	fx.res[0].info.ceiling_rx_gbps = 1000;
	snprintf(fx.res[1].info.limit_tx, sizeof(fx.res[1].info.limit_tx), "pcie_nic: Gen1 x1");
	report();
	rep = fx.r.report;
	ck_assert_double_eq_tol(rep->flows[0].ceiling_gbps, 1, 1e-9);
	ck_assert_str_eq(rep->flows[0].limit, "rank 1 sending, pcie_nic: Gen1 x1");
}
END_TEST

START_TEST(report_margins)
{
	const struct nd_stress_step *st;

	/* 0.1 s intervals over 1 s; leaving out 0.1 s each end keeps intervals 1..8 */
	fx.job.duration_s = 1;
	fx.job.margin_s = 0.1;
	fx.steps[1] = fx.steps[2] = (struct nd_gen_step_stats){ 100, 1000000000, 1, 1000000001 };
	fx.flows[1].n_series = fx.flows[2].n_series = 4;
	report();
	st = &fx.r.steps[0];
	/* intervals 1..3 of the series exist: 16 + 24 + 32 Gb/s per flow, two flows */
	ck_assert(st->avg_gbps > 47.9 && st->avg_gbps < 48.1);
	ck_assert(st->seconds > 0.29 && st->seconds < 0.31);
	/* 10 MB messages: 48 Gb/s is 600 per second */
	ck_assert(st->mpps > 0.000599 && st->mpps < 0.000601);
}
END_TEST

/* [0, 1) from the top 53 bits */
static double unit_interval(uint64_t x)
{
	return (double)(x >> 11) * 0x1.0p-53;
}

/*
 * A soft device on one CPU completes a whole window at once (32 MiB every 0.55 s, nothing
 * between): the rate between the margins is the bursts' rate, whatever their phase and period
 * (counting the intervals inside the margins gave 5 or 6 bursts: 55 or 66 MiB/s for one rate).
 */
START_TEST(report_margins_bursts)
{
	static uint64_t burst[50];
	const double mib = 1048576, m = 32 * mib;
	double period, phase, t, want, err, worst = 0, sum = 0;
	uint64_t seed = (uint64_t)_i << 32;
	int i, k;

	for (i = 0; i < 40; i++) {
		nd_stress_result_free(&fx.r);
		ck_assert_int_eq(nd_gen_result_alloc(&fx.r), 0);
		period = 0.3 + 0.5 * unit_interval(nd_gen_mix64(seed + 2 * (uint64_t)i));
		phase = period * unit_interval(nd_gen_mix64(seed + 2 * (uint64_t)i + 1));
		memset(burst, 0, sizeof(burst));
		for (t = phase; t < 5; t += period)
			burst[(int)(t / 0.1)] += (uint64_t)m;
		fx.job.duration_s = 5;
		fx.job.margin_s = 1;
		for (k = 1; k < N; k++)
			fx.steps[k] = (struct nd_gen_step_stats){ 100, 1000000000, 1, 5000000001 };
		fx.flows[1].series = burst;
		fx.flows[1].n_series = 50;
		fx.flows[2].n_series = 0;
		report();
		want = m * 8 / period / 1e9;
		err = fx.r.steps[0].avg_gbps / want - 1;
		err = err < 0 ? -err : err;
		ck_assert_msg(err < 0.07, "bursts every %.3f s from %.3f s: %.4f Gb/s, want %.4f",
			      period, phase, fx.r.steps[0].avg_gbps, want);
		ck_assert(fx.r.steps[0].seconds > 2.99 && fx.r.steps[0].seconds < 3.01);
		worst = err > worst ? err : worst;
		sum += err;
	}
	ck_assert_msg(sum / 40 < 0.03, "mean error %.4f (worst %.4f)", sum / 40, worst);
}
END_TEST

START_TEST(lossy_names_counters)
{
	const struct nd_run_report *rep;

	fx.ctrs[2][0].delta = 230;
	fx.ctrs[2][1].delta = 7;
	report();
	rep = fx.r.report;
	ck_assert_int_eq(rep->verdict, ND_VERDICT_LOSSY);
	ck_assert_str_eq(rep->reason, "seq_err_naks +230, transport_retries +7");
	ck_assert_uint_eq(rep->n_evidence, 2);
	ck_assert_str_eq(rep->evidence[0].where, "h2/eth0");
	ck_assert_str_eq(rep->evidence[0].what, "seq_err_naks");
	ck_assert_uint_eq(rep->evidence[0].delta, 230);
	ck_assert_uint_eq(rep->retransmits, 237);
	ck_assert_uint_eq(fx.r.sampled[2].n_loss_moved, 2);
}
END_TEST

START_TEST(shared_port_counts_once)
{
	/* ranks 1 and 2 on rank 0's host: one port, judged by rank 0's samples */
	snprintf(fx.res[1].boot_id, sizeof(fx.res[1].boot_id), "boot-0");
	snprintf(fx.res[2].boot_id, sizeof(fx.res[2].boot_id), "boot-0");
	fx.ctrs[2][0].delta = 5;	/* rank 2's view of the same port: not counted twice */
	report();
	ck_assert_uint_eq(fx.r.n_sampled, 1);
	ck_assert_uint_eq(fx.r.report->n_ports, 1);
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_LOSSLESS);
}
END_TEST

/* Every rank on one host (boot id) and port 1, rank i on device mlx5_<dev[i]>. */
static void one_host(const unsigned int dev[N])
{
	uint32_t i;

	for (i = 0; i < N; i++) {
		snprintf(fx.res[i].boot_id, sizeof(fx.res[i].boot_id), "boot-0");
		snprintf(fx.res[i].info.dev, sizeof(fx.res[i].info.dev), "mlx5_%u", dev[i]);
		fx.res[i].info.port = 1;
	}
}

START_TEST(containers_share_a_boot_id)
{
	/* three pods on one host: each its own VF, named alike (eth0), on other devices */
	one_host((const unsigned int[N]){ 3, 4, 5 });
	fx.ctrs[2][0].delta = 500;
	report();
	ck_assert_uint_eq(fx.r.n_sampled, 3);
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_LOSSY);
	ck_assert_str_eq(fx.r.report->reason, "seq_err_naks +500");
	/* the same device and port twice is one port again */
	teardown();
	setup();
	one_host((const unsigned int[N]){ 3, 3, 4 });
	report();
	ck_assert_uint_eq(fx.r.n_sampled, 2);
}
END_TEST

START_TEST(payload_problems_are_lossy)
{
	const struct nd_run_report *rep;

	fx.res[0].corrupt = 2;
	fx.res[0].misordered = 1;
	report();
	rep = fx.r.report;
	ck_assert_int_eq(rep->verdict, ND_VERDICT_LOSSY);
	ck_assert_str_eq(rep->reason, "payload_corrupt +2, payload_misordered +1");
	ck_assert_str_eq(rep->evidence[0].where, "rank 0 (h0)");
}
END_TEST

START_TEST(missing_writes_are_lossy)
{
	struct nd_gen_qp_check src = { 0, 0, false, 100 }, sink = { 0, 0, true, 90 };

	fx.res[1].checks = &src;
	fx.res[1].n_checks = 1;
	fx.res[0].checks = &sink;
	fx.res[0].n_checks = 1;
	report();
	ck_assert_uint_eq(fx.r.missing, 10);
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_LOSSY);
	ck_assert_str_eq(fx.r.report->reason, "payload_missing +10");
	/* the sink saw more than the source confirmed (unsignalled tail): nothing missing */
	teardown();
	setup();
	sink.value = 120;
	fx.res[1].checks = &src;
	fx.res[1].n_checks = 1;
	fx.res[0].checks = &sink;
	fx.res[0].n_checks = 1;
	report();
	ck_assert_uint_eq(fx.r.missing, 0);
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_LOSSLESS);
}
END_TEST

START_TEST(failed_names_the_origin)
{
	/* rank 0 heard rank 2's abort; rank 2 had the real trouble */
	fx.res[0].info.status = -ECONNABORTED;
	snprintf(fx.res[0].info.error, sizeof(fx.res[0].info.error), "an echo");
	fx.res[2].info.status = -ETIMEDOUT;
	snprintf(fx.res[2].info.error, sizeof(fx.res[2].info.error), "flow 1 QP 0: no completion");
	fx.ctrs[1][0].delta = 9;	/* a failed run is FAILED, loss or not */
	report();
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_FAILED);
	ck_assert_str_eq(fx.r.report->reason, "rank 2 on h2: flow 1 QP 0: no completion");
}
END_TEST

START_TEST(failed_when_a_rank_is_gone)
{
	fx.ptr[1] = NULL;
	report();
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_FAILED);
	ck_assert_str_eq(fx.r.report->reason, "rank 1 sent no results (it went away)");
	ck_assert_str_eq(fx.r.ranks[1].error, "no results: the rank went away");
}
END_TEST

START_TEST(failed_without_counters)
{
	fx.res[1].ctr_status = -ENODEV;
	snprintf(fx.res[1].ctr_error, sizeof(fx.res[1].ctr_error), "no network device 'x'");
	report();
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_FAILED);
	ck_assert_str_eq(fx.r.report->reason, "counters of h1/eth0 could not be sampled: no "
			 "network device 'x'");
	teardown();
	setup();
	/* a port with counters but no loss indicator among them cannot show loss */
	fx.ctrs[2][0].loss = fx.ctrs[2][1].loss = false;
	report();
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_FAILED);
	ck_assert_str_eq(fx.r.report->reason, "h2/eth0 has no readable loss counter (30 counters: "
			 "no loss indicator, or each new, gone or stuck at its maximum): no verdict "
			 "on loss without them");
	teardown();
	setup();
	/* nor one whose loss counters came or went mid-run, or stood at their maximum */
	fx.ctrs[2][0].status = ND_DELTA_GONE;
	fx.ctrs[2][1].status = ND_DELTA_SATURATED;
	report();
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_FAILED);
	ck_assert_ptr_nonnull(strstr(fx.r.report->reason, "h2/eth0 has no readable loss counter"));
	ck_assert_uint_eq(fx.r.sampled[2].n_loss, 0);
	teardown();
	setup();
	fx.ctrs[2][0].status = ND_DELTA_NEW;
	fx.ctrs[2][1].status = ND_DELTA_SATURATED;
	fx.ctrs[2][1].delta = 3;	/* it reached its maximum during the run: loss, 3 or more */
	report();
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_LOSSY);
	ck_assert_str_eq(fx.r.report->reason, "transport_retries +3");
	ck_assert_uint_eq(fx.r.sampled[2].n_loss, 1);
	teardown();
	setup();
	fx.ctrs[1][0].status = ND_DELTA_RESET;
	report();
	ck_assert_int_eq(fx.r.report->verdict, ND_VERDICT_FAILED);
}
END_TEST

START_TEST(verdict_message)
{
	struct nd_stress_result other;
	struct nd_wbuf w = { 0 };
	struct nd_rbuf r;

	fx.ctrs[1][1].delta = 1;
	report();
	nd_gen_verdict_encode(&fx.r, &w);
	ck_assert_int_eq(nd_gen_result_alloc(&other), 0);
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_verdict_decode(&r, &other), 0);
	ck_assert_int_eq(other.report->verdict, ND_VERDICT_LOSSY);
	ck_assert_str_eq(other.report->reason, "transport_retries +1");
	r = (struct nd_rbuf){ w.p, w.len - 1, false };
	ck_assert_int_eq(nd_gen_verdict_decode(&r, &other), -EPROTO);
	w.p[0] = 9;
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_verdict_decode(&r, &other), -EPROTO);
	nd_stress_result_free(&other);
	nd_wbuf_free(&w);
}
END_TEST

Suite *suite_gen_verdict(void)
{
	Suite *s = suite_create("gen_verdict");
	TCase *tc = tcase_create("verdict");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, lossless_with_evidence);
	tcase_add_test(tc, report_numbers);
	tcase_add_test(tc, flows_against_their_ceilings);
	tcase_add_test(tc, flows_without_a_ceiling);
	tcase_add_test(tc, report_margins);
	tcase_add_loop_test(tc, report_margins_bursts, 0, 3);
	tcase_add_test(tc, lossy_names_counters);
	tcase_add_test(tc, shared_port_counts_once);
	tcase_add_test(tc, containers_share_a_boot_id);
	tcase_add_test(tc, payload_problems_are_lossy);
	tcase_add_test(tc, missing_writes_are_lossy);
	tcase_add_test(tc, failed_names_the_origin);
	tcase_add_test(tc, failed_when_a_rank_is_gone);
	tcase_add_test(tc, failed_without_counters);
	tcase_add_test(tc, verdict_message);
	suite_add_tcase(s, tc);
	return s;
}
