// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The field printer: text straight to stdout, JSON into a tree printed at the end. A tree and not
 * a stream, because a later field replaces an earlier one of the same key (a PR_ANY field's text
 * form, then its PR_JSON value) in the earlier one's place, and the last document at the top is
 * the one printed, as json-c's objects behave. The tree is two arrays (nodes, and the strings
 * they name), so a document costs a few allocations rather than one per value and hash table:
 * what a one-shot `nodrop counters -j` spends against `ethtool -S` (make bench). It is written
 * byte for byte as json_object_to_json_string_ext() writes (PLAIN, or PRETTY|SPACED):
 * tests/unit/test_print.c holds the two to that on seeded random documents.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "print.h"

#define PR_DEPTH 16
#define NONE UINT32_MAX

enum kind { K_NULL, K_OBJECT, K_ARRAY, K_STRING, K_UINT, K_INT, K_DOUBLE, K_BOOL };

struct node {
	uint32_t key;		/* offset in strs; NONE for an array's member or the document */
	uint32_t next;		/* the next member of the same container */
	uint32_t first, last;	/* a container's members */
	uint8_t kind;
	union {
		uint64_t u;
		int64_t i;
		double d;
		bool b;
		uint32_t s;	/* offset in strs */
	} v;
};

static bool json_mode, json_pretty, oom;
static struct node *nodes;
static uint32_t n_nodes, cap_nodes;
static char *strs;
static uint32_t n_strs, cap_strs;
static uint32_t stack[PR_DEPTH];
static int depth;	/* stack[depth - 1] is the open container */
static uint32_t root = NONE;

static void tree_free(void)
{
	free(nodes);
	free(strs);
	nodes = NULL;
	strs = NULL;
	n_nodes = cap_nodes = n_strs = cap_strs = 0;
	root = NONE;
	depth = 0;
	oom = false;
}

void pr_init(bool json, bool pretty)
{
	tree_free();
	json_mode = json;
	json_pretty = pretty;
}

bool pr_is_json(void)
{
	return json_mode;
}

static bool grow(void **v, uint32_t *cap, uint32_t need, size_t size, uint32_t first)
{
	uint32_t c = *cap ? *cap : first;
	void *p;

	if (need <= *cap)
		return true;
	while (c < need) {
		if (c > UINT32_MAX / 2)
			return false;
		c *= 2;
	}
	p = realloc(*v, (size_t)c * size);
	if (!p)
		return false;
	*v = p;
	*cap = c;
	return true;
}

static uint32_t add_str(const char *s)
{
	size_t len = strlen(s) + 1;
	uint32_t at = n_strs;

	if (len >= NONE - n_strs ||
	    !grow((void **)&strs, &cap_strs, n_strs + (uint32_t)len, 1, 1024)) {
		oom = true;
		return NONE;
	}
	memcpy(strs + at, s, len);
	n_strs += (uint32_t)len;
	return at;
}

/* The node for @key in the open container: a new one, or (in an object) the one it replaces. */
static uint32_t attach(const char *key, enum kind kind)
{
	uint32_t top = depth ? stack[depth - 1] : NONE, i, k = NONE;
	struct node *n;

	if (oom)
		return NONE;
	if (top != NONE && nodes[top].kind == K_OBJECT) {
		if (!key)
			key = "";
		/* the first byte before the whole key: members' keys seldom share one */
		for (i = nodes[top].first; i != NONE; i = nodes[i].next)
			if (strs[nodes[i].key] == *key && !strcmp(strs + nodes[i].key, key)) {
				/* in place: the replaced value's members are dropped with it */
				nodes[i].kind = (uint8_t)kind;
				nodes[i].first = nodes[i].last = NONE;
				return i;
			}
		k = add_str(key);
		if (k == NONE)
			return NONE;
	}
	if (n_nodes == NONE ||
	    !grow((void **)&nodes, &cap_nodes, n_nodes + 1, sizeof(*nodes), 64)) {
		oom = true;
		return NONE;
	}
	i = n_nodes++;
	n = &nodes[i];
	memset(n, 0, sizeof(*n));
	n->key = k;
	n->next = n->first = n->last = NONE;
	n->kind = (uint8_t)kind;
	if (top == NONE) {
		/* a null document is no document, as a NULL json-c root */
		root = kind == K_NULL ? NONE : i;
	} else {
		if (nodes[top].last == NONE)
			nodes[top].first = i;
		else
			nodes[nodes[top].last].next = i;
		nodes[top].last = i;
	}
	return i;
}

