// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress: everything that crosses the network, encoded and decoded: the codec, the job, the
 * endpoints, results, histograms, rdma_cm private data and the coordinator's frames. Every
 * truncation of a good message must be refused, never read past.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stress/coord.h"
#include "unit.h"

START_TEST(codec_round_trip)
{
	struct nd_wbuf w = { 0 };
	struct nd_rbuf r;
	char s[8];

	nd_w_u8(&w, 0xab);
	nd_w_u16(&w, 0x1234);
	nd_w_u32(&w, 0xdeadbeef);
	nd_w_u64(&w, 0x0102030405060708ull);
	nd_w_f64(&w, 2.5);
	nd_w_str(&w, "abc");
	ck_assert(!w.oom);
	/* little endian on the wire, whatever the host */
	ck_assert_uint_eq(w.p[1], 0x34);
	ck_assert_uint_eq(w.p[2], 0x12);
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_uint_eq(nd_r_u8(&r), 0xab);
	ck_assert_uint_eq(nd_r_u16(&r), 0x1234);
	ck_assert_uint_eq(nd_r_u32(&r), 0xdeadbeef);
	ck_assert_uint_eq(nd_r_u64(&r), 0x0102030405060708ull);
	ck_assert(nd_r_f64(&r, 0, 10) == 2.5);
	nd_r_str(&r, s, sizeof(s));
	ck_assert_str_eq(s, "abc");
	ck_assert(!r.bad);
	ck_assert_uint_eq(r.left, 0);
	/* reading past the end: bad, and it stays bad */
	ck_assert_uint_eq(nd_r_u32(&r), 0);
	ck_assert(r.bad);
	nd_wbuf_free(&w);
}
END_TEST

START_TEST(codec_refuses)
{
	static const uint8_t long_str[] = { 9, 0, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i' };
	static const uint8_t ctl_str[] = { 2, 0, 'a', '\n' };
	static const uint8_t nan[] = { 0, 0, 0, 0, 0, 0, 0xf8, 0x7f };
	static const uint8_t count[] = { 0xff, 0xff, 0, 0, 1, 2, 3 };
	struct nd_rbuf r;
	char s[8];

	r = (struct nd_rbuf){ long_str, sizeof(long_str), false };
	nd_r_str(&r, s, sizeof(s));
	ck_assert(r.bad);
	ck_assert_str_eq(s, "");
	r = (struct nd_rbuf){ ctl_str, sizeof(ctl_str), false };
	nd_r_str(&r, s, sizeof(s));
	ck_assert(r.bad);
	r = (struct nd_rbuf){ nan, sizeof(nan), false };
	nd_r_f64(&r, -1e300, 1e300);
	ck_assert(r.bad);
	/* 65535 entries of 1 byte cannot be in 3 bytes */
	r = (struct nd_rbuf){ count, sizeof(count), false };
	ck_assert_uint_eq(nd_r_count(&r, 100000, 1), 0);
	ck_assert(r.bad);
}
END_TEST

START_TEST(job_round_trip_and_diff)
{
	struct nd_stress_job a, b;
	struct nd_wbuf w = { 0 };
	struct nd_rbuf r;
	char what[200];
	size_t cut;

	nd_stress_job_init(&a);
	a.pattern = ND_SP_INCAST;
	a.qps = 4;
	a.rate_gbps = 12.5;
	a.tos = -1;
	ck_assert_int_eq(nd_sizes_parse("64-4K", &a.sizes, NULL), 0);
	ck_assert_int_eq(nd_gen_job_encode(&a, &w), 0);
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_job_decode(&r, &b), 0);
	ck_assert_int_eq(nd_gen_job_diff(&a, &b, what, sizeof(what)), 0);
	ck_assert_int_eq(b.tos, -1);
	ck_assert_uint_eq(b.sizes.n, 7);
	b.qps = 2;
	ck_assert_int_eq(nd_gen_job_diff(&a, &b, what, sizeof(what)), 1);
	ck_assert_str_eq(what, "--qps 4 vs 2");
	b.qps = 4;
	b.sizes.size[6] = 8192;
	ck_assert_int_eq(nd_gen_job_diff(&a, &b, what, sizeof(what)), 1);
	ck_assert_str_eq(what, "--size 64..4096 vs 64..8192");
	for (cut = 0; cut < w.len; cut++) {
		r = (struct nd_rbuf){ w.p, cut, false };
		ck_assert_int_eq(nd_gen_job_decode(&r, &b), -EPROTO);
	}
	/* a pattern number this build does not know */
	w.p[4] = 99;
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_job_decode(&r, &b), -EPROTO);
	nd_wbuf_free(&w);
}
END_TEST

