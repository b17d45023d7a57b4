/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What triage's files share: the context a rule reads (one port's state and counter deltas),
 * a rule and a family of rules, and the helpers that look counters up and build findings
 * (triage_finding.c). Files call downward only: triage_run.c -> triage.c -> the families
 * (triage_pfc.c, triage_ecn.c, triage_loss.c, triage_ib.c, triage_reset.c) -> triage_finding.c.
 */
#ifndef ND_TRIAGE_INT_H
#define ND_TRIAGE_INT_H

#include "core/internal.h"

/* One port being triaged, and the findings so far. */
struct nd_tri_ctx {
	const struct nd_port *port;
	const struct nd_delta *d;
	size_t n;
	double t;			/* interval, seconds */
	const struct nd_triage_opts *o;
	bool pfc_known;			/* the driver reported PFC state */
	uint8_t pfc;			/* PFC-enabled priorities */
	struct nd_finding *v;
	size_t n_f, cap;
	int err;
};

struct nd_tri_rule {
	const char *id;
	enum nd_severity severity;	/* the usual one; a check may raise or lower it */
	void (*check)(struct nd_tri_ctx *c, const struct nd_tri_rule *r);
};

#define ND_TRI_FAMILY_COUNTERS 16	/* counters one family may read */

/* Rules that read the same counters, and those counters (for nd_triage_counters()). */
struct nd_tri_family {
	const char *name;
	const struct nd_tri_rule *rules;	/* in the order they run and report */
	size_t n_rules;
	const char *const *counters;		/* canonical names, as the counter maps define */
	size_t n_counters;
};

/* A family file ends with ND_TRI_FAMILY(name): its rules[] and counters[] as nd_tri_<name>. */
#define ND_TRI_FAMILY(fam)								\
	_Static_assert(ND_ARRAY_SIZE(counters) <= ND_TRI_FAMILY_COUNTERS,		\
		       "ND_TRI_FAMILY_COUNTERS too small");				\
	const struct nd_tri_family nd_tri_##fam = {					\
		.name = #fam, .rules = rules, .n_rules = ND_ARRAY_SIZE(rules),		\
		.counters = counters, .n_counters = ND_ARRAY_SIZE(counters),		\
	}

/* The families, in the order triage.c runs them. */
extern const struct nd_tri_family nd_tri_pfc;		/* triage_pfc.c: pause and drops */
extern const struct nd_tri_family nd_tri_ecn;		/* triage_ecn.c: ECN and CNPs */
extern const struct nd_tri_family nd_tri_loss;		/* triage_loss.c: RDMA transport */
extern const struct nd_tri_family nd_tri_ib;		/* triage_ib.c: InfiniBand links */
extern const struct nd_tri_family nd_tri_reset;		/* triage_reset.c: counter resets */

/* ---- triage_finding.c ---- */

/* A delta that says how far the counter moved (a reset or new counter does not). */
bool nd_tri_counted(const struct nd_delta *d);
/* A counter's delta this interval, NULL when the driver has no such counter. */
const struct nd_delta *nd_tri_get(const struct nd_tri_ctx *c, const char *name, int prio);
/* The counter when it moved this interval, else NULL. */
const struct nd_delta *nd_tri_moved(const struct nd_tri_ctx *c, const char *name, int prio);
/* Append a finding of rule @r; NULL (and c->err set) when out of memory. */
struct nd_finding *nd_tri_add(struct nd_tri_ctx *c, const struct nd_tri_rule *r,
			      enum nd_severity sev, int prio);
/* Add @d (when not NULL) to the finding's evidence. */
void nd_tri_add_ev(struct nd_finding *f, const struct nd_delta *d);
/* Only the rules format into these, with their own literal formats. */
void nd_tri_say(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define SUMMARY(f, ...) nd_tri_say((f)->summary, sizeof((f)->summary), __VA_ARGS__)
#define ACTION(f, ...) nd_tri_say((f)->action, sizeof((f)->action), __VA_ARGS__)

#endif
