// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The job as the built-in coordinator keeps it: what each message means. A connection is
 * challenged first, then admitted or refused by its hello (its proof, the token, the options,
 * the rank it asks for); the ranks are welcomed once all joined; a collective step completes
 * once every live rank sent its part; a rank that gives up or goes away mid-run becomes an
 * abort told to all. It only queues replies: coord_serve.c moves the bytes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coord_job.h"

void nd_coord_say(struct nd_coord *co, const char *fmt, ...)
{
	char line[ND_ERR_MSG_MAX + 200];
	va_list ap;

	if (!co->guard.log)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	co->guard.log(co->guard.log_arg, line);
}

static void queue(struct coord_conn *c, const struct nd_wbuf *w)
{
	if (!c->dead && !c->closing)
		nd_w_bytes(&c->tx, w->p, w->len);
}

static void send_reason(struct coord_conn *c, enum nd_rv_type type, int32_t rank, const char *why)
{
	struct nd_wbuf w = { 0 };

	nd_rv_put_reason(&w, type, rank, why);
	queue(c, &w);
	nd_wbuf_free(&w);
	if (type == ND_RV_REJECT)
		c->closing = true;
}

/*
 * The job is off, told to every rank that said hello: keep the reason for ranks that say
 * hello later, and note whether this process's own rank 0 is among those told.
 */
static void set_aborted(struct nd_coord *co, const char *why)
{
	co->aborted = true;
	co->t_abort = nd_gen_now_ns();
	nd_strlcpy(co->why, why, sizeof(co->why));
	co->own_told = co->by_rank[0] != NULL;
}

/*
 * Tell every rank that joined, @from aside (the first reason only: later ones are echoes of
 * it). @rank is the rank that gave up, -1 when the coordinator calls the job off.
 */
static void abort_all(struct nd_coord *co, const struct coord_conn *from, int32_t rank,
		      const char *why)
{
	size_t i;

	if (co->aborted)
		return;
	for (i = 0; i < co->n_conns; i++) {
		struct coord_conn *c = co->conns[i];

		if (c != from && (c->rank >= 0 || c->hello))
			send_reason(c, ND_RV_ABORT, rank, why);
	}
	set_aborted(co, why);
}

static void welcome_all(struct nd_coord *co)
{
	struct nd_wbuf w = { 0 };
	uint32_t next = 1;
	size_t i;

	for (i = 0; i < co->n_conns; i++) {
		struct coord_conn *c = co->conns[i];

		if (!c->hello || c->closing || c->rank >= 0 || c->dead)
			continue;
		while (co->by_rank[next])
			next++;
		c->rank = (int)next;
		co->by_rank[next] = c;
	}
	for (i = 0; i < co->nranks; i++) {
		struct coord_conn *c = co->by_rank[i];
		uint8_t mac[ND_RV_MAC] = { 0 };
		struct nd_err e;

		/* a key proves the coordinator to each rank too; the MAC cannot fail once the
		 * same key made the hello's */
		if (co->guard.auth == ND_RV_AUTH_KEY)
			nd_rv_welcome_mac(co->guard.key, c->nonce, c->peer_nonce, (uint32_t)i,
					  co->nranks, mac, &e);
		w.len = 0;
		nd_rv_put_welcome(&w, (uint32_t)i, co->nranks, mac);
		queue(c, &w);
	}
	nd_wbuf_free(&w);
	co->welcomed = true;
}

/* Which rank @h may have; -1 and a reason when none. */
static int pick_rank(struct nd_coord *co, const struct nd_rv_hello *h, char *why, size_t len)
{
	if (h->cookie && h->cookie == co->cookie)
		return 0;
	if (h->rank == 0) {
		snprintf(why, len, "rank 0 is the coordinator's own process; start the others "
			 "with another --rank or none");
		return -1;
	}
	if (h->rank >= (int32_t)co->nranks) {
		snprintf(why, len, "rank %d is out of range: the job has %u ranks (0..%u)",
			 h->rank, co->nranks, co->nranks - 1);
		return -1;
	}
	if (h->rank > 0 && co->by_rank[h->rank]) {
		snprintf(why, len, "rank %d is taken (by %s)", h->rank,
			 co->by_rank[h->rank]->host);
		return -1;
	}
	return h->rank;
}

