// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A rank's side of the built-in coordinator: connect (retrying until the coordinator listens),
 * introduce itself with the token and the traffic options, then run collective steps as
 * request/reply. An ABORT can arrive at any time; it is kept, and poll() reports it while the
 * engine runs, but later steps still complete among the live ranks so results get gathered.
 */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "coord.h"

struct tcp_conn {
	struct nd_rv_conn base;
	int fd;
	struct nd_coord *coord;		/* ours when this process serves */
	char addr[160];
	uint32_t seq;
	uint8_t *rx;
	size_t rx_len, rx_cap;
	bool aborted;
	char why[ND_ERR_MSG_MAX];
	bool have_reply, welcomed;
	struct nd_rv_msg reply;
	uint32_t barrier_seq;
	bool barrier_open;
	/* who may join: the coordinator's challenge, our nonce, the key */
	bool challenged;
	uint8_t auth;
	uint8_t snonce[ND_RV_NONCE], cnonce[ND_RV_NONCE];
	uint8_t key[ND_RV_KEY];
	bool have_key;
	bool proof_bad;			/* the welcome's MAC was not the key's */
};

#define TCP(c) ((struct tcp_conn *)(c))

static bool stopped(const struct tcp_conn *t)
{
	return t->base.stop && *t->base.stop;
}

