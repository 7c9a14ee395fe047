// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Run-queue waits into time x latency cells, per cgroup. */
#include <errno.h>
#include <stdio.h>
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

#define TID_BITS 22 /* PID_MAX_LIMIT: 2^22 */

/* One more wait of tid in cell of the group g: false without memory. */
static bool count_task(struct heatmap *h, long g, size_t cell, int32_t tid)
{
	uint64_t slot = (uint64_t)g * ncells(h) + cell, key, *v;

	if (tid <= 0 || (uint64_t)tid >> TID_BITS || slot >> (64 - TID_BITS)) {
		h->tasks_partial = true;
		return true;
	}
	key = slot << TID_BITS | (uint64_t)tid;
	v = hashtab_get(&h->by_task, key);
	if (v) {
		(*v)++;
		return true;
	}
	return hashtab_put(&h->by_task, key, 1) >= 0;
}

/* tid's name, as of this wait: false without memory. */
static bool note_comm(struct heatmap *h, int32_t tid, const char *comm)
{
	uint64_t *i = hashtab_get(&h->comm_of, (uint64_t)tid);
	size_t k = i ? (size_t)*i : h->ncomms;

	if (!i) {
		if (array_room(&h->comms, h->ncomms, &h->ccap,
			       sizeof(*h->comms), 64) ||
		    hashtab_put(&h->comm_of, (uint64_t)tid, h->ncomms) < 0)
			return false;
		h->ncomms++;
	}
	snprintf(h->comms[k], sizeof(h->comms[k]), "%s", comm ? comm : "?");
	return true;
}

const char *hm_comm(const struct heatmap *h, int32_t tid)
{
	uint64_t *i = hashtab_get(&h->comm_of, (uint64_t)tid);

	return i ? h->comms[*i] : "?";
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
		if (!count_task(h, 0, cell, h->by_process ? w->id.tgid :
						  w->id.tid) ||
		    !note_comm(h, w->id.tid, w->comm))
			h->oom = true;
		return;
	}
	t = analysis_find(h->a, w->id.tid);
	g = group_of(h, t ? t->cgroup : 0);
	if (g < 0 || !count(h, g, cell) ||
	    !count_task(h, g, cell, h->by_process ? w->id.tgid : w->id.tid) ||
	    !note_comm(h, w->id.tid, w->comm)) {
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

/* Which groups sel chooses (one flag a group), NULL without memory. */
static bool *picks(const struct heatmap *h, const struct hm_select *sel,
		   struct cgnames *names)
{
	bool *pick = calloc(h->ngroups ? h->ngroups : 1, sizeof(*pick));

	for (size_t g = 0; pick && g < h->ngroups; g++)
		pick[g] = chosen(h->groups[g], sel, names);
	if (pick && !h->by_cgroup)
		pick[0] = true; /* one grid: group 0 */
	return pick;
}

/* n waits of tid into c's top tasks, most first. */
static void top_add(struct hm_top *c, int32_t tid, uint32_t n)
{
	int i = HM_TOP;

	while (i > 0 && (!c->tid[i - 1] || c->n[i - 1] < n))
		i--;
	if (i == HM_TOP)
		return;
	memmove(&c->tid[i + 1], &c->tid[i], (HM_TOP - 1 - i) * sizeof(*c->tid));
	memmove(&c->n[i + 1], &c->n[i], (HM_TOP - 1 - i) * sizeof(*c->n));
	c->tid[i] = tid;
	c->n[i] = n;
}

int hm_top_tasks(const struct heatmap *h, const struct hm_select *sel,
		 struct cgnames *names, struct hm_top *top)
{
	size_t n = ncells(h), pos = 0;
	uint64_t key, v;
	bool *pick = picks(h, sel, names);

	memset(top, 0, n * sizeof(*top));
	if (!pick)
		return -ENOMEM;
	while (hashtab_next(&h->by_task, &pos, &key, &v)) {
		uint64_t slot = key >> TID_BITS;

		if (pick[slot / n])
			top_add(&top[slot % n], (int32_t)(key & ((1u << TID_BITS) - 1)),
				v > UINT32_MAX ? UINT32_MAX : (uint32_t)v);
	}
	free(pick);
	return 0;
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
	pick = picks(h, sel, names);
	if (!pick)
		return -ENOMEM;
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
	hashtab_free(&h->by_task);
	hashtab_free(&h->comm_of);
	free(h->comms);
	h->comms = NULL;
	h->grid = NULL;
	h->groups = NULL;
	h->ngroups = 0;
}
