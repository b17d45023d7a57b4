// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* nodrop path: where a job's RDMA packets land, step by step, from its variables to the switch. */
#include <errno.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "nodrop.h"
#include "print.h"

extern char **environ;

enum { OPT_PID = 256, OPT_ENV, OPT_STACK, OPT_ACCEPT };

struct path_args {
	long pid;		/* 0: not given */
	const char *env;
	unsigned int stacks;	/* 1 << enum nd_stack; 0: from the job */
	unsigned int accept;
	struct nd_peer_opts peer;
};

static const struct nd_opt path_opts[] = {
	{ "pid", OPT_PID, "PID", "the job: a running process's environment and libraries" },
	{ "env", OPT_ENV, "FILE", "the job: NAME=VALUE lines (a job script's exports, env output)" },
	{ "stack", OPT_STACK, "STACKS", "nccl, ucx, rdma_cm (comma-separated); default: what the "
	  "process loaded, else what its variables name, else all three" },
	{ "peer", ND_OPT_PEER, NULL, "follow the packets into the switch: its classification, PFC "
	  "and max frame size, heard over LLDP" },
	{ "peer-wait", ND_OPT_PEER_WAIT, "SECONDS", "how long to listen, all ports at once (default "
	  "31); implies --peer" },
	{ "accept-unverified", OPT_ACCEPT, "WHAT", "steps a site accepts unverified (comma-"
	  "separated): peer (the switch), ecn (DCQCN enables no driver interface shows)" },
	{ 0 },
};

static const char *const accept_names[] = { "peer", "ecn" };

static const char *accept_value(unsigned int i)
{
	return i < sizeof(accept_names) / sizeof(accept_names[0]) ? accept_names[i] : NULL;
}

static const char *stack_value(unsigned int i)
{
	return i < ND_STACK_COUNT ? nd_stack_name((enum nd_stack)i) : NULL;
}

/* A comma list of names from @value(i); their bits into *@bits, else ND_EXIT_USAGE. */
static int parse_list(const char *opt, const char *arg, const char *(*value)(unsigned int),
		      unsigned int *bits)
{
	const char *p = arg;

	while (*p) {
		size_t len = strcspn(p, ",");
		unsigned int i;

		for (i = 0; value(i); i++)
			if (strlen(value(i)) == len && !strncmp(p, value(i), len))
				break;
		if (!value(i)) {
			fprintf(stderr, "nodrop path: --%s '%s': '%.*s' is none of", opt, arg,
				(int)len, p);
			for (i = 0; value(i); i++)
				fprintf(stderr, "%s %s", i ? "," : "", value(i));
			fprintf(stderr, "\n");
			return ND_EXIT_USAGE;
		}
		*bits |= 1u << i;
		p += len + (p[len] == ',');
	}
	return 0;
}

static int path_opt(int key, const char *arg, void *data)
{
	struct path_args *a = data;
	char *end;

	switch (key) {
	case OPT_PID:
		a->pid = strtol(arg, &end, 10);
		if (*end || a->pid <= 0) {
			fprintf(stderr, "nodrop path: --pid '%s': not a process ID\n", arg);
			return ND_EXIT_USAGE;
		}
		return 0;
	case OPT_ENV:
		a->env = arg;
		return 0;
	case OPT_STACK:
		return parse_list("stack", arg, stack_value, &a->stacks);
	case OPT_ACCEPT:
		/* the bits of accept_names[] are ND_PATH_ACCEPT_PEER and ND_PATH_ACCEPT_ECN */
		return parse_list("accept-unverified", arg, accept_value, &a->accept);
	case ND_OPT_PEER:
	case ND_OPT_PEER_WAIT:
		return nd_peer_opt("path", &a->peer, key, arg);
	}
	return ND_EXIT_USAGE;
}

/* The job: a process, a file, or our own environment; then NCCL's files. */
static int read_job(const struct path_args *a, struct nd_job *job)
{
	struct nd_err e = { 0 };
	int ret;

	if (a->pid && a->env) {
		fprintf(stderr, "nodrop path: --pid and --env name two jobs: give one\n");
		return ND_EXIT_USAGE;
	}
	if (a->pid)
		ret = nd_job_from_pid(job, (pid_t)a->pid, &e);
	else if (a->env)
		ret = nd_job_from_file(job, a->env, &e);
	else
		ret = nd_job_from_env(job, environ, "this environment", &e);
	if (!ret) {
		ret = nd_job_read_nccl_conf(job, "/etc/nccl.conf", &e);
		if (ret)
			nd_job_free(job);
	}
	if (ret) {
		fprintf(stderr, "nodrop path: %s\n", e.msg);
		return ret == -EINVAL || ret == -ENOENT || ret == -ESRCH ? ND_EXIT_USAGE :
		       ND_EXIT_SYSTEM;
	}
	return 0;
}

