// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/report_group.h"

int group_by_parse(const char *s, enum group_by *by)
{
	if (!strcmp(s, "task"))
		*by = GROUP_TASK;
	else if (!strcmp(s, "cgroup"))
		*by = GROUP_CGROUP;
	else if (!strcmp(s, "container"))
		*by = GROUP_CONTAINER;
	else
		return -1;
	return 0;
}

/* The group a task belongs to, by name. */
static void group_name(struct cgnames *names, enum group_by by, uint64_t cg,
		       char *out, size_t len)
{
	struct cgname c = { 0 };

	if (!cg) {
		snprintf(out, len, "(unknown)");
		return;
	}
	cgnames_get(names, cg, &c);
	if (by == GROUP_CGROUP) {
		if (c.path)
			snprintf(out, len, "%s", c.path);
		else
			snprintf(out, len, "cgroup#%" PRIu64, cg);
		return;
	}
	if (c.ct)
		snprintf(out, len, "%s", c.label);
	else
		snprintf(out, len, c.path ? "(host)" : "(unknown)");
}

/* FNV-1a of a name, then mixed (its low bits index the table). */
static uint64_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ^ (h >> 29);
}

static size_t chain_hash(size_t wi, size_t ei)
{
	uint64_t h = ((uint64_t)wi * 0x9e3779b97f4a7c15ull) ^ ei;

	h *= 0xff51afd7ed558ccdull;
	return (size_t)(h ^ (h >> 32));
}

/* The slot of name in g's index (its entry, or the free slot for it). */
static size_t group_slot(const struct grouping *g, const char *name)
{
	size_t i = (size_t)name_hash(name) & (g->gsize - 1);

	while (g->gindex[i] && strcmp(g->g[g->gindex[i] - 1].name, name))
		i = (i + 1) & (g->gsize - 1);
	return i;
}

static size_t chain_slot(const struct grouping *g, size_t wi, size_t ei)
{
	size_t i = chain_hash(wi, ei) & (g->chsize - 1);

	while (g->chindex[i] && (g->ch[g->chindex[i] - 1].wi != wi ||
				 g->ch[g->chindex[i] - 1].ei != ei))
		i = (i + 1) & (g->chsize - 1);
	return i;
}

/* Room for one more entry: the table twice the entries, the array doubled. */
static bool grow(void **arr, size_t *cap, size_t n, size_t size,
		 size_t **index, size_t *isize)
{
	if (n == *cap) {
		size_t c = *cap ? *cap * 2 : 16;
		void *na = realloc(*arr, c * size);

		if (!na)
			return false;
		*arr = na;
		*cap = c;
	}
	if ((n + 1) * 2 > *isize) {
		size_t sz = *isize ? *isize * 2 : 64;
		size_t *ni = calloc(sz, sizeof(*ni));

		if (!ni)
			return false;
		free(*index);
		*index = ni;
		*isize = sz;
		return true; /* the caller fills it again */
	}
	return true;
}

static struct group *find_group(struct grouping *g, const char *name,
				size_t *pos)
{
	size_t old = g->gsize, i;
	struct group *n;

	if (!grow((void **)&g->g, &g->cap, g->n, sizeof(*g->g), &g->gindex,
		  &g->gsize))
		return NULL;
	if (g->gsize != old)
		for (size_t k = 0; k < g->n; k++)
			g->gindex[group_slot(g, g->g[k].name)] = k + 1;
	i = group_slot(g, name);
	if (g->gindex[i]) {
		*pos = g->gindex[i] - 1;
		return &g->g[*pos];
	}
	n = &g->g[g->n];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name)
		return NULL;
	g->gindex[i] = ++g->n;
	*pos = g->n - 1;
	return n;
}

static struct group_chain *find_chain(struct grouping *g, size_t wi,
				      size_t ei)
{
	size_t old = g->chsize, i;
	struct group_chain *n;

	if (!grow((void **)&g->ch, &g->chcap, g->nch, sizeof(*g->ch),
		  &g->chindex, &g->chsize))
		return NULL;
	if (g->chsize != old)
		for (size_t k = 0; k < g->nch; k++)
			g->chindex[chain_slot(g, g->ch[k].wi, g->ch[k].ei)] = k + 1;
	i = chain_slot(g, wi, ei);
	if (g->chindex[i])
		return &g->ch[g->chindex[i] - 1];
	n = &g->ch[g->nch];
	memset(n, 0, sizeof(*n));
	n->wi = wi;
	n->ei = ei;
	n->waker = g->g[wi].name;
	n->wakee = g->g[ei].name;
	g->chindex[i] = ++g->nch;
	return n;
}

static int add_task(struct group *grp, const struct task *t)
{
	grp->ntasks++;
	const struct task_res *r = task_res(t);

	if (lat_merge(&grp->rq, &r->rq) || lat_merge(&grp->wake, &r->wake))
		return -ENOMEM;
	grp->off_total += t->off_total;
	for (int k = 0; k < 10; k++)
		grp->off_by_state[k] += r->off_by_state[k];
	grp->voluntary += t->voluntary;
	grp->runtime += t->runtime;
	grp->involuntary += t->involuntary;
	return 0;
}

int group_analysis(const struct analysis *a, struct cgnames *names,
		   enum group_by by, struct grouping *out)
{
	char name[GROUP_NAME_MAX];
	size_t pos;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->ntasks; i++) {
		const struct task *t = &a->tasks[i];
		struct group *grp;

		if (!task_res(t)->rq.n && !t->off_total && !t->voluntary &&
		    !t->involuntary && !t->runtime)
			continue;
		group_name(names, by, t->cgroup, name, sizeof(name));
		grp = find_group(out, name, &pos);
		if (!grp || add_task(grp, t))
			goto oom;
	}
	for (size_t i = 0; i < a->nchains; i++) {
		const struct chain *c = &a->chains[i];
		const struct task *w = &a->tasks[c->waker_task - 1];
		const struct task *e = &a->tasks[c->wakee_task - 1];
		struct group_chain *gc;
		size_t wi, ei;

		group_name(names, by, w->cgroup, name, sizeof(name));
		if (!find_group(out, name, &wi))
			goto oom;
		group_name(names, by, e->cgroup, name, sizeof(name));
		if (!find_group(out, name, &ei))
			goto oom;
		gc = find_chain(out, wi, ei);
		if (!gc)
			goto oom;
		gc->count += c->count;
		gc->measured += c->measured;
		gc->total_lat += c->total_lat;
		if (c->max_lat > gc->max_lat)
			gc->max_lat = c->max_lat;
	}
	return 0;
oom:
	grouping_free(out);
	return -ENOMEM;
}

void grouping_free(struct grouping *g)
{
	for (size_t i = 0; i < g->n; i++) {
		lat_free(&g->g[i].rq);
		lat_free(&g->g[i].wake);
		free(g->g[i].name);
	}
	free(g->g);
	free(g->ch);
	free(g->gindex);
	free(g->chindex);
	memset(g, 0, sizeof(*g));
}
