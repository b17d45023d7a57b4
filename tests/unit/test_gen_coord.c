// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * stress: the built-in coordinator over loopback, ranks as threads: ranks handed out, every
 * collective step, and the failure cases a job meets (a wrong token, other options, even
 * before rank 0 joined, a rank that never comes, a rank that dies mid-run).
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stress/coord.h"
#include "unit.h"

#define RANKS 3

struct member {
	struct nd_rendezvous rv;
	struct nd_stress_job job;
	struct nd_rv_conn *c;
	int ret;
	struct nd_err e;
	char gathered[64];		/* rank 0: every rank's part, joined */
	char all[64];			/* what the allgather gave */
	char bcast[16];
	bool die;			/* leave right after joining */
	bool late;			/* join once the others are in */
	bool stall;			/* connect, then say nothing for 2 s */
	bool barrier_done;
	int poll_ret;
	char poll_msg[ND_ERR_MSG_MAX];
};

static char addr[32];
static const struct nd_rv_guard open_guard = { .auth = ND_RV_AUTH_NONE };

/* A port nobody listens on right now. */
static void pick_addr(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t len = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sa, &len), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sa.sin_port));
	close(fd);
}

static void member_init(struct member *m, bool serve, int rank)
{
	memset(m, 0, sizeof(*m));
	nd_rendezvous_init(&m->rv);
	snprintf(m->rv.coord, sizeof(m->rv.coord), "%s", addr);
	m->rv.serve = serve;
	m->rv.nranks = RANKS;
	m->rv.rank = rank;
	m->rv.timeout_s = 5;
	m->rv.auth = ND_RV_AUTH_NONE;	/* the key's and MUNGE's own cases set theirs */
	nd_stress_job_init(&m->job);
}

static void join_parts(const struct nd_blobs *b, char *out, size_t len)
{
	size_t i;

	out[0] = '\0';
	for (i = 0; i < b->n; i++)
		snprintf(out + strlen(out), len - strlen(out), "%s%.*s", i ? "," : "",
			 b->v[i].present ? (int)b->v[i].len : 1,
			 b->v[i].present ? (const char *)b->v[i].p : "-");
}

static void *member_run(void *arg)
{
	struct member *m = arg;
	struct nd_blobs b = { 0 };
	struct timespec pause = { 0, 300000000 };
	char mine[16];
	bool done = false;

	if (m->late)
		nanosleep(&pause, NULL);
	if (m->stall) {
		struct sockaddr_in sa = { .sin_family = AF_INET };
		struct timespec step = { 0, 100000000 }, hold = { 2, 0 };
		int fd = -1;

		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sa.sin_port = htons((uint16_t)atoi(strrchr(addr, ':') + 1));
		for (int i = 0; i < 50 && fd < 0; i++) {
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
				close(fd);
				fd = -1;
				nanosleep(&step, NULL);
			}
		}
		m->ret = fd >= 0 ? 0 : -ECONNREFUSED;
		nanosleep(&hold, NULL);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	m->ret = nd_rv_tcp_open(&m->rv, &m->job, NULL, &m->c, &m->e);
	if (m->ret)
		return NULL;
	if (m->die) {
		m->c->ops->close(m->c);
		m->c = NULL;
		return NULL;
	}
	snprintf(mine, sizeof(mine), "r%u", m->c->rank);
	m->ret = m->c->ops->allgather(m->c, mine, strlen(mine), &b, &m->e);
	join_parts(&b, m->all, sizeof(m->all));
	nd_blobs_free(&b);
	if (!m->ret)
		m->ret = m->c->ops->barrier_start(m->c, &m->e);
	while (!m->ret && !done)
		m->ret = m->c->ops->barrier_test(m->c, &done, &m->e);
	m->barrier_done = done;
	m->poll_ret = m->c->ops->poll(m->c, &m->e);
	snprintf(m->poll_msg, sizeof(m->poll_msg), "%s", m->poll_ret ? m->e.msg : "");
	if (!m->ret)
		m->ret = m->c->ops->gather(m->c, mine, strlen(mine), &b, &m->e);
	join_parts(&b, m->gathered, sizeof(m->gathered));
	nd_blobs_free(&b);
	if (!m->ret)
		m->ret = m->c->ops->bcast(m->c, m->c->rank ? NULL : "v", m->c->rank ? 0 : 1, &b,
					  &m->e);
	if (!m->ret)
		snprintf(m->bcast, sizeof(m->bcast), "%.*s", (int)b.v[0].len, b.v[0].p);
	nd_blobs_free(&b);
	return NULL;
}

