/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A row of pixels drawn from intervals of kinds (a task's states, a CPU's
 * busy and idle states): intervals arrive in time order and become runs
 * of whole pixels. Whatever is shorter than a pixel is merged: a pixel
 * that holds more than one kind (or is only partly covered) is counted as
 * mixed and shows one of the kinds in it, the one owed the most time (the
 * time of each kind in mixed pixels is carried from pixel to pixel, as
 * error diffusion does), so that each kind's pixels times the pixel's
 * length stay within a pixel or two of its exact time: pixrow_error()
 * says by how much.
 */
#ifndef ABICAP_PIXROW_H
#define ABICAP_PIXROW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PIX_KINDS 24

/* Pixels [x0, x1) of one kind. */
struct pixrun {
	uint32_t x0, x1;
	uint8_t kind;
};

struct pixscale {
	uint64_t t0, px_ns; /* pixel x covers [t0 + x px_ns, t0 + (x+1) px_ns) */
	uint32_t width; /* pixels */
};

/* The end of the scale's last pixel, t0 + px_ns width, at most UINT64_MAX. */
uint64_t pixscale_end(const struct pixscale *sc);

struct pixrow {
	const struct pixscale *sc;
	/* the pixel being filled (col < 0: none) */
	int64_t col;
	uint64_t acc[PIX_KINDS];
	struct pixrun *runs;
	size_t n, cap;
	uint64_t inexact; /* pixels mixed or partly covered */
	uint64_t merged; /* intervals shorter than a pixel (drawn merged) */
	uint64_t intervals; /* all intervals added */
	uint64_t total[PIX_KINDS]; /* exact ns of each kind, inside the scale */
	uint64_t drawn[PIX_KINDS]; /* pixels of each kind */
	int64_t carry[PIX_KINDS]; /* ns of each kind owed a pixel (or drawn ahead) */
	bool oom;
};

/* [*s, *e) clipped to the scale (in place): its length in ns, 0 if outside. */
uint64_t pixscale_clip(const struct pixscale *sc, uint64_t *s, uint64_t *e);

void pixrow_init(struct pixrow *r, const struct pixscale *sc);
/* The interval [s, e) of kind (< PIX_KINDS), clipped to the scale; in time order. */
void pixrow_add(struct pixrow *r, uint64_t s, uint64_t e, unsigned int kind);
/* Close the last pixel (before reading runs). */
void pixrow_finish(struct pixrow *r);
/*
 * The row at half its resolution (its scale's px_ns doubled by the caller:
 * pixel x becomes x / 2): the pixel being filled is closed first, and a
 * new pixel shows its left half's kind where that half was drawn, else the
 * right half's. The zoom layer's way to stay within its budget; the
 * totals and counts stay those of the finer rows.
 */
void pixrow_halve(struct pixrow *r);
void pixrow_free(struct pixrow *r);
/* The largest |drawn pixels x px_ns - exact time| over the kinds, in ns. */
uint64_t pixrow_error(const struct pixrow *r);

#endif
