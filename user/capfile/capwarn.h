/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What report and export say about a capture's integrity (capr_integrity). */
#ifndef ABICAP_CAPWARN_H
#define ABICAP_CAPWARN_H

#include <stdbool.h>
#include <stddef.h>
#include "capfile/capfile.h"
#include "lib/duration.h"

/*
 * One warning per problem found (the part and its byte offset), one for
 * those past CAPR_PROBLEMS_KEPT, one summing them up; for a version 1-3
 * file, one saying what it cannot be checked for; one for the records lost
 * while recording (how many, in how many drop windows, over how long).
 * After the records are read. True when the file is damaged (exit
 * EXIT_DAMAGED).
 */
bool capwarn_integrity(const struct capr *r, const char *path);

/*
 * The sentence every reader gives for the records lost while recording
 * (how many, in how many drop windows, over how long) into buf: false
 * (buf untouched) when none were. After the records are read.
 */
bool capwarn_losses(const struct capr *r, char *buf, size_t len);

/*
 * --since/--until against the capture's records, span ns from its first to
 * its last: a warning when --until lies past the last record, saying what
 * the window covers (issue 37: asked 9,200.70 ms, covered 8,702.67, unsaid).
 * True when it does.
 */
bool capwarn_window(const char *path, const struct timewin *w, uint64_t span);

/*
 * That error, for a reader without an analysis (script): thread_of the
 * process of a thread whose id was given as --pid (0: none seen).
 */
void capwarn_task_missing(const char *path, int32_t pid, const char *comm,
			  int32_t thread_of, const char *thread_comm);

/* "intact", "missing" or "damaged" */
const char *capwarn_trailer_name(enum capr_trailer_state t);

/*
 * A record naming a CPU at or past ncpus (where it ran, or for cpu_idle
 * and cpu_frequency the CPU it is about): report and export leave it out,
 * count it and say so (capwarn_bad_cpu).
 */
bool capwarn_cpu_past(const union abicap_rec *r, uint32_t ncpus);
/* The warning for n such records (nothing for 0). */
void capwarn_bad_cpu(uint64_t n, int ncpus);

#endif
