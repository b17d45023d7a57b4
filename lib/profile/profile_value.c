// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Profile values: numbers with ranges, words, sizes, rates, priority lists and the one per-index
 * map parser (iproute2's parse_mapping() idea) that every per-priority, per-TC, per-buffer and
 * DSCP key goes through. The schema gives a scalar its type, so quoting does not matter.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"
#include "profile_int.h"

const struct pnum pv_num_prio = { "priority", 0, 7, "priorities are 0..7" };
const struct pnum pv_num_tc = { "TC", 0, 7, "traffic classes are 0..7" };
const struct pnum pv_num_buffer = { "buffer", 0, 7, "buffers are 0..7" };
const struct pnum pv_num_dscp = { "DSCP", 0, 63, "DSCP values are 0..63 (the ToS byte >> 2)" };
static const struct pnum num_percent = { "bandwidth", 0, 100, "bandwidth is a percentage, 0..100" };

static const struct pword tsa_words[] = {
	{ "strict", IEEE_8021QAZ_TSA_STRICT },
	{ "ets", IEEE_8021QAZ_TSA_ETS },
	{ "cbs", IEEE_8021QAZ_TSA_CB_SHAPER },
	{ "vendor", IEEE_8021QAZ_TSA_VENDOR },
	{ NULL, 0 },
};
static const struct pwords tsa = { "TSA", tsa_words };

static int verr(struct pctx *c, const char *file, unsigned int line, unsigned int col,
		const char *fmt, va_list ap)
{
	char msg[ND_ERR_MSG_MAX];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (c->path && c->path[0])
		return nd_err_set(c->e, -EINVAL, "%s:%u:%u: %s: %s", file, line, col, c->path, msg);
	return nd_err_set(c->e, -EINVAL, "%s:%u:%u: %s", file, line, col, msg);
}

int pv_err(struct pctx *c, const struct nd_ynode *n, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = verr(c, c->file, n->line, n->col, fmt, ap);
	va_end(ap);
	return ret;
}

int pv_err_at(struct pctx *c, const struct nd_loc *loc, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = verr(c, loc->file, loc->line, loc->col, fmt, ap);
	va_end(ap);
	return ret;
}

static const char *const kind_names[] = {
	[ND_Y_SCALAR] = "a single value",
	[ND_Y_SEQ] = "a list",
	[ND_Y_MAP] = "a mapping",
};

int pv_type(struct pctx *c, const struct nd_ynode *v, enum nd_ynode_type type)
{
	char desc[64];

	if (v->type == type)
		return 0;
	return pv_err(c, v, "expected %s, got %s; write it like %s", kind_names[type],
		      nd_yaml_desc(v, desc, sizeof(desc)), c->example);
}

int pv_text(struct pctx *c, const struct nd_ynode *v, const char **s)
{
	int ret = pv_type(c, v, ND_Y_SCALAR);

	if (ret)
		return ret;
	if (v->len == 0)
		return pv_err(c, v, "no value; write it like %s", c->example);
	if (strlen(v->str) != v->len)
		return pv_err(c, v, "the value holds a NUL character; remove it");
	*s = v->str;
	return 0;
}

static bool is_digit(char ch)
{
	return ch >= '0' && ch <= '9';
}

/* Leading decimal digits of @s into @v; false on overflow. @end is set past them. */
static bool digits(const char *s, uint64_t *v, const char **end)
{
	bool ok = true;

	*v = 0;
	for (; is_digit(*s); s++) {
		unsigned int d = (unsigned int)(*s - '0');

		if (*v > (UINT64_MAX - d) / 10)
			ok = false;
		else
			*v = *v * 10 + d;
	}
	*end = s;
	return ok;
}

/* "0106" is 70 to a YAML 1.1 reader and 106 to us: refuse rather than guess. */
static int leading_zero(struct pctx *c, const struct nd_ynode *v)
{
	char shown[40];

	return pv_err(c, v, "%s has a leading zero, which YAML 1.1 reads as octal; write it "
		      "without", nd_yaml_shown(v->str, v->len, shown, sizeof(shown)));
}

int pv_uint(struct pctx *c, const struct nd_ynode *v, const struct pnum *num, uint64_t *out)
{
	char shown[40], desc[64];
	const char *s, *end;
	uint64_t val;
	bool fits;
	int ret;

	ret = pv_text(c, v, &s);
	if (ret)
		return ret;
	fits = digits(s + (s[0] == '-'), &val, &end);
	if (end == s + (s[0] == '-') || *end)
		return pv_err(c, v, "expected a whole number, got %s; %s",
			      nd_yaml_desc(v, desc, sizeof(desc)), num->hint);
	nd_yaml_shown(s, v->len, shown, sizeof(shown));
	if (s[0] == '-' || !fits || val < num->min || val > num->max)
		return pv_err(c, v, "%s %s is out of range %llu..%llu; %s", num->what, shown,
			      (unsigned long long)num->min, (unsigned long long)num->max,
			      num->hint);
	if (s[0] == '0' && s[1])
		return leading_zero(c, v);
	*out = val;
	return 0;
}

/* "a, b or c" */
static void word_list(const struct pword *w, char *buf, size_t size)
{
	size_t i, len = 0;

	buf[0] = '\0';
	for (i = 0; w[i].word && len < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i == 0 ? "" :
					w[i + 1].word ? ", " : " or ", w[i].word);
}

int pv_word(struct pctx *c, const struct nd_ynode *v, const struct pwords *words, int *out)
{
	char list[128], desc[64];
	const char *s;
	size_t i;
	int ret;

	ret = pv_text(c, v, &s);
	if (ret)
		return ret;
	for (i = 0; words->w[i].word; i++) {
		if (!strcmp(s, words->w[i].word)) {
			*out = words->w[i].value;
			return 0;
		}
	}
	word_list(words->w, list, sizeof(list));
	return pv_err(c, v, "%s is not a %s; use %s", nd_yaml_desc(v, desc, sizeof(desc)),
		      words->what, list);
}

int pv_prio_list(struct pctx *c, const struct nd_ynode *v, uint8_t *bits)
{
	uint64_t prio;
	uint8_t seen = 0;
	size_t i;
	int ret;

	ret = pv_type(c, v, ND_Y_SEQ);
	for (i = 0; !ret && i < v->n; i++) {
		ret = pv_uint(c, v->kids[i], &pv_num_prio, &prio);
		if (ret)
			break;
		if (seen & (1u << prio))
			ret = pv_err(c, v->kids[i], "priority %llu is listed twice; list each "
				     "priority once", (unsigned long long)prio);
		seen |= (uint8_t)(1u << prio);
	}
	if (!ret)
		*bits = seen;
	return ret;
}

/* A mapping key naming an index: a whole number in range; `all` is the caller's. */
static int map_index(struct pctx *c, const struct nd_ynode *k, const struct pmap *m,
		     unsigned int *idx)
{
	char desc[64];
	uint64_t v;
	int ret;

	if (k->type != ND_Y_SCALAR || !(is_digit(k->str[0]) || k->str[0] == '-'))
		return pv_err(c, k, "key %s is not a %s or all; %s",
			      nd_yaml_desc(k, desc, sizeof(desc)), m->index->what, m->index->hint);
	ret = pv_uint(c, k, m->index, &v);
	if (!ret)
		*idx = (unsigned int)v;
	return ret;
}

/* "priorities 0,1,2 not given; ..." */
static int missing(struct pctx *c, const struct nd_ynode *v, const struct pmap *m,
		   const bool *given, unsigned int n)
{
	unsigned int i, count = 0;
	char list[256];
	size_t len = 0;

	list[0] = '\0';
	for (i = 0; i < n; i++) {
		if (given[i])
			continue;
		count++;
		if (len < sizeof(list))
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%u",
						len ? "," : "", i);
	}
	return pv_err(c, v, "%s %s not given; give all %u or an `all:` default",
		      count == 1 ? m->index->what : m->indexes, list, n);
}

