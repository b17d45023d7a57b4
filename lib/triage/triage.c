// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Triage: rules over one port's counter deltas and state -> findings (severity, the counters
 * that moved, what to do). Each rule is one row {id, severity, check} of a family of rules that
 * read the same counters (triage_pfc.c, triage_ecn.c, triage_loss.c, triage_ib.c,
 * triage_reset.c; they build findings through triage_finding.c and share triage_int.h); this
 * file owns the table of families and runs it, then adds the profile's lints; triage_run.c,
 * above it, samples live ports and calls it. A check reads counters by their canonical names
 * (nd_counter_info(), owned by the counter maps), so one rule serves every driver. A counter the
 * driver does not have is absent from the deltas and the rules that need it stay silent instead
 * of guessing; a counter without a delta this interval (reset, new) is the counter-reset rule's
 * to explain.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "triage_int.h"

/* The families, in the order their rules run and their findings are reported. */
static const struct nd_tri_family *const families[] = {
	&nd_tri_pfc, &nd_tri_ecn, &nd_tri_loss, &nd_tri_ib, &nd_tri_reset,
};

void nd_triage_opts_init(struct nd_triage_opts *o)
{
	memset(o, 0, sizeof(*o));
	/* SONiC's Mellanox rule: paused for more than 99 % of the poll interval */
	o->storm_fraction = 0.99;
	o->pause_heavy_fraction = 0.5;
	/* a lossless fabric loses nothing: one loss event is one too many */
	o->loss_events = 1;
	o->rnr_rate = 100;
	/* ibqueryerrors' PortXmitWait threshold */
	o->xmit_wait_ticks = 1000;
}

const char *const *nd_triage_counters(size_t *n)
{
	static const char *names[ND_ARRAY_SIZE(families) * ND_TRI_FAMILY_COUNTERS + 1];
	size_t i, j, k = 0;

	for (i = 0; i < ND_ARRAY_SIZE(families); i++)
		for (j = 0; j < families[i]->n_counters; j++)
			names[k++] = families[i]->counters[j];
	names[k] = NULL;
	if (n)
		*n = k;
	return names;
}

/* Run every rule of @f over the port, until one runs out of memory. */
static void run_family(struct nd_tri_ctx *c, const struct nd_tri_family *f)
{
	size_t i;

	for (i = 0; i < f->n_rules && !c->err; i++)
		f->rules[i].check(c, &f->rules[i]);
}

/* The config lints of a port the profile matches, as findings with no counter evidence. */
static int add_lints(struct nd_tri_ctx *c, struct nd_err *e)
{
	const struct nd_profile *p = c->o->profile;
	struct nd_lint *lints;
	int n, i;

	if (!p || !nd_profile_matches(p, c->port))
		return 0;
	n = nd_lint_port(c->port, p, &lints, e);
	if (n < 0)
		return n;
	for (i = 0; i < n && !c->err; i++) {
		struct nd_tri_rule r = { lints[i].id, lints[i].severity, NULL };
		struct nd_finding *f = nd_tri_add(c, &r, lints[i].severity, -1);

		if (!f)
			break;
		f->interval_s = 0;
		nd_strlcpy(f->summary, lints[i].evidence, sizeof(f->summary));
		nd_strlcpy(f->action, lints[i].fix, sizeof(f->action));
		f->loc = lints[i].loc;
	}
	free(lints);
	return 0;
}

int nd_triage(const struct nd_port *port, const struct nd_delta *d, size_t n, double interval_s,
	      const struct nd_triage_opts *o, struct nd_finding **out, struct nd_err *e)
{
	struct nd_tri_ctx c = { .port = port, .d = d, .n = n, .t = interval_s, .o = o };
	struct nd_triage_opts def;
	size_t i;
	int ret;

	*out = NULL;
	if (!o) {
		nd_triage_opts_init(&def);
		c.o = &def;
	}
	c.pfc_known = port->dcb_status == 0 && (port->dcb.have & ND_DCB_HAVE_PFC);
	c.pfc = c.pfc_known ? port->dcb.pfc.pfc_en : 0;
	for (i = 0; i < ND_ARRAY_SIZE(families) && !c.err; i++)
		run_family(&c, families[i]);
	if (!c.err) {
		ret = add_lints(&c, e);
		if (ret) {
			free(c.v);
			return ret;
		}
	}
	if (c.err) {
		free(c.v);
		return nd_err_set(e, c.err, "%s: cannot triage: out of memory", port->link.name);
	}
	*out = c.v;
	return (int)c.n_f;
}
