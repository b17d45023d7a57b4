// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The apply lock. Ports belong to a network namespace, not to a state directory, so the lock
 * that keeps two applies apart is an abstract UNIX socket name, which the kernel scopes to the
 * network namespace: whoever has it bound holds the lock, a kill -9 releases it, it needs no
 * file or privilege, and its holder's pid can be asked of the kernel (SO_PEERCRED). The state
 * directory keeps its own flock for its journal (two namespaces may share a directory).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "core/internal.h"
#include "lock.h"

static int mkdir_p(const char *dir, struct nd_err *e)
{
	char path[PATH_MAX], *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return nd_err_set(e, -ENAMETOOLONG, "state directory path too long");
	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) && errno != EEXIST)
			goto fail;
		*p = '/';
	}
	if (mkdir(path, 0700) && errno != EEXIST)
		goto fail;
	return 0;
fail:
	return nd_err_set(e, -errno, "cannot create the state directory %s: %s%s", path,
			  strerror(errno), errno == EACCES ? "; run as root or give --state-dir" :
			  "");
}

static bool timed_out(const struct timespec *start, int wait_s)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec - start->tv_sec >= wait_s;
}

static socklen_t lock_addr(struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	/* sun_path[0] stays '\0': the abstract namespace */
	memcpy(sa->sun_path + 1, ND_LOCK_NAME, strlen(ND_LOCK_NAME));
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(ND_LOCK_NAME));
}

/* The pid that holds the host lock, or 0 when it cannot be told. */
static int host_holder(void)
{
	struct sockaddr_un sa;
	socklen_t len = lock_addr(&sa), clen;
	struct ucred cred = { 0 };
	int fd;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return 0;
	clen = sizeof(cred);
	if (connect(fd, (struct sockaddr *)&sa, len) ||
	    getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen))
		cred.pid = 0;
	close(fd);
	return cred.pid;
}

static int host_lock(int wait_s, int *fdp, struct nd_err *e)
{
	struct sockaddr_un sa;
	socklen_t len = lock_addr(&sa);
	struct timespec start;
	int fd, pid;

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return nd_err_set(e, -errno, "cannot create the apply lock's socket: %s",
				  strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &start);
	/* listen() only so that a waiter can ask who holds it */
	while (bind(fd, (struct sockaddr *)&sa, len) || listen(fd, 1)) {
		if (errno != EADDRINUSE) {
			close(fd);
			return nd_err_set(e, -errno, "cannot take the apply lock @%s: %s",
					  ND_LOCK_NAME, strerror(errno));
		}
		if (timed_out(&start, wait_s)) {
			close(fd);
			pid = host_holder();
			if (pid)
				return nd_err_set(e, -EBUSY, "another nodrop apply or rollback "
						  "(pid %d) is changing this host's ports (lock @%s);"
						  " let it finish, or wait longer with --wait", pid,
						  ND_LOCK_NAME);
			return nd_err_set(e, -EBUSY, "another nodrop apply or rollback is "
					  "changing this host's ports (lock @%s); let it finish, or "
					  "wait longer with --wait", ND_LOCK_NAME);
		}
		usleep(100 * 1000);
	}
	*fdp = fd;
	return 0;
}

static int dir_lock(const char *dir, int wait_s, int *fdp, struct nd_err *e)
{
	char path[PATH_MAX], pid[32];
	struct timespec start;
	ssize_t n;
	int fd, ret;

	ret = mkdir_p(dir, e);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "%s/lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return nd_err_set(e, -errno, "cannot open the lock %s: %s", path, strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK) {
			ret = nd_err_set(e, -errno, "cannot lock %s: %s", path, strerror(errno));
			close(fd);
			return ret;
		}
		if (timed_out(&start, wait_s)) {
			n = pread(fd, pid, sizeof(pid) - 1, 0);
			pid[n > 0 ? n : 0] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
			close(fd);
			return nd_err_set(e, -EBUSY, "another nodrop apply or rollback (pid %s) holds "
					  "%s; let it finish, or wait longer with --wait",
					  pid[0] ? pid : "unknown", path);
		}
		usleep(100 * 1000);
	}
	/* the pid is for the message above, in whoever waits next */
	if (ftruncate(fd, 0) == 0) {
		n = snprintf(pid, sizeof(pid), "%d\n", (int)getpid());
		if (pwrite(fd, pid, (size_t)n, 0) != n)
			pid[0] = '\0';
	}
	*fdp = fd;
	return 0;
}

int nd_lock_take(const char *state_dir, int wait_s, struct nd_lock *l, struct nd_err *e)
{
	int ret;

	l->host_fd = l->dir_fd = -1;
	ret = host_lock(wait_s, &l->host_fd, e);
	if (!ret)
		ret = dir_lock(state_dir, wait_s, &l->dir_fd, e);
	if (ret)
		nd_lock_drop(l);
	return ret;
}

void nd_lock_drop(struct nd_lock *l)
{
	/* closing releases both: the socket's name and the flock */
	if (l->dir_fd >= 0)
		close(l->dir_fd);
	if (l->host_fd >= 0)
		close(l->host_fd);
	l->host_fd = l->dir_fd = -1;
}
