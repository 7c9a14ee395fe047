/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * abicap report --by cgroup|container: the per-task results of an analysis
 * summed per cgroup (its path) or per container (its label; tasks in no
 * container make up "(host)").
 */
#ifndef ABICAP_REPORT_GROUP_H
#define ABICAP_REPORT_GROUP_H

#include "analysis/analysis.h"
#include "event/cgnames.h"

enum group_by { GROUP_TASK, GROUP_CGROUP, GROUP_CONTAINER };

/* a whole cgroup v2 path (capfile.h): never cut, groups never merged */
#define GROUP_NAME_MAX (4096 + 1)

struct group {
	char *name;
	size_t ntasks;
	struct lat rq, wake;
	uint64_t off_total;
	uint64_t off_by_state[10];
	uint64_t voluntary, involuntary;
	uint64_t runtime; /* on a CPU */
};

struct group_chain {
	const char *waker, *wakee; /* their groups' names */
	size_t wi, ei; /* their groups, before the groups are sorted */
	uint64_t count, measured, total_lat, max_lat;
};

struct grouping {
	struct group *g;
	size_t n, cap;
	struct group_chain *ch;
	size_t nch, chcap;
	/* open addressing: 1 + position in g (by name), in ch (by groups) */
	size_t *gindex, gsize, *chindex, chsize;
};

/* "task", "cgroup", "container" -> *by: 0, or -1 if none of those. */
int group_by_parse(const char *s, enum group_by *by);

/*
 * Group the analysis's tasks and wakeup chains (before its tasks are
 * re-sorted). 0, or -ENOMEM.
 */
int group_analysis(const struct analysis *a, struct cgnames *names,
		   enum group_by by, struct grouping *out);
void grouping_free(struct grouping *g);

#endif
