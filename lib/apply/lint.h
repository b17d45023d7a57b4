/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* apply: what the lint files share: one port's state as the rules read it, and how they report. */
#ifndef ND_APPLY_LINT_H
#define ND_APPLY_LINT_H

#include <stdarg.h>

#include "nodrop.h"

/* One stream of RoCE traffic as the NIC classifies it. */
struct flow {
	char who[80];		/* "mlx5_0/1 rdma_cm default" */
	int tos, dscp;
	int prio;		/* -1: not derivable from the host's state */
	bool kernel_default;	/* no rdma_cm configfs group: ToS 0 */
};

struct lint_ctx {
	const struct nd_port *port;
	const struct nd_profile *profile;
	struct nd_lint *v;
	size_t n, cap;
	int err;
	bool dcb;		/* the driver reported DCB state */
	uint8_t pfc;		/* PFC-enabled priorities; 0 when none or unknown */
	enum nd_trust trust;
	int dscp2prio[ND_DSCP_MAX];
	struct flow flows[ND_RDMA_PER_NETDEV];
	size_t n_flows;
	uint8_t roce_prios;	/* priorities RoCE traffic is known to ride */
	/* the peer rules (lint_peer.c): what the link partner said, and whether a site accepts
	 * hearing nothing */
	const struct nd_peer_wait *peer;
	bool accept_unheard;
};

struct lint_rule {
	const char *id;
	enum nd_severity severity;	/* the usual one; a check may raise or lower it */
	void (*check)(struct lint_ctx *c, const struct lint_rule *r);
};

/* The port's state as the rules read it: PFC, trust, the DSCP map, its RoCE flows. */
void lint_ctx_init(struct lint_ctx *c, const struct nd_port *port,
		   const struct nd_profile *profile);
/* Run the rules of @set over @c; the number of lints in *@lints (the caller frees) or -errno. */
int lint_run(struct lint_ctx *c, const struct lint_rule *set, size_t n, struct nd_lint **lints,
	     struct nd_err *e);
bool lint_given(const struct lint_ctx *c, enum nd_field f);
/* Append a finding; NULL (and c->err set) when out of memory. */
struct nd_lint *lint_add(struct lint_ctx *c, const struct lint_rule *r, enum nd_severity sev,
			 enum nd_field f);
/* Only the lint files format into a finding, with their own literal formats. */
void lint_say(char *dst, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#define EVIDENCE(l, ...) lint_say((l)->evidence, sizeof((l)->evidence), __VA_ARGS__)
#define FIX(l, ...) lint_say((l)->fix, sizeof((l)->fix), __VA_ARGS__)

#endif
