// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `nodrop counters` on fixture trees: the Prometheus text format checked line by line (the grammar
 * of exposition format 0.0.4) and by promtool (Prometheus's linter, the oracle), the JSON keys,
 * watch documents and exit codes.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <json-c/json.h>

#include "prom.h"
#include "test_counters.h"
#include "unit.h"

static const char *nodrop(void)
{
	const char *p = getenv("ND_NODROP");

	return p && *p ? p : "build/nodrop";
}

static char *slurp(FILE *f)
{
	size_t len = 0, cap = 4096, n;
	char *buf = malloc(cap);

	ck_assert_ptr_nonnull(buf);
	while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
		len += n;
		if (cap - len < 2) {
			buf = realloc(buf, cap *= 2);
			ck_assert_ptr_nonnull(buf);
		}
	}
	buf[len] = '\0';
	return buf;
}

/*
 * Run `BIN counters ARGS` on a fixture tree, with the shipped maps' files as NODROP_COUNTER_MAPS
 * or (@maps false) with the maps built into BIN; returns the exit code.
 */
static int run_bin(const char *bin, bool maps, const char *fixture, const char *args, char **out,
		   char **err)
{
	char cmd[4096], errf[] = "/tmp/nd-ctr-err-XXXXXX";
	FILE *p, *f;
	int fd, rc;

	fd = mkstemp(errf);
	ck_assert_int_ge(fd, 0);
	close(fd);
	unit_counter_root(fixture);
	if (maps)
		setenv("NODROP_COUNTER_MAPS", unit_counter_maps(), 1);
	else
		unsetenv("NODROP_COUNTER_MAPS");
	snprintf(cmd, sizeof(cmd), "%s counters %s 2>%s", bin, args, errf);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	*out = slurp(p);
	rc = pclose(p);
	f = fopen(errf, "r");
	ck_assert_ptr_nonnull(f);
	*err = slurp(f);
	fclose(f);
	unlink(errf);
	ck_assert(WIFEXITED(rc));
	return WEXITSTATUS(rc);
}

static int run(const char *fixture, const char *args, char **out, char **err)
{
	return run_bin(nodrop(), true, fixture, args, out, err);
}

/* ---- the exposition format, version 0.0.4 ---- */

#define PROM_SERIES_MAX 4096

struct prom {
	char family[128];	/* the family of the last HELP */
	char type[16];
	char *families[256];
	size_t n_families;
	char *series[PROM_SERIES_MAX];
	size_t n_series;
	char err[512];
};

