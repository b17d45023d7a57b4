/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Plots as inline SVG for nodrop report: axes with round ticks (linear or log), a series of
 * points, bars' coordinates, a legend. Whatever numbers a report holds, a plot is finite: the
 * axes are clamped and every tick loop has a bound of its own.
 */
#ifndef ND_SVG_H
#define ND_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SVG_W 640
#define SVG_H 300
#define SVG_ML 64		/* margins: left (y labels), right, top, bottom (x labels) */
#define SVG_MR 16
#define SVG_MT 28
#define SVG_MB 40
#define SVG_COLORS 8
#define SVG_LEGEND_MAX 16

/* Names of a plot's series or bars, each in its colour; svg_open() draws them. */
struct svg_legend {
	size_t n;
	const char *name[SVG_LEGEND_MAX];
	size_t color[SVG_LEGEND_MAX];
};

struct svg_axes {
	double x0, x1, y0, y1;
	bool logx;
	bool intx;		/* x is a count (runs): whole ticks only */
	bool nox;		/* x is categories, labelled by the plot: no numbers */
	const struct svg_legend *legend;	/* NULL: none */
	int dy;			/* set by svg_open(): the legend's rows push the plot down */
};

const char *svg_color(size_t i);
double svg_max(double a, double b);
double svg_min(double a, double b);
/* The power of ten at or below @x (@up: at or above), for @x within 1e-300..1e300. */
double svg_decade(double x, bool up);
/* Pixel positions of a value, within a few plots' widths of the frame. */
double svg_x(const struct svg_axes *a, double x);
double svg_y(const struct svg_axes *a, double y);
/* The plot area's bottom edge (the x axis), in pixels. */
int svg_base(const struct svg_axes *a);

/* @open, then @s escaped, then @close (for "<td>%s</td>" shapes). */
void svg_tag_text(FILE *o, const char *open, const char *s, const char *close);
/*
 * The frame, grid and tick labels, and @a->legend in rows of its own between the title and the
 * frame, so no data is ever drawn under it; @a is made drawable first (finite ends, some span).
 */
void svg_open(FILE *o, const char *title, const char *xlabel, const char *ylabel,
	      struct svg_axes *a);
void svg_close(FILE *o);
/* Adds series @color's @name to @l; past SVG_LEGEND_MAX names it is left out. */
void svg_legend_add(struct svg_legend *l, size_t color, const char *name);
/*
 * A bar of value @v from the x axis, @w wide from pixel @x, held within the axes: a rect of
 * class "pt bar" whose <title> is open; the caller writes its text and "</title></rect>".
 */
void svg_bar(FILE *o, const struct svg_axes *a, double x, double w, double v, size_t color);
/* A line through points (x[i], y[i]), each point a circle of class pt with its value. */
void svg_series(FILE *o, const struct svg_axes *a, const double *x, const double *y, size_t n,
		size_t color, const char *name);

#endif
