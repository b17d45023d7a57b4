/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The built-in coordinator's job (coord_job.c: who joins with which rank, each collective step,
 * an abort that reaches every rank) and the state it keeps, which the server above it
 * (coord_serve.c: the listener, the thread's loop, each connection's bytes) fills and calls
 * into; the job never calls the server.
 */
#ifndef ND_COORD_JOB_H
#define ND_COORD_JOB_H

#include <pthread.h>

#include "coord.h"

struct coord_conn {
	int fd;
	int rank;			/* -1 until it is welcomed */
	bool hello, bye, dead;
	int32_t want;			/* requested rank */
	char host[64];
	char addr[64];			/* where it connected from, for the log */
	uint8_t nonce[ND_RV_NONCE];	/* the challenge it was sent */
	uint8_t peer_nonce[ND_RV_NONCE];	/* its own (key), for the welcome's proof */
	uint64_t t_accept;
	uint8_t *rx;
	size_t rx_len, rx_cap;
	struct nd_wbuf tx;
	size_t tx_off;
	bool closing;			/* close once tx is flushed */
	bool has_op;
	uint8_t op;
	uint32_t seq;
	struct nd_blob part;
};

struct nd_coord {
	pthread_t thread;
	int lfd, wake[2];
	char local_addr[160];
	uint64_t cookie;
	uint32_t nranks;
	char token[64];
	struct nd_stress_job job;
	double timeout_s;
	struct nd_rv_guard guard;
	struct coord_conn **conns;
	size_t n_conns;
	struct coord_conn **by_rank;
	uint32_t joined;
	bool welcomed, aborted;
	bool own_told;			/* rank 0 (this process) has heard why */
	char why[ND_ERR_MSG_MAX];	/* the abort's reason, for ranks that say hello after it */
	uint64_t t0, t_abort;
};

/* ---- coord_job.c, for the server (which it never calls back) ---- */

/* A new connection: a fresh nonce and the challenge queued; an error drops it. */
int nd_coord_greet(struct nd_coord *co, struct coord_conn *c, struct nd_err *e);
/* One whole message from @c; -EPROTO for one it may not send (the server drops @c). */
int nd_coord_on_msg(struct nd_coord *co, struct coord_conn *c, uint16_t type, const uint8_t *p,
		    size_t len);
/*
 * @c is closed (@how says why): before the welcome its place is free again; after it, a rank
 * that did not say bye calls the job off, and a step it held up completes without it.
 */
void nd_coord_left(struct nd_coord *co, struct coord_conn *c, const char *how);
/* Past the join timeout with ranks missing: the job is off, each waiting rank told why. */
void nd_coord_join_deadline(struct nd_coord *co);
/* A line in the job's log (the guard's), when it has one. */
void nd_coord_say(struct nd_coord *co, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
