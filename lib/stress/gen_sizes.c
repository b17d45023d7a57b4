// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Message sizes: one, a sweep of powers of two, or a distribution read from a file. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

#define DIST_FILE_MAX (256 * 1024)

/* "4096", "64K", "1M", "1G" (binary units); 0 when it is not a size. */
static uint64_t parse_size(const char *s, const char **end)
{
	unsigned long long v;
	char *e;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &e, 10);
	if (errno || v > ND_MSG_MAX)
		return 0;
	switch (*e) {
	case 'k': case 'K':
		v <<= 10;
		e++;
		break;
	case 'm': case 'M':
		v <<= 20;
		e++;
		break;
	case 'g': case 'G':
		v <<= 30;
		e++;
		break;
	}
	*end = e;
	return v <= ND_MSG_MAX ? v : 0;
}

static int bad_size(const char *s, struct nd_err *e)
{
	return nd_err_set(e, -EINVAL, "--size: '%s' is not a size (1..1G, K/M/G binary units), "
			  "a sweep such as 64-1M, or @FILE", s);
}

static int parse_sweep(const char *s, uint64_t lo, const char *rest, struct nd_sizes *z,
		       struct nd_err *e)
{
	uint64_t hi, v;

	hi = parse_size(rest, &rest);
	if (!hi || *rest)
		return bad_size(s, e);
	if (hi <= lo || hi > ND_MSG_MAX)
		return nd_err_set(e, -EINVAL, "--size %s: a sweep goes from a smaller to a larger "
				  "size, at most 1G", s);
	z->kind = ND_SIZES_SWEEP;
	for (v = lo; v < hi && z->n < ND_SIZES_MAX - 1; v *= 2) {
		z->size[z->n] = (uint32_t)v;
		z->weight[z->n++] = 1;
	}
	z->size[z->n] = (uint32_t)hi;
	z->weight[z->n++] = 1;
	return 0;
}

static int read_file(const char *path, char **text, struct nd_err *e)
{
	size_t len;
	int ret = nd_file_read(path, DIST_FILE_MAX, text, &len, NULL);

	if (ret == -E2BIG)
		return nd_err_set(e, -EINVAL, "--size @%s: larger than 256 KiB", path);
	if (ret == -EISDIR || ret == -EINVAL)
		return nd_err_set(e, -EINVAL, "--size @%s: not a regular file", path);
	if (ret)
		return nd_err_set(e, ret, "--size @%s: cannot open the size distribution: %s",
				  path, strerror(-ret));
	return 0;
}

int nd_sizes_parse(const char *s, struct nd_sizes *z, struct nd_err *e)
{
	const char *rest;
	uint64_t v;
	char *text = NULL;
	int ret;

	memset(z, 0, sizeof(*z));
	if (s[0] == '@') {
		ret = read_file(s + 1, &text, e);
		if (ret)
			return ret;
		ret = nd_sizes_parse_dist(text, s + 1, z, e);
		free(text);
		return ret;
	}
	v = parse_size(s, &rest);
	if (!v)
		return bad_size(s, e);
	if (*rest == '-')
		return parse_sweep(s, v, rest + 1, z, e);
	if (*rest)
		return bad_size(s, e);
	z->kind = ND_SIZES_FIXED;
	z->size[0] = (uint32_t)v;
	z->weight[0] = 1;
	z->n = 1;
	return 0;
}

/* One "SIZE WEIGHT" line (comments and blank lines already skipped). */
static int dist_line(char *line, const char *name, unsigned int lineno, struct nd_sizes *z,
		     struct nd_err *e)
{
	const char *rest;
	char *end;
	uint64_t v;
	double w;

	v = parse_size(line, &rest);
	if (!v || (*rest != ' ' && *rest != '\t'))
		return nd_err_set(e, -EINVAL, "%s:%u: want 'SIZE WEIGHT' (such as '4096 0.25'), "
				  "not '%.40s'", name, lineno, line);
	errno = 0;
	w = strtod(rest, &end);
	while (*end == ' ' || *end == '\t')
		end++;
	if (errno || end == rest || *end || !isfinite(w) || w <= 0)
		return nd_err_set(e, -EINVAL, "%s:%u: the weight must be a number above 0",
				  name, lineno);
	if (z->n == ND_SIZES_MAX)
		return nd_err_set(e, -EINVAL, "%s:%u: more than %d sizes", name, lineno,
				  ND_SIZES_MAX);
	z->size[z->n] = (uint32_t)v;
	z->weight[z->n++] = w;
	return 0;
}

int nd_sizes_parse_dist(const char *text, const char *name, struct nd_sizes *z,
			struct nd_err *e)
{
	unsigned int lineno = 0;
	char line[256];
	const char *p = text, *nl;
	size_t len;
	int ret;

	memset(z, 0, sizeof(*z));
	z->kind = ND_SIZES_DIST;
	while (*p) {
		nl = strchr(p, '\n');
		len = nl ? (size_t)(nl - p) : strlen(p);
		lineno++;
		if (len >= sizeof(line))
			return nd_err_set(e, -EINVAL, "%s:%u: line too long", name, lineno);
		memcpy(line, p, len);
		line[len] = '\0';
		p += len + (nl ? 1 : 0);
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		len = strspn(line, " \t\r");
		if (!line[len])
			continue;
		line[strcspn(line, "\r")] = '\0';
		ret = dist_line(line + len, name, lineno, z, e);
		if (ret)
			return ret;
	}
	if (!z->n)
		return nd_err_set(e, -EINVAL, "%s: no sizes (lines 'SIZE WEIGHT')", name);
	return 0;
}

uint32_t nd_sizes_max(const struct nd_sizes *z)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < z->n && i < ND_SIZES_MAX; i++)
		if (z->size[i] > m)
			m = z->size[i];
	return m;
}

uint32_t nd_sizes_min(const struct nd_sizes *z)
{
	uint32_t m = 0;
	size_t i;

	for (i = 0; i < z->n && i < ND_SIZES_MAX; i++)
		if (!m || z->size[i] < m)
			m = z->size[i];
	return m;
}
