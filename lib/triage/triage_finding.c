// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Below every triage rule: reading a counter's delta by its canonical name, and building a
 * finding (its rule, port and priority, the counters that moved as evidence, its summary and
 * action). It calls no rule and nothing of triage.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "triage_int.h"

bool nd_tri_counted(const struct nd_delta *d)
{
	return d && (d->status == ND_DELTA_OK || d->status == ND_DELTA_WRAPPED ||
		     d->status == ND_DELTA_SATURATED);
}

const struct nd_delta *nd_tri_get(const struct nd_tri_ctx *c, const char *name, int prio)
{
	return nd_delta_find(c->d, c->n, name, prio);
}

const struct nd_delta *nd_tri_moved(const struct nd_tri_ctx *c, const char *name, int prio)
{
	const struct nd_delta *d = nd_tri_get(c, name, prio);

	return nd_tri_counted(d) && d->delta ? d : NULL;
}

struct nd_finding *nd_tri_add(struct nd_tri_ctx *c, const struct nd_tri_rule *r,
			      enum nd_severity sev, int prio)
{
	struct nd_finding *f;

	if (c->err)
		return NULL;
	f = nd_append((void **)&c->v, &c->n_f, &c->cap, sizeof(*f));
	if (!f) {
		c->err = -ENOMEM;
		return NULL;
	}
	f->id = r->id;
	f->severity = sev;
	nd_strlcpy(f->ifname, c->port->link.name, sizeof(f->ifname));
	f->prio = prio;
	f->interval_s = c->t;
	return f;
}

void nd_tri_add_ev(struct nd_finding *f, const struct nd_delta *d)
{
	struct nd_finding_ev *ev;

	if (!d || f->n_ev >= ND_FINDING_EV_MAX)
		return;
	ev = &f->ev[f->n_ev++];
	nd_strlcpy(ev->name, d->name, sizeof(ev->name));
	ev->prio = d->prio;
	ev->delta = d->delta;
	ev->rate = d->rate;
	ev->status = d->status;
}

void nd_tri_say(char *dst, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(dst, len, fmt, ap);
	va_end(ap);
}
