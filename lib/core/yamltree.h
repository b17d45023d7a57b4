/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One YAML document as a small tree with positions, built from libyaml's events. Profiles (and
 * later scenarios) walk it against their schema tables; only the schema gives a scalar its type.
 */
#ifndef ND_YAMLTREE_H
#define ND_YAMLTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "nodrop.h"

enum nd_ynode_type {
	ND_Y_SCALAR,
	ND_Y_SEQ,
	ND_Y_MAP,
};

struct nd_ynode {
	enum nd_ynode_type type;
	unsigned int line, col;		/* 1-based, of the node's first character */
	char *str;			/* scalar text, always terminated; NULL for collections */
	size_t len;			/* its length: less than strlen() means it holds a NUL */
	bool plain;			/* an unquoted scalar */
	struct nd_ynode **kids;		/* list items, or mapping keys and values alternating */
	size_t n;			/* entries in kids */
	size_t cap;
};

/* Nothing nodrop reads nests deeper than 4; the bounds keep hostile input cheap. */
#define ND_Y_DEPTH_MAX 8
#define ND_Y_NODES_MAX 10000

/*
 * Parse the one YAML document in @buf (@len bytes; any encoding libyaml detects); @file names it
 * in messages ("FILE:LINE:COL: ..."). Anchors, aliases, tags and a second document are refused,
 * so a tree is always as large as its text. *@root is NULL when the stream holds no document.
 * Returns 0, -EINVAL for bad YAML (libyaml's reason and position in @e) or -ENOMEM.
 */
int nd_yaml_load(const char *buf, size_t len, const char *file, struct nd_ynode **root,
		 struct nd_err *e);
void nd_yaml_free(struct nd_ynode *node);

/* "a mapping", "a list", "nothing" or the scalar quoted and shortened, for messages. */
const char *nd_yaml_desc(const struct nd_ynode *node, char *buf, size_t size);
/* @s (of @len bytes) shortened and with non-printable bytes as '?', safe to quote in a message. */
const char *nd_yaml_shown(const char *s, size_t len, char *buf, size_t size);
/* Is @node a scalar whose text is exactly @s (no hidden NUL)? */
bool nd_yaml_is(const struct nd_ynode *node, const char *s);

#endif