static void open_container(const char *key, enum kind kind)
{
	uint32_t i;

	if (!json_mode)
		return;
	i = attach(key, kind);
	if (i != NONE && depth < PR_DEPTH)
		stack[depth++] = i;
}

void pr_open_object(const char *key)
{
	open_container(key, K_OBJECT);
}

void pr_open_array(const char *key)
{
	open_container(key, K_ARRAY);
}

void pr_close_object(void)
{
	if (json_mode && depth)
		depth--;
}

void pr_close_array(void)
{
	pr_close_object();
}

static bool want_json(enum pr_type t)
{
	return json_mode && (t & PR_JSON);
}

static bool want_text(enum pr_type t, const char *fmt)
{
	return !json_mode && (t & PR_TEXT) && fmt;
}

void pr_uint(enum pr_type t, const char *key, const char *fmt, uint64_t v)
{
	uint32_t i;

	if (want_json(t)) {
		i = attach(key, K_UINT);
		if (i != NONE)
			nodes[i].v.u = v;
	} else if (want_text(t, fmt)) {
		printf(fmt, (unsigned long long)v);
	}
}

void pr_int(enum pr_type t, const char *key, const char *fmt, int64_t v)
{
	uint32_t i;

	if (want_json(t)) {
		i = attach(key, K_INT);
		if (i != NONE)
			nodes[i].v.i = v;
	} else if (want_text(t, fmt)) {
		printf(fmt, (long long)v);
	}
}

void pr_string(enum pr_type t, const char *key, const char *fmt, const char *s)
{
	uint32_t i, at;

	if (want_json(t)) {
		/* the string first: attaching may replace a member whose slot is then reused */
		at = add_str(s);
		i = at == NONE ? NONE : attach(key, K_STRING);
		if (i != NONE)
			nodes[i].v.s = at;
	} else if (want_text(t, fmt)) {
		printf(fmt, s);
	}
}

void pr_float(enum pr_type t, const char *key, const char *fmt, double v)
{
	uint32_t i;

	if (want_json(t)) {
		i = attach(key, K_DOUBLE);
		if (i != NONE)
			nodes[i].v.d = v;
	} else if (want_text(t, fmt)) {
		printf(fmt, v);
	}
}

static void json_bool(const char *key, bool v)
{
	uint32_t i = attach(key, K_BOOL);

	if (i != NONE)
		nodes[i].v.b = v;
}

void pr_bool(enum pr_type t, const char *key, const char *fmt, bool v)
{
	if (want_json(t))
		json_bool(key, v);
	else if (want_text(t, fmt))
		printf(fmt, v ? "true" : "false");
}

void pr_on_off(enum pr_type t, const char *key, const char *fmt, bool v)
{
	if (want_json(t))
		json_bool(key, v);
	else if (want_text(t, fmt))
		printf(fmt, v ? "on" : "off");
}

void pr_null(enum pr_type t, const char *key, const char *fmt)
{
	if (want_json(t))
		attach(key, K_NULL);
	else if (want_text(t, fmt))
		printf(fmt, "");
}

void pr_nl(void)
{
	if (!json_mode)
		putchar('\n');
}

