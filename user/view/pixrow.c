// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Intervals into runs of whole pixels, what is under a pixel merged and counted. */
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "view/pixrow.h"

void pixrow_init(struct pixrow *r, const struct pixscale *sc)
{
	memset(r, 0, sizeof(*r));
	r->sc = sc;
	r->col = -1;
}

static void emit(struct pixrow *r, uint32_t x0, uint32_t x1, unsigned int kind)
{
	struct pixrun *last = r->n ? &r->runs[r->n - 1] : NULL;

	if (last && x0 < last->x1) /* overlaps what is drawn: kept in order */
		x0 = last->x1;
	if (x0 >= x1)
		return;
	r->drawn[kind] += x1 - x0;
	if (last && last->x1 == x0 && last->kind == kind) {
		last->x1 = x1;
		return;
	}
	if (array_room(&r->runs, r->n, &r->cap, sizeof(*r->runs), 16)) {
		r->oom = true;
		return;
	}
	r->runs[r->n++] = (struct pixrun){ x0, x1, (uint8_t)kind };
}

/*
 * The pixel being filled becomes a pixel of one kind: a pure one of its
 * kind, a mixed one of the kind in it owed the most time.
 */
static void flush(struct pixrow *r)
{
	unsigned int best = PIX_KINDS, kinds = 0;
	uint64_t sum = 0;

	if (r->col < 0)
		return;
	for (unsigned int k = 0; k < PIX_KINDS; k++) {
		if (!r->acc[k])
			continue;
		kinds++;
		sum += r->acc[k];
		best = k;
	}
	if (kinds > 1 || (kinds && sum < r->sc->px_ns)) {
		r->inexact++;
		for (unsigned int k = 0; k < PIX_KINDS; k++) {
			if (!r->acc[k])
				continue;
			r->carry[k] += (int64_t)r->acc[k];
			if (r->carry[k] > r->carry[best])
				best = k;
		}
		r->carry[best] -= (int64_t)r->sc->px_ns;
	}
	if (kinds)
		emit(r, (uint32_t)r->col, (uint32_t)r->col + 1, best);
	memset(r->acc, 0, sizeof(r->acc));
	r->col = -1;
}

static void part(struct pixrow *r, uint64_t col, unsigned int kind, uint64_t ns)
{
	if (r->col >= 0 && col < (uint64_t)r->col)
		col = (uint64_t)r->col; /* overlaps the pixel before: kept in order */
	if (r->col >= 0 && (uint64_t)r->col != col)
		flush(r);
	r->col = (int64_t)col;
	r->acc[kind] += ns;
}

uint64_t pixscale_end(const struct pixscale *sc)
{
	uint64_t span;

	if (__builtin_mul_overflow(sc->px_ns, (uint64_t)sc->width, &span) ||
	    span > UINT64_MAX - sc->t0)
		return UINT64_MAX;
	return sc->t0 + span;
}

uint64_t pixscale_clip(const struct pixscale *sc, uint64_t *s, uint64_t *e)
{
	uint64_t end = pixscale_end(sc);

	if (*s < sc->t0)
		*s = sc->t0;
	if (*e > end)
		*e = end;
	return *e > *s ? *e - *s : 0;
}

void pixrow_add(struct pixrow *r, uint64_t s, uint64_t e, unsigned int kind)
{
	const struct pixscale *sc = r->sc;
	uint64_t cs, ce, px = sc->px_ns;

	if (kind >= PIX_KINDS || !pixscale_clip(sc, &s, &e))
		return;
	r->intervals++;
	r->total[kind] += e - s;
	if (e - s < px)
		r->merged++;
	cs = (s - sc->t0) / px;
	ce = (e - 1 - sc->t0) / px;
	if (cs == ce) {
		part(r, cs, kind, e - s);
		return;
	}
	part(r, cs, kind, sc->t0 + (cs + 1) * px - s);
	if (ce > cs + 1) {
		flush(r);
		emit(r, (uint32_t)cs + 1, (uint32_t)ce, kind);
	}
	part(r, ce, kind, e - (sc->t0 + ce * px));
}

void pixrow_finish(struct pixrow *r)
{
	flush(r);
}

void pixrow_halve(struct pixrow *r)
{
	size_t n = 0;

	flush(r);
	for (size_t i = 0; i < r->n; i++) {
		struct pixrun u = r->runs[i];
		uint32_t x0 = u.x0 / 2, x1 = u.x1 / 2 + (u.x1 & 1);

		/* the left half of pixel x0 was the run before's */
		if (n && r->runs[n - 1].x1 > x0)
			x0 = r->runs[n - 1].x1;
		if (x0 >= x1)
			continue;
		if (n && r->runs[n - 1].x1 == x0 && r->runs[n - 1].kind == u.kind)
			r->runs[n - 1].x1 = x1;
		else
			r->runs[n++] = (struct pixrun){ x0, x1, u.kind };
	}
	r->n = n;
}

uint64_t pixrow_error(const struct pixrow *r)
{
	uint64_t worst = 0;

	for (unsigned int k = 0; k < PIX_KINDS; k++) {
		uint64_t got = r->drawn[k] * r->sc->px_ns, want = r->total[k];
		uint64_t e = got > want ? got - want : want - got;

		if (e > worst)
			worst = e;
	}
	return worst;
}

void pixrow_free(struct pixrow *r)
{
	free(r->runs);
	r->runs = NULL;
	r->n = r->cap = 0;
}
