// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* capfile/seqset: membership and counts agree with a bitmap in any order. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "capfile/seqset.h"

Test(seqset, agrees_with_a_bitmap_in_any_order)
{
	enum { M = 5000 };
	static bool in[M + 2];
	struct seqset s = { 0 };
	uint64_t x = 777;

	for (int step = 0; step < 20000; step++) {
		uint32_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* mostly in order with gaps, some late ones */
		v = step % 5 ? (uint32_t)(step / 4 * 2) % M : (uint32_t)(x % M);
		cr_assert_eq(seqset_add(&s, v), !in[v], "add %u", v);
		in[v] = true;
		if (step % 997 == 0) { /* questions between adds */
			uint64_t below = 0;

			for (uint32_t k = 0; k <= M; k++) {
				cr_assert_eq(seqset_count_below(&s, k), below, "below %u", k);
				cr_assert_eq(seqset_has(&s, k), in[k], "has %u", k);
				below += in[k];
			}
		}
	}
	cr_assert_eq(seqset_add(&s, UINT32_MAX), 1);
	cr_assert_eq(seqset_count_below(&s, (uint64_t)UINT32_MAX + 1) -
		     seqset_count_below(&s, UINT32_MAX), 1);
	seqset_clear(&s);
}
