// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a whole small input file (a profile, a counter map, a scenario, a size or flow
 * distribution): a regular file only (a FIFO must not hang us, a directory is not input), at
 * most a given size, read into a buffer as large as the file (maps are read by every
 * `nodrop counters` process: no megabyte buffer per file).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int read_fd(int fd, size_t size_hint, size_t max, char **out, size_t *len)
{
	/* one byte more than the file's size: a file that grew since fstat() is still read whole */
	size_t cap = (size_hint < max ? size_hint : max) + 1, got = 0;
	char *buf = malloc(cap + 1), *p;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		if (got > max)
			break;
		/*
		 * All fstat() said, and not the byte more that was asked for: the end, without a
		 * read to see it (a file that grew gives that byte, a short read goes on).
		 */
		if (got == size_hint && got < cap)
			break;
		if (got == cap) {
			cap = cap * 2 < max + 1 ? cap * 2 : max + 1;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				return -ENOMEM;
			}
			buf = p;
		}
	}
	if (n < 0 || got > max) {
		int ret = n < 0 ? -errno : -E2BIG;

		free(buf);
		return ret;
	}
	buf[got] = '\0';
	*out = buf;
	*len = got;
	return 0;
}

int nd_file_readat(int dirfd, const char *path, size_t max, char **out, size_t *len,
		   struct stat *st)
{
	struct stat own;
	int fd, ret;

	if (!st)
		st = &own;
	/* O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below */
	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, st) < 0)
		ret = -errno;
	else if (!S_ISREG(st->st_mode))
		ret = S_ISDIR(st->st_mode) ? -EISDIR : -EINVAL;
	else if ((uint64_t)st->st_size > max)
		ret = -E2BIG;
	else
		ret = read_fd(fd, (size_t)st->st_size, max, out, len);
	close(fd);
	return ret;
}

int nd_file_read(const char *path, size_t max, char **out, size_t *len, struct stat *st)
{
	return nd_file_readat(AT_FDCWD, path, max, out, len, st);
}
