// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Inline SVG plots for nodrop report. A report is input like any other: a number of 1e300 or a
 * negative duration must still give a page, at once. So the axes' ends are clamped to
 * +-SVG_LIMIT (a difference of two stays finite), an axis always has some span, and no loop
 * here runs more than SVG_TICKS_MAX times, whatever the numbers.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "svg.h"

#define SVG_TICKS_MAX 16	/* labels on one axis; a round step over a span gives at most 10 */
#define SVG_LIMIT 1e300
#define SVG_TINY 1e-300		/* the smallest end of a log axis */
/* The legend: rows between the title and the frame, an entry a swatch and a name */
#define LG_TOP (SVG_MT - 2)
#define LG_ROW 14
#define LG_SWATCH 10
#define LG_GAP 16		/* between one entry's name and the next swatch */
#define LG_CHAR 6.5		/* px per byte of an 11 px sans-serif name: wider than most glyphs */

static const char *const palette[SVG_COLORS] = {
	"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
};

const char *svg_color(size_t i)
{
	return palette[i % SVG_COLORS];
}

/* @v within [@lo, @hi]; NaN is @lo. */
static double clamp(double v, double lo, double hi)
{
	return v > lo ? (v < hi ? v : hi) : lo;
}

double svg_max(double a, double b)
{
	return a != a ? b : b != b ? a : a > b ? a : b;
}

double svg_min(double a, double b)
{
	return a != a ? b : b != b ? a : a < b ? a : b;
}

/*
 * The nodrop command does not load libm (a one-shot `nodrop counters` would pay for it): the
 * plots' logarithms and powers of ten are computed here. Positions are printed to 0.1 px of a
 * 640 px plot, far coarser than these are exact.
 */
static double lg10(double x)
{
	double m, z, z2, t, sum = 0;
	int e, k;

	if (!(x > 0) || !isfinite(x))
		return x == 0 ? -INFINITY : x > 0 ? x : NAN;
	m = frexp(x, &e);			/* x = m 2^e, m in [0.5, 1) */
	if (m < M_SQRT1_2) {
		m *= 2;
		e--;
	}
	/* ln m = 2 atanh(z), z = (m - 1) / (m + 1), |z| < 0.172: 12 terms reach 1e-19 */
	z = (m - 1) / (m + 1);
	z2 = z * z;
	for (t = z, k = 1; k < 25; k += 2, t *= z2)
		sum += t / k;
	return (2 * sum + e * M_LN2) / M_LN10;
}

/* 10^@k, correctly rounded as a decimal literal is. */
static double pow10i(int k)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "1e%d", k);
	return strtod(buf, NULL);
}

double svg_decade(double x, bool up)
{
	double d;
	int k;

	x = clamp(x, SVG_TINY, SVG_LIMIT);
	k = (int)floor(lg10(x));
	/* the estimate may be one off where @x is within rounding of a power of ten */
	if (pow10i(k) > x)
		k--;
	else if (pow10i(k + 1) <= x)
		k++;
	d = pow10i(k);
	return up && d < x ? pow10i(k + 1) : d;
}

/* A round step for about @n ticks over @span > 0. */
static double nice_step(double span, int n)
{
	double raw = span / n, mag, f;

	if (!(raw > 0))
		return 1;
	mag = svg_decade(raw, false);
	f = raw / mag;
	return (f < 1.5 ? 1 : f < 3 ? 2 : f < 7 ? 5 : 10) * mag;
}

/* Ends that can be drawn: finite, within the limit, the second above the first. */
static void fix_span(double *lo, double *hi, double min)
{
	*lo = clamp(*lo, min, SVG_LIMIT);
	*hi = clamp(*hi, min, SVG_LIMIT);
	if (!(*hi > *lo))
		*hi = *lo + 1;
	if (!(*hi > *lo))		/* 1 is below @lo's precision */
		*hi = *lo + fabs(*lo) * 1e-6;
}

double svg_x(const struct svg_axes *a, double x)
{
	double lo = a->logx ? lg10(a->x0) : a->x0, hi = a->logx ? lg10(a->x1) : a->x1;
	double v = a->logx ? lg10(x > 0 ? x : a->x0) : x;

	return clamp(SVG_ML + (hi > lo ? (v - lo) / (hi - lo) : 0.5) * (SVG_W - SVG_ML - SVG_MR),
		     -SVG_W, 2 * SVG_W);
}

