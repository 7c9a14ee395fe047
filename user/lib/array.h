/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Growing arrays, by one rule: the capacity doubles (from a first one)
 * until it holds what is needed, never past a bound. array_grown() is the
 * rule; array_reserve() and array_room() apply it to a plain array. A
 * structure laid out its own way (a ring, two arrays of one capacity)
 * takes its new capacity from array_grown() and moves itself.
 */
#ifndef ABICAP_ARRAY_H
#define ABICAP_ARRAY_H

#include <stddef.h>

/*
 * The capacity for need elements: cap, else cap (first if 0) doubled until
 * it holds need, at most max. 0 where need is past max (or the doubling
 * would overflow).
 */
size_t array_grown(size_t cap, size_t need, size_t first, size_t max);
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