static int map_entries(struct pctx *c, const struct nd_ynode *v, const struct pmap *m,
		       int64_t *vals, bool inherited)
{
	const struct nd_ynode *all = NULL, *first[ND_DSCP_MAX] = { NULL };
	unsigned int n = (unsigned int)m->index->max + 1, i, idx = 0;
	bool given[ND_DSCP_MAX] = { false };
	int64_t got[ND_DSCP_MAX], all_v = 0;
	size_t k;
	int ret;

	for (k = 0; k + 1 < v->n; k += 2) {
		const struct nd_ynode *key = v->kids[k], *val = v->kids[k + 1];

		if (nd_yaml_is(key, "all")) {
			if (all)
				return pv_err(c, key, "all is given twice (first at line %u); "
					      "give it once", all->line);
			all = key;
			ret = m->value(c, val, &all_v);
			if (ret)
				return ret;
			continue;
		}
		ret = map_index(c, key, m, &idx);
		if (ret)
			return ret;
		if (given[idx])
			return pv_err(c, key, "%s %u is given twice (first at line %u); give each "
				      "once", m->index->what, idx, first[idx]->line);
		ret = m->value(c, val, &got[idx]);
		if (ret)
			return ret;
		given[idx] = true;
		first[idx] = key;
	}
	if (all) {
		for (i = 0; i < n; i++)
			vals[i] = all_v;
	} else if (!inherited && !m->sparse) {
		for (i = 0; i < n && given[i]; i++)
			;
		if (i < n)
			return missing(c, v, m, given, n);
	}
	for (i = 0; i < n; i++)
		if (given[i])
			vals[i] = got[i];
	return 0;
}

