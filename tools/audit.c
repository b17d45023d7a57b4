// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop audit: where the ports differ from a profile, and what is inconsistent. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"
#include "prom.h"
#include "report.h"

enum { OPT_JUNIT = 256, OPT_ACCEPT, OPT_PROMETHEUS };

struct audit_args {
	struct nd_devs devs;
	const char *junit;
	const char *prometheus;
	uint32_t accept;	/* fields a site accepts unverified, a bit per enum nd_field */
	struct nd_peer_opts peer;
};

static const struct nd_opt audit_opts[] = {
	{ "dev", 'd', "DEV", "only this port (repeatable); default: every port the profile matches" },
	{ "junit", OPT_JUNIT, "FILE", "also write the result as JUnit XML to FILE" },
	{ "prometheus", OPT_PROMETHEUS, "FILE", "also write gauges for node_exporter's textfile "
	  "collector to FILE: findings per port and, with --peer, the switch's mismatches" },
	{ "accept-unverified", OPT_ACCEPT, "FIELDS", "fields (profile keys, comma-separated) whose "
	  "value a port will not give, accepted rather than failed: ecn.np,ecn.rp; peer: a link "
	  "partner not heard" },
	{ "peer", ND_OPT_PEER, NULL, "also check each port against its link partner, heard over LLDP: "
	  "PFC, willing bits, DSCP map, max frame size, ETS" },
	{ "peer-wait", ND_OPT_PEER_WAIT, "SECONDS", "how long to listen, all ports at once (default 31); "
	  "implies --peer" },
	{ 0 },
};

/* "ecn.np,ecn.rp": each a profile key; ND_EXIT_USAGE after a message naming the keys there are */
static int parse_accept(struct audit_args *a, const char *arg)
{
	const char *p = arg;

	while (*p) {
		size_t len = strcspn(p, ",");
		uint32_t bit = nd_profile_accept_bit(p, len);
		int f;

		if (!bit) {
			fprintf(stderr, "nodrop audit: --accept-unverified '%s': '%.*s' is not a "
				"profile field; give some of", arg, (int)len, p);
			for (f = 0; f < ND_F_COUNT; f++)
				fprintf(stderr, "%s %s", f ? "," : "", nd_field_key((enum nd_field)f));
			fprintf(stderr, ", peer\n");
			return ND_EXIT_USAGE;
		}
		a->accept |= bit;
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
	case ND_OPT_PEER:
	case ND_OPT_PEER_WAIT:
		return nd_peer_opt("audit", &a->peer, key, arg);
	case 'd':
		return nd_devs_add(&a->devs, "audit", arg);
	case OPT_JUNIT:
		a->junit = arg;
		return 0;
	case OPT_PROMETHEUS:
		a->prometheus = arg;
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

/*
 * Every port's link partner, heard in one wait, and the lints across each cable appended to the
 * port's own. 0, or a negative errno after a message.
 */
static int audit_peers(struct nd_report *r, const struct nd_profile *profile,
		       const struct audit_args *a, struct nd_peer_wait **heard)
{
	struct nd_peer_wait *w;
	struct nd_err e = { 0 };
	int ret = 0;
	size_t i;

	if (!r->n)
		return 0;
	w = nd_listen_peers("audit", &r->ports[0].port, sizeof(*r->ports), r->n, &a->peer);
	if (!w)
		return -EIO;
	for (i = 0; !ret && i < r->n; i++) {
		struct nd_port_report *pr = &r->ports[i];
		struct nd_lint *pl, *all;
		int n = nd_lint_peer(&pr->port, profile, &w[i], a->accept & ND_ACCEPT_PEER, &pl, &e);

		if (n < 0) {
			ret = n;
			break;
		}
		all = realloc(pr->lints, (pr->n_lints + (size_t)n + 1) * sizeof(*all));
		if (!all) {
			free(pl);
			ret = nd_err_set(&e, -ENOMEM, "out of memory");
			break;
		}
		memcpy(all + pr->n_lints, pl, (size_t)n * sizeof(*pl));
		pr->lints = all;
		pr->n_lints += (size_t)n;
		free(pl);
	}
	if (ret)
		fprintf(stderr, "nodrop audit: --peer: %s\n", e.msg);
	*heard = w;
	return ret;
}

static int audit_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct audit_args *a = data;
	struct nd_profile profile;
	struct nd_report r = { 0 };
	struct nd_err e = { 0 };
	struct nd_ctx *ctx = NULL;
	struct nd_peer_wait *heard = NULL;
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
	/* the site's own list, in the profile, and the command line's */
	a->accept |= profile.accept_unverified;
	if (a->peer.on && audit_peers(&r, &profile, a, &heard)) {
		rc = ND_EXIT_SYSTEM;
		if (a->junit)
			junit_error(a->junit, profile.name, "listening for the ports' link partners "
				    "failed");
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
	if (a->prometheus) {
		ret = nd_prom_write_audit(a->prometheus, &r, heard, a->accept);
		if (ret) {
			fprintf(stderr, "nodrop audit: cannot write %s: %s\n", a->prometheus,
				strerror(-ret));
			rc = ND_EXIT_SYSTEM;
		}
	}
out:
	free(heard);
	nd_report_free(&r);
	nd_profile_free(&profile);
	nd_ctx_free(ctx);
	return rc;
}

/* The names --accept-unverified takes: the profile's fields, then peer. */
static const char *accept_value(unsigned int i)
{
	return i < ND_F_COUNT ? nd_field_key((enum nd_field)i) : i == ND_F_COUNT ? "peer" : NULL;
}

static const struct nd_comp audit_complete[] = {
	{ .opt = "accept-unverified", .value = accept_value, .list = true },
	{ 0 },
};

const struct nd_cmd nd_cmd_audit = {
	.name = "audit",
	.args = "PROFILE",
	.summary = "Report drift from a profile per field, and consistency lints; with --peer, "
		   "against the switch across each cable too",
	.opts = audit_opts,
	.opt = audit_opt,
	.run = audit_run,
	.data_size = sizeof(struct audit_args),
	.complete = audit_complete,
};
