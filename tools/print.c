// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The field printer: text straight to stdout, JSON written as its fields come into one buffer,
 * printed at the end. With json-c's object semantics: a later field replaces an earlier one of
 * the same key in the earlier one's place (a PR_ANY field's text form, then its PR_JSON value),
 * and the last document at the top is the one printed. No tree is built: the document is most of
 * what a one-shot `nodrop counters -j` spends against `ethtool -S` (make bench), and a tree cost
 * a node, a key copy and a duplicate scan per field, then a walk. It is written byte for byte as
 * json_object_to_json_string_ext() writes (PLAIN, or PRETTY|SPACED): tests/unit/test_print.c
 * holds the two to that on seeded random documents.
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
#define NONE SIZE_MAX

/*
 * An open object keeps where each of its members begins, so that a key added again replaces its
 * value in place: the members after it are cut out to side[], the new value is written where the
 * old one began, and they are put back behind it, moved, when it is complete (at once for a
 * value, when it closes for a container). Replacements are rare; the common field is appended.
 */
struct member {
	size_t sep;		/* where its ",", or the first member's indent, begins in out[] */
	size_t key, klen;	/* its key as written, quotes included */
	size_t val;
};

/* Where a value went: what was cut out behind it, to be put back when it is complete. */
struct slot {
	size_t rec;		/* the member it replaces, in recs[]; NONE when nothing followed it */
	size_t end;		/* where the replaced value ended */
	size_t tail;		/* what followed it is side[tail..n_side) */
};

struct level {
	bool object;
	size_t n;		/* members so far */
	size_t rec0;		/* an object's first member in recs[] */
	struct slot slot;	/* where the container itself went */
};

static bool json_mode, json_pretty, oom, doc;
static char *out, *side;
static size_t n_out, cap_out, n_side, cap_side;
static struct member *recs;
static size_t n_recs, cap_recs;
static struct level levels[PR_DEPTH];
static int depth;	/* levels[depth - 1] is the open container */

static void reset(void)
{
	free(out);
	free(side);
	free(recs);
	out = side = NULL;
	recs = NULL;
	n_out = cap_out = n_side = cap_side = n_recs = cap_recs = 0;
	depth = 0;
	oom = doc = false;
}

void pr_init(bool json, bool pretty)
{
	reset();
	json_mode = json;
	json_pretty = pretty;
}

bool pr_is_json(void)
{
	return json_mode;
}

/* Room in *@v for @need elements of @size; after an allocation failure nothing is printed. */
static bool grow(void **v, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t c = *cap ? *cap : first;
	void *p;

	if (oom)
		return false;
	if (need <= *cap)
		return true;
	while (c < need) {
		if (c > SIZE_MAX / 2 / size)
			goto fail;
		c *= 2;
	}
	p = realloc(*v, c * size);
	if (!p)
		goto fail;
	*v = p;
	*cap = c;
	return true;
fail:
	oom = true;
	return false;
}

/* Room for @len more bytes in out[] (after a failure what is written there is never printed). */
static inline bool room(size_t len)
{
	return n_out + len <= cap_out || grow((void **)&out, &cap_out, n_out + len, 1, 4096);
}

static inline void put(const char *s, size_t len)
{
	if (!room(len))
		return;
	memcpy(out + n_out, s, len);
	n_out += len;
}

static inline void put_c(char c)
{
	if (room(1))
		out[n_out++] = c;
}

static void puts_(const char *s)
{
	put(s, strlen(s));
}

/*
 * @s in quotes at @o, escaped as json-c escapes: the two-character forms, '/' too, other control
 * bytes as \u00xx. @o has room for the worst case, 6 * strlen(s) + 2. Returns the end.
 */
static char *escape(char *o, const char *s)
{
	static const char hex[] = "0123456789abcdef";
#define STOP8 true, true, true, true, true, true, true, true
	/* the bytes that end a run: the 32 control bytes (NUL too), '"', '\\', '/' */
	static const bool stop[256] = { STOP8, STOP8, STOP8, STOP8,
					['"'] = true, ['\\'] = true, ['/'] = true };
#undef STOP8
	const unsigned char *p = (const unsigned char *)s;

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
	return o;
}

static void put_escaped(const char *s)
{
	if (room(6 * strlen(s) + 2))
		n_out = (size_t)(escape(out + n_out, s) - out);
}

