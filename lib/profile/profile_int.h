/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the profile's files share: the parse context, the key tables and their parsers. Files
 * call downward only: profile.c (extends, whole profile) -> profile_schema.c (top-level keys)
 * -> the sections (profile_ports.c, profile_dcb.c, profile_ecn.c, profile_roce.c) ->
 * profile_table.c (the key-table engine) and profile_keys.c (key parsers) -> profile_value.c
 * (value parsers); profile_file.c reads files for profile.c.
 */
#ifndef ND_PROFILE_INT_H
#define ND_PROFILE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "nodrop.h"
#include "core/yamltree.h"

struct pkey;

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
	const struct pkey *schema;	/* the top-level keys, for "did you mean" */
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

/* ---- key tables: the schema ---- */

typedef int (*pkey_fn)(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);

/* One key of the schema: what it sets, how it is parsed, where the value goes. */
struct pkey {
	const char *name;
	int field;			/* enum nd_field, -1 for keys that are not a field */
	pkey_fn parse;
	const struct pkey *sub;		/* the keys of a nested mapping */
	const struct pnum *num;
	const struct pwords *words;
	const struct pmap *map;
	size_t off, size;		/* the value in struct nd_profile (element size for maps) */
	unsigned int slot;		/* which nd_match list */
	const char *example;
};

#define PKEYS_MAX 16		/* keys in one table, for pk_parse_table()'s duplicate check */

/* Where a key's value goes: a field of struct nd_profile, or each element of an array one. */
#define PK_AT(f) .off = offsetof(struct nd_profile, f), .size = sizeof(((struct nd_profile *)0)->f)
#define PK_AT_EACH(f) .off = offsetof(struct nd_profile, f), \
	.size = sizeof(((struct nd_profile *)0)->f[0])

/* The tables, each ending with { .name = NULL }. */
extern const struct pkey pk_top_keys[];		/* profile_schema.c */
extern const struct pkey pk_port_keys[];	/* profile_ports.c */
extern const struct pkey pk_pfc_keys[], pk_ets_keys[], pk_buffer_keys[];	/* profile_dcb.c */
extern const struct pkey pk_ecn_keys[];		/* profile_ecn.c */
extern const struct pkey pk_roce_keys[];	/* profile_roce.c */
extern const struct pkey pk_audit_keys[];	/* profile_schema.c */

/* profile_table.c: parse mapping @v against @table, each key by its parser. */
int pk_parse_table(struct pctx *c, const struct nd_ynode *v, const struct pkey *table);
/* The parser of a nested section: its keys are k->sub. */
int pk_table(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);

/* profile_keys.c: mark @field set by @v; parsers that store at k->off as k->num etc. say. */
void pk_set_field(struct pctx *c, int field, const struct nd_ynode *v);
int pk_num(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);
int pk_word(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);
int pk_prios(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);
int pk_map(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);

/* profile_ports.c: the ports key (it replaces the extended profile's ports); free the globs. */
int pk_ports(struct pctx *c, const struct nd_ynode *v, const struct pkey *k);
void pk_match_free(struct nd_match *m);

/* ---- profile_file.c ---- */

/* Read a whole regular file of at most ND_PROFILE_MAX_BYTES; @why says what went wrong. */
int pf_slurp(const char *path, char **out, size_t *len, struct stat *st, char *why, size_t size);
/* What to do about a file that pf_slurp() refused. */
const char *pf_file_fix(int code, bool extended);

#endif