static void incast_plan(struct nd_stress_job *j, struct nd_gen_plan *p)
{
	nd_stress_job_init(j);
	j->pattern = ND_SP_INCAST;
	j->qps = 2;
	ck_assert_int_eq(nd_gen_plan_build(j, 4, p, NULL), 0);
}

START_TEST(info_round_trip)
{
	struct nd_gen_ep eps[2] = {
		{ 0, 0, 17, 100, 0x1000, 7, 256 },
		{ 0, 1, 18, 200, 0x2000, 7, 256 },
	};
	struct nd_gen_rank_info in = { 0 }, out;
	struct nd_stress_job j;
	struct nd_gen_plan p;
	struct nd_wbuf w = { 0 };
	struct nd_rbuf r;
	size_t cut;

	incast_plan(&j, &p);
	snprintf(in.host, sizeof(in.host), "h1");
	snprintf(in.addr, sizeof(in.addr), "198.18.0.2");
	in.mtu = 3;
	in.gid[15] = 9;
	in.eps = eps;
	in.n_eps = 2;
	ck_assert_int_eq(nd_gen_info_encode(&in, &w), 0);
	r = (struct nd_rbuf){ w.p, w.len, false };
	/* rank 1 takes part in flow 0 (1 -> 0) */
	ck_assert_int_eq(nd_gen_info_decode(&r, &p, &j, 1, &out), 0);
	ck_assert_uint_eq(out.n_eps, 2);
	ck_assert_uint_eq(nd_gen_info_ep(&out, 0, 1)->qpn, 18);
	ck_assert_ptr_null(nd_gen_info_ep(&out, 1, 0));
	ck_assert_str_eq(out.addr, "198.18.0.2");
	ck_assert_uint_eq(out.gid[15], 9);
	nd_gen_info_free(&out);
	/* rank 2 is not in flow 0: its endpoints cannot be flow 0's */
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_info_decode(&r, &p, &j, 2, &out), -EPROTO);
	for (cut = 0; cut < w.len; cut++) {
		r = (struct nd_rbuf){ w.p, cut, false };
		ck_assert_int_eq(nd_gen_info_decode(&r, &p, &j, 1, &out), -EPROTO);
	}
	nd_wbuf_free(&w);
	/* the same QP end twice */
	eps[1].qp = 0;
	ck_assert_int_eq(nd_gen_info_encode(&in, &w), 0);
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_info_decode(&r, &p, &j, 1, &out), -EPROTO);
	nd_wbuf_free(&w);
	nd_gen_plan_free(&p);
}
END_TEST

START_TEST(cm_private_data)
{
	uint8_t buf[56] = { 0 };
	uint32_t flow, src;
	uint16_t qp;

	nd_gen_cm_priv_encode(buf, 7, 3, 2);
	/* the CM pads private data: more than ours is fine */
	ck_assert_int_eq(nd_gen_cm_priv_decode(buf, sizeof(buf), &flow, &qp, &src), 0);
	ck_assert_uint_eq(flow, 7);
	ck_assert_uint_eq(qp, 3);
	ck_assert_uint_eq(src, 2);
	ck_assert_int_eq(nd_gen_cm_priv_decode(buf, ND_CM_PRIV_LEN - 1, &flow, &qp, &src), -EPROTO);
	ck_assert_int_eq(nd_gen_cm_priv_decode(NULL, 0, &flow, &qp, &src), -EPROTO);
	buf[0] ^= 1;
	ck_assert_int_eq(nd_gen_cm_priv_decode(buf, sizeof(buf), &flow, &qp, &src), -EPROTO);
}
END_TEST

START_TEST(hist_percentiles)
{
	struct nd_hist h = { 0 }, g = { 0 }, d;
	struct nd_wbuf w = { 0 };
	struct nd_rbuf r;
	struct nd_dist dist;
	uint64_t v;

	/* 1..1000 us: p50 500, p99 990, p99.9 999, within half a bucket (0.4 %) */
	for (v = 1; v <= 1000; v++)
		ck_assert_int_eq(nd_hist_add(&h, v * 1000), 0);
	nd_hist_dist(&h, &dist);
	ck_assert_uint_eq(dist.count, 1000);
	ck_assert(dist.p50_us > 498 && dist.p50_us < 502);
	ck_assert(dist.p99_us > 986 && dist.p99_us < 994);
	ck_assert(dist.p999_us > 995 && dist.p999_us <= 1000);
	ck_assert(dist.max_us == 1000);
	ck_assert(dist.mean_us > 500 && dist.mean_us < 501);
	for (v = 0; v < 4096; v++)
		ck_assert_uint_le(nd_hist_value(nd_hist_bucket(v)), v);
	nd_hist_encode(&h, &w);
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_hist_decode(&r, &d), 0);
	ck_assert_int_eq(nd_hist_merge(&g, &d), 0);
	ck_assert_int_eq(nd_hist_merge(&g, &h), 0);
	ck_assert_uint_eq(g.count, 2000);
	nd_hist_free(&d);
	/* a bucket twice */
	w.p[4 + 10] = w.p[4];
	w.p[4 + 11] = w.p[5];
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_hist_decode(&r, &d), -EPROTO);
	ck_assert_ptr_null(d.b);
	nd_wbuf_free(&w);
	nd_hist_free(&h);
	nd_hist_free(&g);
}
END_TEST

