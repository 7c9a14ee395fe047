/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Growing arrays: room for one more element, the capacity doubled. */
#ifndef ABICAP_ARRAY_H
#define ABICAP_ARRAY_H

#include <stddef.h>

/*
 * Room for element n in the array at *arr (a pointer to the array's
 * pointer) of capacity *cap elements of size bytes each: the capacity
 * doubles (first: first elements) when n reaches it. 0, or -ENOMEM with
 * the array as it was (also where the size would overflow).
 */
int array_room(void *arr, size_t n, size_t *cap, size_t size, size_t first);
/*
 * Room for need elements: the capacity doubles (from first) until it holds
 * them. 0, or -ENOMEM with the array as it was (also on overflow).
 */
int array_reserve(void *arr, size_t need, size_t *cap, size_t size,
		  size_t first);

#endif
