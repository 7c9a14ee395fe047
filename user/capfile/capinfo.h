/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What a capture's metadata, blocks and trailer say of its filters and losses. */
#ifndef ABICAP_CAPINFO_H
#define ABICAP_CAPINFO_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capfile/capfile.h"
#include "capfile/capmeta.h"
#include "event/record.h"

/* What the capture's metadata and blocks say about its filters and losses. */
struct capinfo {
	bool task_filtered; /* some tasks only: not every switch of a CPU */
	bool flags; /* switch records say which side passed (record version 3) */
	bool untrusted; /* filtered without the flags: waits may be invented */
	const struct capmeta *meta; /* the header's, typed */
	const struct captrailer *trailer; /* the trailer's (all absent: none) */
	const int32_t *cpus; /* the CPUs captured (-C), NULL: all */
	size_t ncpus_captured;
	/*
	 * -C: a task's switches on the other CPUs are not in the file, so a
	 * wait or off-CPU time may span runs that were not captured
	 */
	bool cpus_partial;
	struct drop_window *drops;
	size_t ndrops;
	uint64_t dropped_in_windows;
	bool drops_unplaced; /* lost records the file has no windows for */
	/* after the records: what the file says was lost, and how surely */
	uint64_t dropped;
	bool dropped_exact;
	const char *dropped_why; /* why not exact */
	/*
	 * Program runs the kernel skipped while recording (the trailer's
	 * recursion_misses); not known from a file without them (older
	 * abicap, no intact trailer).
	 */
	bool misses_known;
	uint64_t misses;
	bool damaged; /* parts damaged, missing, doubled or out of place */
	const struct capr_integrity *ig;
	unsigned int version;
};

#define CPUS_NOT_KNOWN "the capture was filtered to some tasks (-p, --tid, " \
	"--comm, --cgroup or a command) and does not see every switch on a " \
	"CPU; record without them for CPU time"

/* The filters and drop windows of m (kept: it outlives ci) and r: 0 or -ENOMEM. */
int capinfo_read(struct capinfo *ci, const struct capmeta *m, struct capr *r);

/*
 * The records lost while recording, never lower than the file says: the
 * trailer's count where it is intact, else the drop blocks' (and chunks')
 * running count, "at least" unless the reader can tell nothing is missing.
 */
void capinfo_dropped(struct capinfo *ci, const struct capr *r,
		     const struct captrailer *trl);

/*
 * After capinfo_dropped: whether records were lost outside any window, and
 * a warning naming path for each reason the figures may be off.
 */
void capinfo_warn(struct capinfo *ci, const struct capr *r, const char *path);

/*
 * What the reader found wrong with the file and what was lost, as every
 * JSON reader carries it ("integrity"; README "Capture integrity"). After
 * capinfo_dropped.
 */
json_t *capinfo_json_integrity(const struct capinfo *ci);

/* Whether CPU c was captured (-C). */
bool capinfo_cpu_captured(const struct capinfo *ci, int c);

#endif