static void sample_result(struct nd_gen_rank_result *res, uint64_t *series)
{
	static struct nd_gen_flow_stats flow;
	static struct nd_gen_step_stats step = { 100, 409600, 1, 1000000 };
	static struct nd_gen_ctr ctr = { "seq_err_naks", -1, 3, ND_DELTA_OK, true };

	memset(res, 0, sizeof(*res));
	res->info.rank = 2;
	snprintf(res->info.host, sizeof(res->info.host), "h2");
	snprintf(res->boot_id, sizeof(res->boot_id), "boot-2");
	flow = (struct nd_gen_flow_stats){ 1, 409600, 100, 10, 1000000, series, 3 };
	res->flows = &flow;
	res->n_flows = 1;
	res->steps = &step;
	res->n_steps = 1;
	res->ctrs = &ctr;
	res->n_ctrs = 1;
	res->ctr_total = 20;
	res->ctr_interval_s = 1.5;
	res->validated = 100;
}

START_TEST(result_round_trip)
{
	uint64_t series[3] = { 1, 2, 3 };
	struct nd_gen_rank_result in, out;
	struct nd_stress_job j;
	struct nd_gen_plan p;
	struct nd_wbuf w = { 0 };
	struct nd_rbuf r;
	size_t cut;

	incast_plan(&j, &p);
	sample_result(&in, series);
	ck_assert_int_eq(nd_hist_add(&in.probe, 5000), 0);
	ck_assert_int_eq(nd_gen_result_encode(&in, &w), 0);
	nd_hist_free(&in.probe);
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_result_decode(&r, &p, &j, 2, &out), 0);
	ck_assert_str_eq(out.info.host, "h2");
	ck_assert_uint_eq(out.flows[0].series[2], 3);
	ck_assert_uint_eq(out.probe.count, 1);
	ck_assert_str_eq(out.ctrs[0].name, "seq_err_naks");
	ck_assert(out.ctrs[0].loss);
	nd_gen_result_free(&out);
	/* rank 3 does not drive flow 1 (2 -> 0): refused */
	r = (struct nd_rbuf){ w.p, w.len, false };
	ck_assert_int_eq(nd_gen_result_decode(&r, &p, &j, 3, &out), -EPROTO);
	for (cut = 0; cut < w.len; cut++) {
		r = (struct nd_rbuf){ w.p, cut, false };
		ck_assert_int_eq(nd_gen_result_decode(&r, &p, &j, 2, &out), -EPROTO);
	}
	nd_wbuf_free(&w);
	nd_gen_plan_free(&p);
}
END_TEST

