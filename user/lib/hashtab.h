/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A hash table from 64-bit keys to 64-bit values: open addressing with
 * linear probing, at most half full, deletion by moving back (no
 * tombstones). A key's home slot is the TOP bits of hash_u64(key), a full
 * 64-bit mixer, so keys that differ only in their high bits (ids a power
 * of two apart) or only in their low bits spread alike.
 *
 * Keys compared by the caller (strings, structs) use their hash as the key
 * and the value to reach the item: hashtab_find() walks the slots holding
 * that hash and asks the caller which item is the one; hashtab_add() adds
 * one more under a hash already present.
 *
 * Every operation is O(1) expected; memory is 17 bytes a slot, two to four
 * slots an entry.
 */
#ifndef ABICAP_HASHTAB_H
#define ABICAP_HASHTAB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct hashtab {
	uint64_t *key;
	uint64_t *val;
	uint8_t *used;
	size_t cap; /* a power of two, or 0 before the first insert */
	unsigned int bits; /* log2(cap) */
	size_t n;
};

/* A 64-bit mixer: every input bit changes every output bit by half. */
uint64_t hash_u64(uint64_t x);
/* The bytes of p, mixed 8 at a time (length included). */
uint64_t hash_bytes(const void *p, size_t len);
uint64_t hash_str(const char *s);

#define HASHTAB_INIT { 0 }
void hashtab_free(struct hashtab *h);
size_t hashtab_count(const struct hashtab *h);

/* The value of key, NULL when absent (valid until the next insert). */
uint64_t *hashtab_get(const struct hashtab *h, uint64_t key);
/* Set key to val: 1 added, 0 replaced, -ENOMEM. */
int hashtab_put(struct hashtab *h, uint64_t key, uint64_t val);
/* Remove key: true if it was there. */
bool hashtab_del(struct hashtab *h, uint64_t key);

/* Caller-compared keys: the value under hash for which eq says true. */
typedef bool (*hashtab_eq)(void *ctx, uint64_t val);
uint64_t *hashtab_find(const struct hashtab *h, uint64_t hash, hashtab_eq eq,
		       void *ctx);
/* One more value under hash (another may be there): 0 or -ENOMEM. */
int hashtab_add(struct hashtab *h, uint64_t hash, uint64_t val);

/*
 * Iteration: pos from 0; the next used slot at or after *pos, its key and
 * value, *pos past it; false at the end. Not across inserts or deletions.
 */
bool hashtab_next(const struct hashtab *h, size_t *pos, uint64_t *key,
		  uint64_t *val);

/* The longest probe (slots past the home) any key needs: the spread. */
size_t hashtab_longest_probe(const struct hashtab *h);

#endif
