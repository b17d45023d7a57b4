// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Flow-size CDFs: read from a file of "BYTES PERCENT" lines, their mean, and a size drawn from
 * one by linear interpolation; and the small-file reader the scenario loader shares with them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#include "sim_core.h"

#define CDF_MAX_POINTS 1000
#define CDF_MAX_BYTES (64 * 1024)

int sim_slurp(const char *path, size_t max, char **out, size_t *len, struct nd_err *e)
{
	int ret = nd_file_read(path, max, out, len, NULL);

	if (ret == -ENOMEM)
		return nd_err_set(e, ret, "%s: out of memory", path);
	if (ret == -EISDIR || ret == -EINVAL || ret == -E2BIG)
		return nd_err_set(e, -EINVAL, "%s: not a regular file of at most %zu bytes", path,
				  max);
	if (ret)
		return nd_err_set(e, ret, "%s: cannot open: %s; check the path", path,
				  strerror(-ret));
	return 0;
}

static int cdf_line(const char *file, unsigned int line, char *text, struct nd_cdf_point *pt,
		    struct nd_err *e)
{
	char *end;

	pt->bytes = strtod(text, &end);
	if (end == text || (*end != ' ' && *end != '\t'))
		return nd_err_set(e, -EINVAL, "%s:%u: expected \"BYTES PERCENT\"", file, line);
	text = end;
	pt->pct = strtod(text, &end);
	while (*end == ' ' || *end == '\t' || *end == '\r')
		end++;
	if (end == text || *end)
		return nd_err_set(e, -EINVAL, "%s:%u: expected \"BYTES PERCENT\"", file, line);
	/*
	 * The comparisons refuse NaN too. A flow is a byte or more: sizes between 0 and 1 would
	 * only shrink the mean the arrival gap divides by (to 0 for "4.9e-324 100").
	 */
	if (!(pt->bytes == 0 || (pt->bytes >= 1 && pt->bytes <= 1e12)) ||
	    !(pt->pct >= 0 && pt->pct <= 100))
		return nd_err_set(e, -EINVAL, "%s:%u: sizes are 0 or 1..1e12 bytes and "
				  "percentages 0..100", file, line);
	return 0;
}

static int cdf_check(const char *file, const struct nd_cdf_point *p, size_t n,
		     const unsigned int *lines, struct nd_err *e)
{
	size_t i;

	if (n < 2)
		return nd_err_set(e, -EINVAL, "%s: a CDF needs 2 points or more", file);
	if (p[0].pct != 0 || p[n - 1].pct != 100)
		return nd_err_set(e, -EINVAL, "%s: a CDF starts at 0 %% and ends at 100 %%", file);
	for (i = 1; i < n; i++)
		if (p[i].bytes <= p[i - 1].bytes || p[i].pct <= p[i - 1].pct)
			return nd_err_set(e, -EINVAL, "%s:%u: sizes and percentages must both rise "
					  "from one line to the next", file, lines[i]);
	return 0;
}

int sim_cdf_parse(const char *name, const char *data, size_t len, struct nd_cdf_point **pts,
		  size_t *n, struct nd_err *e)
{
	struct nd_cdf_point *p = NULL;
	unsigned int line = 0, lines[CDF_MAX_POINTS];
	char *buf, *text, *next;
	size_t count = 0;
	int ret = 0;

	*pts = NULL;
	*n = 0;
	if (len > CDF_MAX_BYTES)
		return nd_err_set(e, -EINVAL, "%s: over %d bytes; a CDF is a short text file", name,
				  CDF_MAX_BYTES);
	if (memchr(data, '\0', len))
		return nd_err_set(e, -EINVAL, "%s: holds a NUL byte; a CDF is text", name);
	/* a copy of our own: the lines are cut in place and strtod needs a terminator */
	buf = malloc(len + 1);
	p = calloc(CDF_MAX_POINTS, sizeof(*p));
	if (!buf || !p) {
		ret = nd_err_set(e, -ENOMEM, "%s: out of memory", name);
	} else {
		memcpy(buf, data, len);
		buf[len] = '\0';
	}
	for (text = buf; !ret && text && *text; text = next) {
		next = strchr(text, '\n');
		if (next)
			*next++ = '\0';
		line++;
		text += strspn(text, " \t");
		if (!*text || *text == '#' || *text == '\r')
			continue;
		if (count == CDF_MAX_POINTS) {
			ret = nd_err_set(e, -E2BIG, "%s:%u: over %d points", name, line,
					 CDF_MAX_POINTS);
			break;
		}
		lines[count] = line;
		ret = cdf_line(name, line, text, &p[count++], e);
	}
	if (!ret)
		ret = cdf_check(name, p, count, lines, e);
	free(buf);
	if (ret) {
		free(p);
		return ret;
	}
	*pts = p;
	*n = count;
	return 0;
}

int nd_cdf_load(const char *path, struct nd_cdf_point **pts, size_t *n, struct nd_err *e)
{
	char *buf;
	size_t len;
	int ret;

	*pts = NULL;
	*n = 0;
	ret = sim_slurp(path, CDF_MAX_BYTES, &buf, &len, e);
	if (ret)
		return ret;
	ret = sim_cdf_parse(path, buf, len, pts, n, e);
	free(buf);
	return ret;
}

double sim_cdf_sample(const struct nd_cdf_point *pts, size_t n, double u)
{
	double y = u * 100;
	size_t i;

	for (i = 1; i < n; i++) {
		if (y <= pts[i].pct) {
			const struct nd_cdf_point *a = &pts[i - 1], *b = &pts[i];
			double f = (y - a->pct) / (b->pct - a->pct);
			double v = a->bytes + (b->bytes - a->bytes) * f;

			/* b - a rounds, so at the top of a segment v can pass b by an ulp */
			return v < b->bytes ? v : b->bytes;
		}
	}
	return pts[n - 1].bytes;
}

double nd_cdf_mean(const struct nd_cdf_point *pts, size_t n)
{
	double sum = 0;
	size_t i;

	for (i = 1; i < n; i++)
		sum += (pts[i].bytes + pts[i - 1].bytes) / 2 * (pts[i].pct - pts[i - 1].pct);
	return sum / 100;
}
