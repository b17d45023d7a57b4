// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Rollback: back to the pre-state the last apply that wrote journalled, never from a journal
 * already rolled back or from an apply stopped before its first write, and never over a change
 * someone made after the apply without saying so. A field is such a conflict when the port holds
 * neither the pre-state's value nor the value the apply left (or, killed half way, meant to).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/internal.h"
#include "journal.h"
#include "lock.h"
#include "plan.h"
#include "txn.h"

/* Do two steps write the same thing: one setting of one port? */
static bool same_slot(const struct nd_step *a, const struct nd_step *b)
{
	bool app_a = a->kind == ND_STEP_APP_ADD || a->kind == ND_STEP_APP_DEL;
	bool app_b = b->kind == ND_STEP_APP_ADD || b->kind == ND_STEP_APP_DEL;

	if (a->port != b->port)
		return false;
	if (app_a || app_b)
		return app_a && app_b && a->u.app.protocol == b->u.app.protocol;
	if ((a->kind == ND_STEP_ROCE || a->kind == ND_STEP_ROCE_RESET) &&
	    (b->kind == ND_STEP_ROCE || b->kind == ND_STEP_ROCE_RESET))
		return a->u.roce.rdma == b->u.roce.rdma;
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case ND_STEP_ECN_ENABLE:
		return a->u.ecn_enable.np == b->u.ecn_enable.np &&
		       a->u.ecn_enable.prio == b->u.ecn_enable.prio;
	case ND_STEP_ECN_PARAM:
		return !strcmp(a->u.param.name, b->u.param.name);
	default:
		return true;
	}
}

/* Every setting that differs from the pre-state (@to_pre) and from the post-state (@to_post). */
static int find_conflicts(const struct nd_plan *to_pre, const struct nd_plan *to_post,
			  struct nd_report *r, struct nd_err *e)
{
	size_t i, k;

	for (k = 0; k < to_post->n; k++) {
		const struct nd_step *b = &to_post->steps[k];
		struct nd_conflict *c;

		if (b->skip)
			continue;
		for (i = 0; i < to_pre->n; i++)
			if (!to_pre->steps[i].skip && same_slot(&to_pre->steps[i], b))
				break;
		if (i == to_pre->n)
			continue;
		c = nd_push((void **)&r->conflicts, &r->n_conflicts, sizeof(*c));
		if (!c)
			return nd_err_set(e, -ENOMEM, "out of memory");
		snprintf(c->ifname, sizeof(c->ifname), "%s", r->ports[b->port].port.link.name);
		c->field = b->field;
		snprintf(c->applied, sizeof(c->applied), "%s", b->to);
		snprintf(c->now, sizeof(c->now), "%s", b->from);
	}
	return 0;
}

/* Is there anything to roll back in @j? When not, @r->note says why. */
static bool journal_live(const struct nd_journal *j, struct nd_report *r)
{
	char when[32] = "";
	struct tm tm;

	if (localtime_r(&j->time, &tm))
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", &tm);
	if (!strcmp(j->status, "in-progress") || !strcmp(j->status, "applied"))
		return true;
	if (!strcmp(j->status, "rolled-back"))
		snprintf(r->note, sizeof(r->note), "the last apply, of %s by pid %d, is already "
			 "rolled back, as of %s: nothing to do", j->profile, j->pid, when);
	else if (!strcmp(j->status, "started"))
		snprintf(r->note, sizeof(r->note), "the last apply, of %s by pid %d at %s, stopped "
			 "before it changed anything: nothing to roll back", j->profile, j->pid,
			 when);
	else
		snprintf(r->note, sizeof(r->note), "the journal's status is '%s': nothing to roll "
			 "back", j->status);
	return false;
}

/*
 * A journalled state this port cannot take (an MTU beyond its limits, buffers beyond its memory)
 * means a damaged journal, or one from before the NIC changed: refuse it in the journal's terms,
 * before planning would refuse it in a profile's (file:line:column).
 */
