/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * abicap report --by cgroup|container|process: the per-task results of an
 * analysis summed per cgroup (its path), per container (its label; tasks
 * in no container make up "(host)") or per process (its threads: the
 * thread-group leader's name and the process id, "hackbench:3340").
 */
#ifndef ABICAP_REPORT_GROUP_H
#define ABICAP_REPORT_GROUP_H

#include "analysis/analysis.h"
#include "capfile/capmeta.h"
#include "event/cgnames.h"
#include "lib/hashtab.h"

enum group_by { GROUP_TASK, GROUP_CGROUP, GROUP_CONTAINER, GROUP_PROCESS };

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
	/* --by cgroup: its CPU quota throttling over the capture, NULL: not measured */
	const struct captrailer_cgroup *thr;
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
	/* name -> index in g; (wi << 32 | ei) -> index in ch */
	struct hashtab by_name, by_pair;
};

/* "task", "cgroup", "container", "process" -> *by: 0, or -1 if none of those. */
int group_by_parse(const char *s, enum group_by *by);

/*
 * Group the analysis's tasks and wakeup chains (before its tasks are
 * re-sorted); by cgroup, each with its throttling from the trailer trl.
 * 0, or -ENOMEM.
 */
int group_analysis(const struct analysis *a, struct cgnames *names,
		   enum group_by by, const struct captrailer *trl,
		   struct grouping *out);
void grouping_free(struct grouping *g);

#endif
