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
#include "lib/duration.h"

/* How report reads a capture: its own filters and the capture's facts. */
struct report_read_opts {
	int32_t pid; /* -p: one process only (0: all) */
	const char *comm; /* --comm, NULL: all */
	const struct capinfo *ci;
	bool from_waking;
	/* --since/--until, relative to the first record (TIMEWIN_ALL: none) */
	struct timewin win;
	/* another consumer of the closed intervals (NULL: none) */
	const struct analysis_observer *obs;
	/* sees each record in time order before the analysis does (NULL: none) */
	void (*tap)(void *ctx, const union abicap_rec *rec);
	void *tap_ctx;
};

/*
 * Every record of the capture into the analysis a (initialised here, the
 * filters set after), in time order. Where the metadata says how many CPUs
 * and which events, the records stream through the reordering window
 * (memory: one window, whatever the file's size); otherwise they are
 * loaded to find those out, up to REPORT_LOAD_MAX records, past which they
 * are read twice instead (*r is then another reader of path). *n: records
 * read. As capr_load() returns; -ENOENT: --from-waking without sched_waking.
 */
int report_read_records(struct capr **r, const char *path, json_t *meta,
			struct analysis *a, size_t *n,
			const struct report_read_opts *o);

/*
 * The capture's own cgroup names (read with its records), warning where
 * grouping and it names none; NULL: no memory.
 */
struct cgnames *capture_cgnames(struct capr *r, bool grouping);

#endif