void pr_text(const char *fmt, ...)
{
	va_list ap;

	if (json_mode)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

/* The document is written into one buffer, then to stdout in one go. */
static char *out;
static size_t n_out, cap_out;

static bool grow_out(size_t len)
{
	size_t c = cap_out ? cap_out : 4096;
	char *p;

	if (oom)
		return false;
	while (c < n_out + len)
		c *= 2;
	p = realloc(out, c);
	if (!p) {
		oom = true;
		return false;
	}
	out = p;
	cap_out = c;
	return true;
}

/* Room for @len more bytes (after an allocation failure what is written is never printed). */
static inline bool room(size_t len)
{
	return n_out + len <= cap_out || grow_out(len);
}

static void put(const char *s, size_t len)
{
	if (!room(len))
		return;
	memcpy(out + n_out, s, len);
	n_out += len;
}

static void put_c(char c)
{
	if (room(1))
		out[n_out++] = c;
}

static void puts_(const char *s)
{
	put(s, strlen(s));
}

/*
 * As json-c escapes: the two-character forms, '/' too, other control bytes as \u00xx. Written
 * straight into the buffer, room made once for the worst case: a one-shot of a NIC's thousand
 * counters writes some thousands of strings.
 */
static void put_escaped(const char *s)
{
	static const char hex[] = "0123456789abcdef";
#define STOP8 true, true, true, true, true, true, true, true
	/* the bytes that end a run: the 32 control bytes (NUL too), '"', '\\', '/' */
	static const bool stop[256] = { STOP8, STOP8, STOP8, STOP8,
					['"'] = true, ['\\'] = true, ['/'] = true };
#undef STOP8
	const unsigned char *p = (const unsigned char *)s;
	char *o;

	if (!room(6 * strlen(s) + 2))
		return;
	o = out + n_out;
	*o++ = '"';
	for (;; p++) {
		/* runs of plain bytes: one table load each, the NUL among the stops */
		while (!stop[*p])
			*o++ = (char)*p++;
		if (!*p)
			break;
		*o++ = '\\';
		switch (*p) {
		case '\b': *o++ = 'b'; break;
		case '\n': *o++ = 'n'; break;
		case '\r': *o++ = 'r'; break;
		case '\t': *o++ = 't'; break;
		case '\f': *o++ = 'f'; break;
		case '"': case '\\': case '/': *o++ = (char)*p; break;
		default:
			*o++ = 'u';
			*o++ = '0';
			*o++ = '0';
			*o++ = hex[*p >> 4];
			*o++ = hex[*p & 0xf];
		}
	}
	*o++ = '"';
	n_out = (size_t)(o - out);
}

static void put_uint(uint64_t v, bool minus)
{
	char buf[21], *p = buf + sizeof(buf);

	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	if (minus)
		*--p = '-';
	put(p, (size_t)(buf + sizeof(buf) - p));
}

/* json-c's "%.17g", with ".0" where it reads as an integer; NaN and Infinity by name. */
static void put_double(double d)
{
	char buf[64], *comma;

	if (isnan(d)) {
		puts_("NaN");
		return;
	}
	if (isinf(d)) {
		puts_(d > 0 ? "Infinity" : "-Infinity");
		return;
	}
	snprintf(buf, sizeof(buf), "%.17g", d);
	/* a locale's decimal comma is written as a point */
	comma = strchr(buf, ',');
	if (comma)
		*comma = '.';
	puts_(buf);
	if (!strpbrk(buf, ".e"))
		puts_(".0");
}

static void indent(int level)
{
	static const char spaces[] = "                                ";
	size_t n = (size_t)level * 2;

	if (!json_pretty)
		return;
	for (; n > sizeof(spaces) - 1; n -= sizeof(spaces) - 1)
		put(spaces, sizeof(spaces) - 1);
	put(spaces, n);
}

static void put_node(uint32_t i, int level)
{
	const struct node *n = &nodes[i];
	bool object = n->kind == K_OBJECT, any = false;
	uint32_t c;

	switch (n->kind) {
	case K_NULL: puts_("null"); return;
	case K_STRING: put_escaped(strs + n->v.s); return;
	case K_UINT: put_uint(n->v.u, false); return;
	/* the magnitude of INT64_MIN as unsigned, without overflow */
	case K_INT: put_uint(n->v.i < 0 ? 0 - (uint64_t)n->v.i : (uint64_t)n->v.i, n->v.i < 0);
		return;
	case K_DOUBLE: put_double(n->v.d); return;
	case K_BOOL: puts_(n->v.b ? "true" : "false"); return;
	}
	put_c(object ? '{' : '[');
	/* pretty: a line break after the bracket even when nothing follows, as json-c */
	if (json_pretty)
		put_c('\n');
	for (c = n->first; c != NONE; c = nodes[c].next) {
		if (any)
			put(",\n", json_pretty ? 2 : 1);
		any = true;
		indent(level + 1);
		if (object) {
			put_escaped(strs + nodes[c].key);
			put(": ", json_pretty ? 2 : 1);
		}
		put_node(c, level + 1);
	}
	if (json_pretty) {
		if (any)
			put_c('\n');
		indent(level);
	}
	put_c(object ? '}' : ']');
}

int pr_finish(void)
{
	int ret = 0;

	if (json_mode && root != NONE) {
		put_node(root, 0);
		put_c('\n');
	}
	if (json_mode && oom) {
		fputs("nodrop: out of memory for the JSON document\n", stderr);
		ret = -ENOMEM;
	} else if (n_out && fwrite(out, 1, n_out, stdout) != n_out) {
		ret = -EIO;
	}
	free(out);
	out = NULL;
	n_out = cap_out = 0;
	tree_free();
	if (fflush(stdout) == EOF || ferror(stdout))
		ret = -EIO;
	return ret;
}