static int send_all(struct tcp_conn *t, const struct nd_wbuf *w, struct nd_err *e)
{
	size_t off = 0;
	ssize_t n;

	if (w->oom)
		return nd_err_set(e, -ENOMEM, "out of memory for a rendezvous message");
	while (off < w->len) {
		n = send(t->fd, w->p + off, w->len - off, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return nd_err_set(e, -ECONNRESET, "lost the coordinator at %s: %s",
					  t->addr, strerror(errno));
		off += (size_t)n;
	}
	return 0;
}

static int on_frame(struct tcp_conn *t, uint16_t type, const uint8_t *p, size_t len,
		    struct nd_err *e)
{
	struct nd_rv_msg m;

	if (nd_rv_msg_decode(type, p, len, t->base.nranks ? t->base.nranks : UINT32_MAX, &m))
		return nd_err_set(e, -EPROTO, "the coordinator at %s sent something that is not "
				  "nodrop's rendezvous protocol", t->addr);
	switch (m.type) {
	case ND_RV_CHALLENGE:
		if (t->challenged)
			break;
		t->challenged = true;
		t->auth = m.u.challenge.auth;
		memcpy(t->snonce, m.u.challenge.nonce, ND_RV_NONCE);
		break;
	case ND_RV_WELCOME:
		if (t->auth == ND_RV_AUTH_KEY) {
			uint8_t mac[ND_RV_MAC];

			/* the coordinator proves it holds the key too, over our nonce */
			if (nd_rv_welcome_mac(t->key, t->snonce, t->cnonce, m.u.welcome.rank,
					      m.u.welcome.nranks, mac, e) ||
			    !nd_rv_mac_equal(mac, m.u.welcome.mac)) {
				nd_rv_msg_free(&m);
				return nd_err_set(e, -EACCES, "the coordinator at %s does not "
						  "prove it holds the job's key: not our job's "
						  "coordinator", t->addr);
			}
		}
		t->base.rank = m.u.welcome.rank;
		t->base.nranks = m.u.welcome.nranks;
		t->welcomed = true;
		break;
	case ND_RV_REJECT:
		nd_err_set(e, -ECONNREFUSED, "coordinator at %s: %s", t->addr, m.u.abort.reason);
		nd_rv_msg_free(&m);
		return -ECONNREFUSED;
	case ND_RV_ABORT:
		if (!t->aborted)
			nd_strlcpy(t->why, m.u.abort.reason, sizeof(t->why));
		t->aborted = true;
		break;
	case ND_RV_REPLY:
		if (t->have_reply)
			nd_rv_msg_free(&t->reply);
		t->reply = m;
		t->have_reply = true;
		return 0;
	default:
		nd_rv_msg_free(&m);
		return nd_err_set(e, -EPROTO, "unexpected message %u from the coordinator", type);
	}
	nd_rv_msg_free(&m);
	return 0;
}

/* Read what arrives within @ms milliseconds and act on every whole frame. */
static int pump(struct tcp_conn *t, int ms, struct nd_err *e)
{
	struct pollfd pfd = { t->fd, POLLIN, 0 };
	uint16_t type;
	uint32_t plen;
	ssize_t n;
	int ret;

	ret = poll(&pfd, 1, ms);
	if (ret <= 0)
		return ret < 0 && errno != EINTR ? -errno : 0;
	if (t->rx_cap - t->rx_len < 65536) {
		size_t cap = t->rx_cap ? t->rx_cap * 2 : 131072;
		uint8_t *p = cap <= 2 * (ND_RV_PAYLOAD_MAX + ND_RV_HDR) ? realloc(t->rx, cap) :
			     NULL;

		if (!p)
			return nd_err_set(e, -ENOMEM, "rendezvous message too large");
		t->rx = p;
		t->rx_cap = cap;
	}
	n = recv(t->fd, t->rx + t->rx_len, t->rx_cap - t->rx_len, MSG_DONTWAIT);
	if (n == 0)
		return nd_err_set(e, -ECONNRESET, "the coordinator at %s went away (connection "
				  "closed)", t->addr);
	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 :
		       nd_err_set(e, -ECONNRESET, "lost the coordinator at %s: %s", t->addr,
				  strerror(errno));
	t->rx_len += (size_t)n;
	while (!(ret = nd_rv_frame(t->rx, t->rx_len, &type, &plen))) {
		ret = on_frame(t, type, t->rx + ND_RV_HDR, plen, e);
		if (ret)
			return ret;
		memmove(t->rx, t->rx + ND_RV_HDR + plen, t->rx_len - ND_RV_HDR - plen);
		t->rx_len -= ND_RV_HDR + plen;
	}
	if (ret == -EPROTO)
		return nd_err_set(e, -EPROTO, "the coordinator at %s does not speak nodrop's "
				  "rendezvous protocol (version %d)", t->addr, ND_RV_VERSION);
	return 0;
}

/* Wait until @done(t) holds, the coordinator fails us, the timeout passes or we are stopped. */
static int wait_for(struct tcp_conn *t, bool (*done)(const struct tcp_conn *t), double timeout_s,
		    const char *what, struct nd_err *e)
{
	uint64_t until = nd_gen_now_ns() + (uint64_t)(timeout_s * 1e9);
	int ret;

	while (!done(t)) {
		if (stopped(t))
			return nd_err_set(e, -EINTR, "interrupted while %s", what);
		if (nd_gen_now_ns() > until)
			return nd_err_set(e, -ETIMEDOUT, "%s: nothing from the coordinator at %s "
					  "within %.0f s", what, t->addr, timeout_s);
		ret = pump(t, 100, e);
		if (ret)
			return ret;
	}
	return 0;
}

static bool have_reply(const struct tcp_conn *t)
{
	return t->have_reply && t->reply.u.reply.seq == t->seq;
}

static int step(struct nd_rv_conn *c, uint8_t op, const void *buf, size_t len,
		struct nd_blobs *out, struct nd_err *e)
{
	struct tcp_conn *t = TCP(c);
	struct nd_wbuf w = { 0 };
	static const char *const what[ND_RV_OP_COUNT] = {
		"exchanging endpoints", "gathering results", "receiving the verdict",
		"waiting at a barrier",
	};
	int ret;

	if (out)
		memset(out, 0, sizeof(*out));
	t->seq++;
	nd_rv_put_op(&w, op, t->seq, buf, len);
	ret = send_all(t, &w, e);
	nd_wbuf_free(&w);
	if (!ret)
		ret = wait_for(t, have_reply, c->timeout_s, what[op], e);
	if (ret)
		return ret;
	if (t->reply.u.reply.op != op)
		return nd_err_set(e, -EPROTO, "the coordinator answered another step");
	if (out) {
		*out = t->reply.u.reply.blobs;
		memset(&t->reply.u.reply.blobs, 0, sizeof(t->reply.u.reply.blobs));
	}
	nd_rv_msg_free(&t->reply);
	t->have_reply = false;
	return 0;
}

static int tcp_allgather(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
			 struct nd_err *e)
{
	int ret = step(c, ND_RV_ALLGATHER, buf, len, out, e);

	if (!ret && out->n != c->nranks)
		ret = nd_err_set(e, -EPROTO, "the coordinator sent %zu parts for %u ranks",
				 out->n, c->nranks);
	return ret;
}

static int tcp_gather(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
		      struct nd_err *e)
{
	int ret = step(c, ND_RV_GATHER, buf, len, out, e);

	if (!ret && out->n != (c->rank ? 0 : c->nranks))
		ret = nd_err_set(e, -EPROTO, "the coordinator gathered %zu parts for %u ranks",
				 out->n, c->nranks);
	return ret;
}

static int tcp_bcast(struct nd_rv_conn *c, const void *buf, size_t len, struct nd_blobs *out,
		     struct nd_err *e)
{
	int ret = step(c, ND_RV_BCAST, buf, len, out, e);

	if (!ret && (out->n != 1 || !out->v[0].present))
		ret = nd_err_set(e, -ECONNABORTED, "rank 0 sent no verdict (it went away)");
	return ret;
}

static int tcp_barrier_start(struct nd_rv_conn *c, struct nd_err *e)
{
	struct tcp_conn *t = TCP(c);
	struct nd_wbuf w = { 0 };
	int ret;

	t->seq++;
	nd_rv_put_op(&w, ND_RV_BARRIER, t->seq, NULL, 0);
	ret = send_all(t, &w, e);
	nd_wbuf_free(&w);
	t->barrier_open = !ret;
	return ret;
}

static int tcp_barrier_test(struct nd_rv_conn *c, bool *done, struct nd_err *e)
{
	struct tcp_conn *t = TCP(c);
	int ret = pump(t, 0, e);

	*done = false;
	if (ret)
		return ret;
	if (have_reply(t)) {
		nd_rv_msg_free(&t->reply);
		t->have_reply = false;
		t->barrier_open = false;
		*done = true;
	}
	return 0;
}

static int tcp_poll(struct nd_rv_conn *c, struct nd_err *e)
{
	struct tcp_conn *t = TCP(c);
	int ret = t->aborted ? 0 : pump(t, 0, e);

	if (ret)
		return ret;
	if (t->aborted)
		return nd_err_set(e, -ECONNABORTED, "%s", t->why);
	return 0;
}

static void tcp_abort(struct nd_rv_conn *c, const char *reason)
{
	struct tcp_conn *t = TCP(c);
	struct nd_wbuf w = { 0 };

	nd_rv_put_reason(&w, ND_RV_ABORT, (int32_t)c->rank, reason);
	send_all(t, &w, NULL);
	nd_wbuf_free(&w);
}

static int tcp_fd(struct nd_rv_conn *c)
{
	return TCP(c)->fd;
}

static void tcp_close(struct nd_rv_conn *c)
{
	struct tcp_conn *t = TCP(c);
	struct nd_wbuf w = { 0 };

	if (t->fd >= 0 && t->welcomed) {
		nd_rv_put_bye(&w);
		send_all(t, &w, NULL);
		nd_wbuf_free(&w);
	}
	if (t->fd >= 0)
		close(t->fd);
	/* rank 0 lets the coordinator see everyone off before it goes */
	nd_coord_stop(t->coord, c->timeout_s);
	if (t->have_reply)
		nd_rv_msg_free(&t->reply);
	free(t->rx);
	free(t);
}

static const struct nd_rv_ops tcp_ops = {
	.name = "coordinator",
	.allgather = tcp_allgather,
	.gather = tcp_gather,
	.bcast = tcp_bcast,
	.barrier_start = tcp_barrier_start,
	.barrier_test = tcp_barrier_test,
	.poll = tcp_poll,
	.abort = tcp_abort,
	.fd = tcp_fd,
	.close = tcp_close,
};

static int try_connect(const char *host, const char *port)
{
	struct addrinfo hints = { 0 }, *ai = NULL, *a;
	int fd = -1, one = 1;

	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(host, port, &hints, &ai))
		return -EHOSTUNREACH;
	for (a = ai; a; a = a->ai_next) {
		fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd < 0)
			continue;
		if (!connect(fd, a->ai_addr, a->ai_addrlen))
			break;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	if (fd >= 0)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd >= 0 ? fd : -ECONNREFUSED;
}

