// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Issue 33: the timechart's task-lane colours are chosen so that no
 * mixture of two reads as a third. Dense 1-pixel alternation of two
 * states (running and waiting, say) is seen as their average in linear
 * light; that average must be clearly apart (CIE76 delta E of at least
 * MIN_DE, where 2.3 is just noticeable) from every other colour a task
 * lane can hold: the six state colours, the two arrow colours and the
 * white between lanes. Any two of those colours differ by as much.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "view/timechart_html.h"

#define MIN_DE 20.0
#define NCOL 9

struct lab {
	double l, a, b;
};

static double to_linear(double c)
{
	return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4);
}

/* "#rrggbb" as linear-light RGB. */
static void linear_rgb(const char *hex, double rgb[3])
{
	unsigned int v;

	cr_assert_eq(sscanf(hex, "#%6x", &v), 1, "%s", hex);
	for (int i = 0; i < 3; i++)
		rgb[i] = to_linear(((v >> (16 - 8 * i)) & 0xff) / 255.0);
}

static double lab_f(double t)
{
	return t > 216.0 / 24389 ? cbrt(t) : (24389.0 / 27 * t + 16) / 116;
}

/* sRGB (D65) linear light to CIELAB. */
static struct lab to_lab(const double c[3])
{
	double x = (0.4124 * c[0] + 0.3576 * c[1] + 0.1805 * c[2]) / 0.95047;
	double y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
	double z = (0.0193 * c[0] + 0.1192 * c[1] + 0.9505 * c[2]) / 1.08883;

	return (struct lab){ 116 * lab_f(y) - 16, 500 * (lab_f(x) - lab_f(y)),
			     200 * (lab_f(y) - lab_f(z)) };
}

static double delta_e(struct lab p, struct lab q)
{
	return sqrt((p.l - q.l) * (p.l - q.l) + (p.a - q.a) * (p.a - q.a) +
		    (p.b - q.b) * (p.b - q.b));
}

Test(palette, no_mixture_of_two_lane_colours_reads_as_a_third)
{
	const char *col[NCOL], *name[NCOL] = { "running", "run queue",
		"sleeping", "blocked", "other", "unknown", "arrow", "irq arrow",
		"white" };
	double rgb[NCOL][3];
	struct lab lab[NCOL];

	for (int i = 0; i < 6; i++)
		col[i] = tc_task_colour[i];
	col[6] = tc_arrow_colour[0];
	col[7] = tc_arrow_colour[1];
	col[8] = "#ffffff";
	for (int i = 0; i < NCOL; i++) {
		linear_rgb(col[i], rgb[i]);
		lab[i] = to_lab(rgb[i]);
	}
	for (int i = 0; i < NCOL; i++)
		for (int j = i + 1; j < NCOL; j++) {
			double m[3];
			struct lab mix;

			cr_expect_geq(delta_e(lab[i], lab[j]), MIN_DE,
				      "%s %s and %s %s differ by %.1f", name[i],
				      col[i], name[j], col[j],
				      delta_e(lab[i], lab[j]));
			for (int c = 0; c < 3; c++)
				m[c] = (rgb[i][c] + rgb[j][c]) / 2;
			mix = to_lab(m);
			for (int k = 0; k < NCOL; k++)
				cr_expect(k == i || k == j ||
					  delta_e(mix, lab[k]) >= MIN_DE,
					  "%s and %s mixed read as %s %s "
					  "(delta E %.1f)", name[i], name[j],
					  name[k], col[k], delta_e(mix, lab[k]));
		}
}
