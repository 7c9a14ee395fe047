// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
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

static bool in_runs(const struct seqset *s, uint32_t seq)
{
	size_t i = find(s, seq);

	return i < s->n && s->run[i].lo <= seq;
}

static int room(struct seqset *s, size_t n)
{
	size_t rcap = s->cap, bcap = s->cap;

	/* two arrays of one capacity: each grows by the rule from it */
	if (array_reserve(&s->run, n, &rcap, sizeof(*s->run), 16) ||
	    array_reserve(&s->before, n, &bcap, sizeof(*s->before), 16))
		return -ENOMEM;
	s->cap = rcap;
	return 0;
}

/* seq past every run: it extends the last or starts one. */
static int append(struct seqset *s, uint32_t seq)
{
	struct seqrun *l = s->n ? &s->run[s->n - 1] : NULL;

	if (l && l->hi + 1 == seq) {
		l->hi = seq;
		return 1;
	}
	if (room(s, s->n + 1)) /* l moves with the runs */
		return -ENOMEM;
	l = s->n ? &s->run[s->n - 1] : NULL;
	s->before[s->n] = l ? s->before[s->n - 1] + (l->hi - l->lo + 1ULL) : 0;
	s->run[s->n++] = (struct seqrun){ seq, seq };
	return 1;
}

int seqset_add(struct seqset *s, uint32_t seq)
{
	int c;

	if (!s->n || seq > s->run[s->n - 1].hi)
		return append(s, seq);
	if (in_runs(s, seq) || hashtab_get(&s->late, seq))
		return 0;
	if (array_room(&s->pending, s->npending, &s->pending_cap,
		       sizeof(*s->pending), 64))
		return -ENOMEM;
	c = hashtab_put(&s->late, seq, 0);
	if (c < 0)
		return c;
	s->pending[s->npending++] = seq;
	return 1;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The late numbers into the runs: a sort and one merge. */
static int join(struct seqset *s)
{
	struct seqset m = { 0 };
	size_t i = 0, j = 0;

	if (!s->npending)
		return 0;
	qsort(s->pending, s->npending, sizeof(*s->pending), cmp_u32);
	while (i < s->n || j < s->npending) {
		bool take_run = j == s->npending ||
				(i < s->n && s->run[i].lo < s->pending[j]);
		struct seqrun r = take_run ? s->run[i++] :
			(struct seqrun){ s->pending[j], s->pending[j] };
		struct seqrun *l = m.n ? &m.run[m.n - 1] : NULL;

		if (!take_run)
			j++;
		if (l && (uint64_t)l->hi + 1 >= r.lo) {
			if (r.hi > l->hi)
				l->hi = r.hi;
			continue;
		}
		if (room(&m, m.n + 1)) {
			free(m.run);
			free(m.before);
			return -ENOMEM;
		}
		l = m.n ? &m.run[m.n - 1] : NULL; /* moved with the runs */
		m.before[m.n] = l ? m.before[m.n - 1] + (l->hi - l->lo + 1ULL) : 0;
		m.run[m.n++] = r;
	}
	free(s->run);
	free(s->before);
	s->run = m.run;
	s->before = m.before;
	s->n = m.n;
	s->cap = m.cap;
	s->npending = 0;
	hashtab_free(&s->late);
	return 0;
}

int seqset_has(struct seqset *s, uint32_t seq)
{
	if (join(s))
		return -ENOMEM;
	return in_runs(s, seq);
}

uint64_t seqset_count_below(struct seqset *s, uint64_t end)
{
	size_t i;

	if (join(s) || !s->n)
		return 0;
	if (end > s->run[s->n - 1].hi)
		i = s->n; /* every run starts below end */
	else
		i = find(s, (uint32_t)end); /* run[i].hi >= end */
	if (i < s->n && s->run[i].lo < end)
		return s->before[i] + (end - s->run[i].lo);
	if (!i)
		return 0;
	i--;
	return s->before[i] + (s->run[i].hi - s->run[i].lo + 1ULL);
}

void seqset_clear(struct seqset *s)
{
	free(s->run);
	free(s->before);
	free(s->pending);
	hashtab_free(&s->late);
	memset(s, 0, sizeof(*s));
}
