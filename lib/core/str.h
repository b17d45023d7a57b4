/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Strings, paths and growing arrays (str.c): the bottom of libnodrop, used by every file and
 * using nothing of the library's own, so errors (err.c) and netlink (nl.c) sit above it.
 */
#ifndef ND_STR_H
#define ND_STR_H

#include <stddef.h>
#include <stdint.h>

/* Copy @src into @dst of @size bytes, always terminated; returns strlen(@src) like BSD strlcpy. */
size_t nd_strlcpy(char *dst, const char *src, size_t size);

/*
 * Append a zeroed element of @size to the array *@v of *@n elements (capacity *@cap), growing
 * it by doubling; returns the new element, or NULL (array untouched) when out of memory.
 */
void *nd_append(void **v, size_t *n, size_t *cap, size_t size);

/*
 * Grow *@v of *@n elements of @size by exactly one zeroed element, for arrays that keep no
 * capacity; returns it, or NULL (array untouched) when out of memory.
 */
void *nd_push(void **v, size_t *n, size_t size);

/* The directory of @path into @buf: "" when it names none (the current one), "/" at the root. */
void nd_path_dir(const char *path, char *buf, size_t size);

/* The file name of @path without its directory and a .yaml or .yml suffix: its default name. */
void nd_path_stem(const char *path, char *buf, size_t size);

/* The index of @name in the @n names of a table (NULL entries skipped), or -EINVAL. */
int nd_name_index(const char *const *names, size_t n, const char *name);

/* Append a copy of @s to the string vector *@v of *@n; -ENOMEM (nothing counted) on failure. */
int nd_strv_push(char ***v, size_t *n, const char *s);

/* "3", "3,4" or "none": a priority bitmap as people read it; returns @buf. */
const char *nd_fmt_prios(char *buf, size_t len, uint8_t bits);

#endif
