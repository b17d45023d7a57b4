/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* path: what its files share: the job's settings for one device, and how steps are written. */
#ifndef ND_PATH_INT_H
#define ND_PATH_INT_H

#include <stdarg.h>

#include "nodrop.h"

/* What a job's stack puts on its queue pairs for one RDMA port (path_stack.c). */
struct job_cfg {
	int tc;			/* the GRH traffic class; -1: the stack picks it by the GID's type */
	int sl;			/* -1: not the job's to say (rdma_cm on InfiniBand: the SM's) */
	int gid_index;		/* the GID it uses; -1 when none fits */
	char tc_how[200];	/* "NCCL_IB_TC=106 (environment)", "NCCL's default: 0" */
	char gid_how[200];
};

/* Step 1: the job's variables for @in's device, into @st and @cfg; false when it does not use it. */
bool path_job_step(const struct nd_path_in *in, struct nd_path_step *st, struct job_cfg *cfg);

/* Only the path files format into a step, with their own literal formats. */
void path_say(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define SAY(st, ...) path_say((st)->evidence, sizeof((st)->evidence), __VA_ARGS__)
#define FIXIT(st, ...) path_say((st)->fix, sizeof((st)->fix), __VA_ARGS__)

/* Raise @st's status to @s unless it is already worse. */
void path_mark(struct nd_path_step *st, enum nd_step_status s);

#endif