/* Does @h prove it belongs to the job? 0, or -EACCES with the reason in @why. */
static int check_proof(struct nd_coord *co, struct coord_conn *c, const struct nd_rv_hello *h,
		       char *why, size_t len)
{
	const struct nd_rv_guard *g = &co->guard;
	uint8_t mac[ND_RV_MAC];
	struct nd_err e = { 0 };
	size_t n, tlen = strlen(co->token);
	void *p;
	uid_t uid;
	gid_t gid;

	if (g->auth == ND_RV_AUTH_NONE)
		return 0;
	if (h->auth != g->auth) {
		snprintf(why, len, "the job takes %s proofs, it sent %s", nd_rv_auth_name(g->auth),
			 nd_rv_auth_name(h->auth));
		return -EACCES;
	}
	if (g->auth == ND_RV_AUTH_KEY) {
		if (nd_rv_hello_mac(g->key, c->nonce, h, mac, &e)) {
			snprintf(why, len, "%s", e.msg);
			return -EACCES;
		}
		if (!nd_rv_mac_equal(mac, h->mac)) {
			snprintf(why, len, "its proof does not match the job's key (another key, "
				 "or an exchange recorded before)");
			return -EACCES;
		}
		memcpy(c->peer_nonce, h->nonce, ND_RV_NONCE);
		return 0;
	}
	if (nd_rv_munge_decode(h->cred, &p, &n, &uid, &gid, &e)) {
		snprintf(why, len, "%s", e.msg);
		return -EACCES;
	}
	/* the credential must be over this connection's nonce and this job's token */
	if (n != ND_RV_NONCE + tlen || memcmp(p, c->nonce, ND_RV_NONCE) ||
	    memcmp((uint8_t *)p + ND_RV_NONCE, co->token, tlen)) {
		free(p);
		snprintf(why, len, "its MUNGE credential is for another challenge or job");
		return -EACCES;
	}
	free(p);
	if (uid != g->uid) {
		snprintf(why, len, "its MUNGE credential is uid %u's; the job runs as uid %u",
			 (unsigned int)uid, (unsigned int)g->uid);
		return -EACCES;
	}
	if (g->gid >= 0 && (long)gid != g->gid) {
		snprintf(why, len, "its MUNGE credential is gid %u's; the job admits gid %ld "
			 "(--auth-gid)", (unsigned int)gid, g->gid);
		return -EACCES;
	}
	return 0;
}

static void on_hello(struct nd_coord *co, struct coord_conn *c, const struct nd_rv_hello *h)
{
	char why[ND_ERR_MSG_MAX], diff[200];
	int rank;

	nd_strlcpy(c->host, h->host, sizeof(c->host));
	/* before anything else: a stranger learns nothing of the job, takes and blocks no slot */
	if (check_proof(co, c, h, why, sizeof(why))) {
		nd_coord_say(co, "refused %s (says it is %s, pid %u): %s", c->addr, h->host,
			     h->pid, why);
		send_reason(c, ND_RV_REJECT, -1, why);
		return;
	}
	/* the job ended before this rank said hello (another rank's options, say): tell it why */
	if (co->aborted) {
		co->own_told |= h->cookie && h->cookie == co->cookie;
		send_reason(c, ND_RV_REJECT, -1, co->why);
		return;
	}
	if (strcmp(h->token, co->token)) {
		snprintf(why, sizeof(why), "this coordinator runs job '%s', not '%s' (--token)",
			 co->token, h->token);
		send_reason(c, ND_RV_REJECT, -1, why);
		return;
	}
	if (co->welcomed || co->joined == co->nranks) {
		snprintf(why, sizeof(why), "job '%s' already has its %u ranks", co->token,
			 co->nranks);
		send_reason(c, ND_RV_REJECT, -1, why);
		return;
	}
	if (nd_gen_job_diff(&co->job, &h->job, diff, sizeof(diff))) {
		snprintf(why, sizeof(why), "%s (pid %u) runs other traffic options than rank 0: "
			 "%s (rank 0's first); give every rank the same options", h->host, h->pid,
			 diff);
		send_reason(c, ND_RV_REJECT, -1, why);
		abort_all(co, c, -1, why);
		return;
	}
	rank = pick_rank(co, h, why, sizeof(why));
	if (rank < 0 && h->rank != -1) {
		send_reason(c, ND_RV_REJECT, -1, why);
		return;
	}
	c->hello = true;
	c->want = h->rank;
	if (rank >= 0) {
		c->rank = rank;
		co->by_rank[rank] = c;
	}
	if (++co->joined == co->nranks)
		welcome_all(co);
}

