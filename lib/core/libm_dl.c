// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libm, loaded on first use. Its one function the library needs is the simulator's natural
 * logarithm (exponential gaps between flows); loading libm at start-up costs every command,
 * most of which never compute one, about as much as a tenth of a whole `ethtool -S` (make bench,
 * the one-shot `nodrop counters`). The same libm computes it, so results stay bit for bit
 * those of a linked libm.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <gnu/lib-names.h>

#include "internal.h"

static double (*libm_log)(double);
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
	void *h = dlopen(LIBM_SO, RTLD_NOW | RTLD_LOCAL);

	if (h)
		*(void **)&libm_log = dlsym(h, "log");
}

double nd_log(double x)
{
	pthread_once(&once, load);
	/* libm ships in the same package as libc itself: without it nothing here would run */
	if (!libm_log)
		abort();
	return libm_log(x);
}
