// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The counters behind the verdict: the rank's port sampled (nd_sampler) after its QPs are
 * connected and before the start, and again after every rank has finished; the deltas of
 * the canonical counters, with whether each one is a loss indicator, go to rank 0.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

int nd_gen_ctr_before(struct nd_gen_ctr_state *st, const char *ifname, const char *maps)
{
	memset(st, 0, sizeof(*st));
	if (!ifname || !ifname[0])
		return nd_err_set(&st->err, -ENODEV, "the RDMA port has no network device whose "
				  "counters could be read");
	st->status = nd_sampler_new(&st->s, maps, &st->err);
	if (!st->status)
		st->status = nd_sample_port(st->s, ifname, &st->before, &st->err);
	return st->status;
}

void nd_gen_ctr_after(struct nd_gen_ctr_state *st, const char *ifname,
		      struct nd_gen_rank_result *res)
{
	struct nd_sample after = { 0 };
	struct nd_delta *d = NULL;
	size_t n = 0, i;
	int ret = st->status;

	if (!ret)
		ret = nd_sample_port(st->s, ifname, &after, &st->err);
	if (!ret)
		ret = nd_sample_diff(&st->before, &after, &d, &n, &st->err);
	res->ctrs = ret ? NULL : calloc(n ? n : 1, sizeof(*res->ctrs));
	if (!ret && !res->ctrs)
		ret = nd_err_set(&st->err, -ENOMEM, "out of memory");
	res->ctr_status = ret;
	if (ret) {
		nd_strlcpy(res->ctr_error, st->err.msg, sizeof(res->ctr_error));
		goto out;
	}
	res->ctr_interval_s = (double)(after.t_ns - st->before.t_ns) / 1e9;
	res->ctr_total = after.n;
	for (i = 0; i < n; i++) {
		const struct nd_counter_info *info;
		struct nd_gen_ctr *c;

		/* only names with a meaning: raw driver names say nothing about loss */
		if (!d[i].mapped)
			continue;
		info = nd_counter_info(d[i].name);
		c = &res->ctrs[res->n_ctrs++];
		nd_strlcpy(c->name, d[i].name, sizeof(c->name));
		c->prio = d[i].prio;
		c->delta = d[i].delta;
		c->status = (uint8_t)d[i].status;
		c->loss = info && info->loss;
	}
out:
	free(d);
	nd_sample_free(&after);
}

void nd_gen_ctr_free(struct nd_gen_ctr_state *st)
{
	nd_sample_free(&st->before);
	nd_sampler_free(st->s);
	memset(st, 0, sizeof(*st));
}
