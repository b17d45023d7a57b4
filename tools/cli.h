/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Subcommand and option tables: parsing and usage text come from the same rows. */
#ifndef ND_CLI_H
#define ND_CLI_H

#include <stdbool.h>
#include <stdio.h>

/* The Makefile passes its VERSION; this is for a compiler run by hand. */
#ifndef ND_VERSION
#define ND_VERSION "0.1.0"
#endif

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

/*
 * What a shell offers for an option's argument (nodrop --completion), where its name in --help
 * says too little. By default the name decides: DEV network devices, DIR directories, FILE
 * files, PROFILE and *.yaml profiles or scenarios, *.json reports; anything else, nothing.
 */
struct nd_comp {
	const char *opt;	/* the option's long name; it must take an argument */
	const char *kind;	/* one of ND_COMP_*, or the words "a|b|c" */
	/* or the library's own names, so completion and parsing share one table */
	const char *(*value)(unsigned int i);	/* the i-th, NULL past the last */
	bool list;		/* a comma-separated list of them */
};

#define ND_COMP_NETDEV	"@netdev"	/* /sys/class/net */
#define ND_COMP_RDMADEV	"@rdmadev"	/* /sys/class/infiniband, DEV:PORT after a ':' */
#define ND_COMP_DIR	"@dir"
#define ND_COMP_FILE	"@file"
#define ND_COMP_YAML	"@file:yaml"
#define ND_COMP_JSON	"@file:json"

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
	const struct nd_comp *complete;	/* completion beyond the names' defaults, NULL-terminated */
};

/* Options every subcommand takes. */
#define ND_OPT_JSON { "json", 'j', NULL, "JSON output (stable snake_case keys)" }
#define ND_OPT_PRETTY { "pretty", 'p', NULL, "indented JSON (implies --json)" }
#define ND_OPT_HELP { "help", 'h', NULL, "show this help and exit" }

extern const struct nd_cmd nd_cmd_show;
extern const struct nd_cmd nd_cmd_apply;
extern const struct nd_cmd nd_cmd_audit;
extern const struct nd_cmd nd_cmd_rollback;
extern const struct nd_cmd nd_cmd_headroom, nd_cmd_sim, nd_cmd_model;
extern const struct nd_cmd nd_cmd_counters;
extern const struct nd_cmd nd_cmd_triage;
extern const struct nd_cmd nd_cmd_doctor;
extern const struct nd_cmd nd_cmd_stress;
extern const struct nd_cmd nd_cmd_compare;
extern const struct nd_cmd nd_cmd_report;
extern const struct nd_cmd nd_cmd_path;

/* How long apply and rollback wait for another one's lock unless --wait says otherwise. */
#define ND_WAIT_DEFAULT_S 30

/* Parse --@opt SECONDS (0..86400); ND_EXIT_USAGE after a message when it is not that. */
int nd_parse_seconds(const char *cmd, const char *opt, const char *arg, int *out);

struct nd_port;
struct nd_peer_wait;

/* show's and audit's --peer and --peer-wait SECONDS (tools/peers.c): their option keys */
enum { ND_OPT_PEER = 0x200, ND_OPT_PEER_WAIT };

struct nd_peer_opts {
	bool on;
	bool have_wait;
	int wait_s;		/* with have_wait; else ND_PEER_WAIT_S */
};

/* Either option for @cmd; 0, or ND_EXIT_USAGE after a message naming a bad wait. */
int nd_peer_opt(const char *cmd, struct nd_peer_opts *o, int key, const char *arg);
/*
 * The link partners of @n ports (@first, then every @stride bytes), heard in one wait; the
 * caller frees. NULL after a message when no port could be listened on.
 */
struct nd_peer_wait *nd_listen_peers(const char *cmd, const struct nd_port *first, size_t stride,
				     size_t n, const struct nd_peer_opts *o);
/* show's printer for one port and, when listened for, its peer (the JSON-shape tests too). */
void nd_show_port(const struct nd_port *port, const struct nd_peer_wait *peer);

void nd_cli_usage(const struct nd_cmd *cmd, FILE *f);
/* Parse options of @cmd and run it; returns the exit code. */
int nd_cli_run(const struct nd_cmd *cmd, int argc, char **argv);
/* Map a library error to an exit code: bad input is the user's to fix, the rest the system's. */
int nd_cli_exit_code(int err);

/* Options every subcommand takes (-j, -p, -h), as usage and getopt see them. */
extern const struct nd_opt nd_common_opts[];
/* nodrop --completion SHELL: print the script for @cmds to stdout; returns an exit code. */
int nd_completion(const char *shell, const struct nd_cmd *const *cmds, size_t n);

#endif