/* The coordinator may start after us (or its host boots later): retry until the timeout. */
static int connect_retry(struct tcp_conn *t, const char *addr, struct nd_err *e)
{
	uint64_t until = nd_gen_now_ns() + (uint64_t)(t->base.timeout_s * 1e9);
	struct timespec ts = { 0, 100000000 };
	char host[128], port[16];
	int ret;

	ret = nd_rv_split_addr(addr, host, sizeof(host), port, sizeof(port), e);
	if (ret)
		return ret;
	for (;;) {
		t->fd = try_connect(host, port);
		if (t->fd >= 0)
			return 0;
		if (stopped(t))
			return nd_err_set(e, -EINTR, "interrupted while connecting to %s", addr);
		if (nd_gen_now_ns() > until)
			return nd_err_set(e, -ETIMEDOUT, "no coordinator answered at %s within "
					  "%.0f s: is rank 0 (--listen) running there?", addr,
					  t->base.timeout_s);
		nanosleep(&ts, NULL);
	}
}

static bool is_welcomed(const struct tcp_conn *t)
{
	return t->welcomed || t->aborted;
}

static bool is_challenged(const struct tcp_conn *t)
{
	return t->challenged;
}

/* The proof the coordinator's challenge asks for, into @h. */
static int prove(struct tcp_conn *t, const struct nd_rendezvous *rv, struct nd_rv_hello *h,
		 struct nd_err *e)
{
	struct nd_wbuf w = { 0 };
	char *cred = NULL;
	int ret;

