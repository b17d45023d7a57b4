// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Runs against a baseline: a report's JSON read into its headline numbers (throughput overall,
 * per size step and per flow; latency, completion and FCT percentiles; Jain's index; CPU per
 * GB; drops, retransmits, bad payload, each loss counter that moved; the verdict), and a run's
 * numbers set against the median of its baseline runs with a limit per kind of number.
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "core/internal.h"
#include "nodrop/compare.h"

/* A nightly report with its time series is well under this. */
#define REPORT_MAX (64u << 20)

static const char *const class_names[ND_CMP_CLASS_COUNT] = {
	"throughput", "latency", "cpu", "fairness", "loss", "verdict",
};

const char *nd_cmp_class_name(enum nd_cmp_class c)
{
	return c < ND_CMP_CLASS_COUNT ? class_names[c] : "?";
}

int nd_cmp_class_parse(const char *name)
{
	int c;

	for (c = 0; c < ND_CMP_CLASS_COUNT; c++)
		if (!strcmp(name, class_names[c]))
			return c;
	return -EINVAL;
}

void nd_cmp_limits_init(struct nd_cmp_limits *l)
{
	l->throughput_pct = 10;
	l->latency_pct = 20;
	l->cpu_pct = 20;
	l->jain = 0.05;
	l->skip = 0;
}

static struct json_object *get(struct json_object *o, const char *key)
{
	struct json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* The array under @key, NULL when it is absent or anything else (json-c asserts on those). */
static struct json_object *array(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_array) ? v : NULL;
}

static bool number(struct json_object *v, double *out)
{
	if (!v || !(json_object_is_type(v, json_type_double) ||
		    json_object_is_type(v, json_type_int)))
		return false;
	*out = json_object_get_double(v);
	return isfinite(*out);
}

