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

/*
 * The one growth rule: doubled from the first capacity until it holds
 * what is needed, never past the bound; what it cannot give is 0.
 */
Test(array, grown_doubles_to_the_need_within_the_bound)
{
	cr_assert_eq(array_grown(0, 1, 16, 1000), 16);
	cr_assert_eq(array_grown(16, 16, 16, 1000), 16, "it holds them already");
	cr_assert_eq(array_grown(16, 17, 16, 1000), 32);
	cr_assert_eq(array_grown(16, 100, 16, 1000), 128);
	cr_assert_eq(array_grown(512, 513, 16, 1000), 1000, "at most the bound");
	cr_assert_eq(array_grown(1000, 1001, 16, 1000), 0, "past the bound");
	cr_assert_eq(array_grown(0, 5, 16, 4), 0, "past the bound at first");
	cr_assert_eq(array_grown(0, 3, 16, 4), 4, "the bound below the first");
	cr_assert_eq(array_grown(SIZE_MAX / 2 + 2, SIZE_MAX, 16, SIZE_MAX),
		     0, "the doubling would overflow");
}
