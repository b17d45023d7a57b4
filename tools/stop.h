/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* SIGINT and SIGTERM as a request to stop, for the commands that run until told. */
#ifndef ND_STOP_H
#define ND_STOP_H

#include <signal.h>

/* Set by the first SIGINT or SIGTERM once nd_catch_stop() ran; the command winds down. */
extern volatile sig_atomic_t nd_stop;

/*
 * From now on, SIGINT and SIGTERM set nd_stop and interrupt a blocking call (no SA_RESTART).
 * Another one a second or more after the first ends the process at once, as the signal would.
 */
void nd_catch_stop(void);

#endif