	h->auth = t->auth;
	switch (t->auth) {
	case ND_RV_AUTH_NONE:
		if (rv->require_auth)
			return nd_err_set(e, -EACCES, "the coordinator at %s runs job '%s' "
					  "unauthenticated and --require-auth is given: give rank "
					  "0 --key-file or run it where munged runs", t->addr,
					  rv->token);
		return 0;
	case ND_RV_AUTH_KEY:
		if (!t->have_key)
			return nd_err_set(e, -EACCES, "the coordinator at %s asks for the job's "
					  "key: give --key-file", t->addr);
		ret = nd_rv_nonce(h->nonce, e);
		if (!ret)
			ret = nd_rv_hello_mac(t->key, t->snonce, h, h->mac, e);
		memcpy(t->cnonce, h->nonce, ND_RV_NONCE);
		return ret;
	default:
		/* MUNGE: a credential over the coordinator's nonce and the job's token */
		nd_w_bytes(&w, t->snonce, ND_RV_NONCE);
		nd_w_bytes(&w, rv->token, strlen(rv->token));
		ret = w.oom ? nd_err_set(e, -ENOMEM, "out of memory") :
			      nd_rv_munge_encode(w.p, w.len, &cred, e);
		nd_wbuf_free(&w);
		if (ret)
			return ret;
		if (strlen(cred) >= sizeof(h->cred))
			ret = nd_err_set(e, -E2BIG, "a MUNGE credential of %zu bytes",
					 strlen(cred));
		else
			nd_strlcpy(h->cred, cred, sizeof(h->cred));
		free(cred);
		return ret;
	}
}

static int join(struct tcp_conn *t, const struct nd_rendezvous *rv,
		const struct nd_stress_job *job, struct nd_err *e)
{
	struct nd_rv_hello h = { 0 };
	struct nd_wbuf w = { 0 };
	int ret;

	nd_strlcpy(h.token, rv->token, sizeof(h.token));
	h.rank = t->coord ? 0 : rv->rank;
	h.cookie = t->coord ? nd_coord_cookie(t->coord) : 0;
	if (gethostname(h.host, sizeof(h.host) - 1))
		nd_strlcpy(h.host, "unknown", sizeof(h.host));
	h.pid = (uint32_t)getpid();
	h.job = *job;
	/* the coordinator speaks first: how to prove we belong to the job */
	ret = wait_for(t, is_challenged, t->base.timeout_s, "waiting for the coordinator's "
		       "challenge", e);
	if (!ret)
		ret = prove(t, rv, &h, e);
	if (ret)
		return ret;
	nd_rv_put_hello(&w, &h);
	ret = send_all(t, &w, e);
	nd_wbuf_free(&w);
	/* the coordinator gives up on missing ranks after the same timeout: hear its reason */
	if (!ret)
		ret = wait_for(t, is_welcomed, t->base.timeout_s + 5, "joining the job", e);
	/* an abort right behind the welcome is the job's business: the engine hears it */
	if (!ret && !t->welcomed)
		ret = nd_err_set(e, -ECONNABORTED, "%s", t->why);
	return ret;
}