int svg_base(const struct svg_axes *a)
{
	return SVG_H - SVG_MB + a->dy;
}

double svg_y(const struct svg_axes *a, double y)
{
	return clamp(svg_base(a) - (a->y1 > a->y0 ? (y - a->y0) / (a->y1 - a->y0) : 0.5) *
		     (SVG_H - SVG_MT - SVG_MB), -SVG_H, 2 * SVG_H);
}

static void fmt_num(char *buf, size_t len, double v)
{
	double a = fabs(v);

	if (a >= 1e9)
		snprintf(buf, len, "%gG", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, len, "%gM", v / 1e6);
	else if (a >= 1e4)
		snprintf(buf, len, "%gk", v / 1e3);
	else
		snprintf(buf, len, "%.4g", v);
}

void svg_tag_text(FILE *o, const char *open, const char *s, const char *close)
{
	fputs(open, o);
	nd_xml_escape(o, s);
	fputs(close, o);
}

static void y_ticks(FILE *o, const struct svg_axes *a)
{
	double s = nice_step(a->y1 - a->y0, 5), first = ceil(a->y0 / s) * s, v;
	char buf[32];
	int i;

	for (i = 0; i < SVG_TICKS_MAX; i++) {
		v = first + i * s;
		if (v > a->y1 + s * 1e-9)
			break;
		fmt_num(buf, sizeof(buf), v);
		fprintf(o, "<line class=\"grid\" x1=\"%d\" x2=\"%d\" y1=\"%.1f\" y2=\"%.1f\"/>"
			"<text class=\"yl\" x=\"%d\" y=\"%.1f\">%s</text>", SVG_ML, SVG_W - SVG_MR,
			svg_y(a, v), svg_y(a, v), SVG_ML - 6, svg_y(a, v) + 4, buf);
	}
}

static void x_tick(FILE *o, const struct svg_axes *a, double v)
{
	char buf[32];

	fmt_num(buf, sizeof(buf), v);
	fprintf(o, "<text class=\"xl\" x=\"%.1f\" y=\"%d\">%s</text>", svg_x(a, v),
		svg_base(a) + 16, buf);
}

static void x_ticks(FILE *o, const struct svg_axes *a)
{
	double s, first, v;
	int i, decades, stride;

	if (a->nox)
		return;		/* categories: the plot labels them */
	if (a->logx) {
		/* a decade a label; wider axes label every stride-th decade */
		decades = (int)(lg10(a->x1) - lg10(a->x0)) + 1;
		stride = decades / SVG_TICKS_MAX + 1;
		for (i = 0, v = svg_decade(a->x0, true); i < SVG_TICKS_MAX; i++, v *= pow10i(stride)) {
			if (v > a->x1 * 1.0001)
				break;
			x_tick(o, a, v);
		}
		return;
	}
	s = nice_step(a->x1 - a->x0, 6);
	if (a->intx && s < 1)
		s = 1;
	first = ceil(a->x0 / s) * s;
	for (i = 0; i < SVG_TICKS_MAX; i++) {
		v = first + i * s;
		if (v > a->x1 + s * 1e-9)
			break;
		x_tick(o, a, v);
	}
}

/*
 * Lays @l out in rows from the plot's left edge, a row as wide as the plot, and draws it when
 * @o is given: each entry, then a box of class lgbox around them all (unfilled: what a test
 * checks the bars against). Returns the number of rows.
 */