/* A collective step completes when every live rank sent its part of the same step. */
static void try_complete(struct nd_coord *co)
{
	struct nd_blob *v;
	struct nd_wbuf w = { 0 };
	struct coord_conn *first = NULL;
	uint32_t i;
	uint8_t op;

	for (i = 0; i < co->nranks; i++) {
		struct coord_conn *c = co->by_rank[i];

		if (c->dead)
			continue;
		if (!c->has_op)
			return;
		if (!first) {
			first = c;
		} else if (c->op != first->op || c->seq != first->seq) {
			abort_all(co, NULL, -1, "ranks disagree on the rendezvous step: different "
				  "builds of nodrop in one job?");
			return;
		}
	}
	if (!first)
		return;
	op = first->op;
	v = calloc(co->nranks, sizeof(*v));
	if (!v) {
		abort_all(co, NULL, -1, "coordinator out of memory");
		return;
	}
	for (i = 0; i < co->nranks; i++)
		if (!co->by_rank[i]->dead)
			v[i] = co->by_rank[i]->part;
	for (i = 0; i < co->nranks; i++) {
		struct coord_conn *c = co->by_rank[i];

		w.len = 0;
		if (op == ND_RV_ALLGATHER || (op == ND_RV_GATHER && i == 0))
			nd_rv_put_reply(&w, op, first->seq, v, co->nranks);
		else if (op == ND_RV_BCAST)
			nd_rv_put_reply(&w, op, first->seq, v, 1);
		else
			nd_rv_put_reply(&w, op, first->seq, NULL, 0);
		if (w.oom)
			abort_all(co, NULL, -1, "coordinator out of memory");
		queue(c, &w);
	}
	for (i = 0; i < co->nranks; i++) {
		struct coord_conn *c = co->by_rank[i];

		free(c->part.p);
		memset(&c->part, 0, sizeof(c->part));
		c->has_op = false;
	}
	free(v);
	nd_wbuf_free(&w);
}

static int on_op(struct nd_coord *co, struct coord_conn *c, const struct nd_rv_msg *m)
{
	if (c->rank < 0 || !co->welcomed || c->has_op)
		return -EPROTO;
	c->part.p = malloc(m->u.op.len ? m->u.op.len : 1);
	if (!c->part.p)
		return -ENOMEM;
	memcpy(c->part.p, m->u.op.data, m->u.op.len);
	c->part.len = m->u.op.len;
	c->part.present = true;
	c->op = m->u.op.op;
	c->seq = m->u.op.seq;
	c->has_op = true;
	try_complete(co);
	return 0;
}

int nd_coord_on_msg(struct nd_coord *co, struct coord_conn *c, uint16_t type, const uint8_t *p,
		    size_t len)
{
	struct nd_rv_msg m;
	int ret = 0;

	if (nd_rv_msg_decode(type, p, len, co->nranks, &m))
		return -EPROTO;
	switch (m.type) {
	case ND_RV_HELLO:
		if (c->hello)
			ret = -EPROTO;
		else
			on_hello(co, c, &m.u.hello);
		break;
	case ND_RV_OP:
		ret = on_op(co, c, &m);
		break;
	case ND_RV_ABORT:
		if (c->rank < 0)
			ret = -EPROTO;
		else
			abort_all(co, c, c->rank, m.u.abort.reason);
		break;
	case ND_RV_BYE:
		c->bye = true;
		break;
	default:
		ret = -EPROTO;
	}
	nd_rv_msg_free(&m);
	return ret;
}

int nd_coord_greet(struct nd_coord *co, struct coord_conn *c, struct nd_err *e)
{
	struct nd_wbuf w = { 0 };
	int ret = nd_rv_nonce(c->nonce, e);

	if (ret)
		return ret;
	nd_rv_put_challenge(&w, (uint8_t)co->guard.auth, c->nonce);
	queue(c, &w);
	nd_wbuf_free(&w);
	return 0;
}

void nd_coord_left(struct nd_coord *co, struct coord_conn *c, const char *how)
{
	char why[ND_ERR_MSG_MAX];

	free(c->part.p);
	memset(&c->part, 0, sizeof(c->part));
	c->has_op = false;
	if (!co->welcomed) {
		/* gone before the job began: its place is free again */
		if (c->hello)
			co->joined--;
		if (c->rank >= 0 && co->by_rank[c->rank] == c)
			co->by_rank[c->rank] = NULL;
		c->hello = false;
		c->rank = -1;
		return;
	}
	if (c->rank < 0)
		return;
	if (!c->bye) {
		snprintf(why, sizeof(why), "rank %d on %s went away mid-run (%s)", c->rank,
			 c->host, how);
		abort_all(co, c, c->rank, why);
	}
	if (co->welcomed)
		try_complete(co);
}

void nd_coord_join_deadline(struct nd_coord *co)
{
	char why[ND_ERR_MSG_MAX];
	size_t i;

	if (co->welcomed || co->aborted ||
	    (double)(nd_gen_now_ns() - co->t0) / 1e9 < co->timeout_s)
		return;
	snprintf(why, sizeof(why), "only %u of %u ranks joined job '%s' within %.0f s: start "
		 "the others with --coord and --token %s", co->joined, co->nranks, co->token,
		 co->timeout_s, co->token);
	/* nobody has a rank yet: give the waiting ones theirs so the abort reaches them */
	for (i = 0; i < co->n_conns; i++) {
		struct coord_conn *c = co->conns[i];

		if (c->hello && !c->dead)
			send_reason(c, ND_RV_REJECT, -1, why);
	}
	set_aborted(co, why);
}