/* --stack, else what the process loaded, else the stacks its variables name, else all. */
static unsigned int job_stacks(const struct path_args *a, const struct nd_job *job)
{
	unsigned int s = 0;

	if (a->stacks)
		return a->stacks;
	if (job->loaded)
		return job->loaded;
	for (size_t i = 0; i < job->n_vars; i++) {
		if (!strncmp(job->vars[i].name, "NCCL_", 5))
			s |= 1u << ND_STACK_NCCL;
		else if (!strncmp(job->vars[i].name, "UCX_", 4))
			s |= 1u << ND_STACK_UCX;
	}
	return s ? s : (1u << ND_STACK_COUNT) - 1;
}

/* Does DEV (a netdev, an RDMA device, or DEV:PORT) name @rp on @port? */
static bool names(const char *dev, const struct nd_port *port, const struct nd_rdma_port *rp)
{
	char full[80];

	snprintf(full, sizeof(full), "%s:%u", rp->ibdev, rp->port);
	return !strcmp(dev, port->link.name) || !strcmp(dev, rp->ibdev) || !strcmp(dev, full);
}

/* One RDMA port on one netdev, to follow. */
struct target {
	const struct nd_port *port;
	const struct nd_rdma_port *rp;
	size_t peer;		/* index into the ports listened on */
};