static bool prom_fail(char *err, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static bool prom_fail(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
	return false;
}

static bool metric_name(const char **s, char *out, size_t len)
{
	size_t n = 0;

	if (!isalpha((unsigned char)**s) && **s != '_' && **s != ':')
		return false;
	while (isalnum((unsigned char)**s) || **s == '_' || **s == ':') {
		if (n + 1 >= len)
			return false;
		out[n++] = *(*s)++;
	}
	out[n] = '\0';
	return true;
}

/* {name="value",...}: names unique, values with only \\, \" and \n escapes. */
static bool labels(const char **s, char *err, size_t errlen)
{
	char names[16][64], name[64];
	size_t n = 0, i;

	if (**s != '{')
		return true;
	(*s)++;
	while (**s != '}') {
		if (!isalpha((unsigned char)**s) && **s != '_')
			return prom_fail(err, errlen, "bad label name");
		for (i = 0; isalnum((unsigned char)**s) || **s == '_'; (*s)++)
			if (i < sizeof(name) - 1)
				name[i++] = **s;
		name[i] = '\0';
		for (i = 0; i < n; i++)
			if (!strcmp(names[i], name))
				return prom_fail(err, errlen, "label %s twice", name);
		if (n < 16)
			strcpy(names[n++], name);
		if (*(*s)++ != '=' || *(*s)++ != '"')
			return prom_fail(err, errlen, "label %s without =\"", name);
		for (; **s != '"'; (*s)++) {
			if (!**s || **s == '\n')
				return prom_fail(err, errlen, "unterminated label value");
			if (**s == '\\') {
				(*s)++;
				if (**s != '\\' && **s != '"' && **s != 'n')
					return prom_fail(err, errlen, "bad escape \\%c", **s);
			}
		}
		(*s)++;
		if (**s == ',')
			(*s)++;
		else if (**s != '}')
			return prom_fail(err, errlen, "junk after label %s", name);
	}
	(*s)++;
	return true;
}

static bool prom_sample(struct prom *p, const char *line)
{
	const char *s = line, *start;
	char name[128], *end;
	size_t i;

	if (!metric_name(&s, name, sizeof(name)))
		return prom_fail(p->err, sizeof(p->err), "bad metric name");
	if (!p->family[0] || strcmp(name, p->family))
		return prom_fail(p->err, sizeof(p->err), "sample %s outside its family %s", name,
			    p->family);
	start = line;
	if (!labels(&s, p->err, sizeof(p->err)))
		return false;
	if (*s++ != ' ')
		return prom_fail(p->err, sizeof(p->err), "no blank before the value");
	errno = 0;
	strtod(s, &end);
	if (end == s || errno || (*end && *end != ' '))
		return prom_fail(p->err, sizeof(p->err), "bad value '%s'", s);
	/* the series is the name and labels: it must be unique */
	for (i = 0; i < p->n_series; i++)
		if (!strncmp(p->series[i], start, (size_t)(s - 1 - start)) &&
		    p->series[i][s - 1 - start] == '\0')
			return prom_fail(p->err, sizeof(p->err), "duplicate series");
	ck_assert_uint_lt(p->n_series, PROM_SERIES_MAX);
	p->series[p->n_series++] = strndup(start, (size_t)(s - 1 - start));
	return true;
}

static bool prom_comment(struct prom *p, const char *line)
{
	const char *s = line + 7;
	char name[128];
	size_t i;

	if (!metric_name(&s, name, sizeof(name)) || *s != ' ')
		return prom_fail(p->err, sizeof(p->err), "bad name in comment");
	s++;
	if (!strncmp(line, "# HELP ", 7)) {
		for (i = 0; i < p->n_families; i++)
			if (!strcmp(p->families[i], name))
				return prom_fail(p->err, sizeof(p->err), "family %s twice", name);
		for (; *s; s++)
			if (*s == '\\' && *++s != '\\' && *s != 'n')
				return prom_fail(p->err, sizeof(p->err), "bad HELP escape");
		p->families[p->n_families++] = strdup(name);
		snprintf(p->family, sizeof(p->family), "%s", name);
		p->type[0] = '\0';
		return true;
	}
	if (strcmp(name, p->family) || p->type[0])
		return prom_fail(p->err, sizeof(p->err), "TYPE %s not right after its HELP", name);
	if (strcmp(s, "counter") && strcmp(s, "gauge") && strcmp(s, "untyped"))
		return prom_fail(p->err, sizeof(p->err), "unknown type '%s'", s);
	if (!strcmp(s, "counter") &&
	    (strlen(name) < 6 || strcmp(name + strlen(name) - 6, "_total")))
		return prom_fail(p->err, sizeof(p->err), "counter %s without _total", name);
	snprintf(p->type, sizeof(p->type), "%s", s);
	return true;
}

/* 0 when @text is valid, else the 1-based line that is not (p->err says why). */
static int prom_check(const char *text, struct prom *p)
{
	char line[1024];
	const char *s = text;
	int no = 0;
	bool ok;

	memset(p, 0, sizeof(*p));
	while (*s) {
		size_t len = strcspn(s, "\n");

		no++;
		if (s[len] != '\n' || len >= sizeof(line)) {
			prom_fail(p->err, sizeof(p->err), "unterminated or long line");
			return no;
		}
		memcpy(line, s, len);
		line[len] = '\0';
		s += len + 1;
		if (!strncmp(line, "# HELP ", 7) || !strncmp(line, "# TYPE ", 7))
			ok = prom_comment(p, line);
		else if (line[0] == '#' || !line[0])
			ok = prom_fail(p->err, sizeof(p->err), "stray comment or empty line");
		else
			ok = p->type[0] ? prom_sample(p, line) :
					  prom_fail(p->err, sizeof(p->err), "sample before TYPE");
		if (!ok)
			return no;
	}
	return 0;
}

static void prom_free(struct prom *p)
{
	size_t i;

	for (i = 0; i < p->n_families; i++)
		free(p->families[i]);
	for (i = 0; i < p->n_series; i++)
		free(p->series[i]);
}

/*
 * Prometheus's own linter as the oracle: `promtool check metrics` parses the text and checks the
 * naming rules (base units, _total, help texts). A missing promtool fails: it is a test dependency.
 */
static void assert_promtool_clean(const char *text)
{
	char path[] = "/tmp/nd-prom-XXXXXX", cmd[256];
	char *out;
	FILE *f, *p;
	int fd, rc;

	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(cmd, sizeof(cmd), "promtool check metrics <%s 2>&1", path);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	out = slurp(p);
	rc = pclose(p);
	unlink(path);
	ck_assert_msg(WIFEXITED(rc) && WEXITSTATUS(rc) != 127,
		      "promtool is missing: apt-get install prometheus (make deps-check does)");
	ck_assert_msg(WIFEXITED(rc) && !WEXITSTATUS(rc) && !out[0],
		      "promtool check metrics: exit %d: %s\n%s", WEXITSTATUS(rc), out, text);
	free(out);
}

static void assert_prom_valid(const char *text, size_t min_series)
{
	struct prom p;
	int line = prom_check(text, &p);

	ck_assert_msg(!line, "line %d: %s\n%s", line, p.err, text);
	ck_assert_uint_ge(p.n_series, min_series);
	prom_free(&p);
	assert_promtool_clean(text);
}

/* The checker itself must catch what is wrong. */
START_TEST(prom_checker_rejects)
{
	static const struct {
		const char *text;
		int line;
	} bad[] = {
		{ "x_total 1\n", 1 },
		{ "# HELP a_total h\n# TYPE a_total counter\na_total 1\na_total 2\n", 4 },
		{ "# HELP a_total h\n# TYPE a_total counter\na_total{d=\"x\"} 1\n"
		  "# HELP b_total h\n# TYPE b_total counter\na_total{d=\"y\"} 1\n", 6 },
		{ "# HELP a_total h\n# TYPE a_total counter\n# HELP a_total h\n", 3 },
		{ "# HELP a h\n# TYPE a counter\n", 2 },
		{ "# HELP a_total h\n# TYPE a_total counter\na_total{d=\"\\x\"} 1\n", 3 },
		{ "# HELP a_total h\n# TYPE a_total counter\na_total{d=\"x\",d=\"y\"} 1\n", 3 },
		{ "# HELP a_total h\n# TYPE a_total counter\na_total{d=\"x\"} one\n", 3 },
		{ "# HELP a_total h\n# TYPE a_total counter\na_total{d=\"x} 1\n", 3 },
		{ "# HELP a_total h\n# TYPE a_total counter\n\n", 3 },
		{ "# HELP a_total h\n# TYPE a_total counter\na_total 1", 3 },
		{ "# HELP 0a h\n", 1 },
	};
	struct prom p;
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(prom_check(bad[i].text, &p) == bad[i].line, "case %zu: %s", i,
			      p.err);
		prom_free(&p);
	}
	ck_assert_int_eq(prom_check("# HELP a_total h \\\\ \\n\n# TYPE a_total counter\n"
				    "a_total{d=\"q\\\"\\\\\",p=\"3\"} 1.5e3\na_total 2\n", &p), 0);
	prom_free(&p);
}
END_TEST

