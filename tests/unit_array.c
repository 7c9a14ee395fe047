// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The one growth helper: room for one more, or for a number, doubling. */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "lib/array.h"

Test(array, room_doubles_from_first_and_keeps_what_is_there)
{
	int *v = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < 1000; i++) {
		cr_assert_eq(array_room(&v, i, &cap, sizeof(*v), 16), 0);
		cr_assert_gt(cap, i);
		v[i] = (int)i;
	}
	/* 16, 32, ... 1024: each time full, twice the room */
	cr_assert_eq(cap, 1024);
	for (size_t i = 0; i < 1000; i++)
		cr_assert_eq(v[i], (int)i);
	free(v);
}

Test(array, reserve_grows_to_hold_what_is_asked_at_once)
{
	char *b = NULL;
	size_t cap = 0;

	cr_assert_eq(array_reserve(&b, 10, &cap, 1, 4096), 0);
	cr_assert_eq(cap, 4096);
	cr_assert_eq(array_reserve(&b, 4096, &cap, 1, 4096), 0);
	cr_assert_eq(cap, 4096, "no growth when it fits");
	cr_assert_eq(array_reserve(&b, 20000, &cap, 1, 4096), 0);
	cr_assert_eq(cap, 32768, "doubled until it holds 20,000");
	free(b);
}

Test(array, overflow_is_refused_and_the_array_kept)
{
	uint64_t *v = NULL;
	size_t cap = 0;

	cr_assert_eq(array_room(&v, 0, &cap, sizeof(*v), 4), 0);
	v[0] = 7;
	cr_assert_eq(array_reserve(&v, SIZE_MAX / 4, &cap, sizeof(*v), 4),
		     -ENOMEM);
	cr_assert_eq(cap, 4);
	cr_assert_eq(v[0], 7);
	cr_assert_eq(array_reserve(&v, SIZE_MAX, &cap, 1, 4), -ENOMEM);
	cr_assert_eq(cap, 4);
	free(v);
}
