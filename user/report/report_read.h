/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A capture's records into an analysis, for the report. */
#ifndef ABICAP_REPORT_READ_H
#define ABICAP_REPORT_READ_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/analysis.h"
#include "capfile/capfile.h"
#include "capfile/capinfo.h"
#include "event/cgnames.h"
#include "lib/hashtab.h"
#include "lib/duration.h"

/* How report reads a capture: its own filters and the capture's facts. */
struct report_read_opts {
	int32_t pid; /* -p: one process only (0: all) */
	const char *comm; /* --comm, NULL: all */
	const struct capinfo *ci;
	bool from_waking;
	struct hashtab *cg_used; /* out: the cgroup ids records name (NULL: not kept) */
	/* --since/--until, relative to the first record (TIMEWIN_ALL: none) */
	struct timewin win;
	/* another consumer of the closed intervals (NULL: none) */
	const struct analysis_observer *obs;
};

/*
 * Every record of the capture into the analysis a (initialised here, the
 * filters set after), in the total order of capr_next_ordered() (time, CPU,
 * type, bytes: the same for any order in the file), in bounded memory
 * (capsort_ext.h; ABICAP_ORDER_BUDGET in the environment sets the records
 * held, for tests). *n: records read. 0 or -1 as capr_next(); -ENOMEM;
 * -EIO: the temporary file failed, -E2BIG: it would pass its bound for
 * one input (capsort_ext.h; both errors printed); -ENOENT:
 * --from-waking without sched_waking. *r and path stay as they are.
 */
int report_read_records(struct capr **r, const char *path,
			struct analysis *a, size_t *n,
			const struct report_read_opts *o);

/*
 * The capture's own cgroup names (read with its records) of the ids in
 * used (what the records name: a file may name millions more), and the
 * containers' names of trailer t (NULL: none), warning where grouping and
 * it names no cgroups, or record left containers' names out; NULL: no
 * memory.
 */
struct cgnames *capture_cgnames(struct capr *r, bool grouping,
				const struct hashtab *used,
				const struct captrailer *t);

/*
 * --pid (0: none) and --comm (NULL: none) against the capture's tasks
 * (after analysis_finish): false when no filter or a task matches; else
 * true, with one error for every reader (exit 2): which process or name
 * the capture lacks, the process a thread id given as --pid belongs to,
 * and how to list those it has.
 */
bool report_no_task(const struct analysis *a, const char *path, int32_t pid,
		    const char *comm);

#endif