START_TEST(prometheus_ib)
{
	char *out, *err;

	ck_assert_int_eq(run("ctr-ib", "--prometheus -a", &out, &err), 0);
	ck_assert_str_eq(err, "");
	assert_prom_valid(out, 20);
	ck_assert_ptr_nonnull(strstr(out, "# HELP nodrop_ib_xmit_bytes_total Bytes the IB port "
				     "sent (the PMA counts 4-octet words; converted to bytes) "
				     "(bytes).\n# TYPE nodrop_ib_xmit_bytes_total counter\n"
				     "nodrop_ib_xmit_bytes_total{device=\"ib0\",source=\"pma\"} "
				     "4000\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nnodrop_ib_symbol_errors_total{device=\"ib0\","
				     "source=\"pma\"} 65535\n"));
	ck_assert_ptr_nonnull(strstr(out, "\n# TYPE nodrop_raw untyped\n"));
	ck_assert_ptr_nonnull(strstr(out, "\nnodrop_raw{device=\"ib0\",source=\"pma\","
				     "counter=\"unicast_xmit_packets\"} 611\n"));
	free(out);
	free(err);
}
END_TEST

/* Two ports: each family once, holding both ports' series; no raw family without --all. */
START_TEST(prometheus_two_ports)
{
	char *out, *err;
	const char *a, *b;

	ck_assert_int_eq(run("ctr-bnxt", "--prometheus", &out, &err), 0);
	assert_prom_valid(out, 24);
	a = strstr(out, "nodrop_cnp_sent_total{device=\"ens1f0np0\",source=\"rdma\"} 202\n");
	b = strstr(out, "nodrop_cnp_sent_total{device=\"ens1f1np1\",source=\"rdma\"} 302\n");
	ck_assert(a && b && a < b);
	ck_assert_ptr_null(strstr(out, "nodrop_raw"));
	free(out);
	free(err);
}
END_TEST

