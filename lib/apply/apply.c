// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The apply transaction and the audit: read everything, plan and lint before the first write,
 * one apply at a time on a host's ports (lock.c), the pre-state journalled durably (journal.c),
 * steps in a safe order (plan.c), read back and verify, and on any failure the pre-state
 * restored and verified in turn. An audit is the same plan, reported instead of run.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "journal.h"
#include "lock.h"
#include "plan.h"
#include "txn.h"

/* Lints on each port as the plan will leave it (@planned) or as it is. */
static int report_lint(struct nd_report *r, const struct nd_profile *profile, bool planned,
		       bool *errors, struct nd_err *e)
{
	size_t i, k;
	int n;

	*errors = false;
	for (i = 0; i < r->n; i++) {
		struct nd_port view = r->ports[i].port;

		if (planned)
			nd_profile_overlay(profile, &view);
		n = nd_lint_port(&view, profile, &r->ports[i].lints, e);
		if (planned && view.dcb.apps != r->ports[i].port.dcb.apps)
			free(view.dcb.apps);
		if (n < 0)
			return n;
		r->ports[i].n_lints = (size_t)n;
		for (k = 0; k < (size_t)n; k++)
			*errors |= r->ports[i].lints[k].severity == ND_SEV_ERROR;
	}
	return 0;
}


/* Select, plan and lint; the report owns the ports from here. */
static int plan_report(struct nd_ctx *ctx, const struct nd_profile *profile,
		       const char *const *devs, size_t n_devs, bool planned, struct nd_plan *plan,
		       struct nd_report *r, bool *errors, struct nd_err *e)
{
	struct nd_port *ports;
	size_t n, i;
	int ret;

	ret = nd_txn_ports_select(ctx, profile, devs, n_devs, &ports, &n, e);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++)
		ret = nd_plan_port(plan, profile, &ports[i], i, e);
	if (ret) {
		nd_ports_free(ports, n);
		return ret;
	}
	ret = nd_txn_report_fill(r, ports, n, plan, e);
	if (!ret)
		ret = report_lint(r, profile, planned, errors, e);
	return ret;
}

int nd_audit(struct nd_ctx *ctx, const struct nd_profile *profile, const char *const *devs,
	     size_t n_devs, struct nd_report *r, struct nd_err *e)
{
	struct nd_plan plan = { 0 };
	bool errors;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = plan_report(ctx, profile, devs, n_devs, false, &plan, r, &errors, e);
	nd_plan_free(&plan);
	r->outcome = ND_OUTCOME_AUDITED;
	return ret;
}

/*
 * Fields the ports cannot give (plan.c marks them): a driver read that failed is an error, a
 * field the driver does not support refuses the apply unless @force (the rest is applied then).
 * Returns <0 for the error, 1 to refuse (why in @r->failure), 0 to go on.
 */
static int check_unsupported(const struct nd_plan *plan, struct nd_report *r, bool force,
			     struct nd_err *e)
{
	const struct nd_step *first = NULL;
	size_t i;

	for (i = 0; i < plan->n; i++) {
		const struct nd_step *s = &plan->steps[i];

		if (!s->unsupported)
			continue;
		if (s->unsupported != -EOPNOTSUPP)
			return nd_err_set(e, s->unsupported, "%s: %s: %s; nothing was changed; try "
					  "again, and look for the driver's error in the kernel log",
					  r->ports[s->port].port.link.name, nd_field_key(s->field),
					  s->warning);
		if (!first)
			first = s;
	}
	if (!first || force)
		return 0;
	snprintf(r->failure, sizeof(r->failure), "%s: %s: %s; nothing was changed; leave the "
		 "field out of the profile for this port, or --force to apply the rest",
		 r->ports[first->port].port.link.name, nd_field_key(first->field), first->warning);
	return 1;
}

/* @port as @w will leave it, as a profile (the journal's "post" before anything is written). */
static void planned_state(const struct nd_profile *w, const struct nd_port *port,
			  struct nd_profile *out)
{
	struct nd_port view = *port;

	nd_profile_overlay(w, &view);
	nd_state_to_profile(&view, out);
	if (view.dcb.apps != port->dcb.apps)
		free(view.dcb.apps);
}

/* Verify every port against @profile; on success the journal's post is what was read back. */
static int verify_applied(struct nd_ctx *ctx, const struct nd_profile *profile,
			  const char *const *names, struct nd_journal *j, struct nd_err *e)
{
	struct nd_profile *each = calloc(j->n, sizeof(*each));
	struct nd_port *read = NULL;
	size_t i;
	int ret;

	if (!each)
		return nd_err_set(e, -ENOMEM, "out of memory");
	for (i = 0; i < j->n; i++)
		each[i] = *profile;
	ret = nd_txn_verify(ctx, names, j->n, each, sizeof(*each), "verify", &read, e);
	free(each);
	if (ret)
		return ret;
	for (i = 0; i < j->n; i++)
		nd_state_to_profile(&read[i], &j->ports[i].post);
	nd_ports_free(read, j->n);
	return 0;
}

