/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * For the targets whose parser reads files, not a buffer: a private directory made once per
 * process, and an input cut into files there. Each file ends at a line "%%" (the separator's
 * first newline stays with the file), so a shipped file alone is an input of one file.
 */
#ifndef ND_FUZZ_FILES_H
#define ND_FUZZ_FILES_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FUZZ_SEP "\n%%\n"

static char fuzz_dir[PATH_MAX - 64];
static const char *fuzz_fmt;	/* the names fuzz_files() used, and how many at most */
static size_t fuzz_max;

/* File @i's path, its name made by @fmt ("f%zu.map") in the directory. */
static inline void fuzz_path(char *buf, size_t len, const char *fmt, size_t i)
{
	char name[64];

	snprintf(name, sizeof(name), fmt, i);
	snprintf(buf, len, "%s/%s", fuzz_dir, name);
}

/* At exit (libFuzzer's end of -max_total_time or -runs): the files, then the directory. */
static void fuzz_dir_remove(void)
{
	char path[PATH_MAX];
	size_t i;

	for (i = 0; fuzz_fmt && i < fuzz_max; i++) {
		fuzz_path(path, sizeof(path), fuzz_fmt, i);
		unlink(path);
	}
	rmdir(fuzz_dir);
}

/* Make the directory, under TMPDIR or /tmp, named after the target; gone again at exit. */
static inline void fuzz_dir_make(const char *target)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/nd-fuzz-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp",
		 target);
	if (!mkdtemp(fuzz_dir) || atexit(fuzz_dir_remove))
		abort();
}

/* Files 0..@max-1 removed, then the input written as up to @max files; returns how many. */
static inline size_t fuzz_files(const uint8_t *data, size_t size, const char *fmt, size_t max)
{
	const uint8_t *p = data, *end = data + size, *cut;
	char path[PATH_MAX];
	size_t n = 0, len;
	FILE *f;

	fuzz_fmt = fmt;
	if (max > fuzz_max)
		fuzz_max = max;
	for (n = 0; n < max; n++) {
		fuzz_path(path, sizeof(path), fmt, n);
		unlink(path);
	}
	for (n = 0; n < max; p = cut + sizeof(FUZZ_SEP) - 1) {
		cut = memmem(p, (size_t)(end - p), FUZZ_SEP, sizeof(FUZZ_SEP) - 1);
		len = cut ? (size_t)(cut - p) + 1 : (size_t)(end - p);
		fuzz_path(path, sizeof(path), fmt, n++);
		f = fopen(path, "w");
		if (!f || fwrite(p, 1, len, f) != len || fclose(f))
			abort();
		if (!cut)
			break;
	}
	return n;
}

#endif
