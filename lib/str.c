// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* String copies that always terminate and say when they truncated. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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

void *nd_append(void **v, size_t *n, size_t *cap, size_t size)
{
	char *slot;

	if (*n == *cap) {
		size_t grown_cap = *cap ? *cap * 2 : 8;
		void *grown = realloc(*v, grown_cap * size);

		if (!grown)
			return NULL;
		*v = grown;
		*cap = grown_cap;
	}
	slot = (char *)*v + (*n)++ * size;
	memset(slot, 0, size);
	return slot;
}
