// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Patterns -> flows. Rank 0 is the coordinator's process and the congested receiver where there
 * is one, so an incast's verdict and report come from the host under pressure.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Ranks a pattern needs: exactly @min when @max is @min, else at least @min. */
static const struct {
	uint32_t min, max;
	const char *shape;
} need[ND_SP_COUNT] = {
	[ND_SP_PAIR] = { 2, 2, "exactly 2 ranks (1 -> 0)" },
	[ND_SP_BIDIR] = { 2, 2, "exactly 2 ranks (1 <-> 0)" },
	[ND_SP_INCAST] = { 2, UINT32_MAX, "at least 2 ranks (1..N -> 0)" },
	[ND_SP_OUTCAST] = { 2, UINT32_MAX, "at least 2 ranks (0 -> 1..N)" },
	[ND_SP_ALL2ALL] = { 2, UINT32_MAX, "at least 2 ranks" },
	[ND_SP_VICTIM] = { 3, UINT32_MAX,
			    "at least 3 ranks (1..N -> 0, and 1 -> N+1 uncongested)" },
};

#define ND_RANKS_MAX 4096

static void add(struct nd_gen_plan *p, uint32_t src, uint32_t dst, bool victim)
{
	struct nd_gen_flow *f = &p->flows[p->n_flows];

	f->id = (uint32_t)p->n_flows++;
	f->src = src;
	f->dst = dst;
	f->victim = victim;
}

static size_t flow_count(enum nd_stress_pattern pat, uint32_t n)
{
	switch (pat) {
	case ND_SP_PAIR:
		return 1;
	case ND_SP_BIDIR:
		return 2;
	case ND_SP_ALL2ALL:
		return (size_t)n * (n - 1);
	default:
		return n - 1;
	}
}

int nd_gen_plan_build(const struct nd_stress_job *job, uint32_t nranks, struct nd_gen_plan *p,
		      struct nd_err *e)
{
	enum nd_stress_pattern pat = job->pattern;
	uint32_t i, j, last = nranks - 1;

	memset(p, 0, sizeof(*p));
	if ((unsigned int)pat >= ND_SP_COUNT)
		return nd_err_set(e, -EINVAL, "unknown pattern %d", pat);
	if (nranks < need[pat].min || nranks > need[pat].max || nranks > ND_RANKS_MAX)
		return nd_err_set(e, -EINVAL, "pattern %s needs %s, not %u (at most %u)",
				  nd_stress_pattern_name(pat), need[pat].shape, nranks,
				  ND_RANKS_MAX);
	p->flows = calloc(flow_count(pat, nranks), sizeof(*p->flows));
	if (!p->flows)
		return nd_err_set(e, -ENOMEM, "out of memory for %zu flows",
				  flow_count(pat, nranks));
	p->nranks = nranks;
	switch (pat) {
	case ND_SP_PAIR:
		add(p, 1, 0, false);
		snprintf(p->label, sizeof(p->label), "pair");
		break;
	case ND_SP_BIDIR:
		add(p, 1, 0, false);
		add(p, 0, 1, false);
		snprintf(p->label, sizeof(p->label), "bidir");
		break;
	case ND_SP_INCAST:
		for (i = 1; i < nranks; i++)
			add(p, i, 0, false);
		snprintf(p->label, sizeof(p->label), "incast %u:1", nranks - 1);
		break;
	case ND_SP_OUTCAST:
		for (i = 1; i < nranks; i++)
			add(p, 0, i, false);
		snprintf(p->label, sizeof(p->label), "outcast 1:%u", nranks - 1);
		break;
	case ND_SP_ALL2ALL:
		for (i = 0; i < nranks; i++)
			for (j = 0; j < nranks; j++)
				if (i != j)
					add(p, i, j, false);
		snprintf(p->label, sizeof(p->label), "all-to-all %u", nranks);
		break;
	case ND_SP_VICTIM:
		for (i = 1; i < last; i++)
			add(p, i, 0, false);
		add(p, 1, last, true);
		snprintf(p->label, sizeof(p->label), "victim (incast %u:1 + 1)", last - 1);
		break;
	default:
		break;
	}
	return 0;
}

void nd_gen_plan_free(struct nd_gen_plan *p)
{
	free(p->flows);
	p->flows = NULL;
	p->n_flows = 0;
}

uint32_t nd_gen_flow_active(const struct nd_gen_flow *f, enum nd_op op)
{
	return op == ND_OP_READ ? f->dst : f->src;
}