/* The targets @argv names (every RDMA port when none); ND_EXIT_USAGE after a message. */
static int pick(const struct nd_port *ports, size_t n, int argc, char **argv, struct target **t,
		size_t *nt)
{
	*t = calloc(n * ND_RDMA_PER_NETDEV + 1, sizeof(**t));
	*nt = 0;
	if (!*t)
		return ND_EXIT_SYSTEM;
	for (int k = 0; k < argc; k++) {
		/* the loopback device is not among the ports read, and has no RDMA either */
		bool found = false, netdev = if_nametoindex(argv[k]) != 0;

		for (size_t i = 0; i < n; i++) {
			for (size_t r = 0; r < ports[i].n_rdma; r++)
				found |= names(argv[k], &ports[i], &ports[i].rdma[r]);
		}
		if (!found) {
			fprintf(stderr, "nodrop path: %s: %s\n", argv[k], netdev ?
				"no RDMA device on this netdev (load its RDMA driver, or for "
				"soft-RoCE: rdma link add rxe0 type rxe netdev DEV)" :
				"no such netdev or RDMA device");
			return ND_EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < ports[i].n_rdma; r++) {
			bool want = !argc;

			for (int k = 0; k < argc && !want; k++)
				want = names(argv[k], &ports[i], &ports[i].rdma[r]);
			if (want)
				(*t)[(*nt)++] = (struct target){ &ports[i], &ports[i].rdma[r], i };
		}
	if (!*nt) {
		fprintf(stderr, "nodrop path: no RDMA device on this host\n");
		return ND_EXIT_USAGE;
	}
	return 0;
}

static void print_path(const struct target *t, const struct nd_job *job, const struct nd_path *p)
{
	const struct nd_path_step *at = p->at >= 0 ? &p->steps[p->at] : NULL;

	pr_open_object(NULL);
	pr_string(PR_ANY, "netdev", "%s", t->port->link.name);
	pr_string(PR_ANY, "ibdev", " %s", t->rp->ibdev);
	pr_uint(PR_ANY, "port", "/%u", t->rp->port);
	pr_string(PR_ANY, "stack", " %s", nd_stack_name(p->stack));
	pr_string(PR_ANY, "job", " (%s):", job->source);
	pr_string(PR_JSON, "verdict", NULL, nd_path_verdict_name(p->verdict));
	switch (p->verdict) {
	case ND_PATH_LOSSLESS:
		pr_text(" lossless end to end");
		break;
	case ND_PATH_NOT_USED:
		pr_text(" not used");
		break;
	default:
		pr_text(" %s at step %d (%s)", p->verdict == ND_PATH_BREAKS ? "breaks" :
			"unverified", p->at + 1, nd_path_step_name(at->id));
	}
	if (at) {
		pr_int(PR_JSON, "at_step", NULL, p->at + 1);
		pr_string(PR_JSON, "at", NULL, nd_path_step_name(at->id));
	} else {
		pr_null(PR_JSON, "at_step", NULL);
		pr_null(PR_JSON, "at", NULL);
	}
	pr_nl();
	pr_open_object("packets");
	pr_int(PR_JSON, "gid_index", NULL, p->gid_index);
	pr_int(PR_JSON, "traffic_class", NULL, p->tc);
	pr_int(PR_JSON, "dscp", NULL, p->dscp);
	pr_int(PR_JSON, "ecn", NULL, p->ecn);
	pr_int(PR_JSON, "sl", NULL, p->sl);
	pr_int(PR_JSON, "vlan", NULL, p->vlan);
	pr_int(PR_JSON, "prio", NULL, p->prio);
	pr_int(PR_JSON, "tc", NULL, p->nic_tc);
	pr_int(PR_JSON, "switch_prio", NULL, p->switch_prio);
	pr_int(PR_JSON, "cnp_prio", NULL, p->cnp_prio);
	pr_close_object();
	pr_open_array("steps");
	for (size_t i = 0; i < p->n_steps; i++) {
		const struct nd_path_step *st = &p->steps[i];

		pr_open_object(NULL);
		pr_uint(PR_ANY, "n", "  %u", i + 1);
		pr_string(PR_ANY, "step", " %-10s", nd_path_step_name(st->id));
		pr_string(PR_ANY, "status", " %-10s", nd_step_status_name(st->status));
		pr_string(PR_ANY, "evidence", " %s", st->evidence);
		pr_nl();
		if (st->fix[0])
			pr_string(PR_ANY, "fix", "                           fix: %s\n", st->fix);
		pr_close_object();
	}
	pr_close_array();
	pr_close_object();
}

static int path_run(const struct nd_cli *cli, int argc, char **argv, void *data)
{
	struct path_args *a = data;
	struct nd_peer_wait *peers = NULL;
	struct nd_port *ports = NULL, *heard = NULL;
	struct target *t = NULL;
	struct nd_job job;
	struct nd_err e = { 0 };
	struct nd_ctx *ctx = NULL;
	size_t n = 0, nt = 0;
	unsigned int stacks;
	int ret, rc, used = 0, bad = 0;

	rc = read_job(a, &job);
	if (rc)
		return rc;
	stacks = job_stacks(a, &job);
	ret = nd_ctx_new(&ctx, &e);
	if (!ret)
		ret = nd_ports_read(ctx, NULL, 0, &ports, &n, &e);
	if (ret) {
		fprintf(stderr, "nodrop path: %s\n", e.msg);
		rc = nd_cli_exit_code(ret);
		goto out;
	}
	rc = pick(ports, n, argc, argv, &t, &nt);
	if (rc)
		goto out;
	if (a->peer.on) {
		/* one wait for every netdev a target is on */
		heard = calloc(nt, sizeof(*heard));
		if (!heard) {
			rc = ND_EXIT_SYSTEM;
			goto out;
		}
		for (size_t i = 0; i < nt; i++)
			heard[i].link = t[i].port->link;
		peers = nd_listen_peers("path", heard, sizeof(*heard), nt, &a->peer);
		if (!peers) {
			rc = ND_EXIT_SYSTEM;
			goto out;
		}
	}
	pr_init(cli->json, cli->pretty);
	pr_open_array(NULL);
	for (size_t i = 0; i < nt && !rc; i++) {
		struct nd_path_in in = {
			.port = t[i].port, .rdma = t[i].rp, .job = &job, .accept = a->accept,
			.peer = peers ? &peers[i] : NULL,
		};
		struct nd_gid *gids = NULL;
		size_t ng = 0;

		ret = nd_gids_read(t[i].rp->ibdev, t[i].rp->port, &gids, &ng, &e);
		if (ret) {
			fprintf(stderr, "nodrop path: %s\n", e.msg);
			rc = ND_EXIT_SYSTEM;
			break;
		}
		in.gids = gids;
		in.n_gids = ng;
		for (int s = 0; s < ND_STACK_COUNT && !rc; s++) {
			struct nd_path p;

			if (!(stacks & (1u << s)))
				continue;
			in.stack = (enum nd_stack)s;
			if (nd_path_follow(&in, &p, &e)) {
				fprintf(stderr, "nodrop path: %s\n", e.msg);
				rc = ND_EXIT_SYSTEM;
				break;
			}
			print_path(&t[i], &job, &p);
			used += p.verdict != ND_PATH_NOT_USED;
			bad += p.verdict == ND_PATH_BREAKS || p.verdict == ND_PATH_UNVERIFIED;
		}
		free(gids);
	}
	pr_close_array();
	if (pr_finish())
		rc = ND_EXIT_SYSTEM;
	if (!rc && !used)
		fprintf(stderr, "nodrop path: %s sends on none of these RDMA ports\n", job.source);
	if (!rc)
		rc = bad || !used ? ND_EXIT_FINDINGS : ND_EXIT_OK;
out:
	free(peers);
	free(heard);
	free(t);
	nd_ports_free(ports, n);
	nd_ctx_free(ctx);
	nd_job_free(&job);
	return rc;
}

static const struct nd_comp path_complete[] = {
	{ .opt = "stack", .value = stack_value, .list = true },
	{ .opt = "accept-unverified", .value = accept_value, .list = true },
	{ 0 },
};

const struct nd_cmd nd_cmd_path = {
	.name = "path",
	.args = "[DEV...]",
	.summary = "Follow a job's RDMA packets from its NCCL/UCX/rdma_cm settings through the GID, "
		   "DSCP/ECN, trust, priority, TC and PFC to the switch: lossless end to end, or "
		   "where it breaks",
	.opts = path_opts,
	.opt = path_opt,
	.run = path_run,
	.data_size = sizeof(struct path_args),
	.complete = path_complete,
};