int pv_map(struct pctx *c, const struct nd_ynode *v, const struct pmap *m, int64_t *vals,
	   bool inherited)
{
	unsigned int n = (unsigned int)m->index->max + 1, i;
	int64_t got[ND_DSCP_MAX];
	char desc[64];
	int ret;

	if (v->type == ND_Y_MAP)
		return map_entries(c, v, m, vals, inherited);
	if (v->type != ND_Y_SEQ)
		return pv_err(c, v, "expected a mapping or a list of %u, got %s; write it like %s",
			      n, nd_yaml_desc(v, desc, sizeof(desc)), c->example);
	if (v->n != n)
		return pv_err(c, v, "a list needs exactly %u values, one per %s 0..%u, got %zu; "
			      "give %u or write it like %s", n, m->index->what, n - 1, v->n, n,
			      c->example);
	for (i = 0; i < n; i++) {
		ret = m->value(c, v->kids[i], &got[i]);
		if (ret)
			return ret;
	}
	memcpy(vals, got, n * sizeof(*vals));
	return 0;
}

static int num_value(struct pctx *c, const struct nd_ynode *v, const struct pnum *num,
		     int64_t *out)
{
	uint64_t u;
	int ret = pv_uint(c, v, num, &u);

	if (!ret)
		*out = (int64_t)u;
	return ret;
}

int pv_tc(struct pctx *c, const struct nd_ynode *v, int64_t *out)
{
	return num_value(c, v, &pv_num_tc, out);
}

int pv_percent(struct pctx *c, const struct nd_ynode *v, int64_t *out)
{
	return num_value(c, v, &num_percent, out);
}

int pv_buffer(struct pctx *c, const struct nd_ynode *v, int64_t *out)
{
	return num_value(c, v, &pv_num_buffer, out);
}

int pv_tsa(struct pctx *c, const struct nd_ynode *v, int64_t *out)
{
	int w, ret = pv_word(c, v, &tsa, &w);

	if (!ret)
		*out = w;
	return ret;
}

/* A DSCP's priority, or `none`: no APP entry for that DSCP. */
int pv_dscp_prio(struct pctx *c, const struct nd_ynode *v, int64_t *out)
{
	if (nd_yaml_is(v, "none")) {
		*out = -1;
		return 0;
	}
	return num_value(c, v, &pv_num_prio, out);
}

