// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* String copies that always terminate and say when they truncated. */
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