/* Rank 0: what the coordinator will ask of every rank, from --auth and what the host has. */
static int guard_of(const struct nd_rendezvous *rv, const struct tcp_conn *t,
		    struct nd_rv_guard *g, struct nd_err *e)
{
	g->auth = rv->auth;
	if (g->auth == ND_RV_AUTH_AUTO)
		g->auth = t->have_key ? ND_RV_AUTH_KEY : nd_rv_munge_usable() ? ND_RV_AUTH_MUNGE :
			  ND_RV_AUTH_NONE;
	if (g->auth == ND_RV_AUTH_KEY && !t->have_key)
		return nd_err_set(e, -EINVAL, "--auth key needs --key-file (make one: openssl "
				  "rand -hex 32 > FILE; chmod 600 FILE)");
	if (g->auth == ND_RV_AUTH_MUNGE && !nd_rv_munge_usable())
		return nd_err_set(e, -ENOPKG, "--auth munge: no MUNGE here (libmunge.so.2 and "
				  "munged's socket: apt-get install munge; systemctl start munge)");
	if (g->auth == ND_RV_AUTH_NONE && rv->require_auth)
		return nd_err_set(e, -EACCES, "--require-auth: this job would run "
				  "unauthenticated: give --key-file, or run where munged runs");
	if (g->auth == ND_RV_AUTH_NONE && rv->log)
		rv->log(rv->log_arg, "warning: job is UNAUTHENTICATED: anyone who can reach the "
			"coordinator and knows the token can join it and report results "
			"(--key-file or MUNGE; --require-auth refuses this)");
	if (g->auth == ND_RV_AUTH_KEY)
		memcpy(g->key, t->key, ND_RV_KEY);
	return 0;
}

int nd_rv_tcp_open(const struct nd_rendezvous *rv, const struct nd_stress_job *job,
		   const volatile int *stop, struct nd_rv_conn **c, struct nd_err *e)
{
	struct tcp_conn *t = calloc(1, sizeof(*t));
	const char *addr = rv->coord;
	int ret;

	if (!t)
		return nd_err_set(e, -ENOMEM, "out of memory");
	t->base.ops = &tcp_ops;
	t->base.timeout_s = rv->timeout_s;
	t->base.stop = stop;
	t->fd = -1;
	if (rv->key_file[0] && (ret = nd_rv_key_load(rv->key_file, t->key, e))) {
		free(t);
		return ret;
	}
	t->have_key = rv->key_file[0] != '\0';
	if (!rv->coord[0]) {
		free(t);
		return nd_err_set(e, -EINVAL, "no coordinator: give --coord HOST:PORT (and "
				  "--listen on rank 0), or launch with mpirun");
	}
	if (rv->serve) {
		struct nd_rv_guard g = { .uid = geteuid(), .gid = rv->auth_gid, .log = rv->log,
					 .log_arg = rv->log_arg };

		if (rv->nranks < 2) {
			free(t);
			return nd_err_set(e, -EINVAL, "--listen needs --ranks N (2 or more: the "
					  "processes of the job, this one included)");
		}
		ret = guard_of(rv, t, &g, e);
		if (!ret)
			ret = nd_coord_start(rv->coord, rv->nranks, rv->token, job, rv->timeout_s,
					     &g, &t->coord, e);
		if (ret) {
			free(t);
			return ret;
		}
		addr = nd_coord_local_addr(t->coord);
	}
	nd_strlcpy(t->addr, rv->coord, sizeof(t->addr));
	ret = connect_retry(t, addr, e);
	if (!ret)
		ret = join(t, rv, job, e);
	if (ret) {
		/* nobody to see off: the job never began */
		t->welcomed = false;
		nd_coord_stop(t->coord, 0);
		t->coord = NULL;
		tcp_close(&t->base);
		return ret;
	}
	*c = &t->base;
	return 0;
}

int nd_rv_open(const struct nd_rendezvous *rv, const struct nd_stress_job *job,
	       const volatile int *stop, struct nd_rv_conn **c, struct nd_err *e)
{
	if (rv->kind == ND_RV_MPI)
		return nd_rv_mpi_open(rv, stop, c, e);
	return nd_rv_tcp_open(rv, job, stop, c, e);
}