/* Every nodrop_ metric the shipped alerting rules name is a family in @text. */
static void assert_rules_use(const char *text)
{
	FILE *f = fopen("contrib/prometheus/nodrop.rules.yml", "r");
	char *rules, *s, want[160];
	size_t n, used = 0;

	ck_assert_msg(f, "contrib/prometheus/nodrop.rules.yml: run from the repository root");
	rules = slurp(f);
	fclose(f);
	for (s = rules; (s = strstr(s, "nodrop_")); s += n) {
		n = strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_");
		if (s > rules && (isalnum((unsigned char)s[-1]) || s[-1] == '_' || s[-1] == '.'))
			continue;	/* part of another word or a file name */
		snprintf(want, sizeof(want), "\n# TYPE %.*s ", (int)n, s);
		ck_assert_msg(strstr(text, want), "the rules use %.*s, which nodrop does not write",
			      (int)n, s);
		used++;
	}
	ck_assert_uint_ge(used, 10);
	free(rules);
}

/*
 * Every canonical counter as a series (per-priority ones on each priority), a raw one and a port
 * without counters, through the printer and promtool: no name, unit or help text of the whole
 * table breaks the naming rules, and microseconds arrive as exact seconds.
 */
START_TEST(prometheus_every_family)
{
	size_t n_info, i, k = 0, n = 0;
	const struct nd_counter_info *infos = nd_counter_infos(&n_info);
	struct nd_sample smp[2] = { { .ifname = "eth2", .driver = "mlx5_core" },
				    { .ifname = "lo", .driver = "" } };
	char *text = NULL, name[96];
	const int pfc[2] = { 1 << 3, -1 };
	const char *unit;
	uint64_t div;
	size_t len = 0;
	FILE *f;
	int p;

	for (i = 0; i < n_info; i++)
		n += infos[i].per_prio ? 8 : 1;
	smp[0].c = calloc(n + 1, sizeof(*smp[0].c));
	ck_assert_ptr_nonnull(smp[0].c);
	for (i = 0; i < n_info; i++) {
		for (p = infos[i].per_prio ? 0 : -1; p < (infos[i].per_prio ? 8 : 0); p++) {
			struct nd_counter *c = &smp[0].c[k++];

			snprintf(c->name, sizeof(c->name), "%s", infos[i].name);
			c->prio = p;
			c->mapped = true;
			c->value = 1500000 + k;
		}
	}
	snprintf(smp[0].c[k].name, sizeof(smp[0].c[k].name), "vendor_thing");
	smp[0].c[k].prio = -1;
	smp[0].n = k + 1;
	f = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(nd_prom_print(f, smp, 2, pfc, true, 1795600000.25), 0);
	ck_assert_int_eq(fclose(f), 0);
	assert_prom_valid(text, n + 6);
	ck_assert_ptr_nonnull(strstr(text, "\nnodrop_port_mapped_counters{device=\"lo\"} 0\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nnodrop_last_success_timestamp_seconds "
				     "1795600000.250\n"));
	nd_prom_name(nd_counter_info("pfc_rx_duration_us"), name, sizeof(name), &div, &unit);
	ck_assert_str_eq(name, "nodrop_pfc_rx_duration_seconds_total");
	ck_assert_ptr_nonnull(strstr(text, "\nnodrop_pfc_rx_duration_seconds_total{device="
				     "\"eth2\",prio=\"0\",source=\"ethtool\"} 1.5"));
	ck_assert_ptr_null(strstr(text, "_us_total"));
	ck_assert_ptr_nonnull(strstr(text, "\nnodrop_pfc_enabled{device=\"eth2\",prio=\"3\"} 1\n"));
	ck_assert_ptr_nonnull(strstr(text, "\nnodrop_pfc_enabled{device=\"eth2\",prio=\"4\"} 0\n"));
	ck_assert_ptr_null(strstr(text, "nodrop_pfc_enabled{device=\"lo\""));
	assert_rules_use(text);
	free(smp[0].c);
	free(text);
}
END_TEST

static struct json_object *key(struct json_object *o, const char *k)
{
	struct json_object *v = NULL;

	ck_assert_msg(json_object_object_get_ex(o, k, &v), "no key %s in %s", k,
		      json_object_to_json_string(o));
	return v;
}