/*
 * A rank killed once it joined: a child process that exits without a word. It is forked before
 * any thread exists: a child forked from a threaded process may find a lock (malloc's, ASan's)
 * held by a thread it does not have, and hang.
 */
static pid_t dying_start(struct member *m)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(nd_rv_tcp_open(&m->rv, &m->job, NULL, &m->c, &m->e) ? 1 : 0);
	return pid;
}

static void run_all(struct member *m, size_t n)
{
	pthread_t t[RANKS + 3];
	pid_t pid[RANKS + 3];
	size_t i;
	int status;

	ck_assert_int_le(n, RANKS + 3);
	for (i = 0; i < n; i++) {
		pid[i] = m[i].die ? dying_start(&m[i]) : 0;
		ck_assert_int_ge(pid[i], 0);
	}
	for (i = 0; i < n; i++)
		if (!m[i].die)
			ck_assert_int_eq(pthread_create(&t[i], NULL, member_run, &m[i]), 0);
	for (i = 0; i < n; i++) {
		if (!m[i].die) {
			pthread_join(t[i], NULL);
			continue;
		}
		waitpid(pid[i], &status, 0);
		m[i].ret = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
}

static void close_all(struct member *m, size_t n)
{
	size_t i;

	/* rank 0 last: it waits for the others to leave before its coordinator stops */
	for (i = n; i-- > 0;) {
		if (m[i].c && m[i].c->rank) {
			m[i].c->ops->close(m[i].c);
			m[i].c = NULL;
		}
	}
	for (i = 0; i < n; i++)
		if (m[i].c)
			m[i].c->ops->close(m[i].c);
}

START_TEST(coord_collectives)
{
	struct member m[RANKS];

	pick_addr();
	member_init(&m[0], true, -1);
	member_init(&m[1], false, 2);		/* asks for rank 2 */
	member_init(&m[2], false, -1);		/* gets what is left: 1 */
	run_all(m, RANKS);
	ck_assert_msg(!m[0].ret && !m[1].ret && !m[2].ret, "%s / %s / %s", m[0].e.msg, m[1].e.msg,
		      m[2].e.msg);
	ck_assert_uint_eq(m[0].c->rank, 0);
	ck_assert_uint_eq(m[1].c->rank, 2);
	ck_assert_uint_eq(m[2].c->rank, 1);
	ck_assert_uint_eq(m[2].c->nranks, RANKS);
	ck_assert_str_eq(m[1].all, "r0,r1,r2");
	ck_assert_str_eq(m[0].gathered, "r0,r1,r2");
	ck_assert_str_eq(m[1].gathered, "");
	ck_assert_str_eq(m[2].bcast, "v");
	ck_assert(m[1].barrier_done);
	ck_assert_int_eq(m[1].poll_ret, 0);
	close_all(m, RANKS);
}
END_TEST

START_TEST(coord_wrong_token)
{
	struct member m[RANKS + 1];

	pick_addr();
	member_init(&m[0], true, -1);
	member_init(&m[1], false, -1);
	member_init(&m[2], false, -1);
	member_init(&m[3], false, -1);
	snprintf(m[3].rv.token, sizeof(m[3].rv.token), "other-job");
	run_all(m, RANKS + 1);
	ck_assert_int_eq(m[3].ret, -ECONNREFUSED);
	ck_assert_ptr_nonnull(strstr(m[3].e.msg, "this coordinator runs job 'nodrop', not "
				     "'other-job' (--token)"));
	ck_assert_int_eq(m[1].ret, 0);
	close_all(m, RANKS + 1);
}
END_TEST

START_TEST(coord_other_options)
{
	struct member m[RANKS];

	pick_addr();
	member_init(&m[0], true, -1);
	member_init(&m[1], false, -1);
	member_init(&m[2], false, -1);
	m[2].job.qps = 4;
	m[2].late = true;	/* the others have joined: they hear why the job is off */
	m[0].rv.timeout_s = m[1].rv.timeout_s = 3;
	run_all(m, RANKS);
	/* the odd one is refused, naming the option; the others hear why the job is off */
	ck_assert_int_eq(m[2].ret, -ECONNREFUSED);
	ck_assert_ptr_nonnull(strstr(m[2].e.msg, "--qps 1 vs 4 (rank 0's first)"));
	ck_assert_int_eq(m[1].ret, -ECONNABORTED);
	ck_assert_ptr_nonnull(strstr(m[1].e.msg, "--qps 1 vs 4"));
	close_all(m, RANKS);
}
END_TEST

/* Send @h to the coordinator at "127.0.0.1:PORT" in @where and read the one frame back. */
/* One whole frame from @fd, decoded into @m. */
static void raw_recv(int fd, struct nd_rv_msg *m)
{
	uint8_t buf[8192];
	uint32_t plen;
	uint16_t type;
	ssize_t n;

	n = recv(fd, buf, ND_RV_HDR, MSG_WAITALL);
	ck_assert_msg(n == ND_RV_HDR, "no answer from the coordinator");
	ck_assert_int_eq(nd_rv_frame(buf, ND_RV_HDR, &type, &plen) == -EPROTO, 0);
	ck_assert_uint_le(plen, sizeof(buf) - ND_RV_HDR);
	if (plen)
		ck_assert_int_eq(recv(fd, buf + ND_RV_HDR, plen, MSG_WAITALL), (ssize_t)plen);
	ck_assert_int_eq(nd_rv_frame(buf, ND_RV_HDR + plen, &type, &plen), 0);
	ck_assert_int_eq(nd_rv_msg_decode(type, buf + ND_RV_HDR, plen, RANKS + 1, m), 0);
}

/* Connect as a rank would and read the coordinator's challenge. */
static int raw_connect(const char *where, struct nd_rv_msg *challenge)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	struct timeval tv = { 10, 0 };
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sa.sin_port = htons((uint16_t)atoi(strrchr(where, ':') + 1));
	ck_assert_int_eq(setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)), 0);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	raw_recv(fd, challenge);
	ck_assert_int_eq(challenge->type, ND_RV_CHALLENGE);
	return fd;
}

