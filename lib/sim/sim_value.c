// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Units as people write them, for scenarios and command-line options: speeds ("100G", decimal
 * bits), durations ("1.5us", to picoseconds), lengths ("40m") and plain reals ("0.125", "1/256",
 * "30%"). Numbers are digits with at most one decimal point: no signs, exponents, hex or "nan",
 * so what strtod() would also accept never surprises anyone.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/internal.h"
#include "sim_value.h"

struct unit {
	const char *name;
	double mult;
};

static const struct unit speed_units[] = {
	{ "T", 1e12 }, { "Tbit", 1e12 }, { "Tb/s", 1e12 },
	{ "G", 1e9 }, { "Gbit", 1e9 }, { "Gb/s", 1e9 },
	{ "M", 1e6 }, { "Mbit", 1e6 }, { "Mb/s", 1e6 },
	{ "K", 1e3 }, { "Kbit", 1e3 }, { "Kb/s", 1e3 },
	{ NULL, 0 },
};

static const struct unit time_units[] = {
	{ "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 }, { "ms", 1e9 }, { "s", 1e12 }, { NULL, 0 },
};

static const struct unit length_units[] = { { "m", 1 }, { "", 1 }, { NULL, 0 } };

/* Digits with at most one '.': the number's value and where its unit starts. */
static bool number(const char *s, double *v, const char **end)
{
	const char *p = s;
	bool dot = false, digit = false;

	for (; (*p >= '0' && *p <= '9') || (*p == '.' && !dot); p++) {
		dot |= *p == '.';
		digit |= *p != '.';
	}
	if (!digit || p - s > 32)
		return false;
	*v = strtod(s, NULL);
	*end = p;
	return true;
}

static const struct unit *unit_of(const struct unit *u, const char *s)
{
	for (; u->name; u++)
		if (!strcasecmp(u->name, s))
			return u;
	return NULL;
}

static int with_unit(const char *s, const struct unit *units, double *out)
{
	const struct unit *u;
	const char *end;
	double v;

	if (!number(s, &v, &end))
		return -EINVAL;
	while (*end == ' ')
		end++;
	u = unit_of(units, end);
	if (!u)
		return -ENOENT;
	*out = v * u->mult;
	return 0;
}

int nd_speed_parse(const char *s, uint64_t *bps, struct nd_err *e)
{
	double v;
	int ret = with_unit(s, speed_units, &v);

	if (ret || v < 1e6 || v > 1.6e12)
		return nd_err_set(e, -EINVAL, "\"%.32s\" is not a link speed; write it like 100G, "
				  "25Gbit or 800M (decimal bits per second, 1M..1600G)", s);
	*bps = (uint64_t)(v + 0.5);
	return 0;
}

int nd_duration_parse(const char *s, uint64_t *ps, struct nd_err *e)
{
	double v;
	int ret;

	if (!strcmp(s, "0")) {
		*ps = 0;
		return 0;
	}
	ret = with_unit(s, time_units, &v);
	if (ret || v > 3.6e15)
		return nd_err_set(e, -EINVAL, "\"%.32s\" is not a duration; write it like 1us, "
				  "1.5us, 200ns or 10ms (up to an hour)", s);
	*ps = (uint64_t)(v + 0.5);
	return 0;
}

int nd_length_parse(const char *s, double *metres, struct nd_err *e)
{
	double v;
	int ret = with_unit(s, length_units, &v);

	if (ret || v > 100000)
		return nd_err_set(e, -EINVAL, "\"%.32s\" is not a cable length; write it like 40m "
				  "or 2.5m (metres, up to 100000)", s);
	*metres = v;
	return 0;
}

/* ---- as scenario values, with the node's position in messages ---- */

static int as(struct pctx *c, const struct nd_ynode *v, int (*parse)(const char *, void *,
									struct nd_err *), void *out)
{
	struct nd_err e = { 0 };
	const char *s;
	int ret = pv_text(c, v, &s);

	if (ret)
		return ret;
	ret = parse(s, out, &e);
	return ret ? pv_err(c, v, "%s", e.msg) : 0;
}

static int speed_fn(const char *s, void *out, struct nd_err *e)
{
	return nd_speed_parse(s, out, e);
}

static int duration_fn(const char *s, void *out, struct nd_err *e)
{
	return nd_duration_parse(s, out, e);
}

static int length_fn(const char *s, void *out, struct nd_err *e)
{
	return nd_length_parse(s, out, e);
}

int sv_speed(struct pctx *c, const struct nd_ynode *v, uint64_t *bps)
{
	return as(c, v, speed_fn, bps);
}

int sv_duration(struct pctx *c, const struct nd_ynode *v, uint64_t *ps)
{
	return as(c, v, duration_fn, ps);
}

int sv_length(struct pctx *c, const struct nd_ynode *v, double *metres)
{
	return as(c, v, length_fn, metres);
}

int sv_real(struct pctx *c, const struct nd_ynode *v, const char *what, double lo, double hi,
	    double *out)
{
	const char *s, *end, *end2;
	char shown[40];
	double a, b;
	int ret = pv_text(c, v, &s);

	if (ret)
		return ret;
	nd_yaml_shown(v->str, v->len, shown, sizeof(shown));
	if (!number(s, &a, &end))
		goto bad;
	if (*end == '/') {
		if (!number(end + 1, &b, &end2) || *end2 || b == 0)
			goto bad;
		a /= b;
	} else if (*end == '%' && !end[1]) {
		a /= 100;
	} else if (*end) {
		goto bad;
	}
	if (a < lo || a > hi)
		return pv_err(c, v, "%s %s is out of range %g..%g", what, shown, lo, hi);
	*out = a;
	return 0;
bad:
	return pv_err(c, v, "%s is not a number; write it like 0.125, 1/8 or 12.5%%", shown);
}

int sv_bool(struct pctx *c, const struct nd_ynode *v, bool *out)
{
	static const struct pword words[] = {
		{ "true", 1 }, { "false", 0 }, { "on", 1 }, { "off", 0 }, { "yes", 1 },
		{ "no", 0 }, { NULL, 0 },
	};
	static const struct pwords bools = { "boolean", words };
	int w, ret = pv_word(c, v, &bools, &w);

	if (!ret)
		*out = w;
	return ret;
}
