// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The machinery apply, audit and rollback share: select and read the ports, plan towards a
 * state per port, turn a plan into the changes a person reads, run the steps, read back and
 * verify, restore a pre-state. The three commands are this with different goals (apply.c,
 * rollback.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/dcbnl.h"
#include "core/internal.h"
#include "journal.h"
#include "lock.h"
#include "plan.h"
#include "txn.h"

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
		[ND_OUTCOME_CONFLICT] = "conflict",
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
	free(r->conflicts);
	memset(r, 0, sizeof(*r));
}

/* ---- steps ---- */

void nd_txn_test_delay(void)
{
	const char *delay = getenv("NODROP_STEP_DELAY_MS");

	if (delay && *delay)
		usleep((useconds_t)atoi(delay) * 1000);
}

static int step_run(struct nd_ctx *ctx, const struct nd_port *port, const struct nd_step *s,
		    struct nd_err *e)
{
	const char *name = port->link.name;
	const struct nd_rdma_port *rdma;
	int ret = 0;

	nd_txn_test_delay();
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

/* Run every step; stop at the first failure unless @keep_going (rollback does its best). */
int nd_txn_steps_run(struct nd_ctx *ctx, const void *ports, size_t stride,
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
int nd_txn_ports_select(struct nd_ctx *ctx, const struct nd_profile *profile,
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

int nd_txn_plan_all(const struct nd_port *ports, size_t n, const struct nd_profile *wants,
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

/* The DSCP entries as the profile key they serve: the map, or the trust they amount to. */
static void fmt_dscp(char *buf, size_t len, const int *map, enum nd_field field)
{
	int d;

	if (field == ND_F_DSCP_MAP) {
		nd_fmt_dscp_map(buf, len, map);
		return;
	}
	for (d = 0; d < ND_DSCP_MAX && map[d] < 0; d++)
		;
	snprintf(buf, len, "%s", d < ND_DSCP_MAX ? "dscp" : "pcp");
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
int nd_txn_report_fill(struct nd_report *r, struct nd_port *ports, size_t n,
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

		if ((s->kind == ND_STEP_APP_ADD || s->kind == ND_STEP_APP_DEL) && !s->skip) {
			if (!c || c->field != s->field || c->skipped) {
				c = change_add(pr);
				if (!c)
					goto oom;
				c->field = s->field;
				fmt_dscp(c->from, sizeof(c->from), map, s->field);
			}
			if (s->kind == ND_STEP_APP_ADD)
				map[s->u.app.protocol] = s->u.app.priority;
			else if (map[s->u.app.protocol] == s->u.app.priority)
				map[s->u.app.protocol] = -1;
			fmt_dscp(c->to, sizeof(c->to), map, s->field);
			continue;
		}
		/* a field's steps skipped for one reason are one line; each field its own, so
		 * that audit can say which field went unverified (and a site accept it) */
		if (s->skip && !s->unsupported && c && c->skipped && !c->unsupported &&
		    c->field == s->field && !strcmp(c->warning, s->warning)) {
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
		c->unsupported = s->unsupported;
	}
	free(maps);
	return 0;
oom:
	free(maps);
	return nd_err_set(e, -ENOMEM, "out of memory");
}

int nd_txn_verify(struct nd_ctx *ctx, const char *const *names, size_t n,
		  const struct nd_profile *wants, size_t stride, const char *what,
		  struct nd_port **read, struct nd_err *e)
{
	struct nd_plan plan = { 0 };
	struct nd_port *ports;
	size_t count, i;
	int ret;

	ret = nd_ports_read(ctx, names, n, &ports, &count, e);
	if (ret)
		return nd_err_wrap(e, "%s: reading back", what);
	ret = nd_txn_plan_all(ports, count, wants, stride, &plan, e);
	for (i = 0; !ret && i < plan.n; i++) {
		const struct nd_step *s = &plan.steps[i];

		/* what the driver has no support for was refused or skipped (--force) before */
		if (s->unsupported && s->unsupported != -EOPNOTSUPP)
			ret = nd_err_set(e, -EIO, "%s: %s: %s: reading back: %s", what,
					 ports[s->port].link.name, nd_field_key(s->field),
					 s->warning);
		else if (!s->skip)
			ret = nd_err_set(e, -EIO, "%s: %s: %s reads %s, expected %s; the driver "
					 "did not keep what it acknowledged", what,
					 ports[s->port].link.name, nd_field_key(s->field), s->from,
					 s->to);
	}
	nd_plan_free(&plan);
	if (!ret && read)
		*read = ports;
	else
		nd_ports_free(ports, count);
	return ret;
}

int nd_txn_restore(struct nd_ctx *ctx, const char *const *names, size_t n,
		   const struct nd_profile *pres, size_t stride, struct nd_err *e)
{
	struct nd_plan plan = { 0 };
	struct nd_port *ports;
	size_t count;
	int ret;

	ret = nd_ports_read(ctx, names, n, &ports, &count, e);
	if (ret)
		return ret;
	ret = nd_txn_plan_all(ports, count, pres, stride, &plan, e);
	if (!ret)
		ret = nd_txn_steps_run(ctx, ports, sizeof(*ports), &plan, true, e);
	nd_plan_free(&plan);
	nd_ports_free(ports, count);
	if (!ret)
		ret = nd_txn_verify(ctx, names, n, pres, stride, "rollback", NULL, e);
	return ret;
}

char **nd_txn_names(const struct nd_report *r)
{
	char **names = calloc(r->n ? r->n : 1, sizeof(*names));
	size_t i;

	for (i = 0; names && i < r->n; i++)
		names[i] = (char *)r->ports[i].port.link.name;
	return names;
}

int nd_txn_journal_path(char *buf, size_t len, const struct nd_apply_opts *o)
{
	return snprintf(buf, len, "%s/journal.json", o->state_dir ? o->state_dir : ND_STATE_DIR);
}
