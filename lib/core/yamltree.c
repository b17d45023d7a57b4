// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A YAML document as a tree with positions, from libyaml's event API. The event API rather than
 * libyaml's document loader because the loader resolves aliases silently (a billion-laughs file
 * becomes a graph walked exponentially) and cannot say where an alias was; here every anchor,
 * alias and tag is refused at its own line and column.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "internal.h"
#include "yamltree.h"

struct ybuild {
	const char *file;
	const char *buf;
	size_t len;
	struct nd_err *e;
	struct nd_ynode *root;
	struct nd_ynode *open[ND_Y_DEPTH_MAX];	/* collections not yet closed, innermost last */
	unsigned int depth;
	size_t nodes;
	unsigned int docs;
};

const char *nd_yaml_shown(const char *s, size_t len, char *buf, size_t size)
{
	size_t i, n = 0;

	for (i = 0; i < len && n + 4 < size; i++)
		buf[n++] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
	if (i < len && size >= 4) {
		memcpy(buf + n, "...", 3);
		n += 3;
	}
	if (size)
		buf[n < size ? n : size - 1] = '\0';
	return buf;
}

const char *nd_yaml_desc(const struct nd_ynode *node, char *buf, size_t size)
{
	char shown[40];

	if (node->type == ND_Y_MAP)
		return "a mapping";
	if (node->type == ND_Y_SEQ)
		return "a list";
	if (node->plain && node->len == 0)
		return "nothing";
	snprintf(buf, size, "\"%s\"", nd_yaml_shown(node->str, node->len, shown, sizeof(shown)));
	return buf;
}

bool nd_yaml_is(const struct nd_ynode *node, const char *s)
{
	return node->type == ND_Y_SCALAR && node->len == strlen(s) && !strcmp(node->str, s);
}

void nd_yaml_free(struct nd_ynode *node)
{
	size_t i;

	if (!node)
		return;
	/* recursion is bounded by ND_Y_DEPTH_MAX */
	for (i = 0; i < node->n; i++)
		nd_yaml_free(node->kids[i]);
	free(node->kids);
	free(node->str);
	free(node);
}

