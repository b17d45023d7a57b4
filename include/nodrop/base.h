/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: errors (struct nd_err) and the conventions every call follows. */
#ifndef NODROP_BASE_H
#define NODROP_BASE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define ND_ERR_MSG_MAX 512
#define ND_IFNAMSIZ 16		/* IFNAMSIZ, without pulling in <net/if.h> or <linux/if.h> */

struct nd_err {
	int code;			/* negative errno, 0 when clear */
	char msg[ND_ERR_MSG_MAX];	/* one sentence for a person */
};

/* Set @e to @code with a printf-style message; returns @code ("return nd_err_set(...)"). */
int nd_err_set(struct nd_err *e, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Prefix the message already in @e with "@fmt: " (adds context on the way up); returns e->code. */
int nd_err_wrap(struct nd_err *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void nd_err_clear(struct nd_err *e);

#ifdef __cplusplus
}
#endif

#endif
