// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The error context every libnodrop call fills: a negative errno and one sentence. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "nodrop.h"
#include "str.h"

int nd_err_set(struct nd_err *e, int code, const char *fmt, ...)
{
	va_list ap;

	if (!e)
		return code;
	e->code = code;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return code;
}

int nd_err_wrap(struct nd_err *e, const char *fmt, ...)
{
	char prefix[ND_ERR_MSG_MAX], old[ND_ERR_MSG_MAX];
	size_t len;
	va_list ap;

	if (!e)
		return 0;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, e->msg, sizeof(old));
	len = strlen(prefix);
	if (len + 2 >= sizeof(e->msg))
		len = sizeof(e->msg) - 3;
	memcpy(e->msg, prefix, len);
	memcpy(e->msg + len, ": ", 2);
	/* the kernel's reason is at the end: keep as much of it as fits */
	nd_strlcpy(e->msg + len + 2, old, sizeof(e->msg) - len - 2);
	return e->code;
}

void nd_err_clear(struct nd_err *e)
{
	if (!e)
		return;
	e->code = 0;
	e->msg[0] = '\0';
}