static int yerr(struct ybuild *b, const yaml_mark_t *mark, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int yerr(struct ybuild *b, const yaml_mark_t *mark, const char *fmt, ...)
{
	char msg[ND_ERR_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return nd_err_set(b->e, -EINVAL, "%s:%zu:%zu: %s", b->file, mark->line + 1,
			  mark->column + 1, msg);
}

/* libyaml's reader reports a byte offset only; turn it into a line and column. */
static void offset_mark(const struct ybuild *b, size_t offset, yaml_mark_t *mark)
{
	size_t i;

	memset(mark, 0, sizeof(*mark));
	for (i = 0; i < offset && i < b->len; i++) {
		if (b->buf[i] == '\n') {
			mark->line++;
			mark->column = 0;
		} else {
			mark->column++;
		}
	}
}

/* Is a tab in the indentation of @mark's line? libyaml only says "cannot start any token". */
static bool tab_indented(const struct ybuild *b, const yaml_mark_t *mark)
{
	size_t i = 0, line = 0;

	while (i < b->len && line < mark->line)
		if (b->buf[i++] == '\n')
			line++;
	for (; i < b->len && (b->buf[i] == ' ' || b->buf[i] == '\t'); i++)
		if (b->buf[i] == '\t')
			return true;
	return false;
}

static int syntax_error(struct ybuild *b, const yaml_parser_t *yp)
{
	const char *fix = "fix the YAML syntax here (indentation, brackets, quotes)";
	yaml_mark_t mark = yp->problem_mark;
	char ctx[128] = "";

	switch (yp->error) {
	case YAML_MEMORY_ERROR:
		return nd_err_set(b->e, -ENOMEM, "%s: out of memory parsing YAML", b->file);
	case YAML_READER_ERROR:
		offset_mark(b, yp->problem_offset, &mark);
		if (yp->problem_value != -1)
			snprintf(ctx, sizeof(ctx), " (byte 0x%02x)",
				 (unsigned int)yp->problem_value & 0xff);
		return yerr(b, &mark, "%s%s; a profile is UTF-8 text", yp->problem, ctx);
	default:
		break;
	}
	if (yp->context)
		snprintf(ctx, sizeof(ctx), " (%s at %zu:%zu)", yp->context,
			 yp->context_mark.line + 1, yp->context_mark.column + 1);
	if (tab_indented(b, &mark))
		fix = "indent with spaces: YAML does not allow tabs";
	return yerr(b, &mark, "invalid YAML: %s%s; %s", yp->problem ? yp->problem : "syntax error",
		    ctx, fix);
}

/* Make a node and hang it under the innermost open collection (or make it the root). */
static int add_node(struct ybuild *b, enum nd_ynode_type type, const yaml_mark_t *mark,
		    struct nd_ynode **out)
{
	struct nd_ynode *n, *parent;

	if (++b->nodes > ND_Y_NODES_MAX)
		return yerr(b, mark, "more than %d YAML nodes; a profile needs a few hundred at "
			    "most", ND_Y_NODES_MAX);
	n = calloc(1, sizeof(*n));
	if (!n)
		return nd_err_set(b->e, -ENOMEM, "%s: out of memory", b->file);
	n->type = type;
	n->line = mark->line + 1;
	n->col = mark->column + 1;
	if (!b->depth) {
		b->root = n;
	} else {
		parent = b->open[b->depth - 1];
		if (parent->n == parent->cap) {
			size_t cap = parent->cap ? parent->cap * 2 : 8;
			struct nd_ynode **kids = realloc(parent->kids, cap * sizeof(*kids));

			if (!kids) {
				free(n);
				return nd_err_set(b->e, -ENOMEM, "%s: out of memory", b->file);
			}
			parent->kids = kids;
			parent->cap = cap;
		}
		parent->kids[parent->n++] = n;
	}
	*out = n;
	return 0;
}

static int refuse_extras(struct ybuild *b, const yaml_event_t *ev, const yaml_char_t *anchor,
			 const yaml_char_t *tag)
{
	char shown[40];

	if (anchor) {
		const char *a = (const char *)anchor;

		return yerr(b, &ev->start_mark, "anchors (&%s) are not supported; write the value "
			    "out", nd_yaml_shown(a, strlen(a), shown, sizeof(shown)));
	}
	if (tag) {
		const char *t = (const char *)tag, *core = "tag:yaml.org,2002:";
		bool short_form = !strncmp(t, core, strlen(core));

		/* libyaml expands !!str; say it as it was written */
		if (short_form)
			t += strlen(core);
		return yerr(b, &ev->start_mark, "tags (%s%s) are not supported; drop the tag",
			    short_form ? "!!" : "",
			    nd_yaml_shown(t, strlen(t), shown, sizeof(shown)));
	}
	return 0;
}

static int on_scalar(struct ybuild *b, const yaml_event_t *ev)
{
	struct nd_ynode *n;
	int ret;

	ret = refuse_extras(b, ev, ev->data.scalar.anchor, ev->data.scalar.tag);
	if (!ret)
		ret = add_node(b, ND_Y_SCALAR, &ev->start_mark, &n);
	if (ret)
		return ret;
	n->str = malloc(ev->data.scalar.length + 1);
	if (!n->str)
		return nd_err_set(b->e, -ENOMEM, "%s: out of memory", b->file);
	memcpy(n->str, ev->data.scalar.value, ev->data.scalar.length);
	n->str[ev->data.scalar.length] = '\0';
	n->len = ev->data.scalar.length;
	n->plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
	return 0;
}

static int on_open(struct ybuild *b, const yaml_event_t *ev, enum nd_ynode_type type,
		   const yaml_char_t *anchor, const yaml_char_t *tag)
{
	struct nd_ynode *n;
	int ret;

	ret = refuse_extras(b, ev, anchor, tag);
	if (ret)
		return ret;
	if (b->depth == ND_Y_DEPTH_MAX)
		return yerr(b, &ev->start_mark,
			    "nested more than %d levels deep; a profile nests 3 levels at most",
			    ND_Y_DEPTH_MAX);
	ret = add_node(b, type, &ev->start_mark, &n);
	if (ret)
		return ret;
	b->open[b->depth++] = n;
	return 0;
}

static int on_event(struct ybuild *b, const yaml_event_t *ev)
{
	char shown[40];

	switch (ev->type) {
	case YAML_DOCUMENT_START_EVENT:
		if (b->docs++)
			return yerr(b, &ev->start_mark,
				    "a second YAML document; a profile is one document, remove the "
				    "'---' line or split the file");
		return 0;
	case YAML_ALIAS_EVENT:
		return yerr(b, &ev->start_mark, "aliases (*%s) are not supported; write the value "
			    "out", nd_yaml_shown((const char *)ev->data.alias.anchor,
					  strlen((const char *)ev->data.alias.anchor), shown,
					  sizeof(shown)));
	case YAML_SCALAR_EVENT:
		return on_scalar(b, ev);
	case YAML_SEQUENCE_START_EVENT:
		return on_open(b, ev, ND_Y_SEQ, ev->data.sequence_start.anchor,
			       ev->data.sequence_start.tag);
	case YAML_MAPPING_START_EVENT:
		return on_open(b, ev, ND_Y_MAP, ev->data.mapping_start.anchor,
			       ev->data.mapping_start.tag);
	case YAML_SEQUENCE_END_EVENT:
	case YAML_MAPPING_END_EVENT:
		if (b->depth)
			b->depth--;
		return 0;
	default:
		return 0;
	}
}

int nd_yaml_load(const char *buf, size_t len, const char *file, struct nd_ynode **root,
		 struct nd_err *e)
{
	struct ybuild b = { .file = file, .buf = buf, .len = len, .e = e };
	yaml_parser_t yp;
	yaml_event_t ev;
	bool done = false;
	int ret = 0;

	*root = NULL;
	if (!yaml_parser_initialize(&yp))
		return nd_err_set(e, -ENOMEM, "%s: out of memory", file);
	yaml_parser_set_input_string(&yp, (const unsigned char *)buf, len);
	while (!ret && !done) {
		if (!yaml_parser_parse(&yp, &ev)) {
			ret = syntax_error(&b, &yp);
			break;
		}
		ret = on_event(&b, &ev);
		done = ev.type == YAML_STREAM_END_EVENT;
		yaml_event_delete(&ev);
	}
	yaml_parser_delete(&yp);
	if (ret) {
		nd_yaml_free(b.root);
		return ret;
	}
	*root = b.root;
	return 0;
}
