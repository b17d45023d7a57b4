// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a profile's file: a whole regular file of at most ND_PROFILE_MAX_BYTES (no FIFO,
 * no directory, no file that grows while read), what to do when one is refused, and the
 * directory an extends path is relative to.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/internal.h"
#include "profile.h"

/* Open @path if it is a regular file within the limit: the fd, or -errno and @why. */
static int open_regular(const char *path, struct stat *st, char *why, size_t size)
{
	int fd, ret;

	/* O_NONBLOCK: a FIFO must not hang the open; it is refused below */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		ret = -errno;
		snprintf(why, size, "cannot open: %s", strerror(-ret));
		return ret;
	}
	if (fstat(fd, st) < 0) {
		ret = -errno;
		snprintf(why, size, "cannot read: %s", strerror(-ret));
		close(fd);
		return ret;
	}
	if (!S_ISREG(st->st_mode)) {
		snprintf(why, size, "is not a regular file");
		close(fd);
		return S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	}
	if (st->st_size > ND_PROFILE_MAX_BYTES) {
		snprintf(why, size, "is %lld bytes, over the %d-byte limit for a profile",
			 (long long)st->st_size, ND_PROFILE_MAX_BYTES);
		close(fd);
		return -E2BIG;
	}
	return fd;
}

/* Read all of @fd into a new buffer; a file that grew past the limit since fstat() is refused. */
static int read_all(int fd, char **out, size_t *len, char *why, size_t size)
{
	ssize_t n;
	size_t got = 0;
	char *buf;
	int ret;

	/* one byte more than allowed, to notice a file that grew since fstat() */
	buf = malloc(ND_PROFILE_MAX_BYTES + 1);
	if (!buf) {
		snprintf(why, size, "out of memory");
		return -ENOMEM;
	}
	do {
		n = read(fd, buf + got, ND_PROFILE_MAX_BYTES + 1 - got);
		if (n > 0)
			got += (size_t)n;
	} while ((n > 0 && got <= ND_PROFILE_MAX_BYTES) || (n < 0 && errno == EINTR));
	ret = n < 0 ? -errno : got > ND_PROFILE_MAX_BYTES ? -E2BIG : 0;
	if (ret) {
		free(buf);
		if (ret == -E2BIG)
			snprintf(why, size, "is over the %d-byte limit for a profile",
				 ND_PROFILE_MAX_BYTES);
		else
			snprintf(why, size, "cannot read: %s", strerror(-ret));
		return ret;
	}
	*out = buf;
	*len = got;
	return 0;
}

int pf_slurp(const char *path, char **out, size_t *len, struct stat *st, char *why, size_t size)
{
	int fd = open_regular(path, st, why, size), ret;

	if (fd < 0)
		return fd;
	ret = read_all(fd, out, len, why, size);
	close(fd);
	return ret;
}

/* What to do about a file that pf_slurp() refused. */
const char *pf_file_fix(int code, bool extended)
{
	switch (code) {
	case -ENOENT:
		return extended ? "extends paths are relative to the extending file's directory" :
		       "check the path";
	case -EACCES:
	case -EPERM:
		return "check the file's permissions";
	case -E2BIG:
		return "a profile is a few kilobytes of YAML";
	case -EISDIR:
	case -EINVAL:
		return "give a profile's .yaml file";
	default:
		return "check the file";
	}
}

/* The directory of @path, for what it extends: "" means the current one. */
void pf_dir_of(const char *path, char *buf, size_t size)
{
	const char *slash = strrchr(path, '/');

	if (!slash)
		buf[0] = '\0';
	else if (slash == path)
		nd_strlcpy(buf, "/", size);
	else
		snprintf(buf, size, "%.*s", (int)(slash - path), path);
}
