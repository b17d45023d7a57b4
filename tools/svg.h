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

struct svg_axes {
	double x0, x1, y0, y1;
	bool logx;
	bool intx;		/* x is a count (runs): whole ticks only */
	bool nox;		/* x is categories, labelled by the plot: no numbers */
};

const char *svg_color(size_t i);
double svg_max(double a, double b);
double svg_min(double a, double b);
/* The power of ten at or below @x (@up: at or above), for @x within 1e-300..1e300. */
double svg_decade(double x, bool up);
/* Pixel positions of a value, within a few plots' widths of the frame. */
double svg_x(const struct svg_axes *a, double x);
double svg_y(const struct svg_axes *a, double y);

/* @open, then @s escaped, then @close (for "<td>%s</td>" shapes). */
void svg_tag_text(FILE *o, const char *open, const char *s, const char *close);
/* The frame, grid and tick labels; @a is made drawable first (finite ends, some span). */
void svg_open(FILE *o, const char *title, const char *xlabel, const char *ylabel,
	      struct svg_axes *a);
void svg_close(FILE *o);
/* Legend line @row in the colour of series @color. */
void svg_legend(FILE *o, size_t row, size_t color, const char *name);
/* A line through points (x[i], y[i]), each point a circle of class pt with its value. */
void svg_series(FILE *o, const struct svg_axes *a, const double *x, const double *y, size_t n,
		size_t color, const char *name);

#endif
