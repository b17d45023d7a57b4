// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The apply transaction: read everything, plan and lint before the first write, one apply per
 * host (lock), the pre-state journalled durably, steps in a safe order, read back and verify,
 * and on any failure the pre-state restored and verified in turn. Audit and rollback are the
 * same machinery with a different goal.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "dcbnl.h"
#include "internal.h"
#include "journal.h"
#include "plan.h"

#define SET(p, f) ((p)->set & (1u << (f)))

const char *nd_outcome_name(enum nd_outcome outcome)
{
	static const char *const names[] = {
		[ND_OUTCOME_DRY_RUN] = "dry-run",
		[ND_OUTCOME_NOOP] = "no-op",
		[ND_OUTCOME_APPLIED] = "applied",
		[ND_OUTCOME_REFUSED] = "refused",
		[ND_OUTCOME_ROLLED_BACK] = "rolled-back",
		[ND_OUTCOME_ROLLBACK_FAILED] = "rollback-failed",
		[ND_OUTCOME_AUDITED] = "audited",
	};

	return (size_t)outcome < ND_ARRAY_SIZE(names) ? names[outcome] : "?";
}

void nd_report_free(struct nd_report *r)
{
	size_t i;

	for (i = 0; i < r->n; i++) {
		nd_dcb_free(&r->ports[i].port.dcb);
		free(r->ports[i].changes);
		free(r->ports[i].lints);
	}
	free(r->ports);
	memset(r, 0, sizeof(*r));
}

/* ---- the lock: one apply or rollback at a time on a host ---- */

static int mkdir_p(const char *dir, struct nd_err *e)
{
	char path[PATH_MAX], *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return nd_err_set(e, -ENAMETOOLONG, "state directory path too long");
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		goto fail;
	return 0;
fail:
	return nd_err_set(e, -errno, "cannot create the state directory %s: %s%s", path,
			  strerror(errno), errno == EACCES ? "; run as root or give --state-dir" :
			  "");
}

static int lock_take(const char *dir, int wait_s, int *fdp, struct nd_err *e)
{
	struct timespec start, now;
	char path[PATH_MAX], pid[32];
	ssize_t n;
	int fd, ret;

	ret = mkdir_p(dir, e);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return nd_err_set(e, -errno, "cannot open the lock %s: %s", path, strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			ret = nd_err_set(e, -errno, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return ret;
		}
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= wait_s) {
			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			close(fd);
			return nd_err_set(e, -EBUSY, "another nodrop apply or rollback (pid %s) holds "
					  "%s; let it finish, or wait longer with --wait",
					  pid[0] ? pid : "unknown", path);
		}
		usleep(100 * 1000);
	}
	/* the pid is for the message above, in whoever waits next */
	if (ftruncate(fd, 0) == 0) {
		n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (pwrite(fd, pid, (size_t)n, 0) != n)
			pid[0] = '\0';
	}
	*fdp = fd;
	return 0;
}

static void lock_drop(int fd)
{
	if (fd >= 0)
		close(fd);	/* closing releases the flock */
}

/* ---- steps ---- */

static int step_run(struct nd_ctx *ctx, const struct nd_port *port, const struct nd_step *s,
		    struct nd_err *e)
{
	const char *name = port->link.name;
	const char *delay = getenv("NODROP_STEP_DELAY_MS");
	const struct nd_rdma_port *rdma;
	int ret = 0;

