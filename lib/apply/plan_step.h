/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A plan's steps and how their values print (plan_step.c): the bottom of the plan code, which
 * plan.c, the per-part planners and the transaction all use and which uses none of them.
 */
#ifndef ND_PLAN_STEP_H
#define ND_PLAN_STEP_H

#include "nodrop.h"

enum nd_step_kind {
	ND_STEP_DCBX,
	ND_STEP_MTU,
	ND_STEP_BUFFER,
	ND_STEP_ETS,
	ND_STEP_MAXRATE,
	ND_STEP_PFC,
	ND_STEP_ECN_ENABLE,
	ND_STEP_ECN_PARAM,
	ND_STEP_APP_ADD,
	ND_STEP_APP_DEL,
	ND_STEP_ROCE,		/* rdma_cm default ToS and mode (configfs) */
	ND_STEP_ROCE_RESET,	/* remove the configfs group: back to the kernel defaults */
};

struct nd_step {
	enum nd_step_kind kind;
	size_t port;			/* index into the plan's ports */
	enum nd_field field;		/* the profile field it serves, for messages */
	char from[160], to[160];	/* as a person reads them */
	char warning[320];
	bool skip;			/* cannot be done here; kept to be reported */
	int unsupported;		/* skipped because the port cannot give this field:
					 * -EOPNOTSUPP (no such support) or -EIO (its read
					 * failed); the warning says which */
	bool tolerate_enoent;		/* an APP delete the driver may already have done */
	union {
		uint8_t dcbx;
		unsigned int mtu;
		struct ieee_ets ets;
		struct ieee_pfc pfc;
		struct ieee_maxrate maxrate;
		struct dcbnl_buffer buffer;
		struct dcb_app app;
		struct {
			bool np;
			unsigned int prio;
			bool on;
		} ecn_enable;
		struct nd_ecn_param param;
		struct {
			unsigned int rdma;	/* index into the port's rdma[] */
			uint8_t tos;
			char mode[16];
		} roce;
	} u;
};

struct nd_plan {
	struct nd_step *steps;
	size_t n;
};

void nd_plan_free(struct nd_plan *plan);
/* Steps that change something (not skipped). */
size_t nd_plan_changes(const struct nd_plan *plan);

/* "0-7:0 8-15:1 26:3" for a DSCP map (-1: unmapped), "none" when empty. */
void nd_fmt_dscp_map(char *buf, size_t len, const int *map);

/* Append a step for port @port serving @field; NULL when out of memory. */
struct nd_step *nd_plan_add(struct nd_plan *plan, enum nd_step_kind kind, size_t port,
			    enum nd_field field);
/* "0 0 0 3 0 0 6 0", eight values; TSA names; "host ieee" as `dcb dcbx show` lists the flags. */
void nd_fmt_u8s(char *buf, size_t len, const uint8_t *v);
void nd_fmt_u64s(char *buf, size_t len, const uint64_t *v);
void nd_fmt_tsas(char *buf, size_t len, const uint8_t *v);
void nd_fmt_dcbx(char *buf, size_t len, uint8_t dcbx);

#endif
