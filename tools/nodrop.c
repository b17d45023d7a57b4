// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop: one binary, a table of subcommands. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct nd_cmd *const cmds[] = {
	&nd_cmd_show,
	&nd_cmd_apply,
	&nd_cmd_audit,
	&nd_cmd_path,
	&nd_cmd_rollback,
	&nd_cmd_headroom,
	&nd_cmd_sim,
	&nd_cmd_model,
	&nd_cmd_counters,
	&nd_cmd_triage,
	&nd_cmd_doctor,
	&nd_cmd_stress,
	&nd_cmd_compare,
	&nd_cmd_report,
};

static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: nodrop COMMAND [OPTIONS] [ARGS]\n"
		   "       nodrop --version | --help\n"
		   "       nodrop --completion bash\n"
		   "Lossless RDMA fabrics: PFC, ETS, DSCP, ECN/DCQCN, RoCE and InfiniBand.\n\n"
		   "Commands:\n");
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-10s %s\n", cmds[i]->name, cmds[i]->summary);
	fprintf(f, "\n'nodrop COMMAND --help' for a command's options; see nodrop(8).\n"
		   "Exit status: 0 ok, 1 drift/findings, 2 bad usage or input, 3 system error.\n");
}

int main(int argc, char **argv)
{
	size_t i;

	if (argc < 2) {
		usage(stderr);
		return ND_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return ND_EXIT_OK;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("nodrop %s\n", ND_VERSION);
		return ND_EXIT_OK;
	}
	if (!strcmp(argv[1], "--completion"))
		return nd_completion(argc == 3 ? argv[2] : NULL, cmds,
				     sizeof(cmds) / sizeof(cmds[0]));
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i]->name))
			return nd_cli_run(cmds[i], argc - 1, argv + 1);
	fprintf(stderr, "nodrop: unknown command '%s'; 'nodrop --help' lists them\n", argv[1]);
	return ND_EXIT_USAGE;
}
