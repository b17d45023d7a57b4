/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: apply, audit and rollback (nodrop-apply(8), nodrop-audit(8), nodrop-rollback(8)). */
#ifndef NODROP_APPLY_H
#define NODROP_APPLY_H

#include <nodrop/lint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One change an apply makes (or an audit finds missing), as a person reads it. */
struct nd_change {
	enum nd_field field;
	char from[512], to[512];	/* a whole DSCP map fits */
	char warning[320];
	bool skipped;		/* cannot be read or written on this port; not drift, not applied */
	int unsupported;	/* skipped because the port cannot give this field: -EOPNOTSUPP
				 * (not supported by the driver) or -EIO (reading it failed); a
				 * finding in audit, a refusal in apply (see warning) */
};

struct nd_port_report {
	struct nd_port port;		/* the state read before anything was done */
	struct nd_change *changes;
	size_t n_changes;
	struct nd_lint *lints;		/* on the planned state (apply) or current state (audit) */
	size_t n_lints;
};

enum nd_outcome {
	ND_OUTCOME_DRY_RUN,
	ND_OUTCOME_NOOP,		/* already in the desired state: nothing written */
	ND_OUTCOME_APPLIED,		/* written and verified by reading back */
	ND_OUTCOME_REFUSED,		/* lints at error severity; nothing written (see force) */
	ND_OUTCOME_ROLLED_BACK,		/* a step failed; the pre-state is back, verified */
	ND_OUTCOME_ROLLBACK_FAILED,	/* ...and restoring it failed too: see the journal */
	ND_OUTCOME_AUDITED,
	ND_OUTCOME_CONFLICT,		/* rollback: fields changed since the apply; nothing done */
};

const char *nd_outcome_name(enum nd_outcome outcome);

struct nd_apply_opts {
	const char *state_dir;		/* journal and lock; default /var/lib/nodrop */
	int wait_s;			/* how long to wait for another apply's lock */
	bool dry_run;
	bool force;			/* apply: despite lints at error severity or fields the
					 * driver does not support; rollback: despite conflicts */
	const char *const *devs;	/* restrict to these netdevs (all when n_devs is 0) */
	size_t n_devs;
};

/* A field someone else changed after the apply: rollback will not overwrite it silently. */
struct nd_conflict {
	char ifname[ND_IFNAMSIZ];
	enum nd_field field;
	char applied[160];		/* the value the apply left */
	char now[160];			/* the value the port holds now */
};

struct nd_report {
	struct nd_port_report *ports;
	size_t n;
	enum nd_outcome outcome;
	char failure[ND_ERR_MSG_MAX];	/* the step that failed, when rolled back; or why refused */
	char journal[512];		/* where the pre-state was written */
	char note[512];			/* rollback: why there was nothing to do (no
					 * parentheses: the text output puts it in its own) */
	struct nd_conflict *conflicts;	/* rollback */
	size_t n_conflicts;
};

#define ND_STATE_DIR "/var/lib/nodrop"

/*
 * Apply @profile transactionally: read every matching port, plan, lint, take the per-host lock,
 * journal the pre-state durably, write in a safe order, read back and verify; on any failure
 * restore the pre-state and verify that. Returns 0 when the run ended as planned (applied,
 * no-op, dry-run), -EINVAL for a profile that does not fit the ports, -EBUSY when another
 * apply holds the lock, another negative errno when a step failed (see @r->outcome).
 */
int nd_apply(struct nd_ctx *ctx, const struct nd_profile *profile,
	     const struct nd_apply_opts *opts, struct nd_report *r, struct nd_err *e);
/* Compare the ports with @profile: drift per field and lints on the current state. */
int nd_audit(struct nd_ctx *ctx, const struct nd_profile *profile, const char *const *devs,
	     size_t n_devs, struct nd_report *r, struct nd_err *e);
/*
 * Restore the pre-state journalled by the last apply that wrote (also after a crash or kill
 * mid-apply). Nothing to do (@r->note says why) for a journal already rolled back or an apply
 * stopped before its first write. A field changed since the apply by someone else stops it:
 * @r->conflicts lists them, outcome ND_OUTCOME_CONFLICT, nothing written (@opts->force restores
 * anyway).
 */
int nd_rollback(struct nd_ctx *ctx, const char *journal, const struct nd_apply_opts *opts,
		struct nd_report *r, struct nd_err *e);
void nd_report_free(struct nd_report *r);

#ifdef __cplusplus
}
#endif

#endif