	/* a test aid: widens the window in which a test can kill an apply half way */
	if (delay && *delay)
		usleep((useconds_t)atoi(delay) * 1000);
	switch (s->kind) {
	case ND_STEP_DCBX:
		return nd_dcb_set_dcbx(&ctx->rtnl, name, s->u.dcbx, e);
	case ND_STEP_MTU:
		return nd_link_set_mtu(ctx, name, s->u.mtu, e);
	case ND_STEP_BUFFER:
		return nd_dcb_set_attr(&ctx->rtnl, name, DCB_ATTR_DCB_BUFFER, &s->u.buffer,
				       sizeof(s->u.buffer), e);
	case ND_STEP_ETS:
		return nd_dcb_set_attr(&ctx->rtnl, name, DCB_ATTR_IEEE_ETS, &s->u.ets,
				       sizeof(s->u.ets), e);
	case ND_STEP_MAXRATE:
		return nd_dcb_set_attr(&ctx->rtnl, name, DCB_ATTR_IEEE_MAXRATE, &s->u.maxrate,
				       sizeof(s->u.maxrate), e);
	case ND_STEP_PFC:
		return nd_dcb_set_attr(&ctx->rtnl, name, DCB_ATTR_IEEE_PFC, &s->u.pfc,
				       sizeof(s->u.pfc), e);
	case ND_STEP_ECN_ENABLE:
		return nd_ecn_set_enable(name, port->link.bus_info, port->ecn.backend,
					 s->u.ecn_enable.np, s->u.ecn_enable.prio,
					 s->u.ecn_enable.on, e);
	case ND_STEP_ECN_PARAM:
		return nd_ecn_set_param(name, port->link.bus_info, port->ecn.backend,
					s->u.param.name, s->u.param.value, e);
	case ND_STEP_APP_ADD:
	case ND_STEP_APP_DEL:
		ret = nd_dcb_app(&ctx->rtnl, name, s->kind == ND_STEP_APP_ADD, &s->u.app, e);
		if (ret == -ENOENT && s->tolerate_enoent) {
			nd_err_clear(e);
			return 0;
		}
		return ret;
	case ND_STEP_ROCE:
		rdma = &port->rdma[s->u.roce.rdma];
		return nd_roce_write(rdma->ibdev, rdma->port, s->u.roce.tos, s->u.roce.mode, e);
	case ND_STEP_ROCE_RESET:
		return nd_roce_reset(port->rdma[s->u.roce.rdma].ibdev, e);
	}
	return nd_err_set(e, -EINVAL, "unknown step %d", s->kind);
}

/* The port at @i of an array of @stride-sized items that each begin with a struct nd_port. */
#define PORT_AT(base, stride, i) \
	((const struct nd_port *)((const char *)(base) + (i) * (stride)))

/* Run every step; stop at the first failure unless @keep_going (rollback does its best). */
static int steps_run(struct nd_ctx *ctx, const void *ports, size_t stride,
		     const struct nd_plan *plan, bool keep_going, struct nd_err *e)
{
	struct nd_err step_err = { 0 };
	int first = 0, ret;
	size_t i;

	for (i = 0; i < plan->n; i++) {
		const struct nd_step *s = &plan->steps[i];

		if (s->skip)
			continue;
		const struct nd_port *port = PORT_AT(ports, stride, s->port);

		ret = step_run(ctx, port, s, &step_err);
		if (!ret)
			continue;
		if (!first) {
			first = ret;
			*e = step_err;
			if (!strstr(e->msg, port->link.name))
				nd_err_wrap(e, "%s: %s", port->link.name, nd_field_key(s->field));
		}
		if (!keep_going)
			break;
	}
	return first;
}

/* ---- reading and planning ---- */

/* Read the named ports (all when @n is 0) and keep those @profile matches (all when NULL). */
static int ports_select(struct nd_ctx *ctx, const struct nd_profile *profile,
			const char *const *devs, size_t n, struct nd_port **out, size_t *count,
			struct nd_err *e)
{
	struct nd_port *ports;
	size_t i, kept = 0, all;
	int ret;

	ret = nd_ports_read(ctx, devs, n, &ports, &all, e);
	if (ret)
		return ret;
	for (i = 0; i < all; i++) {
		if (!profile || nd_profile_matches(profile, &ports[i]))
			ports[kept++] = ports[i];
		else
			nd_dcb_free(&ports[i].dcb);
	}
	if (!kept) {
		free(ports);
		return nd_err_set(e, -ENODEV, "profile '%s' matches none of the %s ports; check its "
				  "ports: section or --dev", profile ? profile->name : "",
				  n ? "given" : "host's");
	}
	*out = ports;
	*count = kept;
	return 0;
}

static int plan_all(const struct nd_port *ports, size_t n, const struct nd_profile *wants,
		    size_t stride, struct nd_plan *plan, struct nd_err *e)
{
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = nd_plan_port(plan, (const struct nd_profile *)((const char *)wants + i * stride),
				   &ports[i], i, e);
		if (ret)
			return ret;
	}
	return 0;
}

/* "0-7:0 8-15:1 26:3" for a DSCP map, "none" when empty. */
static void fmt_dscp_map(char *buf, size_t len, const int *map)
{
	size_t off = 0;
	int d = 0, end;

	buf[0] = '\0';
	while (d < ND_DSCP_MAX && off < len) {
		if (map[d] < 0) {
			d++;
			continue;
		}
		for (end = d; end + 1 < ND_DSCP_MAX && map[end + 1] == map[d]; end++)
			;
		if (end > d)
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d:%d", off ? " " : "", d,
						end, map[d]);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d:%d", off ? " " : "", d,
						map[d]);
		d = end + 1;
	}
	if (!buf[0])
		snprintf(buf, len, "none");
}