static void raw_send(int fd, const struct nd_rv_hello *h)
{
	struct nd_wbuf w = { 0 };

	nd_rv_put_hello(&w, h);
	ck_assert_int_eq(send(fd, w.p, w.len, 0), (ssize_t)w.len);
	nd_wbuf_free(&w);
}

static void raw_hello(const char *where, const struct nd_rv_hello *h, struct nd_rv_msg *m)
{
	struct nd_rv_msg ch;
	int fd = raw_connect(where, &ch);

	raw_send(fd, h);
	raw_recv(fd, m);
	close(fd);
}

/*
 * A rank with other options says hello before rank 0's own participant does: the job is off
 * before rank 0 is in it, and rank 0 must still hear why (it used to wait out its timeout).
 */
START_TEST(coord_odd_rank_first)
{
	struct nd_stress_job job, odd;
	struct nd_coord *co;
	struct nd_err e = { 0 };
	struct nd_rv_hello h = { .rank = -1, .auth = ND_RV_AUTH_NONE };
	struct nd_rv_msg m;

	pick_addr();
	nd_stress_job_init(&job);
	odd = job;
	odd.qps = 4;
	ck_assert_msg(!nd_coord_start(addr, 2, "nodrop", &job, 5, &open_guard, &co, &e), "%s",
		      e.msg);
	snprintf(h.token, sizeof(h.token), "nodrop");
	h.job = odd;
	raw_hello(nd_coord_local_addr(co), &h, &m);
	ck_assert_int_eq(m.type, ND_RV_REJECT);
	ck_assert_ptr_nonnull(strstr(m.u.abort.reason, "--qps 1 vs 4 (rank 0's first)"));
	nd_rv_msg_free(&m);
	h.job = job;
	h.rank = 0;
	h.cookie = nd_coord_cookie(co);
	raw_hello(nd_coord_local_addr(co), &h, &m);
	ck_assert_int_eq(m.type, ND_RV_REJECT);
	ck_assert_ptr_nonnull(strstr(m.u.abort.reason, "--qps 1 vs 4"));
	nd_rv_msg_free(&m);
	nd_coord_stop(co, 0);
}
END_TEST

START_TEST(coord_missing_rank)
{
	struct member m[2];

	pick_addr();
	member_init(&m[0], true, -1);
	member_init(&m[1], false, -1);
	m[0].rv.timeout_s = m[1].rv.timeout_s = 1;
	run_all(m, 2);
	ck_assert_int_eq(m[1].ret, -ECONNREFUSED);
	ck_assert_ptr_nonnull(strstr(m[1].e.msg, "only 2 of 3 ranks joined job 'nodrop' "
				     "within 1 s"));
	ck_assert_int_ne(m[0].ret, 0);
	close_all(m, 2);
}
END_TEST

