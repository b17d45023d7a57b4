/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The machinery apply, audit and rollback share (internal to libnodrop; see txn.c). */
#ifndef ND_TXN_H
#define ND_TXN_H

#include "nodrop.h"
#include "plan.h"

/* The port at @i of an array of @stride-sized items that each begin with a struct nd_port. */
#define PORT_AT(base, stride, i) \
	((const struct nd_port *)((const char *)(base) + (i) * (stride)))

/*
 * A test aid: sleep NODROP_STEP_DELAY_MS before each step and once after an apply took the lock,
 * so that a test can kill an apply half way, or before its first write.
 */
void nd_txn_test_delay(void);
/* Read the named ports (all when @n is 0) and keep those @profile matches (all when NULL). */
int nd_txn_ports_select(struct nd_ctx *ctx, const struct nd_profile *profile,
			const char *const *devs, size_t n, struct nd_port **out, size_t *count,
			struct nd_err *e);
/* Plan port i towards the profile at @wants + i * @stride. */
int nd_txn_plan_all(const struct nd_port *ports, size_t n, const struct nd_profile *wants,
		    size_t stride, struct nd_plan *plan, struct nd_err *e);
/* The report's per-port changes from a plan; the report owns @ports from here. */
int nd_txn_report_fill(struct nd_report *r, struct nd_port *ports, size_t n,
		       const struct nd_plan *plan, struct nd_err *e);
/* Run every step; stop at the first failure unless @keep_going (rollback does its best). */
int nd_txn_steps_run(struct nd_ctx *ctx, const void *ports, size_t stride,
		     const struct nd_plan *plan, bool keep_going, struct nd_err *e);
/*
 * Re-read @names and check nothing is left to do to reach @wants; a field that cannot be read
 * back fails too. With @read, the ports read are handed over on success (nd_ports_free).
 */
int nd_txn_verify(struct nd_ctx *ctx, const char *const *names, size_t n,
		  const struct nd_profile *wants, size_t stride, const char *what,
		  struct nd_port **read, struct nd_err *e);
/* Take the ports back to @pres (one per name): plan, run everything, verify. */
int nd_txn_restore(struct nd_ctx *ctx, const char *const *names, size_t n,
		   const struct nd_profile *pres, size_t stride, struct nd_err *e);
/* The report's port names, borrowed (free the array only). */
char **nd_txn_names(const struct nd_report *r);
int nd_txn_journal_path(char *buf, size_t len, const struct nd_apply_opts *o);

#endif