static struct nd_change *change_add(struct nd_port_report *pr)
{
	return nd_push((void **)&pr->changes, &pr->n_changes, sizeof(*pr->changes));
}

/*
 * Fill the report's per-port changes from a plan; the report owns @ports from here. A person
 * reads changes, not steps: the APP steps of a port become one DSCP map change, and the
 * settings one backend cannot write become one skipped line.
 */
static int report_fill(struct nd_report *r, struct nd_port *ports, size_t n,
		       const struct nd_plan *plan, struct nd_err *e)
{
	int (*maps)[ND_DSCP_MAX];
	size_t i;

	r->ports = calloc(n ? n : 1, sizeof(*r->ports));
	maps = calloc(n ? n : 1, sizeof(*maps));
	if (!r->ports || !maps) {
		for (i = 0; i < n; i++)
			nd_dcb_free(&ports[i].dcb);
		free(ports);
		free(maps);
		return nd_err_set(e, -ENOMEM, "out of memory");
	}
	r->n = n;
	for (i = 0; i < n; i++) {
		r->ports[i].port = ports[i];
		nd_dcb_dscp_map(&ports[i].dcb, maps[i]);
	}
	free(ports);
	for (i = 0; i < plan->n; i++) {
		const struct nd_step *s = &plan->steps[i];
		struct nd_port_report *pr = &r->ports[s->port];
		struct nd_change *c = pr->n_changes ? &pr->changes[pr->n_changes - 1] : NULL;
		int *map = maps[s->port];

		if (s->kind == ND_STEP_APP_ADD || s->kind == ND_STEP_APP_DEL) {
			if (!c || c->field != ND_F_DSCP_MAP) {
				c = change_add(pr);
				if (!c)
					goto oom;
				c->field = ND_F_DSCP_MAP;
				fmt_dscp_map(c->from, sizeof(c->from), map);
			}
			if (s->kind == ND_STEP_APP_ADD)
				map[s->u.app.protocol] = s->u.app.priority;
			else if (map[s->u.app.protocol] == s->u.app.priority)
				map[s->u.app.protocol] = -1;
			fmt_dscp_map(c->to, sizeof(c->to), map);
			continue;
		}
		if (s->skip && c && c->skipped && !strcmp(c->warning, s->warning)) {
			size_t len = strlen(c->to);

			snprintf(c->to + len, sizeof(c->to) - len, ", %s", s->to);
			continue;
		}
		c = change_add(pr);
		if (!c)
			goto oom;
		c->field = s->field;
		snprintf(c->from, sizeof(c->from), "%s", s->from);
		snprintf(c->to, sizeof(c->to), "%s", s->to);
		snprintf(c->warning, sizeof(c->warning), "%s", s->warning);
		c->skipped = s->skip;
	}
	free(maps);
	return 0;
oom:
	free(maps);
	return nd_err_set(e, -ENOMEM, "out of memory");
}

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

/* Re-read @names and check nothing is left to do to reach @wants. */
static int verify(struct nd_ctx *ctx, const char *const *names, size_t n,
		  const struct nd_profile *wants, size_t stride, const char *what, struct nd_err *e)
{
	struct nd_plan plan = { 0 };
	struct nd_port *ports;
	size_t count, i;
	int ret;

	ret = nd_ports_read(ctx, names, n, &ports, &count, e);
	if (ret)
		return nd_err_wrap(e, "%s: reading back", what);
	ret = plan_all(ports, count, wants, stride, &plan, e);
	for (i = 0; !ret && i < plan.n; i++) {
		const struct nd_step *s = &plan.steps[i];

		if (s->skip)
			continue;
		ret = nd_err_set(e, -EIO, "%s: %s: %s reads %s, expected %s; the driver did not "
				 "keep what it acknowledged", what, ports[s->port].link.name,
				 nd_field_key(s->field), s->from, s->to);
	}
	nd_plan_free(&plan);
	nd_ports_free(ports, count);
	return ret;
}

