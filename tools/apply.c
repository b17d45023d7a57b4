// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop apply: make ports look like a profile, transactionally. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "report.h"

enum { OPT_STATE_DIR = 256, OPT_WAIT, OPT_FORCE };

struct apply_args {
	struct nd_devs devs;
	struct nd_apply_opts opts;
	bool wait_given;
};

static const struct nd_opt apply_opts[] = {
	{ "dry-run", 'n', NULL, "print the plan and the lints, change nothing" },
	{ "dev", 'd', "DEV", "only this port (repeatable); default: every port the profile matches" },
	{ "state-dir", OPT_STATE_DIR, "DIR", "journal and lock directory (default " ND_STATE_DIR ")" },
	{ "wait", OPT_WAIT, "SECONDS", "wait this long for another apply's lock (default 30)" },
	{ "force", OPT_FORCE, NULL, "apply although lints at error severity were found, or skip the "
	  "fields a port's driver does not support" },
	{ 0 },
};

static int apply_opt(int key, const char *arg, void *data)
{
	struct apply_args *a = data;

	switch (key) {
	case 'n':
		a->opts.dry_run = true;
		return 0;
	case 'd':
		return nd_devs_add(&a->devs, "apply", arg);
	case OPT_STATE_DIR:
		a->opts.state_dir = arg;
		return 0;
	case OPT_WAIT:
		a->wait_given = true;
		return nd_parse_seconds("apply", "wait", arg, &a->opts.wait_s);
	case OPT_FORCE:
		a->opts.force = true;
		return 0;
	}
	return ND_EXIT_USAGE;
}

/* Exit code of an apply: what the user must act on decides it. */
static int apply_exit(int ret, const struct nd_report *r)
{
	/* a step the driver failed (EINVAL included) was written and undone: not bad input */
	if (r->outcome == ND_OUTCOME_ROLLED_BACK || r->outcome == ND_OUTCOME_ROLLBACK_FAILED)
		return ND_EXIT_SYSTEM;
	if (ret == -EINVAL || ret == -ENODEV)
		return ND_EXIT_USAGE;
	if (ret)
		return ND_EXIT_SYSTEM;
	if (r->outcome == ND_OUTCOME_REFUSED)
		return ND_EXIT_FINDINGS;
	if (r->outcome == ND_OUTCOME_DRY_RUN && nd_report_has_errors(r, false, 0))
		return ND_EXIT_FINDINGS;
	return ND_EXIT_OK;
}

static int apply_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct apply_args *a = data;
	struct nd_profile profile;
	struct nd_report r = { 0 };
	struct nd_err e = { 0 };
	struct nd_ctx *ctx = NULL;
	int ret, rc;

	if (!a->wait_given)
		a->opts.wait_s = ND_WAIT_DEFAULT_S;
	rc = nd_cli_profile("apply", argc, argv, &profile, &e);
	if (rc)
		return rc;
	a->opts.devs = a->devs.v;
	a->opts.n_devs = a->devs.n;
	ret = nd_ctx_new(&ctx, &e);
	if (!ret)
		ret = nd_apply(ctx, &profile, &a->opts, &r, &e);
	pr_init(cli->json, cli->pretty);
	if (r.n)
		nd_print_report(&r, &profile, false, 0);
	pr_finish();
	if (ret)
		fprintf(stderr, "nodrop apply: %s\n", e.msg);
	else if (r.outcome == ND_OUTCOME_REFUSED && r.failure[0])
		fprintf(stderr, "nodrop apply: %s\n", r.failure);
	else if (r.outcome == ND_OUTCOME_REFUSED)
		fprintf(stderr, "nodrop apply: lints at error severity: nothing was changed; fix the "
				"profile or the port, or use --force\n");
	rc = apply_exit(ret, &r);
	nd_report_free(&r);
	nd_profile_free(&profile);
	nd_ctx_free(ctx);
	return rc;
}

const struct nd_cmd nd_cmd_apply = {
	.name = "apply",
	.args = "PROFILE",
	.summary = "Apply a profile to its ports: validate, plan, journal, write, verify, roll back "
		   "on failure",
	.opts = apply_opts,
	.opt = apply_opt,
	.run = apply_run,
	.data_size = sizeof(struct apply_args),
};
