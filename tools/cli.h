/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Subcommand and option tables: parsing and usage text come from the same rows. */
#ifndef ND_CLI_H
#define ND_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* Exit codes, the same for every subcommand (see nodrop(8)). */
enum {
	ND_EXIT_OK = 0,
	ND_EXIT_FINDINGS = 1,	/* drift, findings at error severity, failed verdict */
	ND_EXIT_USAGE = 2,	/* bad usage or bad input */
	ND_EXIT_SYSTEM = 3,	/* the system failed us */
};

struct nd_opt {
	const char *name;	/* long name */
	int key;		/* short letter, or a value > 255 for long-only options */
	const char *arg;	/* argument name, NULL for a flag */
	const char *help;
};

struct nd_cli {
	bool json;
	bool pretty;
};

struct nd_cmd {
	const char *name;
	const char *args;	/* synopsis after the options, e.g. "[DEV...]" */
	const char *summary;
	const struct nd_opt *opts;	/* the command's own options, NULL-terminated */
	/* a command's option; 0, or ND_EXIT_USAGE after printing why */
	int (*opt)(int key, const char *arg, void *data);
	/* runs after options; returns an exit code */
	int (*run)(const struct nd_cli *cli, int argc, char **argv, void *data);
	size_t data_size;	/* zeroed scratch the command's opt() and run() share */
};

/* Options every subcommand takes. */
#define ND_OPT_JSON { "json", 'j', NULL, "JSON output (stable snake_case keys)" }
#define ND_OPT_PRETTY { "pretty", 'p', NULL, "indented JSON (implies --json)" }
#define ND_OPT_HELP { "help", 'h', NULL, "show this help and exit" }

extern const struct nd_cmd nd_cmd_show;
extern const struct nd_cmd nd_cmd_apply;
extern const struct nd_cmd nd_cmd_audit;
extern const struct nd_cmd nd_cmd_rollback;
extern const struct nd_cmd nd_cmd_headroom, nd_cmd_sim;
extern const struct nd_cmd nd_cmd_counters;
extern const struct nd_cmd nd_cmd_triage;
extern const struct nd_cmd nd_cmd_doctor;
extern const struct nd_cmd nd_cmd_stress;
extern const struct nd_cmd nd_cmd_compare;
extern const struct nd_cmd nd_cmd_report;

/* How long apply and rollback wait for another one's lock unless --wait says otherwise. */
#define ND_WAIT_DEFAULT_S 30

/* Parse --wait SECONDS (0..86400); ND_EXIT_USAGE after a message when it is not that. */
int nd_parse_seconds(const char *cmd, const char *arg, int *out);

struct nd_port;
/* show's printer for one port (used by the JSON-shape tests too). */
void nd_show_port(const struct nd_port *port);

void nd_cli_usage(const struct nd_cmd *cmd, FILE *f);
/* Parse options of @cmd and run it; returns the exit code. */
int nd_cli_run(const struct nd_cmd *cmd, int argc, char **argv);
/* Map a library error to an exit code: bad input is the user's to fix, the rest the system's. */
int nd_cli_exit_code(int err);

#endif