static void put_uint(uint64_t v, bool minus)
{
	size_t n = 1 + minus;
	uint64_t t;
	char *p;

	for (t = v; t >= 10; t /= 10)
		n++;
	if (!room(n))
		return;
	if (minus)
		out[n_out] = '-';
	n_out += n;
	p = out + n_out;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
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

/*
 * At @o, what goes before a container's member: "," after another, and when pretty a line break
 * after it and the member's indent, two spaces per @level. Its length is sep_len().
 */
static inline size_t sep_len(bool comma, int level)
{
	return comma + (json_pretty ? comma + 2 * (size_t)level : 0);
}

static inline char *sep(char *o, bool comma, int level)
{
	if (comma)
		*o++ = ',';
	if (json_pretty) {
		if (comma)
			*o++ = '\n';
		memset(o, ' ', 2 * (size_t)level);
		o += 2 * (size_t)level;
	}
	return o;
}

/* The member of the open object written with key @k (escaped, @klen bytes), or NONE. */
static size_t find(const struct level *top, const char *k, size_t klen)
{
	size_t i;

	/* after the quote, the first byte before the rest: members' keys seldom share one */
	for (i = top->rec0; i < n_recs; i++)
		if (recs[i].klen == klen && out[recs[i].key + 1] == k[1] &&
		    !memcmp(out + recs[i].key, k, klen))
			return i;
	return NONE;
}

/*
 * Make the place for a value under @key in the open container, or for the document at the top;
 * false after an allocation failure. An object's member of the same key is replaced in place.
 */
static bool begin(const char *key, struct slot *slot)
{
	struct level *top;
	struct member *m;
	size_t klen, i, end, gap;
	char *k;

	slot->rec = NONE;
	if (oom)
		return false;
	if (!depth) {
		/* a second document replaces the first */
		n_out = n_recs = n_side = 0;
		doc = true;
		return true;
	}
	top = &levels[depth - 1];
	gap = sep_len(top->n, depth);
	if (!top->object) {
		if (!room(gap))
			return false;
		n_out = (size_t)(sep(out + n_out, top->n, depth) - out);
		top->n++;
		return true;
	}
	if (!key)
		key = "";
	if (!room(gap + 6 * strlen(key) + 4) ||
	    (n_recs == cap_recs && !grow((void **)&recs, &cap_recs, n_recs + 1, sizeof(*recs), 16)))
		return false;
	/* the key escaped where it will stand if it is new, behind the separator's place */
	k = out + n_out + gap;
	klen = (size_t)(escape(k, key) - k);
	i = find(top, k, klen);
	if (i != NONE) {
		end = i + 1 < n_recs ? recs[i + 1].sep : n_out;
		if (end < n_out) {
			if (!grow((void **)&side, &cap_side, n_side + n_out - end, 1, 256))
				return false;
			memcpy(side + n_side, out + end, n_out - end);
			*slot = (struct slot){ .rec = i, .end = end, .tail = n_side };
			n_side += n_out - end;
		}
		n_out = recs[i].val;
		return true;
	}
	m = &recs[n_recs++];
	m->sep = n_out;
	sep(out + n_out, top->n, depth);
	m->key = n_out + gap;
	m->klen = klen;
	n_out = m->key + klen;
	out[n_out++] = ':';
	if (json_pretty)
		out[n_out++] = ' ';
	m->val = n_out;
	top->n++;
	return true;
}

/* The value in @slot is complete: what was cut out behind it goes back, moved. */
static void end(const struct slot *slot)
{
	size_t len = n_side - slot->tail, i;

	if (slot->rec == NONE || !room(len))
		return;
	memcpy(out + n_out, side + slot->tail, len);
	/* the members after the replaced one: unsigned arithmetic, each at or past slot->end */
	for (i = slot->rec + 1; i < n_recs; i++) {
		recs[i].sep = recs[i].sep - slot->end + n_out;
		recs[i].key = recs[i].key - slot->end + n_out;
		recs[i].val = recs[i].val - slot->end + n_out;
	}
	n_out += len;
	n_side = slot->tail;
}

static void close_brackets(bool object, bool any, int level)
{
	char *o;

	if (!room(2 + 2 * (size_t)level))
		return;
	o = out + n_out;
	/* pretty: the opening bracket had its line break even when nothing follows, as json-c */
	if (json_pretty) {
		if (any)
			*o++ = '\n';
		o = sep(o, false, level);
	}
	*o++ = object ? '}' : ']';
	n_out = (size_t)(o - out);
}

static void open_container(const char *key, bool object)
{
	struct slot slot;
	struct level *l;

	if (!json_mode)
		return;
	/* after an allocation failure nothing is printed; the levels stay paired all the same */
	begin(key, &slot);
	put_c(object ? '{' : '[');
	if (json_pretty)
		put_c('\n');
	if (depth == PR_DEPTH) {
		/* past the limit a container takes no members: closed at once */
		close_brackets(object, false, depth);
		end(&slot);
		return;
	}
	l = &levels[depth++];
	*l = (struct level){ .object = object, .rec0 = n_recs, .slot = slot };
}

void pr_open_object(const char *key)
{
	open_container(key, true);
}

void pr_open_array(const char *key)
{
	open_container(key, false);
}

void pr_close_object(void)
{
	struct level *l;

	if (!json_mode || !depth)
		return;
	l = &levels[--depth];
	close_brackets(l->object, l->n > 0, depth);
	n_recs = l->rec0;
	end(&l->slot);
}

void pr_close_array(void)
{
	pr_close_object();
}

enum kind { K_NULL, K_STRING, K_UINT, K_INT, K_DOUBLE, K_BOOL };

union value {
	uint64_t u;
	int64_t i;
	double d;
	bool b;
	const char *s;
};

static void json_value(const char *key, enum kind kind, union value v)
{
	struct slot slot;

	if (!begin(key, &slot))
		return;
	switch (kind) {
	case K_NULL:
		/* a null document is no document, as a NULL json-c root */
		if (!depth) {
			doc = false;
			return;
		}
		puts_("null");
		break;
	case K_STRING: put_escaped(v.s); break;
	case K_UINT: put_uint(v.u, false); break;
	/* the magnitude of INT64_MIN as unsigned, without overflow */
	case K_INT: put_uint(v.i < 0 ? 0 - (uint64_t)v.i : (uint64_t)v.i, v.i < 0); break;
	case K_DOUBLE: put_double(v.d); break;
	case K_BOOL: puts_(v.b ? "true" : "false"); break;
	}
	end(&slot);
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
	if (want_json(t))
		json_value(key, K_UINT, (union value){ .u = v });
	else if (want_text(t, fmt))
		printf(fmt, (unsigned long long)v);
}

void pr_int(enum pr_type t, const char *key, const char *fmt, int64_t v)
{
	if (want_json(t))
		json_value(key, K_INT, (union value){ .i = v });
	else if (want_text(t, fmt))
		printf(fmt, (long long)v);
}

void pr_string(enum pr_type t, const char *key, const char *fmt, const char *s)
{
	if (want_json(t))
		json_value(key, K_STRING, (union value){ .s = s });
	else if (want_text(t, fmt))
		printf(fmt, s);
}

void pr_float(enum pr_type t, const char *key, const char *fmt, double v)
{
	if (want_json(t))
		json_value(key, K_DOUBLE, (union value){ .d = v });
	else if (want_text(t, fmt))
		printf(fmt, v);
}

void pr_bool(enum pr_type t, const char *key, const char *fmt, bool v)
{
	if (want_json(t))
		json_value(key, K_BOOL, (union value){ .b = v });
	else if (want_text(t, fmt))
		printf(fmt, v ? "true" : "false");
}

void pr_on_off(enum pr_type t, const char *key, const char *fmt, bool v)
{
	if (want_json(t))
		json_value(key, K_BOOL, (union value){ .b = v });
	else if (want_text(t, fmt))
		printf(fmt, v ? "on" : "off");
}

void pr_null(enum pr_type t, const char *key, const char *fmt)
{
	if (want_json(t))
		json_value(key, K_NULL, (union value){ .u = 0 });
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

int pr_finish(void)
{
	int ret = 0;

	if (json_mode) {
		/* what is still open is closed, as a tree printed whole would be */
		while (depth)
			pr_close_object();
		if (doc)
			put_c('\n');
	}
	if (json_mode && oom) {
		fputs("nodrop: out of memory for the JSON document\n", stderr);
		ret = -ENOMEM;
	} else if (n_out && fwrite(out, 1, n_out, stdout) != n_out) {
		ret = -EIO;
	}
	reset();
	if (fflush(stdout) == EOF || ferror(stdout))
		ret = -EIO;
	return ret;
}