/* Take the ports back to @pres (one per name): plan, run everything, verify. */
static int restore(struct nd_ctx *ctx, const char *const *names, size_t n,
		   const struct nd_profile *pres, size_t stride, struct nd_err *e)
{
	struct nd_plan plan = { 0 };
	struct nd_port *ports;
	size_t count;
	int ret;

	ret = nd_ports_read(ctx, names, n, &ports, &count, e);
	if (ret)
		return ret;
	ret = plan_all(ports, count, pres, stride, &plan, e);
	if (!ret)
		ret = steps_run(ctx, ports, sizeof(*ports), &plan, true, e);
	nd_plan_free(&plan);
	nd_ports_free(ports, count);
	if (!ret)
		ret = verify(ctx, names, n, pres, stride, "rollback", e);
	return ret;
}

static char **names_of(const struct nd_report *r)
{
	char **names = calloc(r->n ? r->n : 1, sizeof(*names));
	size_t i;

	for (i = 0; names && i < r->n; i++)
		names[i] = (char *)r->ports[i].port.link.name;
	return names;
}

int nd_audit(struct nd_ctx *ctx, const struct nd_profile *profile, const char *const *devs,
	     size_t n_devs, struct nd_report *r, struct nd_err *e)
{
	struct nd_plan plan = { 0 };
	struct nd_port *ports;
	size_t n, i;
	bool errors;
	int ret;

	memset(r, 0, sizeof(*r));
	ret = ports_select(ctx, profile, devs, n_devs, &ports, &n, e);
	if (ret)
		return ret;
	for (i = 0; i < n && !ret; i++)
		ret = nd_plan_port(&plan, profile, &ports[i], i, e);
	if (ret) {
		nd_ports_free(ports, n);
		nd_plan_free(&plan);
		return ret;
	}
	ret = report_fill(r, ports, n, &plan, e);
	nd_plan_free(&plan);
	if (!ret)
		ret = report_lint(r, profile, false, &errors, e);
	r->outcome = ND_OUTCOME_AUDITED;
	return ret;
}

static int journal_path(char *buf, size_t len, const struct nd_apply_opts *o)
{
	return snprintf(buf, len, "%s/journal.json", o->state_dir ? o->state_dir : ND_STATE_DIR);
}

int nd_apply(struct nd_ctx *ctx, const struct nd_profile *profile,
	     const struct nd_apply_opts *o, struct nd_report *r, struct nd_err *e)
{
	const char *dir = o->state_dir ? o->state_dir : ND_STATE_DIR;
	struct nd_journal j = { 0 };
	struct nd_plan plan = { 0 };
	struct nd_profile *pres = NULL;
	struct nd_port *ports;
	char **names = NULL;
	int lock = -1, ret;
	bool errors;
	size_t n, i;

	memset(r, 0, sizeof(*r));
	/* the lock first, so what is read is what is changed */
	if (!o->dry_run) {
		ret = lock_take(dir, o->wait_s, &lock, e);
		if (ret)
			return ret;
	}
	ret = ports_select(ctx, profile, o->devs, o->n_devs, &ports, &n, e);
	if (ret)
		goto out;
	for (i = 0; i < n && !ret; i++)
		ret = nd_plan_port(&plan, profile, &ports[i], i, e);
	if (ret) {
		nd_ports_free(ports, n);
		goto out;
	}
	ret = report_fill(r, ports, n, &plan, e);
	if (!ret)
		ret = report_lint(r, profile, true, &errors, e);
	if (ret)
		goto out;
	if (o->dry_run) {
		r->outcome = ND_OUTCOME_DRY_RUN;
		goto out;
	}
	if (errors && !o->force) {
		r->outcome = ND_OUTCOME_REFUSED;
		goto out;
	}
	if (!nd_plan_changes(&plan)) {
		r->outcome = ND_OUTCOME_NOOP;
		goto out;
	}
	/* the pre-state, durably, before the first write */
	names = names_of(r);
	j.ports = calloc(n, sizeof(*j.ports));
	pres = calloc(n, sizeof(*pres));
	if (!names || !j.ports || !pres) {
		ret = nd_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < n; i++) {
		snprintf(j.ports[i].ifname, sizeof(j.ports[i].ifname), "%s", names[i]);
		nd_state_to_profile(&r->ports[i].port, &j.ports[i].pre);
		pres[i] = j.ports[i].pre;
	}
	j.n = n;
	j.time = time(NULL);
	snprintf(j.profile, sizeof(j.profile), "%s", profile->origin.file);
	snprintf(j.status, sizeof(j.status), "in-progress");
	journal_path(r->journal, sizeof(r->journal), o);
	ret = nd_journal_save(r->journal, &j, e);
	if (ret)
		goto out;

	ret = steps_run(ctx, r->ports, sizeof(*r->ports), &plan, false, e);
	if (!ret) {
		const struct nd_profile *wants = profile;
		struct nd_profile *each = calloc(n, sizeof(*each));

		/* every port is verified against the same profile */
		if (!each) {
			ret = nd_err_set(e, -ENOMEM, "out of memory");
		} else {
			for (i = 0; i < n; i++)
				each[i] = *wants;
			ret = verify(ctx, (const char *const *)names, n, each, sizeof(*each),
				     "verify", e);
			free(each);
		}
	}
	if (!ret) {
		r->outcome = ND_OUTCOME_APPLIED;
		snprintf(j.status, sizeof(j.status), "applied");
	} else {
		struct nd_err rb = { 0 };

		snprintf(r->failure, sizeof(r->failure), "%s", e->msg);
		if (restore(ctx, (const char *const *)names, n, pres, sizeof(*pres), &rb)) {
			r->outcome = ND_OUTCOME_ROLLBACK_FAILED;
			nd_err_set(e, ret, "%s; rolling back failed too: %s; the pre-state is in %s "
				   "(nodrop rollback retries)", r->failure, rb.msg, r->journal);
			snprintf(j.status, sizeof(j.status), "in-progress");
		} else {
			r->outcome = ND_OUTCOME_ROLLED_BACK;
			nd_err_set(e, ret, "%s; rolled back: every port is in its pre-state again "
				   "(verified)", r->failure);
			snprintf(j.status, sizeof(j.status), "rolled-back");
		}
	}
	{
		struct nd_err ignored = { 0 };

		/* the journal keeps its pre-state either way: `nodrop rollback` undoes an apply */
		nd_journal_save(r->journal, &j, &ignored);
	}
out:
	/* the journal's profiles only borrow from pres: free the arrays, not the contents */
	free(j.ports);
	free(pres);
	free(names);
	nd_plan_free(&plan);
	lock_drop(lock);
	return ret;
}

