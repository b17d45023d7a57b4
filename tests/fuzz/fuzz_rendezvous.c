// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for everything a stress rank reads from the network: the coordinator's
 * frames and messages (the challenge and the hello's proof among them), the job's options, the endpoints a rank publishes, the results rank 0
 * gathers, histograms, the verdict, rdma_cm private data. The first byte picks the parser, the
 * rest is its input. Any bytes must decode or be refused with -EPROTO, leave nothing behind on
 * refusal, and what decodes must hold to its bounds. ASan and UBSan watch every read.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stress/coord.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The job every decoder checks against: a 4-rank incast, 2 QPs a flow, probes, a sweep. */
static void job_and_plan(struct nd_stress_job *job, struct nd_gen_plan *plan)
{
	nd_stress_job_init(job);
	job->pattern = ND_SP_INCAST;
	job->qps = 2;
	job->probes = true;
	if (nd_sizes_parse("64-1K", &job->sizes, NULL) || nd_gen_plan_build(job, 4, plan, NULL))
		abort();
}

static void frames(const uint8_t *p, size_t n)
{
	struct nd_rv_msg m;
	uint16_t type;
	uint32_t plen;
	size_t i;
	int ret;

	/* a stream of frames, as the coordinator and its clients read them */
	while ((ret = nd_rv_frame(p, n, &type, &plen)) == 0) {
		if (type < 1 || type > ND_RV_TYPE_MAX || plen > n - ND_RV_HDR)
			abort();
		ret = nd_rv_msg_decode(type, p + ND_RV_HDR, plen, 64, &m);
		if (ret && ret != -EPROTO)
			abort();
		if (!ret && m.type == ND_RV_REPLY) {
			if (m.u.reply.blobs.n > 64)
				abort();
			for (i = 0; i < m.u.reply.blobs.n; i++)
				if (!m.u.reply.blobs.v[i].present && m.u.reply.blobs.v[i].len)
					abort();
		}
		/* a decoded job is one the checks can look at; its proof is one of the kinds */
		if (!ret && m.type == ND_RV_HELLO &&
		    (strlen(m.u.hello.token) >= 64 ||
		     strnlen(m.u.hello.cred, ND_RV_CRED_MAX) >= ND_RV_CRED_MAX ||
		     m.u.hello.auth < ND_RV_AUTH_NONE || m.u.hello.auth > ND_RV_AUTH_KEY ||
		     nd_stress_job_check(&m.u.hello.job, NULL) > 0))
			abort();
		if (!ret && m.type == ND_RV_CHALLENGE &&
		    (m.u.challenge.auth < ND_RV_AUTH_NONE || m.u.challenge.auth > ND_RV_AUTH_KEY))
			abort();
		nd_rv_msg_free(&m);
		p += ND_RV_HDR + plen;
		n -= ND_RV_HDR + plen;
	}
	if (ret != -EAGAIN && ret != -EPROTO)
		abort();
}

static void results(const uint8_t *p, size_t n, const struct nd_stress_job *job,
		    const struct nd_gen_plan *plan, uint32_t rank)
{
	struct nd_gen_rank_result res;
	struct nd_rbuf r = { p, n, false };
	size_t i;
	int ret;

	ret = nd_gen_result_decode(&r, plan, job, rank, &res);
	if (ret) {
		if (ret != -EPROTO || res.flows || res.steps || res.ctrs || res.probe.b)
			abort();
		return;
	}
	if (res.n_steps != job->sizes.n || res.info.rank != rank)
		abort();
	for (i = 0; i < res.n_flows; i++)
		if (nd_gen_flow_active(&plan->flows[res.flows[i].flow], job->op) != rank)
			abort();
	nd_gen_result_free(&res);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct nd_stress_job job, other;
	struct nd_gen_rank_info info;
	struct nd_stress_result verdict;
	struct nd_gen_plan plan;
	struct nd_hist h;
	struct nd_rbuf r;
	uint32_t flow, src;
	uint16_t qp;
	size_t i;

	if (!size)
		return 0;
	job_and_plan(&job, &plan);
	r = (struct nd_rbuf){ data + 1, size - 1, false };
	switch (data[0] % 8) {
	case 0:
		frames(data + 1, size - 1);
		break;
	case 1:
		if (!nd_gen_job_decode(&r, &other) && nd_stress_job_check(&other, NULL) > 0)
			abort();
		break;
	case 2:
	case 3:
		/* rank 0 takes part in every incast flow, rank 1 in one */
		if (!nd_gen_info_decode(&r, &plan, &job, data[0] % 8 - 2, &info)) {
			for (i = 0; i < info.n_eps; i++)
				if (info.eps[i].qp > job.qps || info.eps[i].flow >= plan.n_flows)
					abort();
			nd_gen_info_free(&info);
		}
		break;
	case 4:
		results(data + 1, size - 1, &job, &plan, 1);
		break;
	case 5:
		if (!nd_hist_decode(&r, &h)) {
			if (h.count && !h.b)
				abort();
			nd_hist_free(&h);
		} else if (h.b) {
			abort();
		}
		break;
	case 6:
		if (nd_gen_result_alloc(&verdict))
			abort();
		if (!nd_gen_verdict_decode(&r, &verdict) &&
		    (verdict.report->verdict > ND_VERDICT_FAILED ||
		     strlen(verdict.report->reason) >= sizeof(verdict.report->reason)))
			abort();
		nd_stress_result_free(&verdict);
		break;
	default:
		nd_gen_cm_priv_decode(data + 1, size - 1, &flow, &qp, &src);
		break;
	}
	nd_gen_plan_free(&plan);
	return 0;
}
