/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Records (in time order) as a Perfetto trace (.pftrace). */
#ifndef ABICAP_PERFETTO_H
#define ABICAP_PERFETTO_H

#include <stdint.h>
#include <stdio.h>
#include "capfile/capfile.h"
#include "event/record.h"

/*
 * The capturing kernel's uname (NULL: not known, left out). Perfetto picks
 * the sched_switch prev_state layout from the release: without it, it
 * assumes the 4.4 one (R+ shown as W, I as K).
 */
struct perfetto_uts {
	const char *sysname, *release, *version, *machine;
};

/* 0, or -errno. uts: NULL or all NULL for no SystemInfo packet. */
int perfetto_write(FILE *out, const union abicap_rec *recs, size_t n, int ncpus,
		   const struct perfetto_uts *uts);

/*
 * The same in passes, for captures too large to hold: perfetto_system()
 * first, then perfetto_thread() for
 * every record (the process tree names each thread seen, last name wins),
 * perfetto_tree(), perfetto_event() for every record in time order, then
 * perfetto_finish() (frees; 0 or the first -errno).
 */
struct perfetto;
struct perfetto *perfetto_new(FILE *out, int ncpus); /* NULL: no memory */
int perfetto_system(struct perfetto *p, const struct perfetto_uts *uts);
void perfetto_thread(struct perfetto *p, const union abicap_rec *r);
int perfetto_tree(struct perfetto *p);
int perfetto_event(struct perfetto *p, const union abicap_rec *r);
int perfetto_finish(struct perfetto *p);
/*
 * In one pass instead: perfetto_system(), perfetto_spill(), then
 * perfetto_thread() and perfetto_event() for each record in time order;
 * the event bundles go to spill (a file opened for reading and writing,
 * the caller's to close) and perfetto_finish() writes the process tree,
 * the spill's bytes and the last bundles to out: the same bytes as the
 * passes above.
 */
void perfetto_spill(struct perfetto *p, FILE *spill);
/*
 * The capture's drop windows (before perfetto_tree, which writes them after
 * the process tree): a track "abicap losses" with a slice over each window
 * named with its count, overlapping windows merged. 0 or -ENOMEM.
 */
int perfetto_losses(struct perfetto *p, const struct capfile_drop *d, size_t n);
/* Records left out for naming a CPU past ncpus (before perfetto_finish). */
uint64_t perfetto_bad_cpu(const struct perfetto *p);

#endif