static void assert_keys(struct json_object *o, const char *const *keys, size_t n)
{
	size_t i;

	ck_assert_int_eq(json_object_object_length(o), (int)n);
	for (i = 0; i < n; i++)
		key(o, keys[i]);
}

START_TEST(json_values)
{
	static const char *const port_keys[] = { "ifname", "driver", "rdma", "counters" };
	static const char *const ctr_keys[] = { "name", "prio", "source", "value", "mapped",
						"raw" };
	struct json_object *doc, *port, *c;
	char *out, *err;
	size_t i;

	ck_assert_int_eq(run("ctr-rxe", "-j veth0", &out, &err), 0);
	doc = json_tokener_parse(out);
	ck_assert_ptr_nonnull(doc);
	ck_assert_int_eq(json_object_array_length(doc), 1);
	port = json_object_array_get_idx(doc, 0);
	assert_keys(port, port_keys, 4);
	ck_assert_str_eq(json_object_get_string(key(port, "ifname")), "veth0");
	ck_assert_str_eq(json_object_get_string(key(key(port, "rdma"), "ibdev")), "rxe0");
	ck_assert_int_eq(json_object_get_int(key(key(port, "rdma"), "port")), 1);
	ck_assert_str_eq(json_object_get_string(key(key(port, "rdma"), "via")), "sysfs");
	ck_assert_int_eq(json_object_array_length(key(port, "counters")), 15);
	for (i = 0; i < 15; i++) {
		c = json_object_array_get_idx(key(port, "counters"), i);
		assert_keys(c, ctr_keys, 6);
		ck_assert(json_object_is_type(key(c, "prio"), json_type_null));
		ck_assert(json_object_get_boolean(key(c, "mapped")));
		ck_assert_str_eq(json_object_get_string(key(c, "source")), "rdma");
		ck_assert(json_object_is_type(key(c, "value"), json_type_int));
	}
	c = json_object_array_get_idx(key(port, "counters"), 0);
	/* canonical order, not the driver's */
	ck_assert_str_eq(json_object_get_string(key(c, "name")), "seq_err_naks");
	ck_assert_str_eq(json_object_get_string(key(c, "raw")), "rcvd_seq_err");
	ck_assert_int_eq(json_object_get_int64(key(c, "value")), 506);
	json_object_put(doc);
	free(out);
	free(err);
}
END_TEST

/* A baseline document, then one per interval; -a lists counters that did not move. */
START_TEST(json_watch)
{
	static const char *const delta_keys[] = { "name", "prio", "source", "mapped", "delta",
						  "rate", "value", "status" };
	struct json_object *doc, *port, *c;
	char *out, *err, *line, *save = NULL;
	int docs = 0;

	ck_assert_int_eq(run("ctr-rxe", "-w 0 -c 2 -j -a veth0", &out, &err), 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		doc = json_tokener_parse(line);
		ck_assert_ptr_nonnull(doc);
		port = json_object_array_get_idx(doc, 0);
		if (docs++) {
			ck_assert(json_object_is_type(key(port, "interval_s"), json_type_double));
			ck_assert_int_eq(json_object_array_length(key(port, "counters")), 15);
			c = json_object_array_get_idx(key(port, "counters"), 0);
			assert_keys(c, delta_keys, 8);
			ck_assert_str_eq(json_object_get_string(key(c, "status")), "ok");
			ck_assert_int_eq(json_object_get_int(key(c, "delta")), 0);
			ck_assert(json_object_is_type(key(c, "rate"), json_type_double));
		} else {
			ck_assert(!json_object_object_get_ex(port, "interval_s", NULL));
		}
		json_object_put(doc);
	}
	ck_assert_int_eq(docs, 3);
	free(out);
	free(err);
	/* nothing moved: without --all, nothing listed */
	ck_assert_int_eq(run("ctr-rxe", "-w 0 -c 1 -j veth0", &out, &err), 0);
	line = strchr(out, '\n');
	ck_assert_ptr_nonnull(line);
	doc = json_tokener_parse(line + 1);
	ck_assert_int_eq(json_object_array_length(key(json_object_array_get_idx(doc, 0),
						      "counters")), 0);
	json_object_put(doc);
	free(out);
	free(err);
}
END_TEST

START_TEST(text_values)
{
	char *out, *err;

	ck_assert_int_eq(run("ctr-ib", "ib0", &out, &err), 0);
	ck_assert_ptr_nonnull(strstr(out, "ib0: driver mlx5_core rdma mlx5_ib0/1 (sysfs)\n"));
	ck_assert_ptr_nonnull(strstr(out, "    ib_xmit_bytes                         -  pma    "
				     "                 4000\n"));
	ck_assert_ptr_nonnull(strstr(out, "    unicast_xmit_packets                  -  pma    "
				     "                  611  raw\n"));
	free(out);
	free(err);
}
END_TEST

