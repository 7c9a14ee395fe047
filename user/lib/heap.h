/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The one binary min-heap: n elements of size bytes (at most
 * HEAP_ELEM_MAX) in an array, ordered by before(a, b, ctx), "a comes out
 * first". Whatever is kept in it (indexes of sources, slots, whole
 * records, the slowest waits so far) is the caller's; the functions are
 * inline, so that a caller's comparison is inlined where it is known.
 * On a tie neither element comes first: give before() a total order where
 * the order out must not depend on the heap's layout.
 */
#ifndef ABICAP_LIB_HEAP_H
#define ABICAP_LIB_HEAP_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#define HEAP_ELEM_MAX 256

typedef bool (*heap_before_fn)(const void *a, const void *b, const void *ctx);

static inline void heap_swap(char *a, char *b, size_t size)
{
	char t[HEAP_ELEM_MAX];

	memcpy(t, a, size);
	memcpy(a, b, size);
	memcpy(b, t, size);
}

/* Element i moved down to its place among its n - 1 - i followers. */
static inline void heap_down(void *h, size_t n, size_t size, size_t i,
			     heap_before_fn before, const void *ctx)
{
	char *v = h;

	for (;;) {
		size_t l = 2 * i + 1, m = i;

		if (l < n && before(v + l * size, v + m * size, ctx))
			m = l;
		if (l + 1 < n && before(v + (l + 1) * size, v + m * size, ctx))
			m = l + 1;
		if (m == i)
			return;
		heap_swap(v + i * size, v + m * size, size);
		i = m;
	}
}

/* Element i (the one just put last) moved up to its place. */
static inline void heap_up(void *h, size_t size, size_t i,
			   heap_before_fn before, const void *ctx)
{
	char *v = h;

	while (i) {
		size_t p = (i - 1) / 2;

		if (!before(v + i * size, v + p * size, ctx))
			return;
		heap_swap(v + i * size, v + p * size, size);
		i = p;
	}
}

/* The n elements made a heap. */
static inline void heap_make(void *h, size_t n, size_t size,
			     heap_before_fn before, const void *ctx)
{
	for (size_t i = n / 2; i-- > 0;)
		heap_down(h, n, size, i, before, ctx);
}

/* The root taken out: the last element in its place, moved down. */
static inline void heap_pop(void *h, size_t *n, size_t size,
			    heap_before_fn before, const void *ctx)
{
	char *v = h;

	if (!*n)
		return;
	if (--*n)
		memcpy(v, v + *n * size, size);
	heap_down(h, *n, size, 0, before, ctx);
}

#endif
