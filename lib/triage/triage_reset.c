// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage's counter family: counters that went backwards without wrapping, or stand at their
 * maximum, whose rules stayed silent or saw part. It reads every delta, so it names no counter
 * of its own.
 */
#include "triage_int.h"

/* A finding with every delta of @status as its evidence, or NULL for none; *@k: how many. */
static struct nd_finding *collect(struct nd_tri_ctx *c, const struct nd_tri_rule *r,
				  enum nd_delta_status status, size_t *k)
{
	struct nd_finding *f = NULL;
	size_t i;

	*k = 0;
	for (i = 0; i < c->n; i++) {
		if (c->d[i].status != status)
			continue;
		if (!f)
			f = nd_tri_add(c, r, r->severity, -1);
		if (!f)
			return NULL;
		nd_tri_add_ev(f, &c->d[i]);
		(*k)++;
	}
	return f;
}

/*
 * counter-reset, info: counters that went backwards without wrapping (driver reload, a clear):
 * they have no delta this interval, and the rules that need them stayed silent.
 */
static void check_reset(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	size_t k;
	struct nd_finding *f = collect(c, r, ND_DELTA_RESET, &k);

	if (!f)
		return;
	SUMMARY(f, "%zu counter%s went backwards without wrapping (driver reload or a clear): no "
		"delta for %s this interval, so the rules that read %s stayed silent", k,
		k == 1 ? "" : "s", k == 1 ? "it" : "them", k == 1 ? "it" : "them");
	ACTION(f, "run nodrop triage again; if it repeats, find what resets them (dmesg for a "
	       "driver reload, perfquery -R or a monitoring agent clearing counters)");
}

/*
 * counter-saturated, info: counters at their maximum (InfiniBand's small PortCounters stop
 * there, a 4-bit one after 15 errors since the last clear): what they count from then on is
 * lost, so their delta is a lower bound, and nothing at all once they stood there before.
 * A rule's threshold may then be out of reach; this says so instead of staying silent.
 */
static void check_saturated(struct nd_tri_ctx *c, const struct nd_tri_rule *r)
{
	size_t k;
	struct nd_finding *f = collect(c, r, ND_DELTA_SATURATED, &k);

	if (!f)
		return;
	SUMMARY(f, "%zu counter%s stand%s at %s maximum: what %s count%s from there on is lost, "
		"so the rules that read %s see at most what came before (a lower bound, or "
		"nothing once stuck)", k, k == 1 ? "" : "s", k == 1 ? "s" : "", k == 1 ? "its" :
		"their", k == 1 ? "it" : "they", k == 1 ? "s" : "", k == 1 ? "it" : "them");
	ACTION(f, "clear the port's counters (perfquery -R, or perfquery -x -R with the extended "
	       "ones; a monitoring agent may own them) and run nodrop triage again");
}

static const struct nd_tri_rule rules[] = {
	{ "counter-reset", ND_SEV_INFO, check_reset },
	{ "counter-saturated", ND_SEV_INFO, check_saturated },
};

const struct nd_tri_family nd_tri_reset = {
	.name = "counters",
	.rules = rules,
	.n_rules = ND_ARRAY_SIZE(rules),
};