START_TEST(rv_frames)
{
	struct nd_rv_hello h = { 0 };
	struct nd_blob parts[2] = { { (uint8_t *)"ab", 2, true }, { NULL, 0, false } };
	struct nd_wbuf w = { 0 };
	struct nd_rv_msg m;
	uint16_t type;
	uint32_t plen;
	size_t cut;

	snprintf(h.token, sizeof(h.token), "job1");
	snprintf(h.host, sizeof(h.host), "h0");
	h.rank = -1;
	h.auth = ND_RV_AUTH_KEY;
	memset(h.mac, 0xa5, sizeof(h.mac));
	nd_stress_job_init(&h.job);
	nd_rv_put_hello(&w, &h);
	ck_assert_int_eq(nd_rv_frame(w.p, w.len, &type, &plen), 0);
	ck_assert_uint_eq(type, ND_RV_HELLO);
	ck_assert_uint_eq(plen, w.len - ND_RV_HDR);
	for (cut = 0; cut < w.len; cut++)
		ck_assert_int_eq(nd_rv_frame(w.p, cut, &type, &plen), -EAGAIN);
	ck_assert_int_eq(nd_rv_msg_decode(type, w.p + ND_RV_HDR, plen, 8, &m), 0);
	ck_assert_str_eq(m.u.hello.token, "job1");
	ck_assert_int_eq(m.u.hello.rank, -1);
	ck_assert_int_eq(m.u.hello.auth, ND_RV_AUTH_KEY);
	ck_assert_mem_eq(m.u.hello.mac, h.mac, ND_RV_MAC);
	nd_rv_msg_free(&m);
	/* a hello that names no kind of proof is none */
	w.len = 0;
	h.auth = ND_RV_AUTH_AUTO;
	nd_rv_put_hello(&w, &h);
	ck_assert_int_eq(nd_rv_frame(w.p, w.len, &type, &plen), 0);
	ck_assert_int_eq(nd_rv_msg_decode(type, w.p + ND_RV_HDR, plen, 8, &m), -EPROTO);
	h.auth = ND_RV_AUTH_KEY;
	w.len = 0;
	nd_rv_put_hello(&w, &h);
	ck_assert_int_eq(nd_rv_frame(w.p, w.len, &type, &plen), 0);
	for (cut = 0; cut < plen; cut++)
		ck_assert_int_eq(nd_rv_msg_decode(type, w.p + ND_RV_HDR, cut, 8, &m), -EPROTO);
	w.len = 0;
	nd_rv_put_reply(&w, ND_RV_ALLGATHER, 5, parts, 2);
	ck_assert_int_eq(nd_rv_frame(w.p, w.len, &type, &plen), 0);
	ck_assert_int_eq(nd_rv_msg_decode(type, w.p + ND_RV_HDR, plen, 8, &m), 0);
	ck_assert_uint_eq(m.u.reply.blobs.n, 2);
	ck_assert_mem_eq(m.u.reply.blobs.v[0].p, "ab", 2);
	ck_assert(!m.u.reply.blobs.v[1].present);
	nd_rv_msg_free(&m);
	/* more parts than the job has ranks */
	ck_assert_int_eq(nd_rv_msg_decode(type, w.p + ND_RV_HDR, plen, 1, &m), -EPROTO);
	/* not our protocol: a wrong magic is known from 4 bytes, an oversized frame at once */
	ck_assert_int_eq(nd_rv_frame((const uint8_t *)"GET / HTTP/1.1", 14, &type, &plen), -EPROTO);
	w.p[8] = w.p[9] = w.p[10] = 0xff;
	w.p[11] = 0x7f;
	ck_assert_int_eq(nd_rv_frame(w.p, ND_RV_HDR, &type, &plen), -EPROTO);
	nd_wbuf_free(&w);
}
END_TEST

START_TEST(rv_addr)
{
	char host[64], port[16];
	struct nd_err e = { 0 };

	ck_assert_int_eq(nd_rv_split_addr("127.0.0.1:18515", host, sizeof(host), port,
					  sizeof(port), &e), 0);
	ck_assert_str_eq(host, "127.0.0.1");
	ck_assert_str_eq(port, "18515");
	ck_assert_int_eq(nd_rv_split_addr("[::1]:9", host, sizeof(host), port, sizeof(port), &e),
			 0);
	ck_assert_str_eq(host, "::1");
	ck_assert_int_eq(nd_rv_split_addr(":9", host, sizeof(host), port, sizeof(port), &e), 0);
	ck_assert_str_eq(host, "");
	ck_assert_int_eq(nd_rv_split_addr("host", host, sizeof(host), port, sizeof(port), &e),
			 -EINVAL);
	ck_assert_str_eq(e.msg, "'host' is not HOST:PORT (IPv6 as [ADDR]:PORT)");
	ck_assert_int_eq(nd_rv_split_addr("::1:9", host, sizeof(host), port, sizeof(port), &e),
			 -EINVAL);
	ck_assert_int_eq(nd_rv_split_addr("h:99999", host, sizeof(host), port, sizeof(port), &e),
			 -EINVAL);
	ck_assert_int_eq(nd_rv_split_addr("h:9x", host, sizeof(host), port, sizeof(port), &e),
			 -EINVAL);
}
END_TEST

Suite *suite_gen_wire(void)
{
	Suite *s = suite_create("gen_wire");
	TCase *tc = tcase_create("wire");

	tcase_add_test(tc, codec_round_trip);
	tcase_add_test(tc, codec_refuses);
	tcase_add_test(tc, job_round_trip_and_diff);
	tcase_add_test(tc, info_round_trip);
	tcase_add_test(tc, cm_private_data);
	tcase_add_test(tc, hist_percentiles);
	tcase_add_test(tc, result_round_trip);
	tcase_add_test(tc, rv_frames);
	tcase_add_test(tc, rv_addr);
	suite_add_tcase(s, tc);
	return s;
}
