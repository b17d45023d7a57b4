/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the path test files share: a case in the model's own terms and what the model expects of
 * it (test_path_model.c); one suite, the library against the model in test_path.c, the job's
 * readers and the GID table in test_path_readers.c.
 */
#ifndef ND_TEST_PATH_H
#define ND_TEST_PATH_H

#include <check.h>
#include <stdbool.h>
#include <stdint.h>

#include "nodrop.h"

/* A job's variable as the job gives it. */
enum val_kind { V_UNSET, V_NUM, V_BIG, V_WORD, V_MINUS1, V_AUTO };

struct val {
	enum val_kind kind;
	int n;			/* V_NUM, V_BIG */
};

/* A GID table entry. */
struct kgid {
	int kind;		/* 0 empty, 1 RoCE v1, 2 RoCE v2 */
	int fam;		/* 4, 6 (global), 0 (IPv6 link-local fe80::) */
	int where;		/* 0 this port, 1 a VLAN on it, 2 another netdev */
	int vid;
	int egress[8];		/* a VLAN's map, -1 unmapped */
};

/* A case: a job x a port (its GID table, DCB, ECN) x the switch it is cabled to. */
struct kase {
	enum nd_stack stack;
	bool ib;
	struct val tc, sl, gid;
	int filter;		/* 0 none, 1 selects, 2 leaves out */
	bool disabled;		/* NCCL_IB_DISABLE=1 */
	bool v6, v1;		/* NCCL_IB_ADDR_FAMILY=AF_INET6, NCCL_IB_ROCE_VERSION_NUM=1 */
	int nccl_old;		/* 0 unknown, 1 2.18.3, 2 2.23.4 */
	int cm_tos;
	bool cm_v1;
	struct kgid g[8];
	int ng;
	bool dcb, trust_dscp, ets;
	int map[64];		/* -1 none */
	int pfc, prio_tc[8], tsa[8], bw[8];
	int ecn;		/* 0 none, 1 readable */
	int np, rp, cnp_dscp;
	int peer;		/* 0 not asked, 1 unheard, 2 heard */
	int pmap[64];		/* switch's DSCP map, -1 none */
	bool pmap_any;
	int ppfc;		/* -1 none, else bits */
	bool cee;
	int mfs;		/* 0 absent */
	int mtu;
	unsigned int accept;
};

/* What the model says of a case: the verdict, the deciding step and the packet's values. */
struct expect {
	enum nd_path_verdict verdict;
	enum nd_path_step_id at;
	int tc, dscp, ecn, prio, nic_tc, switch_prio, gid;
};

TCase *tcase_path_readers(void);

/* A random case from the seeded stream @r. */
void path_rand_case(uint64_t *r, struct kase *k);
/* What the model says of @k. */
void path_model(const struct kase *k, struct expect *x);

#endif
