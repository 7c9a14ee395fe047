// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "lib/array.h"

int array_room(void *arr, size_t n, size_t *cap, size_t size, size_t first)
{
	size_t c = *cap ? *cap * 2 : first;
	void *p;

	if (n < *cap)
		return 0;
	if (!c || c < *cap || c > SIZE_MAX / size)
		return -ENOMEM;
	p = realloc(*(void **)arr, c * size);
	if (!p)
		return -ENOMEM;
	*(void **)arr = p;
	*cap = c;
	return 0;
}
