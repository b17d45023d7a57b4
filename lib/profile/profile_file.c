// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Reading a profile's file: a whole regular file of at most ND_PROFILE_MAX_BYTES (no FIFO,
 * no directory, none that grows past the limit while read), what to do when one is refused,
 * and the directory an extends path is relative to.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "core/internal.h"
#include "profile_int.h"

int pf_slurp(const char *path, char **out, size_t *len, struct stat *st, char *why, size_t size)
{
	int ret;

	st->st_size = 0;
	ret = nd_file_read(path, ND_PROFILE_MAX_BYTES, out, len, st);
	switch (ret) {
	case 0:
		break;
	case -EISDIR:
	case -EINVAL:
		snprintf(why, size, "is not a regular file");
		break;
	case -E2BIG:
		if (st->st_size > ND_PROFILE_MAX_BYTES)
			snprintf(why, size, "is %lld bytes, over the %d-byte limit for a profile",
				 (long long)st->st_size, ND_PROFILE_MAX_BYTES);
		else
			snprintf(why, size, "is over the %d-byte limit for a profile",
				 ND_PROFILE_MAX_BYTES);
		break;
	case -ENOMEM:
		snprintf(why, size, "out of memory");
		break;
	default:
		snprintf(why, size, "cannot open: %s", strerror(-ret));
	}
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

