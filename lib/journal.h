/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The apply journal: pre-states kept durably for rollback (internal to libnodrop). */
#ifndef ND_JOURNAL_H
#define ND_JOURNAL_H

#include <time.h>

#include "nodrop.h"

struct nd_journal_port {
	char ifname[ND_IFNAMSIZ];
	struct nd_profile pre;		/* every field of the port's state before the apply */
};

struct nd_journal {
	char status[16];		/* "in-progress", "applied", "rolled-back" */
	char profile[256];
	time_t time;
	struct nd_journal_port *ports;
	size_t n;
};

int nd_journal_save(const char *path, const struct nd_journal *j, struct nd_err *e);
int nd_journal_load(const char *path, struct nd_journal *j, struct nd_err *e);
void nd_journal_free(struct nd_journal *j);

#endif