static int journal_fits(const struct nd_journal *j, const struct nd_port *ports, size_t n,
			const char *path, struct nd_err *e)
{
#define NOT_FOR_PORT "the journal is damaged or not for this port: restore the port by hand " \
		     "or with nodrop apply"
	static const char *const what[] = { "pre-state", "post-state" };
	size_t i, k, b;

	for (i = 0; i < n && i < j->n; i++) {
		const struct nd_profile *states[] = { &j->ports[i].pre, &j->ports[i].post };
		const struct nd_link *l = &ports[i].link;
		const struct nd_dcb *dcb = &ports[i].dcb;
		const char *name = j->ports[i].ifname;

		for (k = 0; k < ND_ARRAY_SIZE(states); k++) {
			const struct nd_profile *s = states[k];
			bool mtu = s->set & 1u << ND_F_MTU;
			uint64_t total = 0;

			if (mtu && l->max_mtu && s->mtu > l->max_mtu)
				return nd_err_set(e, -EINVAL, "%s: port %s: %s mtu %u is above the "
						  "port's maximum %u; " NOT_FOR_PORT, path, name,
						  what[k], s->mtu, l->max_mtu);
			if (mtu && s->mtu < l->min_mtu)
				return nd_err_set(e, -EINVAL, "%s: port %s: %s mtu %u is below the "
						  "port's minimum %u; " NOT_FOR_PORT, path, name,
						  what[k], s->mtu, l->min_mtu);
			if (!(s->set & 1u << ND_F_BUF_SIZE) || !(dcb->have & ND_DCB_HAVE_BUFFER) ||
			    !dcb->buffer.total_size)
				continue;
			for (b = 0; b < ND_PRIO_MAX; b++)
				total += s->buffer_size[b];
			if (total > dcb->buffer.total_size)
				return nd_err_set(e, -EINVAL, "%s: port %s: %s buffer_size adds up "
						  "to %" PRIu64 " bytes, the port has %u; "
						  NOT_FOR_PORT, path, name, what[k], total,
						  dcb->buffer.total_size);
		}
	}
	return 0;
#undef NOT_FOR_PORT
}

/* Plan back to the pre-state into the report, and find what changed since the apply. */
static int plan_back(struct nd_ctx *ctx, const struct nd_journal *j, const char *const *names,
		     struct nd_plan *plan, struct nd_report *r, struct nd_err *e)
{
	struct nd_plan to_post = { 0 };
	struct nd_port *ports;
	size_t n;
	int ret;

	ret = nd_ports_read(ctx, names, j->n, &ports, &n, e);
	if (ret)
		return nd_err_wrap(e, "rollback of %s", r->journal);
	ret = journal_fits(j, ports, n, r->journal, e);
	if (!ret)
		ret = nd_txn_plan_all(ports, n, &j->ports[0].pre, sizeof(j->ports[0]), plan, e);
	if (!ret)
		ret = nd_txn_plan_all(ports, n, &j->ports[0].post, sizeof(j->ports[0]), &to_post,
				      e);
	if (ret) {
		nd_plan_free(&to_post);
		nd_ports_free(ports, n);
		return ret;
	}
	ret = nd_txn_report_fill(r, ports, n, plan, e);
	if (!ret)
		ret = find_conflicts(plan, &to_post, r, e);
	nd_plan_free(&to_post);
	return ret;
}

int nd_rollback(struct nd_ctx *ctx, const char *journal, const struct nd_apply_opts *o,
		struct nd_report *r, struct nd_err *e)
{
	const char *dir = o->state_dir ? o->state_dir : ND_STATE_DIR;
	struct nd_lock lock = { -1, -1 };
	struct nd_journal j = { 0 };
	struct nd_plan plan = { 0 };
	const char **names = NULL;
	struct nd_err ignored = { 0 };
	size_t i;
	int ret;

	memset(r, 0, sizeof(*r));
	if (journal)
		snprintf(r->journal, sizeof(r->journal), "%s", journal);
	else
		nd_txn_journal_path(r->journal, sizeof(r->journal), o);
	ret = nd_lock_take(dir, o->wait_s, &lock, e);
	if (ret)
		return ret;
	ret = nd_journal_load(r->journal, &j, e);
	if (ret)
		goto out;
	r->outcome = ND_OUTCOME_NOOP;
	if (!journal_live(&j, r))
		goto out;
	names = calloc(j.n ? j.n : 1, sizeof(*names));
	if (!names) {
		ret = nd_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < j.n; i++)
		names[i] = j.ports[i].ifname;
	ret = plan_back(ctx, &j, names, &plan, r, e);
	if (ret)
		goto out;
	if (r->n_conflicts && !o->force) {
		r->outcome = ND_OUTCOME_CONFLICT;
		goto out;
	}
	if (nd_plan_changes(&plan)) {
		ret = nd_txn_steps_run(ctx, r->ports, sizeof(*r->ports), &plan, true, e);
		if (!ret)
			ret = nd_txn_verify(ctx, names, j.n, &j.ports[0].pre, sizeof(j.ports[0]),
					    "rollback", NULL, e);
		r->outcome = ret ? ND_OUTCOME_ROLLBACK_FAILED : ND_OUTCOME_APPLIED;
	} else {
		snprintf(r->note, sizeof(r->note), "the ports are in the journalled pre-state "
			 "already: nothing to do");
	}
	if (!ret) {
		/* done with: a later rollback must not act on it again */
		snprintf(j.status, sizeof(j.status), "rolled-back");
		j.time = time(NULL);
		nd_journal_save(r->journal, &j, &ignored);
	}
out:
	nd_plan_free(&plan);
	free(names);
	nd_journal_free(&j);
	nd_lock_drop(&lock);
	return ret;
}
