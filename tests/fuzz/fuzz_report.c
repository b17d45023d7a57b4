// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target for run reports, the JSON `nodrop stress -j` and `nodrop sim -j` write and a
 * nightly job keeps in a results directory: read by nd_cmp_load(), compared (`nodrop compare A
 * B`, and `--history DIR` over the directory of them) and drawn (`nodrop report`, the HTML
 * page). The input is up to three files one after another, each ended by a line "%%" (a shipped
 * report alone is a run compared with itself). Each step must end, with an exit code nodrop
 * documents; a load must give 0 or a negative errno with a message. Run with -close_fd_mask=3:
 * the commands' output goes nowhere, libFuzzer's and the sanitizers' reports still come.
 */
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "nodrop.h"
#include "fuzz_files.h"

#define FILES_MAX 3

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_dir_make("report");
	return 0;
}

static void run(const struct nd_cmd *cmd, int argc, char **argv)
{
	int rc = nd_cli_run(cmd, argc, argv);

	if (rc < ND_EXIT_OK || rc > ND_EXIT_SYSTEM)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char paths[FILES_MAX][PATH_MAX], *argv[FILES_MAX + 5];
	struct nd_cmp_run *runs;
	struct nd_err e = { 0 };
	size_t n, i, count;
	int ret;

	n = fuzz_files(data, size, "r%zu.json", FILES_MAX);
	for (i = 0; i < n; i++) {
		fuzz_path(paths[i], sizeof(paths[i]), "r%zu.json", i);
		ret = nd_cmp_load(paths[i], &runs, &count, &e);
		if (ret > 0 || (ret < 0 && (e.code != ret || !e.msg[0] || runs || count)) ||
		    (!ret && (!runs || !count)))
			abort();
		nd_cmp_runs_free(runs, count);
	}
	/* the last file against the first (itself, when there is one) */
	run(&nd_cmd_compare, 3, (char *[]){ "compare", paths[0], paths[n - 1], NULL });
	run(&nd_cmd_compare, 4, (char *[]){ "compare", "--history", fuzz_dir, paths[n - 1], NULL });
	argv[0] = "report";
	argv[1] = "-o";
	argv[2] = "/dev/null";
	for (i = 0; i < n; i++)
		argv[3 + i] = paths[i];
	argv[3 + n] = NULL;
	run(&nd_cmd_report, (int)(3 + n), argv);
	return 0;
}
