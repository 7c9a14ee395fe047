// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* lib/hashtab: what goes in comes out, deletions keep the rest, keys spread. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "lib/hashtab.h"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Against a plain array: random puts, replacements and deletions. */
Test(hashtab, agrees_with_a_plain_array_through_puts_and_deletions)
{
	enum { K = 3000 };
	static uint64_t val[K];
	static bool in[K];
	struct hashtab h = HASHTAB_INIT;
	uint64_t s = 12345, key, v;
	size_t n = 0, pos = 0, seen = 0;

	cr_assert_null(hashtab_get(&h, 7));
	cr_assert_not(hashtab_del(&h, 7));
	for (int step = 0; step < 200000; step++) {
		size_t k = rnd(&s) % K;
		/* keys 0, small, and far apart: wrapping probe chains */
		uint64_t kk = k % 3 ? k : k << 40;

		if (rnd(&s) % 3) {
			int c = hashtab_put(&h, kk, step);

			cr_assert_eq(c, in[k] ? 0 : 1);
			n += !in[k];
			in[k] = true;
			val[k] = step;
		} else {
			cr_assert_eq(hashtab_del(&h, kk), in[k]);
			n -= in[k];
			in[k] = false;
		}
	}
	cr_assert_eq(hashtab_count(&h), n);
	for (size_t k = 0; k < K; k++) {
		uint64_t *p = hashtab_get(&h, k % 3 ? k : k << 40);

		cr_assert_eq(p != NULL, in[k], "key %zu", k);
		if (p)
			cr_assert_eq(*p, val[k]);
	}
	while (hashtab_next(&h, &pos, &key, &v)) {
		size_t k = key >> 40 ? key >> 40 : key;

		cr_assert(in[k] && val[k] == v);
		seen++;
	}
	cr_assert_eq(seen, n);
	hashtab_free(&h);
}

/*
 * Keys a power of two apart (cgroup ids, tids 1024 apart) or differing in
 * the high bits only: a table indexed by the low bits of a product piles
 * them into one chain; here every probe stays short.
 */
Test(hashtab, keys_differing_only_in_high_or_low_bits_spread)
{
	static const unsigned int shift[] = { 0, 10, 12, 32, 46 };

	for (size_t t = 0; t < sizeof(shift) / sizeof(*shift); t++) {
		struct hashtab h = HASHTAB_INIT;

		for (uint64_t i = 1; i <= 100000; i++)
			cr_assert_eq(hashtab_put(&h, i << shift[t], i), 1);
		cr_assert_lt(hashtab_longest_probe(&h), 64, "shift %u: %zu",
			     shift[t], hashtab_longest_probe(&h));
		for (uint64_t i = 1; i <= 100000; i++)
			cr_assert_eq(*hashtab_get(&h, i << shift[t]), i);
		hashtab_free(&h);
	}
}

static const char *const words[] = { "alpha", "beta", "gamma", "delta" };

static bool same_word(void *ctx, uint64_t val)
{
	return !strcmp(ctx, words[val]);
}

/* Caller-compared keys: items under one hash told apart by the caller. */
Test(hashtab, items_sharing_a_hash_are_told_apart_by_the_caller)
{
	struct hashtab h = HASHTAB_INIT;

	for (uint64_t i = 0; i < 4; i++)
		cr_assert_eq(hashtab_add(&h, 42, i), 0); /* one hash for all */
	cr_assert_eq(hashtab_add(&h, hash_str("alpha"), 0), 0);
	for (uint64_t i = 0; i < 4; i++) {
		uint64_t *p = hashtab_find(&h, 42, same_word, (void *)words[i]);

		cr_assert(p && *p == i);
	}
	cr_assert_null(hashtab_find(&h, 42, same_word, "epsilon"));
	cr_assert_null(hashtab_find(&h, 43, same_word, "alpha"));
	cr_assert_eq(hashtab_count(&h), 5);
	hashtab_free(&h);
}

/* The mixer: one input bit flips about half the output bits. */
Test(hashtab, the_mixer_avalanches)
{
	for (unsigned int b = 0; b < 64; b++) {
		unsigned int flips = 0;

		for (uint64_t x = 1; x <= 64; x++)
			flips += __builtin_popcountll(hash_u64(x * 0x10001) ^
						      hash_u64((x * 0x10001) ^ (1ULL << b)));
		/* 64 trials of 64 bits: about 2048 expected */
		cr_assert(flips > 1700 && flips < 2400, "bit %u: %u", b, flips);
	}
	cr_assert_neq(hash_str("ab"), hash_str("ba"));
	cr_assert_neq(hash_bytes("a\0", 2), hash_bytes("a", 1));
}
