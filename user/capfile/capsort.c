// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture's records in time order: loaded and sorted, or through a window. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include "capfile/capfile.h"
#include "capfile/capsort_ext.h"
#include "lib/array.h"
#include "lib/heap.h"

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
	size_t cap = 0, bound = SIZE_MAX / sizeof(**recs);
	int c;

	*recs = NULL;
	*n = 0;
	for (;;) {
		if (*n == cap) {
			union abicap_rec *nr;

			/* up to one past max: room to see one too many */
			cap = array_grown(cap, cap + 1, 65536, max < bound ?
					  max + 1 : bound);
			nr = cap ? realloc(*recs, cap * sizeof(**recs)) : NULL;
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

/*
 * The window of capr_each(): the records held, in a pool of slots, ordered
 * by (time, order read) in two parts. Records that come in time order (all
 * but a few of a ring buffer's) join a FIFO of slots at no cost; the others
 * go into a binary min-heap of slots. The oldest held is the older of the
 * FIFO's head and the heap's top. (One heap of whole records moved 112
 * bytes per level, log2 of a second's records per record: half of an
 * export's time.)
 */
/* records ahead of the FIFO's head fetched into the caches */
#define PREFETCH_AHEAD 8

struct held {
	union abicap_rec rec;
	uint64_t seq;
};

struct window {
	struct held *pool; /* max slots mapped, touched as they are used */
	size_t mapped; /* bytes */
	uint32_t *free; /* slots not in use */
	uint32_t *fifo; /* a ring of slots, in (time, order read) order */
	uint32_t *heap;
	size_t cap, nfree, fhead, fn, hn; /* cap: slots in pool, free, fifo */
};

static bool held_before(const struct held *a, const struct held *b)
{
	return a->rec.hdr.ts_ns < b->rec.hdr.ts_ns ||
	       (a->rec.hdr.ts_ns == b->rec.hdr.ts_ns && a->seq < b->seq);
}

static bool slot_before(const struct window *w, uint32_t a, uint32_t b)
{
	return held_before(&w->pool[a], &w->pool[b]);
}

/* Slot *x's record comes before slot *y's (heap_before_fn; ctx the window). */
static bool slot_first(const void *x, const void *y, const void *ctx)
{
	return slot_before(ctx, *(const uint32_t *)x, *(const uint32_t *)y);
}

/*
 * The pool: a second of records is tens of MB, each written once and read
 * a second later; with 4 KiB pages nearly every record cost a TLB miss.
 * Mapped once for max records (memory is taken only as slots are first
 * used), in huge pages where the system gives them on request
 * (transparent_hugepage "madvise"; a hint, harmless if refused).
 */
static bool pool_map(struct window *w, size_t max)
{
	void *p;

	w->mapped = max * sizeof(struct held);
	p = mmap(NULL, w->mapped, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		w->mapped = 0;
		return false;
	}
	madvise(p, w->mapped, MADV_HUGEPAGE);
	w->pool = p;
	return true;
}

/* Room for one more record (slots double up to max): false, no memory. */
static bool window_room(struct window *w, size_t max)
{
	size_t cap, i;
	uint32_t *nf, *nq, *nh;

	if (w->nfree)
		return true;
	/* full at max, the caller passed the oldest on: nfree is not 0 */
	cap = array_grown(w->cap, w->cap + 1, 4096, max);
	if (!cap)
		return false;
	if (!w->pool && !pool_map(w, max))
		return false;
	nf = realloc(w->free, cap * sizeof(*nf));
	if (nf)
		w->free = nf;
	nh = nf ? realloc(w->heap, cap * sizeof(*nh)) : NULL;
	if (nh)
		w->heap = nh;
	nq = nh ? malloc(cap * sizeof(*nq)) : NULL;
	if (!nq)
		return false;
	/* the ring laid out again from its head */
	for (i = 0; i < w->fn; i++)
		nq[i] = w->fifo[(w->fhead + i) % w->cap];
	free(w->fifo);
	w->fifo = nq;
	w->fhead = 0;
	for (i = w->cap; i < cap; i++)
		w->free[w->nfree++] = (uint32_t)(cap - 1 - (i - w->cap));
	w->cap = cap;
	return true;
}

/* Hold the record in slot s (taken from the free list by the caller). */
static void window_add(struct window *w, uint32_t s)
{
	if (!w->fn ||
	    !slot_before(w, s, w->fifo[(w->fhead + w->fn - 1) % w->cap])) {
		w->fifo[(w->fhead + w->fn++) % w->cap] = s;
		return;
	}
	w->heap[w->hn] = s;
	heap_up(w->heap, sizeof(*w->heap), w->hn++, slot_first, w);
}

/* The slot of the oldest held record (the window is not empty). */
static uint32_t window_oldest(const struct window *w)
{
	if (!w->hn)
		return w->fifo[w->fhead];
	if (!w->fn)
		return w->heap[0];
	return slot_before(w, w->heap[0], w->fifo[w->fhead]) ? w->heap[0] :
							       w->fifo[w->fhead];
}

/* Pass the oldest held record on: false when cb says stop. */
static bool pass_oldest(struct window *w, uint64_t *passed, capr_cb cb,
			void *ctx)
{
	uint32_t s = window_oldest(w);
	int stop;

	*passed = w->pool[s].rec.hdr.ts_ns;
	stop = cb(ctx, &w->pool[s].rec);
	if (w->fn && w->fifo[w->fhead] == s) {
		w->fhead = (w->fhead + 1) % w->cap;
		w->fn--;
		/* held for a second: out of the caches; fetched ahead */
		if (w->fn > PREFETCH_AHEAD) {
			const char *a = (const char *)&w->pool[
				w->fifo[(w->fhead + PREFETCH_AHEAD) % w->cap]];

			__builtin_prefetch(a);
			__builtin_prefetch(a + sizeof(struct held) - 1);
		}
	} else {
		heap_pop(w->heap, &w->hn, sizeof(*w->heap), slot_first, w);
	}
	w->free[w->nfree++] = s;
	return !stop;
}

static void window_free(struct window *w)
{
	if (w->pool)
		munmap(w->pool, w->mapped);
	free(w->free);
	free(w->fifo);
	free(w->heap);
}

int capr_each_window(struct capr *r, struct capr_window *cw, capr_cb cb,
		     void *ctx)
{
	size_t max = cw->max ? cw->max : CAPR_WINDOW_MAX;
	struct window w = { 0 };
	uint64_t seq = 0, newest = 0, passed = 0;
	bool go = true;
	int c;

	cw->late = 0;
	cw->peak = 0;
	for (;;) {
		struct held *h;
		uint32_t s;
		size_t n = w.fn + w.hn;

		/* full: the oldest goes on, whatever the times */
		if (n == max && !pass_oldest(&w, &passed, cb, ctx)) {
			go = false;
			c = 0;
			break;
		}
		if (!window_room(&w, max)) {
			window_free(&w);
			return -ENOMEM;
		}
		s = w.free[w.nfree - 1];
		h = &w.pool[s];
		c = capr_next(r, &h->rec);
		if (c != 1)
			break;
		w.nfree--;
		h->seq = seq++;
		if (h->rec.hdr.ts_ns > newest)
			newest = h->rec.hdr.ts_ns;
		if (passed && h->rec.hdr.ts_ns < passed)
			cw->late++; /* older than one passed on: on as it is */
		window_add(&w, s);
		n = w.fn + w.hn;
		if (n > cw->peak)
			cw->peak = n;
		/* pass on what no record to come should precede */
		while (go && (w.fn || w.hn) &&
		       w.pool[window_oldest(&w)].rec.hdr.ts_ns + cw->ns < newest)
			go = pass_oldest(&w, &passed, cb, ctx);
		if (!go)
			break;
	}
	while (go && (w.fn || w.hn))
		go = pass_oldest(&w, &passed, cb, ctx);
	window_free(&w);
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
