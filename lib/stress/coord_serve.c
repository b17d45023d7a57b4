// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The built-in coordinator: a thread in rank 0's process that every rank (rank 0's own
 * participant too, over a socket like the rest) joins with the job's token and options. It
 * hands out ranks, completes each collective step once every live rank has sent its part, and
 * turns a rank that leaves early into an abort for everyone, so no rank waits on a dead peer.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <arpa/inet.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coord.h"

#define RX_CHUNK 65536
#define HELLO_WAIT_S 10		/* a connection that says nothing this long is let go */

struct conn {
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
	struct conn **conns;
	size_t n_conns;
	struct conn **by_rank;
	uint32_t joined;
	bool welcomed, aborted;
	bool own_told;			/* rank 0 (this process) has heard why */
	char why[ND_ERR_MSG_MAX];	/* the abort's reason, for ranks that say hello after it */
	uint64_t t0, t_abort;
};

static void queue(struct conn *c, const struct nd_wbuf *w)
{
	if (!c->dead && !c->closing)
		nd_w_bytes(&c->tx, w->p, w->len);
}

static void send_reason(struct conn *c, enum nd_rv_type type, int32_t rank, const char *why)
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
static void abort_all(struct nd_coord *co, const struct conn *from, int32_t rank,
		      const char *why)
{
	size_t i;

	if (co->aborted)
		return;
	for (i = 0; i < co->n_conns; i++) {
		struct conn *c = co->conns[i];

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
		struct conn *c = co->conns[i];

		if (!c->hello || c->closing || c->rank >= 0 || c->dead)
			continue;
		while (co->by_rank[next])
			next++;
		c->rank = (int)next;
		co->by_rank[next] = c;
	}
	for (i = 0; i < co->nranks; i++) {
		struct conn *c = co->by_rank[i];
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

static void say(struct nd_coord *co, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct nd_coord *co, const char *fmt, ...)
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

/* Does @h prove it belongs to the job? 0, or -EACCES with the reason in @why. */
static int check_proof(struct nd_coord *co, struct conn *c, const struct nd_rv_hello *h,
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

static void on_hello(struct nd_coord *co, struct conn *c, const struct nd_rv_hello *h)
{
	char why[ND_ERR_MSG_MAX], diff[200];
	int rank;

	nd_strlcpy(c->host, h->host, sizeof(c->host));
	/* before anything else: a stranger learns nothing of the job, takes and blocks no slot */
	if (check_proof(co, c, h, why, sizeof(why))) {
		say(co, "refused %s (says it is %s, pid %u): %s", c->addr, h->host, h->pid, why);
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
	struct conn *first = NULL;
	uint32_t i;
	uint8_t op;

	for (i = 0; i < co->nranks; i++) {
		struct conn *c = co->by_rank[i];

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
		struct conn *c = co->by_rank[i];

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
		struct conn *c = co->by_rank[i];

		free(c->part.p);
		memset(&c->part, 0, sizeof(c->part));
		c->has_op = false;
	}
	free(v);
	nd_wbuf_free(&w);
}

static int on_op(struct nd_coord *co, struct conn *c, const struct nd_rv_msg *m)
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

static int on_msg(struct nd_coord *co, struct conn *c, uint16_t type, const uint8_t *p,
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

static void conn_gone(struct nd_coord *co, struct conn *c, const char *how)
{
	char why[ND_ERR_MSG_MAX];

	if (c->dead)
		return;
	c->dead = true;
	close(c->fd);
	c->fd = -1;
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

static void conn_read(struct nd_coord *co, struct conn *c)
{
	uint16_t type;
	uint32_t plen;
	ssize_t n;
	int ret;

	if (c->rx_cap - c->rx_len < RX_CHUNK) {
		size_t cap = c->rx_cap ? c->rx_cap * 2 : RX_CHUNK * 2;
		uint8_t *p = cap <= 2 * (ND_RV_PAYLOAD_MAX + ND_RV_HDR) ? realloc(c->rx, cap) :
			     NULL;

		if (!p)
			return conn_gone(co, c, "message too large");
		c->rx = p;
		c->rx_cap = cap;
	}
	n = recv(c->fd, c->rx + c->rx_len, c->rx_cap - c->rx_len, MSG_DONTWAIT);
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
		return conn_gone(co, c, n ? strerror(errno) : "connection closed");
	if (n < 0)
		return;
	c->rx_len += (size_t)n;
	while (!c->dead && !(ret = nd_rv_frame(c->rx, c->rx_len, &type, &plen))) {
		if (on_msg(co, c, type, c->rx + ND_RV_HDR, plen))
			return conn_gone(co, c, "it sent something that is not our protocol");
		memmove(c->rx, c->rx + ND_RV_HDR + plen, c->rx_len - ND_RV_HDR - plen);
		c->rx_len -= ND_RV_HDR + plen;
	}
	if (!c->dead && ret == -EPROTO)
		conn_gone(co, c, "it sent something that is not our protocol");
}

static void conn_write(struct nd_coord *co, struct conn *c)
{
	ssize_t n;

	if (c->tx_off < c->tx.len) {
		n = send(c->fd, c->tx.p + c->tx_off, c->tx.len - c->tx_off,
			 MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR)
			return conn_gone(co, c, strerror(errno));
		if (n > 0)
			c->tx_off += (size_t)n;
	}
	if (c->tx_off == c->tx.len) {
		c->tx.len = c->tx_off = 0;
		if (c->closing)
			conn_gone(co, c, "rejected");
	}
}

static void peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (!getpeername(fd, (struct sockaddr *)&ss, &sl)) {
		if (ss.ss_family == AF_INET) {
			const struct sockaddr_in *a = (const void *)&ss;

			inet_ntop(AF_INET, &a->sin_addr, host, sizeof(host));
			port = ntohs(a->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *a = (const void *)&ss;

			inet_ntop(AF_INET6, &a->sin6_addr, host, sizeof(host));
			port = ntohs(a->sin6_port);
		}
	}
	snprintf(buf, len, strchr(host, ':') ? "[%s]:%u" : "%s:%u", host, port);
}

static void do_accept(struct nd_coord *co)
{
	struct nd_wbuf w = { 0 };
	struct nd_err e = { 0 };
	struct conn **slot, *c;
	int fd = accept4(co->lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0)
		return;
	c = calloc(1, sizeof(*c));
	slot = c ? nd_push((void **)&co->conns, &co->n_conns, sizeof(*slot)) : NULL;
	if (!slot) {
		free(c);
		close(fd);
		return;
	}
	c->fd = fd;
	c->rank = -1;
	c->t_accept = nd_gen_now_ns();
	*slot = c;
	peer_name(fd, c->addr, sizeof(c->addr));
	if (nd_rv_nonce(c->nonce, &e)) {
		conn_gone(co, c, e.msg);
		return;
	}
	nd_rv_put_challenge(&w, (uint8_t)co->guard.auth, c->nonce);
	queue(c, &w);
	nd_wbuf_free(&w);
}

/* A connection that never said hello is let go after HELLO_WAIT_S, said in the log. */
static void reap_silent(struct nd_coord *co)
{
	uint64_t now = nd_gen_now_ns();

	for (size_t i = 0; i < co->n_conns; i++) {
		struct conn *c = co->conns[i];

		if (c->dead || c->hello || c->closing ||
		    now - c->t_accept < (uint64_t)HELLO_WAIT_S * 1000000000ull)
			continue;
		say(co, "dropped %s: no hello within %d s", c->addr, HELLO_WAIT_S);
		conn_gone(co, c, "silent");
	}
}

/*
 * Done when every rank left (said bye or died) after the job began, or when it was called off
 * before it began; either way only once every queued message went out.
 */
static bool finished(struct nd_coord *co)
{
	size_t i;

	for (i = 0; i < co->n_conns; i++)
		if (!co->conns[i]->dead && co->conns[i]->tx.len > co->conns[i]->tx_off)
			return false;
	/* before the welcome, an abort ends the job once this process's rank has heard it */
	if (!co->welcomed)
		return co->aborted && (co->own_told || nd_gen_now_ns() - co->t_abort >
				       (uint64_t)(co->timeout_s * 1e9));
	for (i = 0; i < co->n_conns; i++)
		if (!co->conns[i]->dead && co->conns[i]->rank >= 0)
			return false;
	return true;
}

static void check_join_timeout(struct nd_coord *co)
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
		struct conn *c = co->conns[i];

		if (c->hello && !c->dead)
			send_reason(c, ND_RV_REJECT, -1, why);
	}
	set_aborted(co, why);
}

/*
 * How long the loop may sleep: every message, connection and the stop request wake it; the
 * clock matters only for the deadlines before the welcome (the join timeout, an abort's grace).
 * Once the job runs it sleeps up to a second: a wake-up on a guest's only CPU every 100 ms
 * cost soft-RoCE, whose work is in the kernel, a few percent of a sender's rate.
 */
static int wait_ms(const struct nd_coord *co)
{
	uint64_t now = nd_gen_now_ns(), span = (uint64_t)(co->timeout_s * 1e9), due;

	if (co->welcomed)
		return 1000;
	due = co->aborted ? co->t_abort + span : co->t0 + span;
	if (due <= now)
		return 0;
	/* one millisecond late rather than early: the deadline is tested against the clock */
	return due - now >= 1000000000ull ? 1000 : (int)((due - now) / 1000000) + 1;
}

static void *serve(void *arg)
{
	struct nd_coord *co = arg;
	struct pollfd *pfd = NULL;
	size_t i, n;

	for (;;) {
		struct pollfd *p = realloc(pfd, (co->n_conns + 2) * sizeof(*pfd));

		if (!p)
			break;
		pfd = p;
		pfd[0] = (struct pollfd){ co->wake[0], POLLIN, 0 };
		pfd[1] = (struct pollfd){ co->lfd, POLLIN, 0 };
		for (i = 0, n = 2; i < co->n_conns; i++) {
			struct conn *c = co->conns[i];

			if (c->dead)
				continue;
			pfd[n++] = (struct pollfd){ c->fd, (short)(POLLIN |
					(c->tx.len > c->tx_off ? POLLOUT : 0)), 0 };
		}
		if (poll(pfd, n, wait_ms(co)) < 0 && errno != EINTR)
			break;
		if (pfd[0].revents)
			break;
		if (pfd[1].revents & POLLIN)
			do_accept(co);
		for (i = 0; i < co->n_conns; i++) {
			struct conn *c = co->conns[i];

			if (!c->dead && !c->closing)
				conn_read(co, c);
			if (!c->dead && (c->tx.len > c->tx_off || c->closing))
				conn_write(co, c);
		}
		reap_silent(co);
		check_join_timeout(co);
		if (finished(co))
			break;
	}
	free(pfd);
	return NULL;
}

static int listen_on(struct nd_coord *co, const char *addr, struct nd_err *e)
{
	char host[128], port[16], shown[64];
	struct addrinfo hints = { 0 }, *ai = NULL;
	int one = 1, ret;

	ret = nd_rv_split_addr(addr, host, sizeof(host), port, sizeof(port), e);
	if (ret)
		return ret;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	ret = getaddrinfo(host[0] ? host : NULL, port, &hints, &ai);
	if (ret)
		return nd_err_set(e, -EINVAL, "coordinator address %s: %s", addr,
				  gai_strerror(ret));
	co->lfd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (co->lfd < 0 ||
	    setsockopt(co->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(co->lfd, ai->ai_addr, ai->ai_addrlen) || listen(co->lfd, 128)) {
		ret = -errno;
		freeaddrinfo(ai);
		return nd_err_set(e, ret, "coordinator: cannot listen on %s: %s%s", addr,
				  strerror(-ret), ret == -EADDRINUSE ? " (another job or "
				  "coordinator holds the port: pick another)" : "");
	}
	/* the local participant reaches a wildcard listener through loopback */
	if (!host[0] || !strcmp(host, "0.0.0.0"))
		snprintf(shown, sizeof(shown), "127.0.0.1");
	else if (!strcmp(host, "::"))
		snprintf(shown, sizeof(shown), "[::1]");
	else if (strchr(host, ':'))
		snprintf(shown, sizeof(shown), "[%.60s]", host);
	else
		snprintf(shown, sizeof(shown), "%.60s", host);
	snprintf(co->local_addr, sizeof(co->local_addr), "%s:%s", shown, port);
	freeaddrinfo(ai);
	return 0;
}

int nd_coord_start(const char *addr, uint32_t nranks, const char *token,
		   const struct nd_stress_job *job, double timeout_s, const struct nd_rv_guard *g,
		   struct nd_coord **cp, struct nd_err *e)
{
	struct nd_coord *co = calloc(1, sizeof(*co));
	int ret;

	if (!co)
		return nd_err_set(e, -ENOMEM, "out of memory");
	co->lfd = co->wake[0] = co->wake[1] = -1;
	co->nranks = nranks;
	co->job = *job;
	co->timeout_s = timeout_s;
	co->guard = *g;
	co->t0 = nd_gen_now_ns();
	nd_strlcpy(co->token, token, sizeof(co->token));
	co->by_rank = calloc(nranks, sizeof(*co->by_rank));
	if (!co->by_rank || getrandom(&co->cookie, sizeof(co->cookie), 0) != sizeof(co->cookie) ||
	    pipe2(co->wake, O_CLOEXEC)) {
		ret = nd_err_set(e, -errno ? -errno : -ENOMEM, "coordinator set-up: %s",
				 strerror(errno));
		goto fail;
	}
	co->cookie |= 1;	/* 0 means "no cookie" */
	ret = listen_on(co, addr, e);
	if (ret)
		goto fail;
	ret = -pthread_create(&co->thread, NULL, serve, co);
	if (ret) {
		nd_err_set(e, ret, "coordinator thread: %s", strerror(-ret));
		goto fail;
	}
	*cp = co;
	return 0;
fail:
	if (co->lfd >= 0)
		close(co->lfd);
	if (co->wake[0] >= 0) {
		close(co->wake[0]);
		close(co->wake[1]);
	}
	free(co->by_rank);
	free(co);
	return ret;
}

const char *nd_coord_local_addr(const struct nd_coord *c)
{
	return c->local_addr;
}

uint64_t nd_coord_cookie(const struct nd_coord *c)
{
	return c->cookie;
}

void nd_coord_stop(struct nd_coord *co, double wait_s)
{
	uint64_t until = nd_gen_now_ns() + (uint64_t)(wait_s * 1e9);
	struct timespec ts = { 0, 20000000 };
	size_t i;

	if (!co)
		return;
	/* the thread ends on its own once every rank left; do not cut off their last replies */
	while (pthread_tryjoin_np(co->thread, NULL) == EBUSY) {
		if (nd_gen_now_ns() > until) {
			if (write(co->wake[1], "x", 1) < 0)
				break;
			pthread_join(co->thread, NULL);
			break;
		}
		nanosleep(&ts, NULL);
	}
	for (i = 0; i < co->n_conns; i++) {
		if (co->conns[i]->fd >= 0)
			close(co->conns[i]->fd);
		free(co->conns[i]->rx);
		free(co->conns[i]->part.p);
		nd_wbuf_free(&co->conns[i]->tx);
		free(co->conns[i]);
	}
	free(co->conns);
	free(co->by_rank);
	close(co->lfd);
	close(co->wake[0]);
	close(co->wake[1]);
	free(co);
}

int nd_rv_split_addr(const char *addr, char *host, size_t hlen, char *port, size_t plen,
		     struct nd_err *e)
{
	const char *colon, *end;
	size_t n;

	if (addr[0] == '[') {
		end = strchr(addr, ']');
		if (!end || end[1] != ':')
			goto bad;
		n = (size_t)(end - addr - 1);
		colon = end + 1;
		addr++;
	} else {
		colon = strrchr(addr, ':');
		if (!colon || strchr(addr, ':') != colon)
			goto bad;
		n = (size_t)(colon - addr);
	}
	if (n >= hlen || strlen(colon + 1) >= plen || !colon[1] ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || atoi(colon + 1) > 65535)
		goto bad;
	memcpy(host, addr, n);
	host[n] = '\0';
	nd_strlcpy(port, colon + 1, plen);
	return 0;
bad:
	return nd_err_set(e, -EINVAL, "'%s' is not HOST:PORT (IPv6 as [ADDR]:PORT)", addr);
}
