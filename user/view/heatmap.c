// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Run-queue waits into time x latency cells, per cgroup. */
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

static struct hm_group *group_of(struct heatmap *h, uint64_t cg)
{
	uint64_t *i;
	struct hm_group *g;

	if (h->ngroups && h->groups[h->last].cgroup == cg)
		return &h->groups[h->last];
	i = hashtab_get(&h->by_id, cg);
	if (i) {
		h->last = (size_t)*i;
		return &h->groups[h->last];
	}
	if (array_room(&h->groups, h->ngroups, &h->cap, sizeof(*h->groups), 8))
		return NULL;
	g = &h->groups[h->ngroups];
	g->cgroup = cg;
	g->cells = calloc((size_t)h->cols * HM_ROWS, sizeof(*g->cells));
	if (!g->cells || hashtab_put(&h->by_id, cg, h->ngroups) < 0) {
		free(g->cells);
		return NULL;
	}
	h->last = h->ngroups++;
	return g;
}

void hm_wait(void *ctx, const struct wait_ev *w)
{
	struct heatmap *h = ctx;
	const struct task *t = h->by_cgroup ? analysis_find(h->a, w->id.tid) :
				       NULL;
	struct hm_group *g;
	uint64_t col;

	if (w->end_ns < h->t0)
		return;
	col = (w->end_ns - h->t0) / h->col_ns;
	if (col >= h->cols)
		col = h->cols - 1; /* the last record ends the last column */
	g = group_of(h, t ? t->cgroup : 0);
	if (!g) {
		h->oom = true;
		return;
	}
	g->cells[col * HM_ROWS + hm_bucket(w->end_ns - w->start_ns)]++;
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

static bool chosen(const struct hm_group *g, const struct hm_select *sel,
		   struct cgnames *names)
{
	struct cgname c = { 0 };

	if (!sel->cgroup && !sel->container)
		return true;
	if (!g->cgroup || !cgnames_get(names, g->cgroup, &c))
		return false;
	if (sel->cgroup && (!c.path || !under(c.path, sel->cgroup)))
		return false;
	if (sel->container && (!c.ct || strcmp(c.label, sel->container)))
		return false;
	return true;
}

uint64_t hm_sum(const struct heatmap *h, const struct hm_select *sel,
		struct cgnames *names, uint32_t *out)
{
	size_t n = (size_t)h->cols * HM_ROWS;
	uint64_t waits = 0;

	memset(out, 0, n * sizeof(*out));
	for (size_t i = 0; i < h->ngroups; i++) {
		if (!chosen(&h->groups[i], sel, names))
			continue;
		for (size_t k = 0; k < n; k++) {
			out[k] += h->groups[i].cells[k];
			waits += h->groups[i].cells[k];
		}
	}
	return waits;
}

void hm_free(struct heatmap *h)
{
	for (size_t i = 0; i < h->ngroups; i++)
		free(h->groups[i].cells);
	free(h->groups);
	hashtab_free(&h->by_id);
	h->groups = NULL;
	h->ngroups = 0;
}
