// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/seqset.h"

/* The first run whose hi is >= seq (n if none). */
static size_t find(const struct seqset *s, uint32_t seq)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->run[mid].hi < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int seqset_has(const struct seqset *s, uint32_t seq)
{
	size_t i = find(s, seq);

	return i < s->n && s->run[i].lo <= seq;
}

int seqset_add(struct seqset *s, uint32_t seq)
{
	size_t i;

	/* the common case: the next one */
	if (s->n && s->run[s->n - 1].hi != UINT32_MAX &&
	    s->run[s->n - 1].hi + 1 == seq) {
		s->run[s->n - 1].hi = seq;
		return 1;
	}
	i = find(s, seq);
	if (i < s->n && s->run[i].lo <= seq)
		return 0;
	if (i < s->n && s->run[i].lo == seq + 1) {
		s->run[i].lo = seq;
		if (i && s->run[i - 1].hi + 1 == seq) { /* joins two runs */
			s->run[i - 1].hi = s->run[i].hi;
			memmove(&s->run[i], &s->run[i + 1],
				(s->n - i - 1) * sizeof(*s->run));
			s->n--;
		}
		return 1;
	}
	if (i && s->run[i - 1].hi + 1 == seq) {
		s->run[i - 1].hi = seq;
		return 1;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct seqrun *r = realloc(s->run, cap * sizeof(*r));

		if (!r)
			return -ENOMEM;
		s->run = r;
		s->cap = cap;
	}
	memmove(&s->run[i + 1], &s->run[i], (s->n - i) * sizeof(*s->run));
	s->run[i] = (struct seqrun){ seq, seq };
	s->n++;
	return 1;
}

uint64_t seqset_count_below(const struct seqset *s, uint64_t end)
{
	uint64_t n = 0;

	for (size_t i = 0; i < s->n && s->run[i].lo < end; i++)
		n += (s->run[i].hi < end ? s->run[i].hi + 1 : end) - s->run[i].lo;
	return n;
}

void seqset_clear(struct seqset *s)
{
	free(s->run);
	memset(s, 0, sizeof(*s));
}
