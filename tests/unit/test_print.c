// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The field printer (tools/print.c) against json-c, the oracle: seeded random documents are
 * printed through pr_*() and built as json-c trees the way the printer used to build them (a
 * key added again replaces its value in place, a second document at the top replaces the first,
 * a container past the depth limit takes no members); json_object_to_json_string_ext() must
 * give the same bytes, plain and pretty. Strings carry every escape json-c makes, doubles
 * integers, fractions, extremes, -0, NaN and infinities.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <json-c/json.h>

#include "print.h"
#include "unit.h"

#define DEPTH 16	/* print.c's PR_DEPTH */

static uint64_t rng;

static uint64_t next(void)
{
	return unit_rand(&rng);
}

static unsigned int pick(unsigned int n)
{
	return (unsigned int)(next() % n);
}

/* The oracle's tree, kept as print.c kept it before it had its own. */
static struct json_object *stack[DEPTH], *root;
static int depth;

static void ref_attach(const char *key, struct json_object *obj)
{
	struct json_object *top = depth ? stack[depth - 1] : NULL;

	if (!top) {
		json_object_put(root);
		root = obj;
	} else if (json_object_is_type(top, json_type_array)) {
		json_object_array_add(top, obj);
	} else {
		json_object_object_add(top, key ? key : "", obj);
	}
}

static void ref_open(const char *key, struct json_object *obj)
{
	ref_attach(key, obj);
	if (depth < DEPTH)
		stack[depth++] = obj;
}

static void random_string(char *buf, size_t len)
{
	static const char special[] = "\b\n\r\t\f\"\\/\x01\x1f\x7f";
	size_t n = pick((unsigned int)len - 1), i;

	for (i = 0; i < n; i++) {
		switch (pick(7)) {
		case 0:
			buf[i] = special[pick(sizeof(special) - 1)];
			break;
		case 1:
			buf[i] = (char)(0x80 + pick(0x80));	/* UTF-8 bytes pass through */
			break;
		case 2:
			buf[i] = (char)(1 + pick(0x7f));	/* every control byte, and ASCII */
			break;
		default:
			buf[i] = (char)('a' + pick(26));
		}
	}
	buf[n] = '\0';
}

static double random_double(void)
{
	static const double odd[] = { 0.0, -0.0, 1.0, -1.0, 0.1, 1e300, -1e-300, 5e-324,
				      1.7976931348623157e308, 123456789012345678.0, 2.5, 1e17, 1e16 };

	switch (pick(5)) {
	case 0:
		return odd[pick(sizeof(odd) / sizeof(odd[0]))];
	case 1:
		return pick(4) ? (double)(int64_t)(next() % 100000) : (pick(2) ? NAN : -INFINITY);
	case 2:
		return ldexp((double)(next() >> 11), (int)pick(200) - 100);
	default:
		return (double)(next() % 1000000) / 1000.0 * (pick(2) ? 1 : -1);
	}
}

/* One random field or container step, applied to the printer and to the oracle. */
static void step(void)
{
	static const char *const keys[] = { "a", "b", "name", "value", "x/y", "q\"uote", "", "k" };
	const char *key = keys[pick(sizeof(keys) / sizeof(keys[0]))];
	char s[24];
	uint64_t u;
	int64_t i;
	double d;
	bool b;

	switch (pick(12)) {
	case 0:
		pr_open_object(key);
		ref_open(key, json_object_new_object());
		break;
	case 1:
		pr_open_array(key);
		ref_open(key, json_object_new_array());
		break;
	case 2:
	case 3:
		pr_close_object();
		if (depth)
			depth--;
		break;
	case 4:
		u = pick(2) ? next() : pick(1000);
		pr_uint(PR_ANY, key, "%llu", u);
		ref_attach(key, json_object_new_uint64(u));
		break;
	case 5:
		i = (int64_t)next();
		pr_int(PR_JSON, key, NULL, i);
		ref_attach(key, json_object_new_int64(i));
		break;
	case 6:
		random_string(s, sizeof(s));
		pr_string(PR_ANY, key, "%s", s);
		ref_attach(key, json_object_new_string(s));
		break;
	case 7:
		d = random_double();
		pr_float(PR_ANY, key, "%g", d);
		ref_attach(key, json_object_new_double(d));
		break;
	case 8:
		b = pick(2);
		if (pick(2))
			pr_bool(PR_ANY, key, "%s", b);
		else
			pr_on_off(PR_JSON, key, NULL, b);
		ref_attach(key, json_object_new_boolean(b));
		break;
	case 9:
		pr_null(PR_JSON, key, NULL);
		ref_attach(key, NULL);
		break;
	case 10:
		/* text only: no JSON at all */
		pr_uint(PR_TEXT, key, "%llu", 1);
		pr_text("ignored %d", 1);
		pr_nl();
		break;
	default:
		pr_close_array();
		if (depth)
			depth--;
	}
}

