// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The built-in coordinator: a thread in rank 0's process that every rank (rank 0's own
 * participant too, over a socket like the rest) joins with the job's token and options. It
 * hands out ranks, completes each collective step once every live rank has sent its part, and
 * turns a rank that leaves early into an abort for everyone, so no rank waits on a dead peer.
 * This file is its server: the listener, the thread's poll loop and its deadlines, each
 * connection's bytes in and out; what the messages mean is coord_job.c's.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <arpa/inet.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#include "coord_job.h"

#define RX_CHUNK 65536
#define HELLO_WAIT_S 10		/* a connection that says nothing this long is let go */

/* @c is closed, once: the job hears why (coord_job.c) */
static void conn_gone(struct nd_coord *co, struct coord_conn *c, const char *how)
{
	if (c->dead)
		return;
	c->dead = true;
	close(c->fd);
	c->fd = -1;
	nd_coord_left(co, c, how);
}

static void conn_read(struct nd_coord *co, struct coord_conn *c)
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
		if (nd_coord_on_msg(co, c, type, c->rx + ND_RV_HDR, plen))
			return conn_gone(co, c, "it sent something that is not our protocol");
		memmove(c->rx, c->rx + ND_RV_HDR + plen, c->rx_len - ND_RV_HDR - plen);
		c->rx_len -= ND_RV_HDR + plen;
	}
	if (!c->dead && ret == -EPROTO)
		conn_gone(co, c, "it sent something that is not our protocol");
}

static void conn_write(struct nd_coord *co, struct coord_conn *c)
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
	struct nd_err e = { 0 };
	struct coord_conn **slot, *c;
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
	if (nd_coord_greet(co, c, &e))
		conn_gone(co, c, e.msg);
}

/* A connection that never said hello is let go after HELLO_WAIT_S, said in the log. */
static void reap_silent(struct nd_coord *co)
{
	uint64_t now = nd_gen_now_ns();

	for (size_t i = 0; i < co->n_conns; i++) {
		struct coord_conn *c = co->conns[i];

		if (c->dead || c->hello || c->closing ||
		    now - c->t_accept < (uint64_t)HELLO_WAIT_S * 1000000000ull)
			continue;
		nd_coord_say(co, "dropped %s: no hello within %d s", c->addr, HELLO_WAIT_S);
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
			struct coord_conn *c = co->conns[i];

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
			struct coord_conn *c = co->conns[i];

			if (!c->dead && !c->closing)
				conn_read(co, c);
			if (!c->dead && (c->tx.len > c->tx_off || c->closing))
				conn_write(co, c);
		}
		reap_silent(co);
		nd_coord_join_deadline(co);
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
