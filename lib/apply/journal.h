/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The apply journal: pre-states kept durably for rollback (internal to libnodrop). */
#ifndef ND_JOURNAL_H
#define ND_JOURNAL_H

#include <stddef.h>
#include <time.h>

#include "nodrop.h"

/*
 * The lifecycle, in "status": an apply writes "started" (no ports yet) as soon as it holds the
 * lock, then "in-progress" with every port's pre-state and the state it means to leave ("post")
 * before its first write, then "applied" (post as read back) or "rolled-back" (a step failed and
 * the pre-state is back). An apply that ends without writing puts the previous journal back, byte
 * for byte. Rollback acts on "in-progress" and "applied" only, and leaves "rolled-back".
 */
struct nd_journal_port {
	char ifname[ND_IFNAMSIZ];
	struct nd_profile pre;		/* every field of the port's state before the apply */
	struct nd_profile post;		/* the state the apply leaves (or meant to leave) */
};

struct nd_journal {
	char status[16];		/* "started", "in-progress", "applied", "rolled-back" */
	char profile[256];
	int pid;			/* of the apply that wrote it */
	time_t time;
	struct nd_journal_port *ports;
	size_t n;
};

/* What was at the journal's path before an apply began: put back if it writes nothing. */
struct nd_journal_prev {
	char *text;			/* NULL: there was no journal */
	size_t len;
};

int nd_journal_save(const char *path, const struct nd_journal *j, struct nd_err *e);
/*
 * Load the journal at @path. What loads holds only what a port could: one of the four statuses;
 * at most 4096 ports, each named as the kernel would take it (no control characters) and listed
 * once, at least one when the status is "in-progress" or "applied"; in each state the bits of
 * enum nd_field only, an MTU of 68 or more, priorities 0-7, DSCPs 0-63, bandwidths 0-100,
 * DCQCN parameters nodrop knows (each once), a RoCE mode configfs shows. Anything else is
 * refused before a port is read: -EBADMSG for a journal that is not one (bad JSON, another
 * version, a key missing or of another type), -EINVAL for a value out of range; @e names the
 * file, the port and the field.
 */
int nd_journal_load(const char *path, struct nd_journal *j, struct nd_err *e);
/* The same from the @len bytes at @text; @name stands for the file in messages. */
int nd_journal_parse(const char *text, size_t len, const char *name, struct nd_journal *j,
		     struct nd_err *e);
void nd_journal_free(struct nd_journal *j);
/* Keep the journal at @path in @prev and replace it with a "started" one for @profile. */
int nd_journal_begin(const char *path, const char *profile, struct nd_journal_prev *prev,
		     struct nd_err *e);
/* Put @prev back at @path (remove the journal if there was none); frees @prev. */
int nd_journal_abandon(const char *path, struct nd_journal_prev *prev, struct nd_err *e);
void nd_journal_prev_free(struct nd_journal_prev *prev);

#endif