int nd_rollback(struct nd_ctx *ctx, const char *journal, const struct nd_apply_opts *o,
		struct nd_report *r, struct nd_err *e)
{
	const char *dir = o->state_dir ? o->state_dir : ND_STATE_DIR;
	struct nd_journal j = { 0 };
	struct nd_plan plan = { 0 };
	struct nd_port *ports = NULL;
	const char **names = NULL;
	size_t n = 0, i;
	int lock = -1, ret;

	memset(r, 0, sizeof(*r));
	if (journal)
		snprintf(r->journal, sizeof(r->journal), "%s", journal);
	else
		journal_path(r->journal, sizeof(r->journal), o);
	ret = lock_take(dir, o->wait_s, &lock, e);
	if (ret)
		return ret;
	ret = nd_journal_load(r->journal, &j, e);
	if (ret)
		goto out;
	names = calloc(j.n ? j.n : 1, sizeof(*names));
	if (!names) {
		ret = nd_err_set(e, -ENOMEM, "out of memory");
		goto out;
	}
	for (i = 0; i < j.n; i++)
		names[i] = j.ports[i].ifname;
	ret = nd_ports_read(ctx, names, j.n, &ports, &n, e);
	if (ret) {
		nd_err_wrap(e, "rollback of %s", r->journal);
		goto out;
	}
	ret = plan_all(ports, n, &j.ports[0].pre, sizeof(j.ports[0]), &plan, e);
	if (ret) {
		nd_ports_free(ports, n);
		goto out;
	}
	ret = report_fill(r, ports, n, &plan, e);
	if (ret)
		goto out;
	if (!nd_plan_changes(&plan)) {
		r->outcome = ND_OUTCOME_NOOP;
		goto out;
	}
	ret = steps_run(ctx, r->ports, sizeof(*r->ports), &plan, true, e);
	if (!ret)
		ret = verify(ctx, names, n, &j.ports[0].pre, sizeof(j.ports[0]), "rollback", e);
	r->outcome = ret ? ND_OUTCOME_ROLLBACK_FAILED : ND_OUTCOME_APPLIED;
	if (!ret) {
		struct nd_err ignored = { 0 };

		snprintf(j.status, sizeof(j.status), "rolled-back");
		j.time = time(NULL);
		nd_journal_save(r->journal, &j, &ignored);
	}
out:
	nd_plan_free(&plan);
	free(names);
	nd_journal_free(&j);
	lock_drop(lock);
	return ret;
}
