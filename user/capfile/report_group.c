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

static struct group *find_group(struct grouping *g, const char *name)
{
	struct group *n;

	for (size_t i = 0; i < g->n; i++)
		if (!strcmp(g->g[i].name, name))
			return &g->g[i];
	n = realloc(g->g, (g->n + 1) * sizeof(*n));
	if (!n)
		return NULL;
	g->g = n;
	n = &g->g[g->n++];
	memset(n, 0, sizeof(*n));
	snprintf(n->name, sizeof(n->name), "%s", name);
	return n;
}

static struct group_chain *find_chain(struct grouping *g, const char *waker,
				      const char *wakee)
{
	struct group_chain *n;

	for (size_t i = 0; i < g->nch; i++)
		if (!strcmp(g->ch[i].waker, waker) && !strcmp(g->ch[i].wakee, wakee))
			return &g->ch[i];
	n = realloc(g->ch, (g->nch + 1) * sizeof(*n));
	if (!n)
		return NULL;
	g->ch = n;
	n = &g->ch[g->nch++];
	memset(n, 0, sizeof(*n));
	snprintf(n->waker, sizeof(n->waker), "%s", waker);
	snprintf(n->wakee, sizeof(n->wakee), "%s", wakee);
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
	char name[GROUP_NAME_MAX], other[GROUP_NAME_MAX];

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < a->ntasks; i++) {
		const struct task *t = &a->tasks[i];
		struct group *grp;

		if (!task_res(t)->rq.n && !t->off_total && !t->voluntary &&
		    !t->involuntary && !t->runtime)
			continue;
		group_name(names, by, t->cgroup, name, sizeof(name));
		grp = find_group(out, name);
		if (!grp || add_task(grp, t))
			goto oom;
	}
	for (size_t i = 0; i < a->nchains; i++) {
		const struct chain *c = &a->chains[i];
		const struct task *w = &a->tasks[c->waker_task - 1];
		const struct task *e = &a->tasks[c->wakee_task - 1];
		struct group_chain *gc;

		group_name(names, by, w->cgroup, name, sizeof(name));
		group_name(names, by, e->cgroup, other, sizeof(other));
		gc = find_chain(out, name, other);
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
	}
	free(g->g);
	free(g->ch);
	memset(g, 0, sizeof(*g));
}
