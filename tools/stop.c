// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A stop request must survive being sent twice: timeout(1) signals its child and then the
 * child's process group, so a command under it gets SIGTERM (or a forwarded SIGINT) twice in a
 * row. A handler that gave the second one its default action (SA_RESETHAND) was killed by it,
 * without a report, whenever it ran between the two. So a repeat ends the process only when a
 * person could have sent it: a second or more after the first.
 */
#include <time.h>

#include "stop.h"

#define AGAIN_NS 1000000000ll

volatile sig_atomic_t nd_stop;
static struct timespec first;

static void on_stop(int sig)
{
	struct timespec now;

	/* clock_gettime(), signal() and raise() are async-signal-safe */
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (!nd_stop) {
		first = now;
		nd_stop = 1;
		return;
	}
	if ((now.tv_sec - first.tv_sec) * 1000000000ll + now.tv_nsec - first.tv_nsec < AGAIN_NS)
		return;
	/* the signal is blocked while this runs: it ends the process when the handler returns */
	signal(sig, SIG_DFL);
	raise(sig);
}

void nd_catch_stop(void)
{
	struct sigaction sa = { 0 };

	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* blocked in each other's handler: the first-time check above is not raced */
	sigaddset(&sa.sa_mask, SIGINT);
	sigaddset(&sa.sa_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}
