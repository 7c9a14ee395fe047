// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "lib/array.h"

size_t array_grown(size_t cap, size_t need, size_t first, size_t max)
{
	size_t c = cap ? cap : first;

	if (need <= cap)
		return cap;
	if (need > max)
		return 0;
	while (c && c < need && c <= SIZE_MAX / 2)
		c *= 2;
	if (!c || c < need)
		return 0;
	return c < max ? c : max;
}

int array_reserve(void *arr, size_t need, size_t *cap, size_t size,
		  size_t first)
{
	size_t c = array_grown(*cap, need, first, SIZE_MAX / size);
	void *p;

	if (need <= *cap)
		return 0;
	if (!c)
		return -ENOMEM;
	p = realloc(*(void **)arr, c * size);
	if (!p)
		return -ENOMEM;
	*(void **)arr = p;
	*cap = c;
	return 0;
}

int array_room(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
	if (n < *cap)
		return 0;
	/* one doubling: n is at most the capacity */
	return array_reserve(arr, n + 1 > *cap * 2 ? n + 1 : *cap * 2 ?: first,
			     cap, size, first);
}