static const char *text(struct json_object *o, const char *key)
{
	struct json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

static int add(struct nd_cmp_run *r, enum nd_cmp_class cls, double value, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int add(struct nd_cmp_run *r, enum nd_cmp_class cls, double value, const char *fmt, ...)
{
	struct nd_cmp_metric *m = nd_push((void **)&r->m, &r->n, sizeof(*m));
	va_list ap;

	if (!m)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(m->name, sizeof(m->name), fmt, ap);
	va_end(ap);
	m->cls = cls;
	m->value = value;
	return 0;
}

/* A number of @o under @key, added when present. */
static int add_num(struct nd_cmp_run *r, struct json_object *o, const char *key,
		   enum nd_cmp_class cls, const char *name)
{
	double v;

	return number(get(o, key), &v) ? add(r, cls, v, "%s", name) : 0;
}

/* The percentiles of a distribution that has samples. */
static int add_dist(struct nd_cmp_run *r, struct json_object *o, const char *key)
{
	static const char *const pct[] = { "p50_us", "p99_us", "p999_us" };
	struct json_object *d = get(o, key);
	double count, v;
	size_t i;
	int ret = 0;

	if (!number(get(d, "count"), &count) || count <= 0)
		return 0;
	for (i = 0; i < ND_ARRAY_SIZE(pct) && !ret; i++)
		if (number(get(d, pct[i]), &v))
			ret = add(r, ND_CMP_LATENCY, v, "%s %s", key, pct[i]);
	return ret;
}

static double verdict_rank(const char *v)
{
	if (!strcmp(v, "lossy"))
		return 1;
	if (!strcmp(v, "failed"))
		return 2;
	return 0;
}

/* "key=value ..." of a stress report's options object, in the order written. */
static void options_of(struct json_object *o, char *buf, size_t len)
{
	struct json_object *opts = get(o, "options"), *sim = get(o, "sim");
	size_t used = 0;

	buf[0] = '\0';
	if (opts && json_object_is_type(opts, json_type_object)) {
		json_object_object_foreach(opts, key, val) {
			char num[32];
			const char *s = json_object_to_json_string_ext(val, JSON_C_TO_STRING_PLAIN);
			int n;

			/* 3, not json-c's 3.0; pair, not "pair": the value as the option was given */
			if (json_object_is_type(val, json_type_string)) {
				s = json_object_get_string(val);
			} else if (json_object_is_type(val, json_type_double)) {
				snprintf(num, sizeof(num), "%.15g", json_object_get_double(val));
				s = num;
			}
			n = snprintf(buf + used, len - used, "%s%s=%s", used ? " " : "", key, s);

			if (n < 0 || (size_t)n >= len - used)
				break;
			used += (size_t)n;
		}
	} else if (sim) {
		snprintf(buf, len, "scenario=%s seed=%s", text(sim, "scenario"),
			 json_object_to_json_string_ext(get(sim, "seed"), JSON_C_TO_STRING_PLAIN));
	}
}

static void hosts_of(struct json_object *o, char *buf, size_t len)
{
	struct json_object *ranks = array(o, "ranks");
	size_t i, used = 0;

	buf[0] = '\0';
	if (!ranks)
		return;
	for (i = 0; i < json_object_array_length(ranks); i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? "," : "",
				 text(json_object_array_get_idx(ranks, i), "host"));

		if (n < 0 || (size_t)n >= len - used)
			return;
		used += (size_t)n;
	}
}

static int add_flows(struct nd_cmp_run *r, struct json_object *o)
{
	struct json_object *flows = array(o, "flows"), *steps = array(o, "steps");
	size_t i;
	int ret = 0;

	for (i = 0; flows && i < json_object_array_length(flows) && !ret; i++) {
		struct json_object *f = json_object_array_get_idx(flows, i);
		double v;

		if (number(get(f, "gbps"), &v))
			ret = add(r, ND_CMP_THROUGHPUT, v, "flow %s gbps", text(f, "name"));
		if (!ret && number(get(f, "fct_us"), &v) && v > 0)
			ret = add(r, ND_CMP_LATENCY, v, "flow %s fct_us", text(f, "name"));
	}
	/* a sweep's steps, one per size: a single-size run's step is the aggregate again */
	for (i = 0; steps && json_object_array_length(steps) > 1 &&
		    i < json_object_array_length(steps) && !ret; i++) {
		struct json_object *s = json_object_array_get_idx(steps, i);
		double size, v;

		if (number(get(s, "size"), &size) && number(get(s, "avg_gbps"), &v))
			ret = add(r, ND_CMP_THROUGHPUT, v, "size %.0f avg_gbps", size);
	}
	return ret;
}

/* Loss: the run's totals, bad payload, and every loss counter that moved, by port. */
static int add_loss(struct nd_cmp_run *r, struct json_object *o)
{
	static const char *const bad[] = { "corrupt", "misordered", "missing" };
	struct json_object *ev = array(o, "evidence"), *val = get(o, "validation");
	size_t i;
	int ret = add_num(r, o, "drops", ND_CMP_LOSS, "drops");

	if (!ret)
		ret = add_num(r, o, "retransmits", ND_CMP_LOSS, "retransmits");
	for (i = 0; val && i < ND_ARRAY_SIZE(bad) && !ret; i++) {
		double v;

		if (number(get(val, bad[i]), &v))
			ret = add(r, ND_CMP_LOSS, v, "payload %s", bad[i]);
	}
	for (i = 0; ev && i < json_object_array_length(ev) && !ret; i++) {
		struct json_object *x = json_object_array_get_idx(ev, i);
		double prio = -1, delta;

		number(get(x, "prio"), &prio);
		if (!number(get(x, "delta"), &delta))
			continue;
		if (prio >= 0)
			ret = add(r, ND_CMP_LOSS, delta, "counter %s %s prio %.0f", text(x, "where"),
				  text(x, "what"), prio);
		else
			ret = add(r, ND_CMP_LOSS, delta, "counter %s %s", text(x, "where"),
				  text(x, "what"));
	}
	return ret;
}

static int from_json(struct nd_cmp_run *r, struct json_object *o, struct nd_err *e)
{
	int ret;

	nd_strlcpy(r->kind, text(o, "kind"), sizeof(r->kind));
	/* what every run report has; compare's own output names a kind too */
	if ((strcmp(r->kind, "stress") && strcmp(r->kind, "sim")) || !get(o, "flows") ||
	    !get(o, "aggregate_gbps") || !get(o, "verdict"))
		return nd_err_set(e, -EINVAL, "%s: not a stress or sim report (no \"kind\": "
				  "\"stress\" or \"sim\"); give what `nodrop stress -j` or `nodrop "
				  "sim -j` wrote", r->file);
	nd_strlcpy(r->fabric, text(o, "fabric"), sizeof(r->fabric));
	nd_strlcpy(r->pattern, text(o, "pattern"), sizeof(r->pattern));
	nd_strlcpy(r->verdict, text(o, "verdict"), sizeof(r->verdict));
	options_of(o, r->options, sizeof(r->options));
	hosts_of(o, r->hosts, sizeof(r->hosts));
	ret = add(r, ND_CMP_VERDICT, verdict_rank(r->verdict), "verdict");
	if (!ret)
		ret = add_num(r, o, "aggregate_gbps", ND_CMP_THROUGHPUT, "aggregate_gbps");
	if (!ret)
		ret = add_flows(r, o);
	if (!ret)
		ret = add_dist(r, o, "latency");
	if (!ret)
		ret = add_dist(r, o, "completion");
	if (!ret)
		ret = add_dist(r, o, "fct");
	if (!ret && get(o, "jain"))
		ret = add_num(r, o, "jain", ND_CMP_FAIRNESS, "jain");
	if (!ret)
		ret = add_num(r, o, "cpu_s_per_gb", ND_CMP_CPU, "cpu_s_per_gb");
	if (!ret)
		ret = add_loss(r, o);
	return ret ? nd_err_set(e, ret, "out of memory") : 0;
}

static unsigned int line_of(const char *text, size_t off)
{
	unsigned int line = 1;
	size_t i;

	for (i = 0; i < off && text[i]; i++)
		line += text[i] == '\n';
	return line;
}

static struct json_object *parse(const char *path, const char *buf, size_t len,
				 struct nd_err *e)
{
	struct json_tokener *tok = json_tokener_new();
	struct json_object *o;
	enum json_tokener_error err;

	if (!tok) {
		nd_err_set(e, -ENOMEM, "out of memory");
		return NULL;
	}
	o = json_tokener_parse_ex(tok, buf, (int)len);
	err = json_tokener_get_error(tok);
	if (!o || err != json_tokener_success) {
		nd_err_set(e, -EINVAL, "%s:%u: not JSON: %s; give what `nodrop stress -j` or "
			   "`nodrop sim -j` wrote", path,
			   line_of(buf, json_tokener_get_parse_end(tok)),
			   json_tokener_error_desc(err == json_tokener_success ?
						   json_tokener_continue : err));
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/*
 * The first number in @o that is not finite (json-c reads 1e999 as infinity, and takes NaN and
 * Infinity): @where gets its place ("flows[2].series_gbps[17]"). A report is drawn and compared
 * by its numbers, and an infinite axis or median has no meaning, so such a file is refused whole
 * rather than drawn in part. json-c's depth limit bounds the recursion.
 */
static struct json_object *not_finite(struct json_object *o, char *where, size_t len, size_t at)
{
	struct json_object *bad = NULL;
	size_t i;

	if (json_object_is_type(o, json_type_double))
		return isfinite(json_object_get_double(o)) ? NULL : o;
	if (json_object_is_type(o, json_type_array)) {
		for (i = 0; i < json_object_array_length(o) && !bad; i++) {
			snprintf(where + at, len - at, "[%zu]", i);
			bad = not_finite(json_object_array_get_idx(o, i), where, len,
					 at + strlen(where + at));
		}
	} else if (json_object_is_type(o, json_type_object)) {
		json_object_object_foreach(o, key, v) {
			snprintf(where + at, len - at, "%s%s", at ? "." : "", key);
			bad = not_finite(v, where, len, at + strlen(where + at));
			if (bad)
				break;
		}
	}
	return bad;
}

static int check_finite(const char *path, struct json_object *top, struct nd_err *e)
{
	char where[256] = "";
	struct json_object *bad = not_finite(top, where, sizeof(where), 0);

	if (!bad)
		return 0;
	return nd_err_set(e, -EINVAL, "%s: %s: %s is not a finite number; a run report holds "
			  "finite numbers only: give what `nodrop stress -j` or `nodrop sim -j` "
			  "wrote", path, where[0] ? where : "the top level",
			  json_object_to_json_string(bad));
}

int nd_cmp_load(const char *path, struct nd_cmp_run **runs, size_t *n, struct nd_err *e)
{
	struct json_object *top, *one;
	size_t i, count, len;
	char *buf;
	int ret;

	*runs = NULL;
	*n = 0;
	ret = nd_file_read(path, REPORT_MAX, &buf, &len, NULL);
	if (ret)
		return nd_err_set(e, ret == -EISDIR ? -EINVAL : ret, "%s: %s", path,
				  ret == -E2BIG ? "over 64 MiB: not a run report" :
				  ret == -EISDIR || ret == -EINVAL ? "not a regular file" :
				  strerror(-ret));
	top = parse(path, buf, len, e);
	free(buf);
	if (!top)
		return -EINVAL;
	ret = check_finite(path, top, e);
	if (ret) {
		json_object_put(top);
		return ret;
	}
	count = json_object_is_type(top, json_type_array) ? json_object_array_length(top) : 1;
	if (!count) {
		json_object_put(top);
		return nd_err_set(e, -EINVAL, "%s: an empty array, no report", path);
	}
	*runs = calloc(count, sizeof(**runs));
	if (!*runs) {
		json_object_put(top);
		return nd_err_set(e, -ENOMEM, "out of memory");
	}
	for (i = 0; i < count && !ret; i++) {
		one = count == 1 && !json_object_is_type(top, json_type_array) ? top :
		      json_object_array_get_idx(top, i);
		nd_strlcpy((*runs)[i].file, path, sizeof((*runs)[i].file));
		(*runs)[i].index = i;
		ret = json_object_is_type(one, json_type_object) ? from_json(&(*runs)[i], one, e) :
		      nd_err_set(e, -EINVAL, "%s: element %zu is not a report object", path, i);
	}
	json_object_put(top);
	if (ret) {
		nd_cmp_runs_free(*runs, count);
		*runs = NULL;
		return ret;
	}
	*n = count;
	return 0;
}

void nd_cmp_runs_free(struct nd_cmp_run *runs, size_t n)
{
	size_t i;

	for (i = 0; runs && i < n; i++)
		free(runs[i].m);
	free(runs);
}

/* The value of option @key in "k=v k=v", copied to @out; false when absent. */
static bool option(const char *opts, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = opts;

	while (*p) {
		const char *end = strchr(p, ' ');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (n > klen && !strncmp(p, key, klen) && p[klen] == '=') {
			snprintf(out, len, "%.*s", (int)(n - klen - 1), p + klen + 1);
			return true;
		}
		p += n + (end ? 1 : 0);
	}
	return false;
}

/* Append "--KEY A vs B" for each option of @a that @b has otherwise (or lacks), and back. */
static void option_diffs(const char *a, const char *b, const char *dash, char *why, size_t len,
			 int *shown)
{
	const char *p = a;
	char key[64], va[256], vb[256];

	while (*p && *shown < 3) {
		const char *end = strchr(p, ' '), *eq = strchr(p, '=');
		size_t n = end ? (size_t)(end - p) : strlen(p);

		if (eq && eq < p + n) {
			snprintf(key, sizeof(key), "%.*s", (int)(eq - p), p);
			option(a, key, va, sizeof(va));
			if (!option(b, key, vb, sizeof(vb)))
				snprintf(vb, sizeof(vb), "(none)");
			if (strcmp(va, vb)) {
				snprintf(why + strlen(why), len - strlen(why), "%s%s%s %s vs %s",
					 *shown ? "; " : "", dash, key, va, vb);
				++*shown;
			}
		}
		p += n + (end ? 1 : 0);
	}
}

int nd_cmp_differs(const struct nd_cmp_run *a, const struct nd_cmp_run *b, char *why,
		   size_t len)
{
	int shown = 0;

	why[0] = '\0';
	if (strcmp(a->kind, b->kind)) {
		snprintf(why, len, "a %s report vs a %s report", a->kind, b->kind);
		return 1;
	}
	if (strcmp(a->fabric, b->fabric))
		snprintf(why, len, "fabric %s vs %s", a->fabric, b->fabric), shown++;
	if (strcmp(a->pattern, b->pattern))
		snprintf(why + strlen(why), len - strlen(why), "%spattern %s vs %s",
			 shown++ ? "; " : "", a->pattern, b->pattern);
	if (strcmp(a->options, b->options)) {
		const char *dash = strcmp(a->kind, "stress") ? "" : "--";
		int before = shown;

		option_diffs(a->options, b->options, dash, why, len, &shown);
		/* an option only @b has */
		if (shown == before)
			option_diffs(b->options, a->options, dash, why, len, &shown);
		if (shown == before)
			snprintf(why + strlen(why), len - strlen(why), "%soptions differ",
				 shown++ ? "; " : "");
	}
	if (strcmp(a->hosts, b->hosts))
		snprintf(why + strlen(why), len - strlen(why), "%shosts %s vs %s",
			 shown++ ? "; " : "", a->hosts[0] ? a->hosts : "(none)",
			 b->hosts[0] ? b->hosts : "(none)");
	return shown > 0;
}

static int dbl_cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/*
 * Every number of the run and of its baseline, sorted by name, then by run (the run itself is
 * 0, baseline run j is j + 1), then by place. A report holds numbers per flow, and a sim run
 * has up to a million flows: looking each name up in every other run one by one is quadratic
 * (20 000 flows took 20 s, a million would take hours); here each look-up is a binary search.
 */
struct named {
	const struct nd_cmp_metric *m;
	size_t run;
	size_t at;		/* its place in its run; for the baseline, over all its runs */
};

static int by_name(const void *a, const void *b)
{
	const struct named *x = a, *y = b;
	int c = strcmp(x->m->name, y->m->name);

	if (c)
		return c;
	if (x->run != y->run)
		return x->run < y->run ? -1 : 1;
	return (x->at > y->at) - (x->at < y->at);
}

/* The first number called @name of run @run (0: the run, j + 1: baseline run j). */
static const struct nd_cmp_metric *find(const struct named *v, size_t n, const char *name,
					size_t run)
{
	size_t lo = 0, hi = n, mid;
	int c;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		c = strcmp(v[mid].m->name, name);
		if (c < 0 || (!c && v[mid].run < run))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && v[lo].run == run && !strcmp(v[lo].m->name, name) ? v[lo].m : NULL;
}

/* The median of @name over the baseline runs that have it; loss counters absent count 0. */
static double base_median(const struct named *v, size_t nv, size_t n_base, const char *name,
			  enum nd_cmp_class cls, double *scratch, size_t *have)
{
	size_t i, k = 0;

	for (i = 0; i < n_base; i++) {
		const struct nd_cmp_metric *m = find(v, nv, name, i + 1);

		if (m)
			scratch[k++] = m->value;
		else if (cls == ND_CMP_LOSS)
			scratch[k++] = 0;
	}
	*have = k;
	if (!k)
		return 0;
	qsort(scratch, k, sizeof(*scratch), dbl_cmp);
	return k % 2 ? scratch[k / 2] : (scratch[k / 2 - 1] + scratch[k / 2]) / 2;
}

static bool is_worse(const struct nd_cmp_row *w, const struct nd_cmp_limits *l)
{
	if (l->skip & (1u << w->cls))
		return false;
	switch (w->cls) {
	case ND_CMP_THROUGHPUT:
		return w->run < w->base * (1 - l->throughput_pct / 100);
	case ND_CMP_LATENCY:
		return w->run > w->base * (1 + l->latency_pct / 100);
	case ND_CMP_CPU:
		return w->run > w->base * (1 + l->cpu_pct / 100);
	case ND_CMP_FAIRNESS:
		return w->run < w->base - l->jain;
	default:
		return w->run > w->base;
	}
}

/*
 * Mark in @adds the baseline's numbers that get a row of their own: per name the first, in the
 * baseline's order, that is no loss counter, unless the run has the name (then its numbers
 * come first in the name's stretch of @v).
 */
static size_t base_rows(const struct named *v, size_t nv, bool *adds)
{
	size_t i, j, n = 0;
	bool done;

	for (i = 0; i < nv; i = j) {
		done = !v[i].run;
		for (j = i; j < nv && !strcmp(v[j].m->name, v[i].m->name); j++) {
			if (!done && v[j].m->cls != ND_CMP_LOSS) {
				adds[v[j].at] = true;
				done = true;
				n++;
			}
		}
	}
	return n;
}

static struct nd_cmp_row *row(struct nd_cmp_result *out, const char *name,
			      enum nd_cmp_class cls)
{
	struct nd_cmp_row *w = &out->rows[out->n++];

	nd_strlcpy(w->name, name, sizeof(w->name));
	w->cls = cls;
	return w;
}

int nd_cmp_compare(const struct nd_cmp_run *const *base, size_t n_base,
		   const struct nd_cmp_run *run, const struct nd_cmp_limits *limits,
		   struct nd_cmp_result *out, struct nd_err *e)
{
	size_t i, j, have, nv = run->n, n_in_base = 0, at;
	struct named *v = NULL;
	double *scratch;
	struct nd_cmp_row *w;
	bool *adds = NULL;

	memset(out, 0, sizeof(*out));
	for (j = 0; j < n_base; j++)
		n_in_base += base[j]->n;
	nv += n_in_base;
	scratch = calloc(n_base ? n_base : 1, sizeof(*scratch));
	if (scratch)
		v = calloc(nv ? nv : 1, sizeof(*v));
	if (v)
		adds = calloc(n_in_base ? n_in_base : 1, sizeof(*adds));
	if (!adds)
		goto oom;
	for (i = 0; i < run->n; i++)
		v[i] = (struct named){ &run->m[i], 0, i };
	for (j = 0, at = 0; j < n_base; j++)
		for (i = 0; i < base[j]->n; i++, at++)
			v[run->n + at] = (struct named){ &base[j]->m[i], j + 1, at };
	qsort(v, nv, sizeof(*v), by_name);
	/* rows: every number of the run, then what the baseline had and the run lacks */
	out->rows = calloc(run->n + base_rows(v, nv, adds) + 1, sizeof(*out->rows));
	if (!out->rows)
		goto oom;
	for (i = 0; i < run->n; i++) {
		const struct nd_cmp_metric *m = &run->m[i];

		w = row(out, m->name, m->cls);
		w->run = m->value;
		w->in_run = true;
		w->base = base_median(v, nv, n_base, m->name, m->cls, scratch, &have);
		w->n_base = have;
		w->change_pct = w->base ? (w->run - w->base) / fabs(w->base) * 100 : 0;
		/* numbers near the largest double: the change, not an overflow */
		if (!isfinite(w->change_pct))
			w->change_pct = w->run > w->base ? DBL_MAX : -DBL_MAX;
		/* a number no baseline run had is new, not worse, unless it is a loss */
		w->worse = (have || m->cls == ND_CMP_LOSS) && is_worse(w, limits);
		out->n_worse += w->worse;
	}
	/* a flow or step gone is worth a row */
	for (j = 0, at = 0; j < n_base; j++) {
		for (i = 0; i < base[j]->n; i++, at++) {
			const struct nd_cmp_metric *m = &base[j]->m[i];

			if (!adds[at])
				continue;
			w = row(out, m->name, m->cls);
			w->base = base_median(v, nv, n_base, m->name, m->cls, scratch, &have);
			w->n_base = have;
		}
	}
	free(adds);
	free(v);
	free(scratch);
	return 0;
oom:
	free(adds);
	free(v);
	free(scratch);
	nd_cmp_result_free(out);
	return nd_err_set(e, -ENOMEM, "out of memory");
}

void nd_cmp_result_free(struct nd_cmp_result *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}
