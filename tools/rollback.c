// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop rollback: put back the pre-state the last apply journalled. */
#include <errno.h>
#include <stdio.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "report.h"

enum { OPT_JOURNAL = 256, OPT_STATE_DIR, OPT_WAIT, OPT_FORCE };

struct rollback_args {
	struct nd_apply_opts opts;
	const char *journal;
	bool wait_given;
};

static const struct nd_opt rollback_opts[] = {
	{ "journal", OPT_JOURNAL, "FILE", "the journal to restore (default STATE-DIR/journal.json)" },
	{ "state-dir", OPT_STATE_DIR, "DIR", "journal and lock directory (default " ND_STATE_DIR ")" },
	{ "wait", OPT_WAIT, "SECONDS", "wait this long for another apply's lock (default 30)" },
	{ "force", OPT_FORCE, NULL, "restore also the fields changed by someone else since the "
	  "apply" },
	{ 0 },
};

static const struct nd_comp rollback_complete[] = {
	{ .opt = "journal", .kind = ND_COMP_JSON },
	{ 0 },
};

static int rollback_opt(int key, const char *arg, void *data)
{
	struct rollback_args *a = data;

	switch (key) {
	case OPT_JOURNAL:
		a->journal = arg;
		return 0;
	case OPT_STATE_DIR:
		a->opts.state_dir = arg;
		return 0;
	case OPT_WAIT:
		a->wait_given = true;
		return nd_parse_seconds("rollback", "wait", arg, &a->opts.wait_s);
	case OPT_FORCE:
		a->opts.force = true;
		return 0;
	}
	return ND_EXIT_USAGE;
}

static void print_conflicts(const struct nd_report *r)
{
	size_t i;

	for (i = 0; i < r->n_conflicts; i++)
		fprintf(stderr, "nodrop rollback: %s: %s was changed since the apply: it left %s, "
			"it is %s now\n", r->conflicts[i].ifname,
			nd_field_key(r->conflicts[i].field), r->conflicts[i].applied,
			r->conflicts[i].now);
	fprintf(stderr, "nodrop rollback: nothing was restored: put %s back, or restore the "
		"pre-state over %s with --force\n", r->n_conflicts == 1 ? "it" : "them",
		r->n_conflicts == 1 ? "it" : "them");
}

/* Exit code of a rollback: what the user must act on decides it. */
static int rollback_exit(int ret, const struct nd_report *r)
{
	/* a step the driver failed (EINVAL included) was written: not bad input */
	if (r->outcome == ND_OUTCOME_ROLLBACK_FAILED)
		return ND_EXIT_SYSTEM;
	/* no journal, or one damaged or not for these ports: refused before any write */
	if (ret == -ENOENT || ret == -EBADMSG || ret == -EINVAL)
		return ND_EXIT_USAGE;
	if (ret)
		return ND_EXIT_SYSTEM;
	return r->outcome == ND_OUTCOME_CONFLICT ? ND_EXIT_FINDINGS : ND_EXIT_OK;
}

static int rollback_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct rollback_args *a = data;
	struct nd_report r = { 0 };
	struct nd_err e = { 0 };
	struct nd_ctx *ctx = NULL;
	int ret, rc;

	(void)argv;
	if (argc) {
		fprintf(stderr, "nodrop rollback: takes no arguments; 'nodrop rollback --help'\n");
		return ND_EXIT_USAGE;
	}
	if (!a->wait_given)
		a->opts.wait_s = ND_WAIT_DEFAULT_S;
	ret = nd_ctx_new(&ctx, &e);
	if (!ret)
		ret = nd_rollback(ctx, a->journal, &a->opts, &r, &e);
	pr_init(cli->json, cli->pretty);
	if (r.n || r.note[0])
		nd_print_report(&r, NULL, false, 0);
	pr_finish();
	if (ret)
		fprintf(stderr, "nodrop rollback: %s\n", e.msg);
	else if (r.outcome == ND_OUTCOME_CONFLICT)
		print_conflicts(&r);
	rc = rollback_exit(ret, &r);
	nd_report_free(&r);
	nd_ctx_free(ctx);
	return rc;
}

const struct nd_cmd nd_cmd_rollback = {
	.name = "rollback",
	.args = "",
	.summary = "Restore the pre-state the last apply journalled (also after a crash mid-apply)",
	.opts = rollback_opts,
	.opt = rollback_opt,
	.run = rollback_run,
	.data_size = sizeof(struct rollback_args),
	.complete = rollback_complete,
};