static int legend(FILE *o, const struct svg_legend *l)
{
	const double right = SVG_W - SVG_MR;
	double x = SVG_ML, w, widest = 0;
	int row = 0;
	size_t i;

	if (!l->n)
		return 0;
	if (o)
		fputs("<g class=\"legend\">", o);
	for (i = 0; i < l->n; i++) {
		w = LG_SWATCH + 4 + LG_CHAR * (double)strlen(l->name[i]);
		if (x > SVG_ML && x + w > right) {
			row++;
			x = SVG_ML;
		}
		widest = svg_max(widest, x + w);
		if (o) {
			fprintf(o, "<rect class=\"sw\" style=\"fill:%s\" x=\"%.1f\" y=\"%d\" "
				"width=\"%d\" height=\"%d\"/><text class=\"lg\" x=\"%.1f\" y=\"%d\">",
				svg_color(l->color[i]), x, LG_TOP + row * LG_ROW + 2, LG_SWATCH,
				LG_SWATCH, x + LG_SWATCH + 4, LG_TOP + row * LG_ROW + 11);
			nd_xml_escape(o, l->name[i]);
			fputs("</text>", o);
		}
		x += w + LG_GAP;
	}
	if (o)
		fprintf(o, "<rect class=\"lgbox\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>"
			"</g>", SVG_ML, LG_TOP, svg_min(widest, right) - SVG_ML,
			(row + 1) * LG_ROW);
	return row + 1;
}

void svg_open(FILE *o, const char *title, const char *xlabel, const char *ylabel,
	      struct svg_axes *a)
{
	int rows = a->legend ? legend(NULL, a->legend) : 0;

	fix_span(&a->y0, &a->y1, -SVG_LIMIT);
	fix_span(&a->x0, &a->x1, a->logx ? SVG_TINY : -SVG_LIMIT);
	a->dy = rows ? rows * LG_ROW + 4 : 0;
	fprintf(o, "<figure><svg class=\"plot\" viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" "
		"role=\"img\">", SVG_W, SVG_H + a->dy, SVG_W, SVG_H + a->dy);
	svg_tag_text(o, "<title>", title, "</title>");
	svg_tag_text(o, "<text class=\"t\" x=\"64\" y=\"18\">", title, "</text>");
	if (rows)
		legend(o, a->legend);
	fprintf(o, "<rect class=\"frame\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", SVG_ML,
		SVG_MT + a->dy, SVG_W - SVG_ML - SVG_MR, SVG_H - SVG_MT - SVG_MB);
	y_ticks(o, a);
	x_ticks(o, a);
	fprintf(o, "<text class=\"ax\" x=\"352\" y=\"%d\">", 294 + a->dy);
	svg_tag_text(o, "", xlabel, "</text>");
	fprintf(o, "<text class=\"ax\" transform=\"rotate(-90)\" x=\"%d\" y=\"14\">",
		-150 - a->dy);
	svg_tag_text(o, "", ylabel, "</text>");
}

void svg_close(FILE *o)
{
	fputs("</svg></figure>\n", o);
}

void svg_legend_add(struct svg_legend *l, size_t color, const char *name)
{
	if (l->n >= SVG_LEGEND_MAX)
		return;
	l->name[l->n] = name;
	l->color[l->n++] = color;
}

void svg_bar(FILE *o, const struct svg_axes *a, double x, double w, double v, size_t color)
{
	double top = svg_y(a, clamp(v, a->y0, a->y1)), base = svg_y(a, clamp(0, a->y0, a->y1));

	fprintf(o, "<rect class=\"pt bar\" style=\"fill:%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"><title>", svg_color(color), x, svg_min(top, base), w,
		fabs(base - top));
}

void svg_series(FILE *o, const struct svg_axes *a, const double *x, const double *y, size_t n,
		size_t color, const char *name)
{
	const char *c = svg_color(color);
	size_t i;

	fprintf(o, "<polyline class=\"line\" style=\"stroke:%s\" points=\"", c);
	for (i = 0; i < n; i++)
		fprintf(o, "%.1f,%.1f ", svg_x(a, x[i]), svg_y(a, y[i]));
	fputs("\"/>", o);
	for (i = 0; i < n; i++) {
		fprintf(o, "<circle class=\"pt\" r=\"2.2\" style=\"fill:%s\" cx=\"%.1f\" cy=\"%.1f\">"
			"<title>", c, svg_x(a, x[i]), svg_y(a, y[i]));
		nd_xml_escape(o, name);
		/* a position the caller computed (a step times a count) may have overflowed */
		fprintf(o, ": %.6g at %.6g</title></circle>", clamp(y[i], -DBL_MAX, DBL_MAX),
			clamp(x[i], -DBL_MAX, DBL_MAX));
	}
}
