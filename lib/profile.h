/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What profile.c (schema, extends) and profile_value.c (value parsers) share. */
#ifndef ND_PROFILE_H
#define ND_PROFILE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "nodrop.h"
#include "yamltree.h"

/* One file of an extends chain being applied to the profile. */
struct pctx {
	const char *file;		/* as messages and locations name it */
	const char *dir;		/* extends resolves against it; NULL: read from memory */
	const struct pctx *child;	/* the file that extends this one; NULL at the top */
	unsigned int depth;		/* extends followed to reach this file */
	bool have_ino;
	dev_t dev;
	ino_t ino;
	bool named;			/* this file gave `name` */
	struct nd_profile *p;
	struct nd_err *e;
	const char *path;		/* the key being parsed, e.g. "ets.prio-tc" */
	const char *example;		/* and how it is written, for type errors */
};

/* A whole number and what it is, for range checks and their messages. */
struct pnum {
	const char *what;		/* "priority", "MTU" */
	uint64_t min, max;
	const char *hint;		/* what to do, after the "; " */
};

struct pword {
	const char *word;
	int value;
};

/* A closed set of words, e.g. the DCBX modes. */
struct pwords {
	const char *what;		/* "DCBX mode" */
	const struct pword *w;		/* ends with { NULL } */
};

typedef int (*pvalue_fn)(struct pctx *c, const struct nd_ynode *v, int64_t *out);

/*
 * A per-index map (per priority, TC, buffer or DSCP): a list of exactly index->max + 1 values, or
 * a mapping of index: value with an optional `all` default, the one parser every such key uses.
 */
struct pmap {
	const struct pnum *index;
	const char *indexes;		/* plural, "priorities" */
	bool sparse;			/* indexes not given may stay -1 (DSCPs without an entry) */
	pvalue_fn value;
};

/* "FILE:LINE:COL: KEY: @fmt" at @n (the key omitted at the top level); returns -EINVAL. */
int pv_err(struct pctx *c, const struct nd_ynode *n, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The same at an explicit position. */
int pv_err_at(struct pctx *c, const struct nd_loc *loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Check that @v is of @type: "expected a list, got ...; write it like EXAMPLE". */
int pv_type(struct pctx *c, const struct nd_ynode *v, enum nd_ynode_type type);
/* A scalar's text, refusing empty values and hidden NULs. */
int pv_text(struct pctx *c, const struct nd_ynode *v, const char **s);

int pv_uint(struct pctx *c, const struct nd_ynode *v, const struct pnum *num, uint64_t *out);
int pv_word(struct pctx *c, const struct nd_ynode *v, const struct pwords *words, int *out);
/* A list of distinct priorities as a bitmap. */
int pv_prio_list(struct pctx *c, const struct nd_ynode *v, uint8_t *bits);
/*
 * Fill @vals (index->max + 1 entries) from a per-index map. @vals holds the values to start
 * from; @inherited says they came from an extended profile, so a mapping may leave indexes out.
 */
int pv_map(struct pctx *c, const struct nd_ynode *v, const struct pmap *m, int64_t *vals,
	   bool inherited);

/* Value parsers for pmap. */
int pv_tc(struct pctx *c, const struct nd_ynode *v, int64_t *out);
int pv_tsa(struct pctx *c, const struct nd_ynode *v, int64_t *out);
int pv_percent(struct pctx *c, const struct nd_ynode *v, int64_t *out);
int pv_buffer(struct pctx *c, const struct nd_ynode *v, int64_t *out);
int pv_size(struct pctx *c, const struct nd_ynode *v, int64_t *out);
int pv_rate(struct pctx *c, const struct nd_ynode *v, int64_t *out);
int pv_dscp_prio(struct pctx *c, const struct nd_ynode *v, int64_t *out);

extern const struct pnum pv_num_prio, pv_num_tc, pv_num_buffer, pv_num_dscp;

/* Levenshtein distance of two short strings, for "did you mean"; large for long ones. */
unsigned int pv_distance(const char *a, const char *b);

#endif
