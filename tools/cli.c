// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Option parsing and usage text generated from each command's option table. */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define ND_MAX_OPTS 64

const struct nd_opt nd_common_opts[] = { ND_OPT_JSON, ND_OPT_PRETTY, ND_OPT_HELP, { 0 } };

static void usage_opts(const struct nd_opt *o, FILE *f)
{
	char left[64];

	for (; o && o->name; o++) {
		if (o->key < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", o->key, o->name,
				 o->arg ? " " : "", o->arg ? o->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", o->name, o->arg ? " " : "",
				 o->arg ? o->arg : "");
		fprintf(f, "  %-26s %s\n", left, o->help);
	}
}

void nd_cli_usage(const struct nd_cmd *cmd, FILE *f)
{
	fprintf(f, "Usage: nodrop %s [OPTIONS] %s\n%s.\n\nOptions:\n", cmd->name, cmd->args,
		cmd->summary);
	usage_opts(cmd->opts, f);
	usage_opts(nd_common_opts, f);
	fprintf(f, "\nExit status: 0 ok, 1 drift/findings, 2 bad usage or input, 3 system error.\n"
		   "See nodrop-%s(8).\n", cmd->name);
}

/* Build getopt_long's tables from the command's rows and the common ones. */
static int build(const struct nd_cmd *cmd, struct option *lo, char *so)
{
	const struct nd_opt *tables[] = { cmd->opts, nd_common_opts };
	size_t t, n = 0, s = 0;

	/* GNU getopt permutes: options may follow the operands ("triage eth2 -j"); "--" ends them */
	for (t = 0; t < 2; t++) {
		const struct nd_opt *o;

		for (o = tables[t]; o && o->name; o++) {
			if (n + 1 >= ND_MAX_OPTS)
				return -E2BIG;
			lo[n++] = (struct option){ o->name, o->arg ? required_argument : no_argument,
						   NULL, o->key };
			if (o->key < 256) {
				so[s++] = (char)o->key;
				if (o->arg)
					so[s++] = ':';
			}
		}
	}
	lo[n] = (struct option){ 0 };
	so[s] = '\0';
	return 0;
}

int nd_cli_run(const struct nd_cmd *cmd, int argc, char **argv)
{
	struct option lo[ND_MAX_OPTS];
	char so[2 * ND_MAX_OPTS + 2];
	struct nd_cli cli = { 0 };
	void *data = NULL;
	int c, ret = ND_EXIT_OK;

	if (build(cmd, lo, so))
		return ND_EXIT_SYSTEM;
	if (cmd->data_size) {
		data = calloc(1, cmd->data_size);
		if (!data) {
			fprintf(stderr, "nodrop %s: out of memory\n", cmd->name);
			return ND_EXIT_SYSTEM;
		}
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, so, lo, NULL)) != -1) {
		switch (c) {
		case 'j':
			cli.json = true;
			break;
		case 'p':
			cli.json = cli.pretty = true;
			break;
		case 'h':
			nd_cli_usage(cmd, stdout);
			goto out;
		case '?':
			if (optopt)
				fprintf(stderr, "nodrop %s: unknown option '-%c' or missing argument\n",
					cmd->name, optopt);
			else
				fprintf(stderr, "nodrop %s: unknown option '%s' or missing argument\n",
					cmd->name, argv[optind - 1]);
			fprintf(stderr, "Try 'nodrop %s --help'.\n", cmd->name);
			ret = ND_EXIT_USAGE;
			goto out;
		default:
			ret = cmd->opt ? cmd->opt(c, optarg, data) : ND_EXIT_USAGE;
			if (ret)
				goto out;
		}
	}
	ret = cmd->run(&cli, argc - optind, argv + optind, data);
out:
	free(data);
	return ret;
}

int nd_cli_exit_code(int err)
{
	switch (err) {
	case 0:
		return ND_EXIT_OK;
	case -ENODEV:
	case -EINVAL:
	case -ENOENT:
	case -ERANGE:
		return ND_EXIT_USAGE;
	default:
		return ND_EXIT_SYSTEM;
	}
}

int nd_parse_seconds(const char *cmd, const char *opt, const char *arg, int *out)
{
	char *end;
	long v = strtol(arg, &end, 10);

	if (*end || end == arg || v < 0 || v > 86400) {
		fprintf(stderr, "nodrop %s: --%s takes whole seconds 0..86400, not '%s'\n", cmd,
			opt, arg);
		return ND_EXIT_USAGE;
	}
	*out = (int)v;
	return 0;
}
