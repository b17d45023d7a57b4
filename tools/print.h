/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * One print call per field, text and JSON together (the iproute2 shape over json-c): a field is
 * written as text with @fmt when the output is text, and added under @key when it is JSON.
 */
#ifndef ND_PRINT_H
#define ND_PRINT_H

#include <stdbool.h>
#include <stdint.h>

enum pr_type {
	PR_TEXT = 1,
	PR_JSON = 2,
	PR_ANY = PR_TEXT | PR_JSON,
};

void pr_init(bool json, bool pretty);
bool pr_is_json(void);
/* Emit the JSON document (nothing in text mode) and free it; returns 0 or -EIO. */
int pr_finish(void);

/* Containers: @key names the member in an enclosing object, NULL inside an array or at the top. */
void pr_open_object(const char *key);
void pr_close_object(void);
void pr_open_array(const char *key);
void pr_close_array(void);

void pr_uint(enum pr_type t, const char *key, const char *fmt, uint64_t v);
void pr_int(enum pr_type t, const char *key, const char *fmt, int64_t v);
void pr_string(enum pr_type t, const char *key, const char *fmt, const char *s);
void pr_float(enum pr_type t, const char *key, const char *fmt, double v);
void pr_bool(enum pr_type t, const char *key, const char *fmt, bool v);
/* JSON true/false, text "on"/"off" through @fmt (a %s). */
void pr_on_off(enum pr_type t, const char *key, const char *fmt, bool v);
/* JSON null, text through @fmt as given. */
void pr_null(enum pr_type t, const char *key, const char *fmt);
/* Text only: a newline, or free text. */
void pr_nl(void);
void pr_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
