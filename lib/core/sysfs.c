// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The one rooted accessor for /sys, /proc, configfs and debugfs. Every kernel file path goes
 * through here, so the same code reads fixture trees in tests (NODROP_SYSROOT=DIR) and the real
 * machine.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nodrop.h"

static char sysroot[PATH_MAX];
static bool sysroot_read;

void nd_sysroot_reset(void)
{
	const char *env = getenv("NODROP_SYSROOT");
	size_t len;

	sysroot[0] = '\0';
	if (env && *env) {
		snprintf(sysroot, sizeof(sysroot), "%s", env);
		/* "DIR/" and "DIR" must root the same way */
		len = strlen(sysroot);
		while (len > 1 && sysroot[len - 1] == '/')
			sysroot[--len] = '\0';
	}
	sysroot_read = true;
}

const char *nd_sysroot(void)
{
	if (!sysroot_read)
		nd_sysroot_reset();
	return sysroot;
}

static int vpath(char *buf, size_t len, const char *fmt, va_list ap)
{
	char rel[PATH_MAX];
	int n;

	n = vsnprintf(rel, sizeof(rel), fmt, ap);
	if (n < 0 || (size_t)n >= sizeof(rel))
		return -ENAMETOOLONG;
	/* a name from outside (an ifname, a device) must not climb out of the root */
	n = (int)strlen(rel);
	if (rel[0] != '/' || strstr(rel, "/../") || (n >= 3 && !strcmp(rel + n - 3, "/..")))
		return -EINVAL;
	n = snprintf(buf, len, "%s%s", nd_sysroot(), rel);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* Resolve the caller's format and arguments into @path, returning the error from the caller. */
#define ROOTED(path, fmt)						\
	do {								\
		va_list ap_;						\
		int ret_;						\
									\
		va_start(ap_, fmt);					\
		ret_ = vpath(path, sizeof(path), fmt, ap_);		\
		va_end(ap_);						\
		if (ret_)						\
			return ret_;					\
	} while (0)

int nd_sys_path(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(buf, len, fmt, ap);
	va_end(ap);
	return ret;
}

static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	if (len == 0)
		return -EINVAL;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = read(fd, buf, len - 1);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return (int)n;
}

int nd_sys_read(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];

	ROOTED(path, fmt);
	return read_text(path, buf, len);
}

int nd_sys_read_u64(uint64_t *val, const char *fmt, ...)
{
	char path[PATH_MAX], buf[64], *end;
	unsigned long long v;
	int ret;

	ROOTED(path, fmt);
	ret = read_text(path, buf, sizeof(buf));
	if (ret < 0)
		return ret;
	errno = 0;
	v = strtoull(buf, &end, 0);
	if (errno || end == buf || *end != '\0' || buf[0] == '-')
		return -EINVAL;
	*val = v;
	return 0;
}

/* The whole target, or -ENAMETOOLONG: a cut-off target would name another file. */
static int read_link(const char *path, char *buf, size_t len)
{
	ssize_t n;

	if (len == 0)
		return -EINVAL;
	n = readlink(path, buf, len);
	if (n < 0)
		return -errno;
	/* readlink() fills @len bytes both when the target fits exactly and when it is longer */
	if ((size_t)n >= len)
		return -ENAMETOOLONG;
	buf[n] = '\0';
	return 0;
}

int nd_sys_readlink(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX];

	ROOTED(path, fmt);
	return read_link(path, buf, len);
}

int nd_sys_link_name(char *buf, size_t len, const char *fmt, ...)
{
	char path[PATH_MAX], target[PATH_MAX];
	int ret;

	ROOTED(path, fmt);
	ret = read_link(path, target, sizeof(target));
	if (ret)
		return ret;
	if (snprintf(buf, len, "%s", basename(target)) >= (int)len)
		return -ENAMETOOLONG;
	return 0;
}

ssize_t nd_sys_read_bin(void *buf, size_t len, off_t off, const char *fmt, ...)
{
	char path[PATH_MAX];
	size_t got = 0;
	ssize_t n = 0;
	int fd;

	ROOTED(path, fmt);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* one pread() may return less than asked without being at the end; only 0 is the end */
	while (got < len) {
		n = pread(fd, (char *)buf + got, len - got, off + (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (ssize_t)got;
}

/* One write() of @value, as sysfs and debugfs attributes want it; no O_CREAT: absent is ENOENT. */
int nd_sys_write(const char *value, const char *fmt, ...)
{
	char path[PATH_MAX];
	size_t len = strlen(value);
	ssize_t n;
	int fd;

	ROOTED(path, fmt);
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	do {
		n = write(fd, value, len);
	} while (n < 0 && errno == EINTR);
	if (n < 0) {
		n = -errno;
		close(fd);
		return (int)n;
	}
	close(fd);
	/* the attribute's store() took only part of the value: not what was asked */
	return (size_t)n == len ? 0 : -EIO;
}

bool nd_sys_exists(const char *fmt, ...)
{
	char path[PATH_MAX];
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vpath(path, sizeof(path), fmt, ap);
	va_end(ap);
	return ret == 0 && access(path, F_OK) == 0;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int nd_sys_dir(nd_sys_dir_fn fn, void *data, const char *fmt, ...)
{
	char path[PATH_MAX], **names = NULL;
	size_t n = 0, cap = 0, i;
	struct dirent *de;
	int ret = 0;
	DIR *d;

	ROOTED(path, fmt);
	d = opendir(path);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (n == cap) {
			char **grown = realloc(names, (cap = cap ? cap * 2 : 16) * sizeof(*names));

			if (!grown) {
				ret = -ENOMEM;
				goto out;
			}
			names = grown;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			ret = -ENOMEM;
			goto out;
		}
		n++;
	}
	/* readdir order is the filesystem's; callers and tests want a stable one */
	qsort(names, n, sizeof(*names), name_cmp);
	for (i = 0; i < n && !ret; i++)
		ret = fn(names[i], data);
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return ret;
}
