// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Run-queue waits into time x latency cells, per cgroup. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/array.h"
#include "view/heatmap.h"

unsigned int hm_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned int b = 0;

	while (b < HM_ROWS - 1 && us >> b)
		b++;
	return b;
}

void hm_init(struct heatmap *h, uint64_t t0, uint64_t col_ns, uint32_t cols,
	     const struct analysis *a, bool by_cgroup)
{
	memset(h, 0, sizeof(*h));
	h->t0 = t0;
	h->col_ns = col_ns;
	h->cols = cols;
	h->a = a;
	h->by_cgroup = by_cgroup;
}

static size_t ncells(const struct heatmap *h)
{
	return (size_t)h->cols * HM_ROWS;
}

/* The group of cgroup cg, added on first sight; -1: no memory. */
static long group_of(struct heatmap *h, uint64_t cg)
{
	uint64_t *i;

	if (h->ngroups && h->groups[h->last] == cg)
		return (long)h->last;
	i = hashtab_get(&h->by_id, cg);
	if (i) {
		h->last = (size_t)*i;
		return (long)h->last;
	}
	if (array_room(&h->groups, h->ngroups, &h->cap, sizeof(*h->groups), 64) ||
	    hashtab_put(&h->by_id, cg, h->ngroups) < 0)
		return -1;
	h->groups[h->ngroups] = cg;
	h->last = h->ngroups++;
	return (long)h->last;
}

/* One more wait in cell of the group g: false without memory. */
static bool count(struct heatmap *h, long g, size_t cell)
{
	uint64_t key = (uint64_t)g * ncells(h) + cell, *v;

	v = hashtab_get(&h->cells, key);
	if (v) {
		(*v)++;
		return true;
	}
	return hashtab_put(&h->cells, key, 1) >= 0;
}

void hm_wait(void *ctx, const struct wait_ev *w)
{
	struct heatmap *h = ctx;
	const struct task *t;
	uint64_t col;
	size_t cell;
	long g;

	if (w->end_ns < h->t0)
		return;
	col = (w->end_ns - h->t0) / h->col_ns;
	if (col >= h->cols)
		col = h->cols - 1; /* the last record ends the last column */
	cell = (size_t)col * HM_ROWS + hm_bucket(w->end_ns - w->start_ns);
	if (!h->by_cgroup) {
		if (!h->grid && !(h->grid = calloc(ncells(h), sizeof(*h->grid)))) {
			h->oom = true;
			return;
		}
		h->grid[cell]++;
		h->waits++;
		return;
	}
	t = analysis_find(h->a, w->id.tid);
	g = group_of(h, t ? t->cgroup : 0);
	if (g < 0 || !count(h, g, cell)) {
		h->oom = true;
		return;
	}
	h->waits++;
}

/* Whether path is prefix or below it. */
static bool under(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);

	while (n > 1 && prefix[n - 1] == '/')
		n--;
	return !strncmp(path, prefix, n) &&
	       (path[n] == '\0' || path[n] == '/' || (n == 1 && *prefix == '/'));
}

static bool chosen(uint64_t cgroup, const struct hm_select *sel,
		   struct cgnames *names)
{
	struct cgname c = { 0 };

	if (!sel->cgroup && !sel->container)
		return true;
	if (!cgroup || !cgnames_get(names, cgroup, &c))
		return false;
	if (sel->cgroup && (!c.path || !under(c.path, sel->cgroup)))
		return false;
	if (sel->container && (!c.ct || strcmp(c.label, sel->container)))
		return false;
	return true;
}

/* out[cell] += n unless it overflows 32 bits: false then. */
static bool add_to(uint32_t *out, size_t cell, uint64_t n)
{
	if (n > UINT32_MAX - out[cell])
		return false;
	out[cell] += (uint32_t)n;
	return true;
}

int hm_sum(const struct heatmap *h, const struct hm_select *sel,
	   struct cgnames *names, uint32_t *out, uint64_t *waits)
{
	size_t n = ncells(h), pos = 0;
	uint64_t key, v;
	bool *pick;
	int ret = 0;

	memset(out, 0, n * sizeof(*out));
	*waits = 0;
	if (!h->by_cgroup) {
		for (size_t k = 0; h->grid && k < n; k++) {
			if (!add_to(out, k, h->grid[k]))
				return -EOVERFLOW;
			*waits += h->grid[k];
		}
		return 0;
	}
	/* each group chosen once, then every cell filled */
	pick = calloc(h->ngroups ? h->ngroups : 1, sizeof(*pick));
	if (!pick)
		return -ENOMEM;
	for (size_t g = 0; g < h->ngroups; g++)
		pick[g] = chosen(h->groups[g], sel, names);
	while (hashtab_next(&h->cells, &pos, &key, &v)) {
		if (!pick[key / n])
			continue;
		if (!add_to(out, key % n, v)) {
			ret = -EOVERFLOW;
			break;
		}
		*waits += v;
	}
	free(pick);
	return ret;
}

void hm_free(struct heatmap *h)
{
	free(h->grid);
	free(h->groups);
	hashtab_free(&h->cells);
	hashtab_free(&h->by_id);
	h->grid = NULL;
	h->groups = NULL;
	h->ngroups = 0;
}