START_TEST(coord_rank_dies)
{
	struct member m[RANKS];

	pick_addr();
	member_init(&m[0], true, -1);
	member_init(&m[1], false, 1);
	member_init(&m[2], false, 2);
	m[2].die = true;
	run_all(m, RANKS);
	/* the steps still complete among the living, and everyone hears who went */
	ck_assert_int_eq(m[2].ret, 0);
	ck_assert_int_eq(m[0].ret, 0);
	ck_assert_int_eq(m[1].ret, 0);
	ck_assert_str_eq(m[0].gathered, "r0,r1,-");
	ck_assert_int_eq(m[1].poll_ret, -ECONNABORTED);
	ck_assert_ptr_nonnull(strstr(m[1].poll_msg, "rank 2 on "));
	ck_assert_ptr_nonnull(strstr(m[1].poll_msg, "went away mid-run (connection closed)"));
	close_all(m, RANKS);
}
END_TEST

START_TEST(coord_no_coordinator)
{
	struct member m;
	struct timespec t0, t1;

	pick_addr();
	member_init(&m, false, -1);
	m.rv.timeout_s = 1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	member_run(&m);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_int_eq(m.ret, -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(m.e.msg, "no coordinator answered at"));
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 4);
}
END_TEST

/* ---- who may join: the shared key (MUNGE needs munged: the VM tier's Slurm guests) ---- */

static char key_a[64], key_b[64];

static void write_key(char *path, size_t len, const char *hex, mode_t mode)
{
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/nd-key-XXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	f = fdopen(fd, "w");
	fprintf(f, "%s\n", hex);
	fclose(f);
	ck_assert_int_eq(chmod(path, mode), 0);
}

static void keys(void)
{
	write_key(key_a, sizeof(key_a), "00112233445566778899aabbccddeeff"
		  "00112233445566778899aabbccddeeff", 0600);
	write_key(key_b, sizeof(key_b), "ffeeddccbbaa99887766554433221100"
		  "ffeeddccbbaa99887766554433221100", 0600);
}

static char logged[2048];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

static void log_line(void *arg, const char *line)
{
	(void)arg;
	pthread_mutex_lock(&log_lock);
	snprintf(logged + strlen(logged), sizeof(logged) - strlen(logged), "%s\n", line);
	pthread_mutex_unlock(&log_lock);
}

static void keyed(struct member *m, const char *key)
{
	m->rv.auth = ND_RV_AUTH_AUTO;	/* a key given: the key */
	m->rv.require_auth = true;
	snprintf(m->rv.key_file, sizeof(m->rv.key_file), "%s", key);
	m->rv.log = log_line;
}

/* The job's key joins; another key, no key, and a key others can read do not. */
START_TEST(coord_key)
{
	struct member m[RANKS + 3];
	struct timespec t0, t1;

	pick_addr();
	keys();
	logged[0] = '\0';
	for (int i = 0; i < RANKS + 3; i++) {
		member_init(&m[i], i == 0, -1);
		keyed(&m[i], i == RANKS + 2 ? key_b : key_a);
	}
	m[RANKS].stall = true;			/* a rogue that connects and says nothing */
	m[RANKS + 1].rv.key_file[0] = '\0';	/* the token alone, as the attack had it */
	m[RANKS + 1].rv.auth = ND_RV_AUTH_NONE;
	m[RANKS + 1].rv.require_auth = false;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	run_all(m, RANKS + 3);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ck_assert_msg(!m[0].ret && !m[1].ret && !m[2].ret, "%s / %s / %s", m[0].e.msg, m[1].e.msg,
		      m[2].e.msg);
	ck_assert_str_eq(m[0].gathered, "r0,r1,r2");
	/* the rogue that said nothing held no slot: the job was done within its 5-s timeout */
	ck_assert_int_eq(m[RANKS].ret, 0);
	ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 5);
	ck_assert_int_eq(m[RANKS + 2].ret, -ECONNREFUSED);
	ck_assert_msg(strstr(m[RANKS + 2].e.msg, "does not match the job's key"), "%s",
		      m[RANKS + 2].e.msg);
	ck_assert_int_eq(m[RANKS + 1].ret, -EACCES);
	ck_assert_msg(strstr(m[RANKS + 1].e.msg, "asks for the job's key: give --key-file"),
		      "%s", m[RANKS + 1].e.msg);
	/* the coordinator said whom it refused, from where */
	ck_assert_msg(strstr(logged, "refused 127.0.0.1:") &&
		      strstr(logged, "does not match the job's key"), "%s", logged);
	close_all(m, RANKS + 3);
	unlink(key_b);

	/* a key file others can read, or that holds no key */
	member_init(&m[0], false, -1);
	keyed(&m[0], key_a);
	ck_assert_int_eq(chmod(key_a, 0644), 0);
	member_run(&m[0]);
	ck_assert_int_eq(m[0].ret, -EPERM);
	ck_assert_msg(strstr(m[0].e.msg, "mode 644 lets others read the key: chmod 600"), "%s",
		      m[0].e.msg);
	unlink(key_a);
	write_key(key_a, sizeof(key_a), "not a key", 0600);
	keyed(&m[0], key_a);
	member_run(&m[0]);
	ck_assert_int_eq(m[0].ret, -EINVAL);
	ck_assert_msg(strstr(m[0].e.msg, "expected 64 hex digits and a newline (make one: "
			     "openssl rand -hex 32"), "%s", m[0].e.msg);
	unlink(key_a);
}
END_TEST

