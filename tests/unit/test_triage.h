/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the triage test files share: synthetic deltas of a lossless port under load, one run of
 * the rules over them and lookups in its findings (test_triage.c); one suite, a test case from
 * each rule family's file (test_triage_FAMILY.c, as lib/triage/triage_FAMILY.c).
 */
#ifndef ND_TEST_TRIAGE_H
#define ND_TEST_TRIAGE_H

#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "nodrop.h"

#define T 5.0			/* seconds between the samples */
#define US(frac) ((uint64_t)((frac) * T * 1e6))

/* The deltas of one port between two samples. */
struct dset {
	struct nd_delta d[96];
	size_t n;
};

/* The findings of one run of the rules. */
struct run {
	struct nd_finding *f;
	int n;
};

TCase *tcase_triage_pfc(void);
TCase *tcase_triage_ecn(void);
TCase *tcase_triage_loss(void);
TCase *tcase_triage_ib(void);
TCase *tcase_triage_reset(void);

/* Add counter @name/@prio moved by @delta to @s. */
struct nd_delta *tri_put(struct dset *s, const char *name, int prio, uint64_t delta);
/* The delta that sets counter @name/@prio to @delta in @s (it must be there). */
struct nd_delta *tri_set(struct dset *s, const char *name, int prio, uint64_t delta);
/* Delete @name/@prio from @s: a driver that does not have that counter. */
void tri_drop(struct dset *s, const char *name, int prio);
/* A nicsim/mlx5-like port: PFC on priority 3, ECN enables readable and on for 3. */
void tri_lossless_port(struct nd_port *p);
/* Lossless RoCE under load: PAUSE now and then, ECN marks answered by CNPs, nothing lost. */
void tri_healthy(struct dset *s);
/* nd_triage over @s (@o NULL: the defaults); the test fails if it does. */
struct run tri_run(const struct nd_port *p, const struct dset *s, const struct nd_triage_opts *o);
/* The finding of @id on @prio, or NULL. */
const struct nd_finding *tri_find(const struct run *r, const char *id, int prio);
/* How many findings of @id. */
int tri_count(const struct run *r, const char *id);
/* The evidence @name/@prio of @f, or NULL. */
const struct nd_finding_ev *tri_ev(const struct nd_finding *f, const char *name, int prio);
/* Every finding on stderr, for a failing test. */
void tri_dump(const struct run *r);
/* Exactly one finding of @id (on @prio), at @sev, with a summary and an action. */
const struct nd_finding *tri_only(const struct run *r, const char *id, int prio,
				  enum nd_severity sev);

#endif