/* Bytes: a count, or with K/KiB (1024) or M/MiB (1048576); binary only, so 1K is never 1000. */
int pv_size(struct pctx *c, const struct nd_ynode *v, int64_t *out)
{
	static const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = { { "", 1 }, { "K", 1024 }, { "KiB", 1024 }, { "M", 1 << 20 },
		      { "MiB", 1 << 20 } };
	const char *s, *end;
	char shown[40], desc[64];
	uint64_t val;
	bool fits;
	size_t i;
	int ret;

	ret = pv_text(c, v, &s);
	if (ret)
		return ret;
	fits = digits(s + (s[0] == '-'), &val, &end);
	if (end == s + (s[0] == '-') || *end == '.')
		return pv_err(c, v, "expected a whole number of bytes, got %s; write it like "
			      "131072, 128K or 1M", nd_yaml_desc(v, desc, sizeof(desc)));
	for (i = 0; i < ND_ARRAY_SIZE(units) && strcmp(end, units[i].suffix); i++)
		;
	if (i == ND_ARRAY_SIZE(units))
		return pv_err(c, v, "unknown size suffix \"%s\"; use K or KiB (1024 bytes), M or "
			      "MiB (1048576 bytes), or none for bytes",
			      nd_yaml_shown(end, strlen(end), shown, sizeof(shown)));
	if (s[0] == '-' || !fits || val > UINT32_MAX / units[i].mult)
		return pv_err(c, v, "size %s is out of range 0..4294967295 bytes; buffer sizes are "
			      "32-bit byte counts", nd_yaml_shown(s, v->len, shown, sizeof(shown)));
	if (s[0] == '0' && is_digit(s[1]))
		return leading_zero(c, v);
	*out = (int64_t)(val * units[i].mult);
	return 0;
}

/* kbit/s (the kernel's ieee_maxrate unit): 0 or unlimited, or a number with a decimal unit. */
int pv_rate(struct pctx *c, const struct nd_ynode *v, int64_t *out)
{
	static const struct {
		const char *unit;
		uint64_t kbit;
	} units[] = { { "kbit", 1 }, { "mbit", 1000 }, { "gbit", 1000000 } };
	const char *s, *end, *unit;
	char shown[40], desc[64];
	uint64_t val;
	bool fits;
	size_t i;
	int ret;

	ret = pv_text(c, v, &s);
	if (ret)
		return ret;
	if (!strcmp(s, "unlimited")) {
		*out = 0;
		return 0;
	}
	nd_yaml_shown(s, v->len, shown, sizeof(shown));
	fits = digits(s + (s[0] == '-'), &val, &end);
	if (end == s + (s[0] == '-') || *end == '.')
		return pv_err(c, v, "expected a whole number with a unit, got %s; write it like "
			      "25Gbit, 800Mbit or unlimited", nd_yaml_desc(v, desc, sizeof(desc)));
	for (unit = end; *unit == ' '; unit++)
		;
	if (!*unit) {
		if (val == 0 && s[0] != '-') {
			*out = 0;
			return 0;
		}
		return pv_err(c, v, "rate %s has no unit; write it like %sGbit, %sMbit or %sKbit "
			      "(1Gbit = 1000000 kbit/s)", shown, shown, shown, shown);
	}
	for (i = 0; i < ND_ARRAY_SIZE(units) && strcasecmp(unit, units[i].unit); i++)
		;
	if (i == ND_ARRAY_SIZE(units))
		return pv_err(c, v, "unknown rate unit \"%s\"; use Kbit, Mbit or Gbit (decimal: "
			      "1Gbit = 1000000 kbit/s)",
			      nd_yaml_shown(unit, strlen(unit), shown, sizeof(shown)));
	if (s[0] == '-' || !fits || val > (uint64_t)INT64_MAX / units[i].kbit)
		return pv_err(c, v, "rate %s is out of range; give 0 or unlimited, or a positive "
			      "rate like 25Gbit", shown);
	if (s[0] == '0' && is_digit(s[1]))
		return leading_zero(c, v);
	*out = (int64_t)(val * units[i].kbit);
	return 0;
}

unsigned int pv_distance(const char *a, const char *b)
{
	unsigned int row[65], i, j, diag, up;
	size_t la = strlen(a), lb = strlen(b);

	if (la > 64 || lb > 64)
		return 99;
	for (j = 0; j <= lb; j++)
		row[j] = j;
	for (i = 1; i <= la; i++) {
		diag = row[0];
		row[0] = i;
		for (j = 1; j <= lb; j++) {
			up = row[j];
			row[j] = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < row[j])
				row[j] = up + 1;
			if (row[j - 1] + 1 < row[j])
				row[j] = row[j - 1] + 1;
			diag = up;
		}
	}
	return row[lb];
}
