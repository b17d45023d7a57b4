// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* String copies that always terminate and say when they truncated; paths' parts; growing arrays. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nodrop.h"
#include "str.h"

size_t nd_strlcpy(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

void nd_path_dir(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		nd_strlcpy(buf, "", size);
	else
		snprintf(buf, size, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

void nd_path_stem(const char *path, char *buf, size_t size)
{
	const char *base = basename(path);
	size_t len = strlen(base);

	if (len > 5 && !strcmp(base + len - 5, ".yaml"))
		len -= 5;
	else if (len > 4 && !strcmp(base + len - 4, ".yml"))
		len -= 4;
	snprintf(buf, size, "%.*s", (int)len, base);
}

const char *nd_fmt_prios(char *buf, size_t len, uint8_t bits)
{
	size_t off = 0;
	unsigned int p;

	buf[0] = '\0';
	for (p = 0; p < ND_PRIO_MAX && off < len; p++)
		if (bits & (1u << p))
			off += (size_t)snprintf(buf + off, len - off, "%s%u", off ? "," : "", p);
	if (!off)
		snprintf(buf, len, "none");
	return buf;
}

/* Reallocate *@v to @cap elements of @size; false (*@v untouched) when out of memory. */
static bool resize(void **v, size_t cap, size_t size)
{
	void *grown;

	if (size && cap > SIZE_MAX / size)
		return false;
	grown = realloc(*v, cap * size);
	if (!grown)
		return false;
	*v = grown;
	return true;
}

/* Zero the element after the *@n in use and count it. */
static void *take(void *v, size_t *n, size_t size)
{
	char *slot = (char *)v + (*n)++ * size;

	memset(slot, 0, size);
	return slot;
}

void *nd_append(void **v, size_t *n, size_t *cap, size_t size)
{
	if (*n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 8;

		if (!resize(v, grown_cap, size))
			return NULL;
		*cap = grown_cap;
	}
	return take(*v, n, size);
}

void *nd_push(void **v, size_t *n, size_t size)
{
	return resize(v, *n + 1, size) ? take(*v, n, size) : NULL;
}

int nd_name_index(const char *const *names, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -EINVAL;
}

int nd_strv_push(char ***v, size_t *n, const char *s)
{
	char **slot = nd_push((void **)v, n, sizeof(**v));

	if (!slot)
		return -ENOMEM;
	*slot = strdup(s);
	if (!*slot) {
		(*n)--;	/* the caller frees *@n strings: never count a NULL one */
		return -ENOMEM;
	}
	return 0;
}