static const struct {
	const char *args;
	const char *err;
} usage_cases[] = {
	{ "-c 2 veth0", "nodrop counters: --count needs --watch; 'nodrop counters --help'\n" },
	{ "--prometheus -j veth0", "nodrop counters: --prometheus and --json are two output" },
	{ "--prometheus -w 1 veth0", "nodrop counters: --prometheus prints one sample" },
	{ "-w soon veth0", "nodrop counters: --watch takes seconds from 0 to 86400, not 'soon'\n" },
	{ "-w 1 -c 0 veth0", "nodrop counters: --count takes a whole number from 1" },
	{ "veth0 eth9",
	  "nodrop counters: no network device 'eth9' (see 'ip link' for the names)\n" },
	{ "--maps /nonexistent veth0",
	  "nodrop counters: cannot read counter maps in /nonexistent" },
};

START_TEST(usage_errors)
{
	char *out, *err;

	ck_assert_int_eq(run("ctr-rxe", usage_cases[_i].args, &out, &err), 2);
	ck_assert_msg(!strncmp(err, usage_cases[_i].err, strlen(usage_cases[_i].err)),
		      "%s: %s", usage_cases[_i].args, err);
	ck_assert_str_eq(out, "");
	free(out);
	free(err);
}
END_TEST

START_TEST(bad_map_names_its_line)
{
	char dir[] = "/tmp/nd-ctr-maps-XXXXXX", path[PATH_MAX + 16], args[PATH_MAX + 32];
	char *out, *err;
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/site.map", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("ibdevs rxe\nrdma sent_pkts rdma_tx_packets 64\nrdma x rdma_tx_packets 64 sat\n", f);
	fclose(f);
	snprintf(args, sizeof(args), "--maps %s veth0", dir);
	ck_assert_int_eq(run("ctr-rxe", args, &out, &err), 2);
	ck_assert_ptr_nonnull(strstr(err, "/site.map:3: 'sat' needs a width below 64\n"));
	unlink(path);
	rmdir(dir);
	free(out);
	free(err);
}
END_TEST

/*
 * The binary alone, copied where no map file is near it (what an operator copies to a node):
 * the maps built in give what the files give, every port of every fixture, text and JSON.
 */
START_TEST(copied_binary_has_the_maps)
{
	static const char *const cases[][2] = {
		{ "ctr-rxe", "-j -a" }, { "ctr-bnxt", "-j -a" }, { "ctr-ib", "-j -a" },
		{ "ctr-ib", "-a" }, { "ctr-bnxt", "" },
	};
	char dir[] = "/tmp/nd-ctr-bin-XXXXXX", bin[PATH_MAX], cmd[2 * PATH_MAX];
	char *out, *err, *want, *werr;
	size_t i;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(bin, sizeof(bin), "%s/nodrop", dir);
	snprintf(cmd, sizeof(cmd), "cp %s %s", nodrop(), bin);
	ck_assert_int_eq(system(cmd), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		ck_assert_int_eq(run_bin(bin, false, cases[i][0], cases[i][1], &out, &err), 0);
		ck_assert_int_eq(run(cases[i][0], cases[i][1], &want, &werr), 0);
		ck_assert_str_eq(err, "");
		ck_assert_uint_gt(strlen(want), 100);
		ck_assert_msg(!strcmp(out, want), "%s %s: %s\nvs\n%s", cases[i][0], cases[i][1], out,
			      want);
		free(out);
		free(err);
		free(want);
		free(werr);
	}
	unlink(bin);
	rmdir(dir);
}
END_TEST

TCase *tcase_counters_cli(void)
{
	TCase *tc = tcase_create("cli");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, prom_checker_rejects);
	tcase_add_test(tc, prometheus_ib);
	tcase_add_test(tc, prometheus_two_ports);
	tcase_add_test(tc, prometheus_every_family);
	tcase_add_test(tc, json_values);
	tcase_add_test(tc, json_watch);
	tcase_add_test(tc, text_values);
	tcase_add_loop_test(tc, usage_errors, 0,
			    (int)(sizeof(usage_cases) / sizeof(usage_cases[0])));
	tcase_add_test(tc, bad_map_names_its_line);
	tcase_add_test(tc, copied_binary_has_the_maps);
	return tc;
}
