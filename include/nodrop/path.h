/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* libnodrop: where a job's RDMA packets land, step by step, from its environment to the switch. */
#ifndef NODROP_PATH_H
#define NODROP_PATH_H

#include <nodrop/peer.h>
#include <nodrop/port.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The communication stacks whose variables decide what a job's queue pairs send. */
enum nd_stack {
	ND_STACK_NCCL,		/* NCCL's IB/RoCE transport: NCCL_IB_* */
	ND_STACK_UCX,		/* UCX's IB transports (MPI, ...): UCX_IB_*, UCX_NET_DEVICES */
	ND_STACK_RDMA_CM,	/* rdma_cm users without their own ToS: the configfs default */
	ND_STACK_COUNT,
};

const char *nd_stack_name(enum nd_stack s);	/* "nccl", "ucx", "rdma_cm" */
/* The stack of that name; -EINVAL when none. */
int nd_stack_parse(const char *name, enum nd_stack *s);

/* One variable of a job, and where it came from. */
struct nd_job_var {
	char *name;
	char *value;
	char *origin;		/* "environment", "/etc/nccl.conf:3", "job.env:7" */
};

struct nd_job {
	char source[160];	/* "pid 4242 (python3)", "job.env", "this environment" */
	struct nd_job_var *vars;
	size_t n_vars;
	unsigned int loaded;	/* 1 << enum nd_stack: libraries the process has mapped (--pid) */
	char nccl_version[24];	/* from the libnccl.so it mapped ("2.18.3"); "" unknown */
	char root[32];		/* its files are under this ("/proc/PID/root"); "" for ours */
};

/* The environment of a running process: /proc/PID/environ and, for its libraries, maps. */
int nd_job_from_pid(struct nd_job *job, pid_t pid, struct nd_err *e);
/*
 * A file of NAME=VALUE lines, as a job script or an env dump writes them: blank lines and #
 * comments skipped, "export " allowed, one level of quotes taken off. A line that is none of
 * these fails with -EINVAL naming FILE:LINE:COLUMN.
 */
int nd_job_from_file(struct nd_job *job, const char *path, struct nd_err *e);
/* NAME=VALUE strings (environ); @source names them. */
int nd_job_from_env(struct nd_job *job, char *const *envp, const char *source, struct nd_err *e);
/*
 * NCCL's configuration files, as NCCL reads them: NCCL_CONF_FILE (2.23 and later; else
 * $HOME/.nccl.conf), then @etc (normally "/etc/nccl.conf"), under a process's own root. A
 * variable already set wins; a file that is not there is skipped, as NCCL skips it.
 */
int nd_job_read_nccl_conf(struct nd_job *job, const char *etc, struct nd_err *e);
/* The value of @name, NULL when unset; its origin through @origin when given. */
const char *nd_job_get(const struct nd_job *job, const char *name, const char **origin);
void nd_job_free(struct nd_job *job);

enum nd_path_step_id {
	ND_STEP_JOB,		/* the job's variables for this device */
	ND_STEP_GID,		/* the GID index they pick: RoCE v1/v2, IPv4/IPv6, VLAN, netdev */
	ND_STEP_WIRE,		/* DSCP and ECN bits (RoCE v2), or the SL (InfiniBand) */
	ND_STEP_TRUST,		/* the NIC's trust: DSCP map or PCP, to a priority */
	ND_STEP_TC,		/* priority to traffic class, its ETS share */
	ND_STEP_PFC_NIC,	/* PFC on that priority at the NIC */
	ND_STEP_PFC_SWITCH,	/* the switch's classification, PFC and maximum frame size */
	ND_STEP_CNP,		/* DCQCN at this port and where its CNPs go */
	ND_STEP_CREDIT,		/* InfiniBand: link-level credits (instead of steps 4-8) */
	ND_STEP_COUNT,
};

enum nd_step_status {
	ND_STEP_OK,
	ND_STEP_NOTE,		/* worth knowing; does not break the path */
	ND_STEP_ACCEPTED,	/* unverified, and the site accepts that */
	ND_STEP_UNVERIFIED,	/* nothing to tell by: not lossless as far as anyone can show */
	ND_STEP_BREAK,
	ND_STEP_SKIPPED,	/* not reached: an earlier step left nothing to follow */
};

enum nd_path_verdict {
	ND_PATH_LOSSLESS,	/* lossless end to end */
	ND_PATH_BREAKS,		/* at step .at */
	ND_PATH_UNVERIFIED,	/* no break, but step .at could not be verified */
	ND_PATH_NOT_USED,	/* the job does not send on this device */
};

const char *nd_path_step_name(enum nd_path_step_id id);		/* "pfc-switch" */
const char *nd_step_status_name(enum nd_step_status s);		/* "break" */
const char *nd_path_verdict_name(enum nd_path_verdict v);	/* "breaks" */

/* What a site accepts unverified on a path (path --accept-unverified). */
enum {
	ND_PATH_ACCEPT_PEER = 1,	/* the switch's side */
	ND_PATH_ACCEPT_ECN = 2,		/* DCQCN enables no backend can read */
};

struct nd_path_in {
	const struct nd_port *port;		/* the netdev: DCB, ECN, MTU */
	const struct nd_rdma_port *rdma;	/* the RDMA port on it */
	const struct nd_gid *gids;		/* its GID table (nd_gids_read()) */
	size_t n_gids;
	const struct nd_peer_wait *peer;	/* the link partner; NULL when not listened for */
	const struct nd_job *job;
	enum nd_stack stack;
	unsigned int accept;			/* ND_PATH_ACCEPT_* */
};

struct nd_path_step {
	enum nd_path_step_id id;
	enum nd_step_status status;
	char evidence[384];
	char fix[256];
};

struct nd_path {
	enum nd_stack stack;
	bool infiniband;
	/* what the job's packets carry and where they land; -1 where not known */
	int tc;			/* the GRH traffic class: the IP ToS byte on RoCE v2 */
	int sl;
	int gid_index;
	int dscp, ecn;
	int vlan;
	int prio;		/* the NIC's priority for them */
	int nic_tc;
	int switch_prio;	/* the switch's priority for them */
	int cnp_prio;		/* the NIC's priority for the CNPs it sends */
	struct nd_path_step steps[ND_STEP_COUNT];
	size_t n_steps;
	enum nd_path_verdict verdict;
	int at;			/* index into steps[] of the deciding step; -1 when lossless */
};

/* Follow @in's job on its port, step by step. -EINVAL for inputs that name nothing to follow. */
int nd_path_follow(const struct nd_path_in *in, struct nd_path *out, struct nd_err *e);

#ifdef __cplusplus
}
#endif

#endif
