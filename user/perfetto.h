/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Records (in time order) as a Perfetto trace (.pftrace). */
#ifndef ABICAP_PERFETTO_H
#define ABICAP_PERFETTO_H

#include <stdio.h>
#include "record.h"

/* 0, or -errno. */
int perfetto_write(FILE *out, const union abicap_rec *recs, size_t n, int ncpus);

/*
 * The same in passes, for captures too large to hold: perfetto_thread() for
 * every record (the process tree names each thread seen, last name wins),
 * perfetto_tree(), perfetto_event() for every record in time order, then
 * perfetto_finish() (frees; 0 or the first -errno).
 */
struct perfetto;
struct perfetto *perfetto_new(FILE *out, int ncpus); /* NULL: no memory */
void perfetto_thread(struct perfetto *p, const union abicap_rec *r);
int perfetto_tree(struct perfetto *p);
int perfetto_event(struct perfetto *p, const union abicap_rec *r);
int perfetto_finish(struct perfetto *p);

#endif