/* Standard output into a file from capture_start() to capture_end(), which returns it. */
static char cap_path[32];
static int cap_saved;

static void capture_start(void)
{
	int fd;

	snprintf(cap_path, sizeof(cap_path), "/tmp/nd-print-XXXXXX");
	fd = mkstemp(cap_path);
	ck_assert_int_ge(fd, 0);
	fflush(stdout);
	cap_saved = dup(STDOUT_FILENO);
	ck_assert_int_ge(cap_saved, 0);
	ck_assert_int_ge(dup2(fd, STDOUT_FILENO), 0);
	close(fd);
}

static char *capture_end(void)
{
	char *buf;

	fflush(stdout);
	ck_assert_int_ge(dup2(cap_saved, STDOUT_FILENO), 0);
	close(cap_saved);
	buf = unit_read_file(cap_path);
	unlink(cap_path);
	return buf;
}

/* pr_finish() against json-c on the oracle's tree; @what names the document in a failure. */
static void finish_and_compare(const char *what, bool pretty)
{
	int ret, flags = pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
				  JSON_C_TO_STRING_PLAIN;
	const char *want;
	char *got, *expect;

	capture_start();
	ret = pr_finish();
	got = capture_end();
	ck_assert_int_eq(ret, 0);
	want = root ? json_object_to_json_string_ext(root, flags) : NULL;
	if (want) {
		expect = malloc(strlen(want) + 2);
		ck_assert_ptr_nonnull(expect);
		sprintf(expect, "%s\n", want);
	} else {
		expect = strdup("");
	}
	if (strcmp(got, expect))
		ck_abort_msg("%s (%s): printer\n%s\njson-c\n%s", what, pretty ? "pretty" : "plain",
			     got, expect);
	free(expect);
	free(got);
	json_object_put(root);
	root = NULL;
}

static void start(bool pretty)
{
	pr_init(true, pretty);
	root = NULL;
	depth = 0;
}

START_TEST(test_print_matches_json_c)
{
	char what[32];
	int doc, n;

	rng = 0x9e3779b97f4a7c15ULL;
	for (doc = 0; doc < 3000; doc++) {
		start(doc & 1);
		/* most documents are one container at the top; some are a bare value or two */
		if (pick(8)) {
			pr_open_object(NULL);
			ref_open(NULL, json_object_new_object());
		}
		for (n = 1 + (int)pick(80); n > 0; n--)
			step();
		snprintf(what, sizeof(what), "document %d", doc);
		finish_and_compare(what, doc & 1);
	}
}
END_TEST

/*
 * Past PR_DEPTH open containers a container is written empty and what follows goes to the
 * deepest one open, replacements included; the random documents seldom reach that deep.
 */
START_TEST(test_print_depth_limit)
{
	static const char *const keys[] = { "a", "b", "c" };
	bool pretty = _i;
	int d;

	start(pretty);
	for (d = 0; d < DEPTH + 4; d++) {
		pr_open_object(keys[d % 3]);
		ref_open(keys[d % 3], json_object_new_object());
		pr_uint(PR_JSON, "n", NULL, (uint64_t)d);
		ref_attach("n", json_object_new_uint64((uint64_t)d));
	}
	/* "a" again: the empty container past the limit, then a value over it */
	pr_open_array("b");
	ref_open("b", json_object_new_array());
	pr_string(PR_JSON, "a", NULL, "over");
	ref_attach("a", json_object_new_string("over"));
	for (d = 0; d < 5; d++) {
		pr_close_object();
		depth--;
	}
	pr_null(PR_JSON, "n", NULL);
	ref_attach("n", NULL);
	finish_and_compare("depth limit", pretty);
}
END_TEST

/* Text mode writes the text forms as they come and nothing at the end. */
START_TEST(test_print_text_mode)
{
	char *got;

	capture_start();
	pr_init(false, false);
	pr_open_object(NULL);
	pr_uint(PR_ANY, "n", "n %llu", 7);
	pr_uint(PR_JSON, "j", " never %llu", 8);
	pr_on_off(PR_ANY, "pfc", " pfc %s", true);
	pr_float(PR_TEXT, NULL, " %.1f", 2.5);
	pr_string(PR_ANY, "s", NULL, "no format, no text");
	pr_null(PR_ANY, "x", " x%s-");
	pr_nl();
	pr_close_object();
	ck_assert_int_eq(pr_finish(), 0);
	got = capture_end();
	ck_assert_str_eq(got, "n 7 pfc on 2.5 x-\n");
	free(got);
}
END_TEST

Suite *suite_print(void)
{
	Suite *s = suite_create("print");
	TCase *tc = tcase_create("json");

	tcase_add_test(tc, test_print_matches_json_c);
	tcase_add_loop_test(tc, test_print_depth_limit, 0, 2);
	tcase_add_test(tc, test_print_text_mode);
	suite_add_tcase(s, tc);
	return s;
}
