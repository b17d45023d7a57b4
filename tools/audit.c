// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop audit: where the ports differ from a profile, and what is inconsistent. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "report.h"

enum { OPT_JUNIT = 256, OPT_ACCEPT };

struct audit_args {
	struct nd_devs devs;
	const char *junit;
	uint32_t accept;	/* fields a site accepts unverified, a bit per enum nd_field */
};

static const struct nd_opt audit_opts[] = {
	{ "dev", 'd', "DEV", "only this port (repeatable); default: every port the profile matches" },
	{ "junit", OPT_JUNIT, "FILE", "also write the result as JUnit XML to FILE" },
	{ "accept-unverified", OPT_ACCEPT, "FIELDS", "fields (profile keys, comma-separated) whose "
	  "value a port will not give, accepted rather than failed: ecn.np,ecn.rp" },
	{ 0 },
};

/* "ecn.np,ecn.rp": each a profile key; ND_EXIT_USAGE after a message naming the keys there are */
static int parse_accept(struct audit_args *a, const char *arg)
{
	const char *p = arg;

	while (*p) {
		size_t len = strcspn(p, ",");
		int f;

		for (f = 0; f < ND_F_COUNT; f++)
			if (strlen(nd_field_key((enum nd_field)f)) == len &&
			    !strncmp(nd_field_key((enum nd_field)f), p, len))
				break;
		if (!len || f == ND_F_COUNT) {
			fprintf(stderr, "nodrop audit: --accept-unverified '%s': '%.*s' is not a "
				"profile field; give some of", arg, (int)len, p);
			for (f = 0; f < ND_F_COUNT; f++)
				fprintf(stderr, "%s %s", f ? "," : "", nd_field_key((enum nd_field)f));
			fprintf(stderr, "\n");
			return ND_EXIT_USAGE;
		}
		a->accept |= 1u << f;
		p += len + (p[len] == ',');
	}
	return 0;
}

static int audit_opt(int key, const char *arg, void *data)
{
	struct audit_args *a = data;

	switch (key) {
	case OPT_ACCEPT:
		return parse_accept(a, arg);
	case 'd':
		return nd_devs_add(&a->devs, "audit", arg);
	case OPT_JUNIT:
		a->junit = arg;
		return 0;
	}
	return ND_EXIT_USAGE;
}

static int junit_error(const char *path, const char *profile, const char *msg)
{
	int ret = nd_write_junit_error(path, profile, msg);

	if (ret)
		fprintf(stderr, "nodrop audit: cannot write %s: %s\n", path, strerror(-ret));
	return ret;
}

static int audit_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct audit_args *a = data;
	struct nd_profile profile;
	struct nd_report r = { 0 };
	struct nd_err e = { 0 };
	struct nd_ctx *ctx = NULL;
	int ret, rc;

	rc = nd_cli_profile("audit", argc, argv, &profile, &e);
	if (rc) {
		/* a CI job finds a report whatever went wrong */
		if (a->junit && argc == 1)
			junit_error(a->junit, argv[0], e.msg);
		return rc;
	}
	ret = nd_ctx_new(&ctx, &e);
	if (!ret)
		ret = nd_audit(ctx, &profile, a->devs.v, a->devs.n, &r, &e);
	if (ret) {
		fprintf(stderr, "nodrop audit: %s\n", e.msg);
		rc = ret == -EINVAL || ret == -ENODEV ? ND_EXIT_USAGE : ND_EXIT_SYSTEM;
		if (a->junit && junit_error(a->junit, profile.name, e.msg))
			rc = ND_EXIT_SYSTEM;
		goto out;
	}
	pr_init(cli->json, cli->pretty);
	nd_print_report(&r, &profile, true, a->accept);
	rc = pr_finish() ? ND_EXIT_SYSTEM :
	     nd_report_has_errors(&r, true, a->accept) ? ND_EXIT_FINDINGS : ND_EXIT_OK;
	if (a->junit) {
		ret = nd_write_junit(a->junit, &r, &profile, a->accept);
		if (ret) {
			fprintf(stderr, "nodrop audit: cannot write %s: %s\n", a->junit,
				strerror(-ret));
			rc = ND_EXIT_SYSTEM;
		}
	}
out:
	nd_report_free(&r);
	nd_profile_free(&profile);
	nd_ctx_free(ctx);
	return rc;
}

const struct nd_cmd nd_cmd_audit = {
	.name = "audit",
	.args = "PROFILE",
	.summary = "Report drift from a profile per field, and consistency lints",
	.opts = audit_opts,
	.opt = audit_opt,
	.run = audit_run,
	.data_size = sizeof(struct audit_args),
};