/*
 * A recorded exchange answers no later challenge; a peer that connects and says nothing holds
 * no slot; a coordinator that cannot prove the key is not the job's.
 */
START_TEST(coord_key_replay)
{
	struct nd_stress_job job;
	struct nd_rv_guard g = { .auth = ND_RV_AUTH_KEY, .log = log_line };
	struct nd_rv_hello h = { .rank = -1, .auth = ND_RV_AUTH_KEY };
	struct nd_rv_msg ch, m;
	struct nd_coord *co;
	struct nd_err e = { 0 };
	int fd, silent;

	pick_addr();
	keys();
	logged[0] = '\0';
	ck_assert_int_eq(nd_rv_key_load(key_a, g.key, &e), 0);
	nd_stress_job_init(&job);
	ck_assert_msg(!nd_coord_start(addr, 3, "nodrop", &job, 5, &g, &co, &e), "%s", e.msg);
	silent = raw_connect(nd_coord_local_addr(co), &ch);	/* and never a word */
	nd_rv_msg_free(&ch);
	snprintf(h.token, sizeof(h.token), "nodrop");
	h.job = job;
	/* a hello cut short, then gone: no slot taken, nothing held */
	{
		struct nd_wbuf w = { 0 };

		fd = raw_connect(nd_coord_local_addr(co), &ch);
		nd_rv_put_hello(&w, &h);
		ck_assert_int_eq(send(fd, w.p, w.len / 2, 0), (ssize_t)(w.len / 2));
		nd_wbuf_free(&w);
		close(fd);
	}
	/* the first exchange, recorded: a proof for its own challenge, accepted */
	fd = raw_connect(nd_coord_local_addr(co), &ch);
	ck_assert_int_eq(ch.u.challenge.auth, ND_RV_AUTH_KEY);
	ck_assert_int_eq(nd_rv_nonce(h.nonce, &e), 0);
	ck_assert_int_eq(nd_rv_hello_mac(g.key, ch.u.challenge.nonce, &h, h.mac, &e), 0);
	raw_send(fd, &h);
	/* played again on a new connection: its challenge is another nonce */
	raw_hello(nd_coord_local_addr(co), &h, &m);
	ck_assert_int_eq(m.type, ND_RV_REJECT);
	ck_assert_msg(strstr(m.u.abort.reason, "another key, or an exchange recorded before"),
		      "%s", m.u.abort.reason);
	nd_rv_msg_free(&m);
	/* a proof of the MUNGE kind to a coordinator of keys */
	h.auth = ND_RV_AUTH_MUNGE;
	raw_hello(nd_coord_local_addr(co), &h, &m);
	ck_assert_int_eq(m.type, ND_RV_REJECT);
	ck_assert_msg(strstr(m.u.abort.reason, "the job takes key proofs, it sent munge"), "%s",
		      m.u.abort.reason);
	nd_rv_msg_free(&m);
	close(fd);
	close(silent);
	nd_coord_stop(co, 0);
	ck_assert_msg(strstr(logged, "an exchange recorded before"), "%s", logged);
	unlink(key_a);
	unlink(key_b);
}
END_TEST

