// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The k-way merge of per-CPU record streams (merge.h). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "lib/heap.h"
#include "live/merge.h"

/*
 * One source's records, oldest first: a circular buffer of cap (a power of
 * two) slots, records head to tail - 1 (counts, taken modulo cap).
 */
struct srcq {
	union abicap_rec *v;
	size_t head, tail, cap;
	uint64_t newest; /* the newest time ever queued */
};

#define AT(q, i) ((q)->v[(i) & ((q)->cap - 1)])

struct recmerge {
	int nsrc;
	uint64_t lag;
	recmerge_cb cb;
	void *ctx;
	struct srcq *q;
	uint32_t *heap; /* sources by their oldest record (lib/heap.h) */
	size_t nheap;
	uint64_t last_out; /* the newest time handed on */
	uint64_t late;
	size_t queued;
};

struct recmerge *recmerge_new(int nsrc, uint64_t lag_ns, recmerge_cb cb,
			      void *ctx)
{
	struct recmerge *m = calloc(1, sizeof(*m));

	if (!m || nsrc <= 0)
		goto fail;
	m->nsrc = nsrc;
	m->lag = lag_ns;
	m->cb = cb;
	m->ctx = ctx;
	m->q = calloc(nsrc, sizeof(*m->q));
	m->heap = calloc(nsrc, sizeof(*m->heap));
	if (!m->q || !m->heap)
		goto fail;
	return m;
fail:
	recmerge_free(m);
	return NULL;
}

void recmerge_free(struct recmerge *m)
{
	if (!m)
		return;
	for (int i = 0; m->q && i < m->nsrc; i++)
		free(m->q[i].v);
	free(m->q);
	free(m->heap);
	free(m);
}

static int out(struct recmerge *m, const union abicap_rec *r)
{
	if (r->hdr.ts_ns < m->last_out)
		m->late++;
	else
		m->last_out = r->hdr.ts_ns;
	return m->cb ? m->cb(m->ctx, r) : 0;
}

/* Room for one more record in q (false: out of memory). */
static bool make_room(struct srcq *q)
{
	size_t n = q->tail - q->head, cap;
	union abicap_rec *v;

	if (n < q->cap)
		return true;
	/* a ring: laid out again from its head in the new room */
	cap = array_grown(q->cap, n + 1, 256, SIZE_MAX / sizeof(*v));
	v = cap ? malloc(cap * sizeof(*v)) : NULL;
	if (!v)
		return false;
	for (size_t i = 0; i < n; i++)
		v[i] = AT(q, q->head + i);
	free(q->v);
	q->v = v;
	q->cap = cap;
	q->head = 0;
	q->tail = n;
	return true;
}

int recmerge_push(struct recmerge *m, int src, const union abicap_rec *r)
{
	struct srcq *q = &m->q[src];
	size_t pos;
	int ret;

	if (!make_room(q)) {
		/* everything queued goes first, then this one: late, counted */
		ret = recmerge_emit(m, UINT64_MAX);
		if (ret || !make_room(q))
			return ret ?: out(m, r);
	}
	/* a program nested on the CPU can submit before the one it interrupted */
	for (pos = q->tail; pos > q->head &&
	     AT(q, pos - 1).hdr.ts_ns > r->hdr.ts_ns; pos--)
		AT(q, pos) = AT(q, pos - 1);
	AT(q, pos) = *r;
	q->tail++;
	m->queued++;
	if (r->hdr.ts_ns > q->newest)
		q->newest = r->hdr.ts_ns;
	return 0;
}

/* Source a's oldest record comes before source b's. */
/* Source *x's oldest record comes before *y's (a tie: the lower source). */
static bool src_first(const void *x, const void *y, const void *ctx)
{
	const struct recmerge *m = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	uint64_t ta = AT(&m->q[a], m->q[a].head).hdr.ts_ns;
	uint64_t tb = AT(&m->q[b], m->q[b].head).hdr.ts_ns;

	return ta < tb || (ta == tb && a < b);
}

/* Source s has a record to hand on under the bound. */
static bool ready(const struct recmerge *m, int s, uint64_t bound, bool all)
{
	const struct srcq *q = &m->q[s];

	return q->head < q->tail && (all || AT(q, q->head).hdr.ts_ns < bound);
}

int recmerge_emit(struct recmerge *m, uint64_t drained_ns)
{
	bool all = drained_ns == UINT64_MAX;
	uint64_t bound = UINT64_MAX;
	int ret = 0;

	if (!m->queued)
		return 0;
	for (int s = 0; !all && s < m->nsrc; s++) {
		uint64_t b = m->q[s].newest > drained_ns ? m->q[s].newest :
							   drained_ns;

		b = b > m->lag ? b - m->lag : 0;
		if (b < bound)
			bound = b;
	}
	m->nheap = 0;
	for (int s = 0; s < m->nsrc; s++)
		if (ready(m, s, bound, all))
			m->heap[m->nheap++] = (uint32_t)s;
	heap_make(m->heap, m->nheap, sizeof(*m->heap), src_first, m);
	while (m->nheap && !ret) {
		uint32_t s = m->heap[0];
		struct srcq *q = &m->q[s];

		q->head++;
		m->queued--;
		ret = out(m, &AT(q, q->head - 1));
		if (ready(m, (int)s, bound, all))
			heap_down(m->heap, m->nheap, sizeof(*m->heap), 0,
				  src_first, m);
		else
			heap_pop(m->heap, &m->nheap, sizeof(*m->heap),
				 src_first, m);
	}
	return ret;
}

uint64_t recmerge_late(const struct recmerge *m)
{
	return m->late;
}

size_t recmerge_queued(const struct recmerge *m)
{
	return m->queued;
}