/* Journal, write, verify; on failure restore. The journal says how it ended. */
static int apply_write(struct nd_ctx *ctx, const struct nd_profile *profile,
		       const struct nd_plan *plan, struct nd_report *r, bool *journalled,
		       struct nd_err *e)
{
	struct nd_journal j = { .n = r->n, .time = time(NULL) };
	struct nd_err rb = { 0 }, ignored = { 0 };
	char **names = nd_txn_names(r);
	size_t i;
	int ret;

	j.ports = calloc(r->n ? r->n : 1, sizeof(*j.ports));
	if (!names || !j.ports) {
		ret = nd_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < r->n; i++) {
		snprintf(j.ports[i].ifname, sizeof(j.ports[i].ifname), "%s", names[i]);
		nd_state_to_profile(&r->ports[i].port, &j.ports[i].pre);
		planned_state(profile, &r->ports[i].port, &j.ports[i].post);
	}
	snprintf(j.profile, sizeof(j.profile), "%s", profile->origin.file);
	snprintf(j.status, sizeof(j.status), "in-progress");
	/* the pre-state, durably, before the first write */
	ret = nd_journal_save(r->journal, &j, e);
	if (ret)
		goto out;
	*journalled = true;
	ret = nd_txn_steps_run(ctx, r->ports, sizeof(*r->ports), plan, false, e);
	if (!ret)
		ret = verify_applied(ctx, profile, (const char *const *)names, &j, e);
	if (!ret) {
		r->outcome = ND_OUTCOME_APPLIED;
		snprintf(j.status, sizeof(j.status), "applied");
	} else {
		snprintf(r->failure, sizeof(r->failure), "%s", e->msg);
		if (nd_txn_restore(ctx, (const char *const *)names, r->n, &j.ports[0].pre,
				   sizeof(j.ports[0]), &rb)) {
			r->outcome = ND_OUTCOME_ROLLBACK_FAILED;
			nd_err_set(e, ret, "%s; rolling back failed too: %s; the pre-state is in %s "
				   "(nodrop rollback retries)", r->failure, rb.msg, r->journal);
		} else {
			r->outcome = ND_OUTCOME_ROLLED_BACK;
			nd_err_set(e, ret, "%s; rolled back: every port is in its pre-state again "
				   "(verified)", r->failure);
			snprintf(j.status, sizeof(j.status), "rolled-back");
		}
	}
	j.time = time(NULL);
	/* the journal keeps its pre-state either way: `nodrop rollback` undoes an apply */
	nd_journal_save(r->journal, &j, &ignored);
out:
	free(j.ports);
	free(names);
	return ret;
}

int nd_apply(struct nd_ctx *ctx, const struct nd_profile *profile,
	     const struct nd_apply_opts *o, struct nd_report *r, struct nd_err *e)
{
	const char *dir = o->state_dir ? o->state_dir : ND_STATE_DIR;
	struct nd_lock lock = { -1, -1 };
	struct nd_journal_prev prev = { 0 };
	struct nd_plan plan = { 0 };
	char journal[sizeof(r->journal)];
	bool errors, began = false, journalled = false;
	int ret;

	memset(r, 0, sizeof(*r));
	nd_txn_journal_path(journal, sizeof(journal), o);
	/* the lock first, so what is read is what is changed; then the journal says an apply began */
	if (!o->dry_run) {
		ret = nd_lock_take(dir, o->wait_s, &lock, e);
		if (ret)
			return ret;
		ret = nd_journal_begin(journal, profile->origin.file, &prev, e);
		if (ret)
			goto out;
		began = true;
		nd_txn_test_delay();
	}
	ret = plan_report(ctx, profile, o->devs, o->n_devs, true, &plan, r, &errors, e);
	if (ret)
		goto out;
	if (o->dry_run) {
		r->outcome = ND_OUTCOME_DRY_RUN;
		goto out;
	}
	ret = check_unsupported(&plan, r, o->force, e);
	if (ret || (errors && !o->force)) {
		r->outcome = ND_OUTCOME_REFUSED;
		ret = ret < 0 ? ret : 0;
		goto out;
	}
	if (!nd_plan_changes(&plan)) {
		r->outcome = ND_OUTCOME_NOOP;
		goto out;
	}
	snprintf(r->journal, sizeof(r->journal), "%s", journal);
	ret = apply_write(ctx, profile, &plan, r, &journalled, e);
out:
	if (began && !journalled) {
		struct nd_err ignored = { 0 };

		/* nothing was written: the last apply that wrote keeps its journal */
		nd_journal_abandon(journal, &prev, &ignored);
	}
	nd_journal_prev_free(&prev);
	nd_plan_free(&plan);
	nd_lock_drop(&lock);
	return ret;
}