/* A job that would run unauthenticated: loud, and refused when auth is required. */
START_TEST(coord_unauthenticated)
{
	struct member m;

	pick_addr();
	logged[0] = '\0';
	member_init(&m, true, -1);
	m.rv.log = log_line;
	m.rv.require_auth = true;
	m.rv.timeout_s = 1;
	member_run(&m);
	ck_assert_int_eq(m.ret, -EACCES);
	ck_assert_msg(strstr(m.e.msg, "--require-auth: this job would run unauthenticated"),
		      "%s", m.e.msg);
	member_init(&m, true, -1);
	m.rv.log = log_line;
	m.rv.timeout_s = 1;
	member_run(&m);
	ck_assert_msg(strstr(logged, "warning: job is UNAUTHENTICATED"), "%s", logged);
	if (m.c)
		m.c->ops->close(m.c);
	/* MUNGE asked for where no munged runs: said, with the way to get it */
	setenv("NODROP_MUNGE_SOCKET", "/nonexistent/munge.socket.2", 1);
	member_init(&m, true, -1);
	m.rv.auth = ND_RV_AUTH_MUNGE;
	member_run(&m);
	unsetenv("NODROP_MUNGE_SOCKET");
	ck_assert_int_eq(m.ret, -ENOPKG);
	ck_assert_msg(strstr(m.e.msg, "--auth munge: no MUNGE here"), "%s", m.e.msg);
}
END_TEST

/* Bounded claims: rank 0 refuses results no port could have carried, naming why. */
START_TEST(claims_bounded)
{
	struct nd_stress_job job;
	struct nd_gen_rank_info ann = { .dev = "mlx5_0", .port = 1 };
	struct nd_gen_flow_stats flow = { .flow = 1, .messages = 1000000 };
	struct nd_gen_rank_result res = { .flows = &flow, .n_flows = 1 };
	char why[256];

	nd_stress_job_init(&job);
	job.duration_s = 10;
	ck_assert_int_eq(nd_sizes_parse("64K", &job.sizes, NULL), 0);
	snprintf(res.info.dev, sizeof(res.info.dev), "mlx5_0");
	res.info.port = 1;
	res.info.link_gbps = 100;
	/* 100 Gb/s for 10 s (+5 s of ramp): 1.875e11 bytes at most; 6.5e10 is fine */
	flow.bytes = 1000000ull * 65536;
	ck_assert_int_eq(nd_gen_result_plausible(&res, &job, &ann, why, sizeof(why)), 0);
	/* ten times the line rate */
	flow.messages = 30000000;
	flow.bytes = flow.messages * 65536;
	ck_assert_int_eq(nd_gen_result_plausible(&res, &job, &ann, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, "its 100 Gb/s port carries at most"), "%s", why);
	/* a port faster than any, to make room for it */
	res.info.link_gbps = 100000;
	ck_assert_int_eq(nd_gen_result_plausible(&res, &job, &ann, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, "claims a 100000 Gb/s port"), "%s", why);
	res.info.link_gbps = 100;
	/* more bytes than its messages hold */
	flow.messages = 10;
	flow.bytes = 10 * 65536 + 1;
	ck_assert_int_eq(nd_gen_result_plausible(&res, &job, &ann, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, "in 10 messages of at most 65536"), "%s", why);
	/* a device it never announced */
	flow.bytes = 10;
	snprintf(res.info.dev, sizeof(res.info.dev), "mlx5_7");
	ck_assert_int_eq(nd_gen_result_plausible(&res, &job, &ann, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, "reports port mlx5_7/1, and announced mlx5_0/1"), "%s", why);
	/* a run of iterations: no more messages than it sends */
	snprintf(res.info.dev, sizeof(res.info.dev), "mlx5_0");
	job.duration_s = 0;
	job.iters = 100;
	job.qps = 2;
	flow.messages = 201;
	flow.bytes = 201;
	ck_assert_int_eq(nd_gen_result_plausible(&res, &job, &ann, why, sizeof(why)), -EPROTO);
	ck_assert_msg(strstr(why, "reports 201 messages; the job sends at most 200"), "%s", why);
}
END_TEST

Suite *suite_gen_coord(void)
{
	Suite *s = suite_create("gen_coord");
	TCase *tc = tcase_create("coord");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, coord_collectives);
	tcase_add_test(tc, coord_wrong_token);
	tcase_add_test(tc, coord_other_options);
	tcase_add_test(tc, coord_odd_rank_first);
	tcase_add_test(tc, coord_missing_rank);
	tcase_add_test(tc, coord_rank_dies);
	tcase_add_test(tc, coord_no_coordinator);
	tcase_add_test(tc, coord_key);
	tcase_add_test(tc, coord_key_replay);
	tcase_add_test(tc, coord_unauthenticated);
	tcase_add_test(tc, claims_bounded);
	suite_add_tcase(s, tc);
	return s;
}
