/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What names a process in the outputs that group threads by process
 * (report --by process, wakeups --by process): its thread-group leader,
 * or where the records never named the leader (only a wakeup's waker, say),
 * its first thread that has a name; one name for all its threads,
 * "name:tgid" ("hackbench:3340").
 */
#ifndef ABICAP_LEADERS_H
#define ABICAP_LEADERS_H

#include <stddef.h>
#include <stdint.h>
#include "analysis/analysis.h"
#include "lib/hashtab.h"

struct leaders {
	const struct analysis *a;
	struct hashtab by_tgid; /* tgid -> index in a->tasks */
};

/* 0, or -ENOMEM (then leaders_free() all the same). */
int leaders_find(struct leaders *l, const struct analysis *a);
/* The task that names process tgid, NULL if none does. */
const struct task *leaders_of(const struct leaders *l, int32_t tgid);
/* "name:tgid" of t's process (none named: t's own name). */
void leaders_name(const struct leaders *l, const struct task *t, char *out,
		  size_t len);
void leaders_free(struct leaders *l);

#endif
