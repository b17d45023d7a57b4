// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The field printer: text straight to stdout, JSON into a json-c tree printed at the end. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>

#include "print.h"

#define PR_DEPTH 16

static bool json_mode, json_pretty;
static struct json_object *stack[PR_DEPTH];
static int depth;	/* stack[depth - 1] is the open container */
static struct json_object *root;

void pr_init(bool json, bool pretty)
{
	json_mode = json;
	json_pretty = pretty;
	depth = 0;
	root = NULL;
}

bool pr_is_json(void)
{
	return json_mode;
}

/* Attach @obj to the open container (or make it the document); takes ownership. */
static void attach(const char *key, struct json_object *obj)
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

static void open_container(const char *key, struct json_object *obj)
{
	if (!json_mode)
		return;
	attach(key, obj);
	if (depth < PR_DEPTH)
		stack[depth++] = obj;
}

void pr_open_object(const char *key)
{
	if (json_mode)
		open_container(key, json_object_new_object());
}

void pr_open_array(const char *key)
{
	if (json_mode)
		open_container(key, json_object_new_array());
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

void pr_uint(enum pr_type t, const char *key, const char *fmt, uint64_t v)
{
	if (json_mode && (t & PR_JSON))
		attach(key, json_object_new_uint64(v));
	else if (!json_mode && (t & PR_TEXT) && fmt)
		printf(fmt, (unsigned long long)v);
}

void pr_int(enum pr_type t, const char *key, const char *fmt, int64_t v)
{
	if (json_mode && (t & PR_JSON))
		attach(key, json_object_new_int64(v));
	else if (!json_mode && (t & PR_TEXT) && fmt)
		printf(fmt, (long long)v);
}

void pr_string(enum pr_type t, const char *key, const char *fmt, const char *s)
{
	if (json_mode && (t & PR_JSON))
		attach(key, json_object_new_string(s));
	else if (!json_mode && (t & PR_TEXT) && fmt)
		printf(fmt, s);
}

void pr_bool(enum pr_type t, const char *key, const char *fmt, bool v)
{
	if (json_mode && (t & PR_JSON))
		attach(key, json_object_new_boolean(v));
	else if (!json_mode && (t & PR_TEXT) && fmt)
		printf(fmt, v ? "true" : "false");
}

void pr_on_off(enum pr_type t, const char *key, const char *fmt, bool v)
{
	if (json_mode && (t & PR_JSON))
		attach(key, json_object_new_boolean(v));
	else if (!json_mode && (t & PR_TEXT) && fmt)
		printf(fmt, v ? "on" : "off");
}

void pr_null(enum pr_type t, const char *key, const char *fmt)
{
	if (json_mode && (t & PR_JSON))
		attach(key, NULL);
	else if (!json_mode && (t & PR_TEXT) && fmt)
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
	int flags = json_pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED :
				  JSON_C_TO_STRING_PLAIN;
	int ret = 0;

	if (json_mode && root) {
		if (printf("%s\n", json_object_to_json_string_ext(root, flags)) < 0)
			ret = -EIO;
		json_object_put(root);
		root = NULL;
	}
	depth = 0;
	if (fflush(stdout) == EOF)
		ret = -EIO;
	return ret;
}
void pr_float(enum pr_type t, const char *key, const char *fmt, double v)
{
	if (json_mode && (t & PR_JSON))
		attach(key, json_object_new_double(v));
	else if (!json_mode && (t & PR_TEXT) && fmt)
		printf(fmt, v);
}
