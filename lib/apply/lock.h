/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The apply lock: one apply or rollback at a time on the ports of a host (internal). */
#ifndef ND_LOCK_H
#define ND_LOCK_H

#include "nodrop.h"

/* The abstract UNIX socket that stands for the lock ("@nodrop/apply" in `ss -xl`). */
#define ND_LOCK_NAME "nodrop/apply"

struct nd_lock {
	int host_fd;		/* the bound socket: the ports of this network namespace */
	int dir_fd;		/* flock of STATE-DIR/lock: the journal in that directory */
};

/*
 * Take both, waiting up to @wait_s seconds for each: the ports of the host whatever the state
 * directory, then the state directory's journal. -EBUSY with the holder's pid when it times out.
 */
int nd_lock_take(const char *state_dir, int wait_s, struct nd_lock *l, struct nd_err *e);
void nd_lock_drop(struct nd_lock *l);

#endif
