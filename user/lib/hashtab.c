// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/hashtab.h"

uint64_t hash_u64(uint64_t x)
{
	/* xor-shift-multiply rounds (the splitmix64 finaliser's constants) */
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}

uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *b = p;
	uint64_t h = hash_u64(len ^ 0x6a09e667f3bcc909ULL);

	while (len) {
		uint64_t w = 0;
		size_t k = len < 8 ? len : 8;

		memcpy(&w, b, k);
		h = hash_u64(h ^ w) + 0x9e3779b97f4a7c15ULL;
		b += k;
		len -= k;
	}
	return hash_u64(h);
}

uint64_t hash_str(const char *s)
{
	return hash_bytes(s, strlen(s));
}

void hashtab_free(struct hashtab *h)
{
	free(h->key);
	free(h->val);
	free(h->used);
	memset(h, 0, sizeof(*h));
}

size_t hashtab_count(const struct hashtab *h)
{
	return h->n;
}

static size_t home(const struct hashtab *h, uint64_t key)
{
	return (size_t)(hash_u64(key) >> (64 - h->bits));
}

static size_t next(const struct hashtab *h, size_t i)
{
	return (i + 1) & (h->cap - 1);
}

/* The slot of key, or the empty one where it would go. */
static size_t slot(const struct hashtab *h, uint64_t key)
{
	size_t i = home(h, key);

	while (h->used[i] && h->key[i] != key)
		i = next(h, i);
	return i;
}

static size_t free_slot(const struct hashtab *h, uint64_t key)
{
	size_t i = home(h, key);

	while (h->used[i])
		i = next(h, i);
	return i;
}

/* Room for one more: at most half full after it. */
static int reserve(struct hashtab *h)
{
	struct hashtab o = *h, g = { 0 };

	if ((h->n + 1) * 2 <= h->cap)
		return 0;
	g.bits = o.cap ? o.bits + 1 : 4;
	g.cap = (size_t)1 << g.bits;
	g.key = malloc(g.cap * sizeof(*g.key));
	g.val = malloc(g.cap * sizeof(*g.val));
	g.used = calloc(g.cap, 1);
	if (!g.key || !g.val || !g.used) {
		hashtab_free(&g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < o.cap; i++) {
		size_t j;

		if (!o.used[i])
			continue;
		j = free_slot(&g, o.key[i]);
		g.used[j] = 1;
		g.key[j] = o.key[i];
		g.val[j] = o.val[i];
	}
	g.n = o.n;
	hashtab_free(&o);
	*h = g;
	return 0;
}

uint64_t *hashtab_get(const struct hashtab *h, uint64_t key)
{
	size_t i;

	if (!h->n)
		return NULL;
	i = slot(h, key);
	return h->used[i] ? &h->val[i] : NULL;
}

int hashtab_put(struct hashtab *h, uint64_t key, uint64_t val)
{
	uint64_t *v = hashtab_get(h, key);
	size_t i;

	if (v) {
		*v = val;
		return 0;
	}
	if (reserve(h))
		return -ENOMEM;
	i = free_slot(h, key);
	h->used[i] = 1;
	h->key[i] = key;
	h->val[i] = val;
	h->n++;
	return 1;
}

/* Empty slot i, moving back what linear probing would lose behind it. */
static void remove_at(struct hashtab *h, size_t i)
{
	size_t j;

	h->used[i] = 0;
	h->n--;
	for (j = next(h, i); h->used[j]; j = next(h, j)) {
		size_t k = home(h, h->key[j]);

		/* j stays when its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		h->key[i] = h->key[j];
		h->val[i] = h->val[j];
		h->used[i] = 1;
		h->used[j] = 0;
		i = j;
	}
}

bool hashtab_del(struct hashtab *h, uint64_t key)
{
	size_t i;

	if (!h->n)
		return false;
	i = slot(h, key);
	if (!h->used[i])
		return false;
	remove_at(h, i);
	return true;
}

uint64_t *hashtab_find(const struct hashtab *h, uint64_t hash, hashtab_eq eq,
		       void *ctx)
{
	if (!h->n)
		return NULL;
	for (size_t i = home(h, hash); h->used[i]; i = next(h, i))
		if (h->key[i] == hash && eq(ctx, h->val[i]))
			return &h->val[i];
	return NULL;
}

int hashtab_add(struct hashtab *h, uint64_t hash, uint64_t val)
{
	size_t i;

	if (reserve(h))
		return -ENOMEM;
	i = free_slot(h, hash);
	h->used[i] = 1;
	h->key[i] = hash;
	h->val[i] = val;
	h->n++;
	return 0;
}

bool hashtab_next(const struct hashtab *h, size_t *pos, uint64_t *key,
		  uint64_t *val)
{
	for (size_t i = *pos; i < h->cap; i++)
		if (h->used[i]) {
			if (key)
				*key = h->key[i];
			if (val)
				*val = h->val[i];
			*pos = i + 1;
			return true;
		}
	*pos = h->cap;
	return false;
}

size_t hashtab_longest_probe(const struct hashtab *h)
{
	size_t most = 0;

	for (size_t i = 0; i < h->cap; i++)
		if (h->used[i]) {
			size_t d = (i - home(h, h->key[i])) & (h->cap - 1);

			if (d > most)
				most = d;
		}
	return most;
}
