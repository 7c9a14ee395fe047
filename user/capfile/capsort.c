// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture's records in time order: loaded and sorted, or through a window. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "capfile/capsort_ext.h"

/* The total order of capsort_ext.h: equal times do not depend on qsort. */
static int cmp_ts(const void *a, const void *b)
{
	return capr_rec_cmp(a, b);
}

/*
 * Records come out of one ring buffer almost in time order (a record's time
 * is taken before its slot is reserved, so CPUs interleave by a few places):
 * an insertion sort moves the few that are out of place, in one pass. Past a
 * budget of n moves, false: the order is not nearly sorted, use qsort.
 */
static bool sort_nearly_sorted(union abicap_rec *v, size_t n)
{
	size_t moves = 0;

	for (size_t i = 1; i < n; i++) {
		union abicap_rec tmp;
		size_t j = i;

		if (capr_rec_cmp(&v[i], &v[i - 1]) >= 0)
			continue;
		while (j > 0 && capr_rec_cmp(&v[j - 1], &v[i]) > 0)
			j--;
		moves += i - j;
		if (moves > n)
			return false;
		tmp = v[i];
		memmove(&v[j + 1], &v[j], (i - j) * sizeof(*v));
		v[j] = tmp;
	}
	return true;
}

int capr_load(struct capr *r, union abicap_rec **recs, size_t *n)
{
	return capr_load_max(r, recs, n, SIZE_MAX);
}

int capr_load_max(struct capr *r, union abicap_rec **recs, size_t *n,
		  size_t max)
{
	size_t cap = 0;
	int c;

	*recs = NULL;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			union abicap_rec *nr;

			cap = cap ? cap * 2 : 65536;
			if (cap > max)
				cap = max + 1; /* room to see one too many */
			nr = realloc(*recs, cap * sizeof(**recs));
			if (!nr) {
				free(*recs);
				*recs = NULL;
				*n = 0;
				return -ENOMEM;
			}
			*recs = nr;
		}
		c = capr_next(r, &(*recs)[*n]);
		if (c != 1)
			break;
		if (++(*n) > max) {
			free(*recs);
			*recs = NULL;
			*n = 0;
			return -E2BIG;
		}
	}
	if (!sort_nearly_sorted(*recs, *n))
		qsort(*recs, *n, sizeof(**recs), cmp_ts);
	return c < 0 ? -1 : 0;
}

/* The window of capr_each(): a binary min-heap on (time, order read). */
struct held {
	union abicap_rec rec;
	uint64_t seq;
};

static bool held_before(const struct held *a, const struct held *b)
{
	return a->rec.hdr.ts_ns < b->rec.hdr.ts_ns ||
	       (a->rec.hdr.ts_ns == b->rec.hdr.ts_ns && a->seq < b->seq);
}

static void heap_up(struct held *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		struct held t;

		if (!held_before(&h[i], &h[p]))
			break;
		t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

static bool held_first(const void *a, const void *b)
{
	return held_before(a, b);
}

static void heap_down(struct held *h, size_t n)
{
	_Static_assert(sizeof(*h) <= 256, "capr_heap_down's room");
	capr_heap_down(h, n, sizeof(*h), 0, held_first);
}

/* Pass the oldest held record on: false when cb says stop. */
static bool pass_oldest(struct held *h, size_t *n, uint64_t *passed,
			capr_cb cb, void *ctx)
{
	int stop;

	*passed = h[0].rec.hdr.ts_ns;
	stop = cb(ctx, &h[0].rec);
	h[0] = h[--(*n)];
	heap_down(h, *n);
	return !stop;
}

int capr_each_window(struct capr *r, struct capr_window *w, capr_cb cb,
		     void *ctx)
{
	size_t max = w->max ? w->max : CAPR_WINDOW_MAX;
	struct held *h = NULL;
	size_t n = 0, cap = 0;
	uint64_t seq = 0, newest = 0, passed = 0;
	bool go = true;
	int c;

	w->late = 0;
	w->peak = 0;
	for (;;) {
		/* full: the oldest goes on, whatever the times */
		if (n == max && !pass_oldest(h, &n, &passed, cb, ctx)) {
			go = false;
			c = 0;
			break;
		}
		if (n == cap) {
			struct held *nh;

			cap = cap ? cap * 2 : 4096;
			if (cap > max)
				cap = max;
			nh = realloc(h, cap * sizeof(*h));
			if (!nh) {
				free(h);
				return -ENOMEM;
			}
			h = nh;
		}
		c = capr_next(r, &h[n].rec);
		if (c != 1)
			break;
		h[n].seq = seq++;
		if (h[n].rec.hdr.ts_ns > newest)
			newest = h[n].rec.hdr.ts_ns;
		if (passed && h[n].rec.hdr.ts_ns < passed)
			w->late++; /* older than one passed on: on as it is */
		heap_up(h, n++);
		if (n > w->peak)
			w->peak = n;
		/* pass on what no record to come should precede */
		while (go && n && h[0].rec.hdr.ts_ns + w->ns < newest)
			go = pass_oldest(h, &n, &passed, cb, ctx);
		if (!go)
			break;
	}
	while (go && n)
		go = pass_oldest(h, &n, &passed, cb, ctx);
	free(h);
	return c < 0 ? -1 : 0;
}

int capr_each(struct capr *r, uint64_t window_ns, capr_cb cb, void *ctx,
	      uint64_t *late)
{
	struct capr_window w = { .ns = window_ns };
	int ret = capr_each_window(r, &w, cb, ctx);

	*late = w.late;
	return ret;
}
