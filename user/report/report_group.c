// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_group.h"
#include "analysis/leaders.h"
#include "lib/array.h"
#include "lib/hashtab.h"

int group_by_parse(const char *s, enum group_by *by)
{
	if (!strcmp(s, "task"))
		*by = GROUP_TASK;
	else if (!strcmp(s, "cgroup"))
		*by = GROUP_CGROUP;
	else if (!strcmp(s, "container"))
		*by = GROUP_CONTAINER;
	else if (!strcmp(s, "process"))
		*by = GROUP_PROCESS;
	else
		return -1;
	return 0;
}

/* The group a task belongs to, by name. */
static void group_name(struct cgnames *names, enum group_by by,
		       const struct leaders *l, const struct task *t,
		       char *out, size_t len)
{
	struct cgname c = { 0 };
	uint64_t cg = t->cgroup;

	if (by == GROUP_PROCESS) {
		leaders_name(l, t, out, len);
		return;
	}
	if (!cg) {
		snprintf(out, len, "(unknown)");
		return;
	}
	cgnames_get(names, cg, &c);
	if (by == GROUP_CGROUP) {
		/* the path, else cgroup#ID (explained under the table) */
		snprintf(out, len, "%s", c.path ? c.path :
			 cgnames_label(names, cg));
		return;
	}
	if (c.ct) /* by name where the runtime gave one (record's trailer) */
		snprintf(out, len, "%s", c.name_label);
	else
		snprintf(out, len, c.path ? "(host)" : "(unknown)");
}

struct name_key {
	const struct grouping *g;
	const char *name;
};

static bool same_group(void *ctx, uint64_t i)
{
	struct name_key *k = ctx;

	return !strcmp(k->g->g[i].name, k->name);
}

static struct group *find_group(struct grouping *g, const char *name,
				size_t *pos)
{
	struct name_key k = { g, name };
	uint64_t h = hash_str(name), *i = hashtab_find(&g->by_name, h,
						       same_group, &k);
	struct group *n;

	if (i) {
		*pos = (size_t)*i;
		return &g->g[*i];
	}
	if (array_room(&g->g, g->n, &g->cap, sizeof(*g->g), 16))
		return NULL;
	n = &g->g[g->n];
	memset(n, 0, sizeof(*n));
	n->name = strdup(name);
	if (!n->name || hashtab_add(&g->by_name, h, g->n)) {
		free(n->name);
		return NULL;
	}
	*pos = g->n++;
	return n;
}

static struct group_chain *find_chain(struct grouping *g, size_t wi,
				      size_t ei)
{
	uint64_t key = (uint64_t)wi << 32 | (uint64_t)ei, *i;
	struct group_chain *n;

	if (wi > UINT32_MAX || ei > UINT32_MAX)
		return NULL;
	i = hashtab_get(&g->by_pair, key);
	if (i)
		return &g->ch[*i];
	if (array_room(&g->ch, g->nch, &g->chcap, sizeof(*g->ch), 16))
		return NULL;
	n = &g->ch[g->nch];
	memset(n, 0, sizeof(*n));
	n->wi = wi;
	n->ei = ei;
	n->waker = g->g[wi].name;
	n->wakee = g->g[ei].name;
	if (hashtab_put(&g->by_pair, key, g->nch) < 0)
		return NULL;
	g->nch++;
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
		   enum group_by by, const struct captrailer *trl,
		   struct grouping *out)
{
	char name[GROUP_NAME_MAX];
	struct leaders l;
	size_t pos;

	memset(out, 0, sizeof(*out));
	if (leaders_find(&l, a))
		goto oom;
	for (size_t i = 0; i < a->ntasks; i++) {
		const struct task *t = &a->tasks[i];
		struct group *grp;

		if (!task_res(t)->rq.n && !t->off_total && !t->voluntary &&
		    !t->involuntary && !t->runtime)
			continue;
		group_name(names, by, &l, t, name, sizeof(name));
		grp = find_group(out, name, &pos);
		if (!grp || add_task(grp, t))
			goto oom;
		if (by == GROUP_CGROUP && trl && t->cgroup && !grp->thr)
			grp->thr = captrailer_cgroup(trl, t->cgroup);
	}
	for (size_t i = 0; i < a->nchains; i++) {
		const struct chain *c = &a->chains[i];
		const struct task *w = &a->tasks[c->waker_task - 1];
		const struct task *e = &a->tasks[c->wakee_task - 1];
		struct group_chain *gc;
		size_t wi, ei;

		group_name(names, by, &l, w, name, sizeof(name));
		if (!find_group(out, name, &wi))
			goto oom;
		group_name(names, by, &l, e, name, sizeof(name));
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
	leaders_free(&l);
	return 0;
oom:
	leaders_free(&l);
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
	hashtab_free(&g->by_name);
	hashtab_free(&g->by_pair);
	memset(g, 0, sizeof(*g));
}
