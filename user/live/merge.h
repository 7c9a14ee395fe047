/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Records from several sources (one per CPU: per-CPU ring buffers or perf
 * buffers) handed on in time order: a k-way merge by timestamp with a
 * bounded lag. Each source's records are kept in time order as they come;
 * after every drain of all sources at time T (CLOCK_MONOTONIC, the clock of
 * the records), a source can still produce a record older than T only if a
 * program read the clock before T and had not submitted by the drain: at
 * most lag_ns before. Every record older than
 *
 *	min over sources of (max(newest record from it, T) - lag_ns)
 *
 * is then handed on, oldest first (ties: the lower source first). A record
 * that comes later than lag_ns allows is handed on all the same, out of
 * time order, and counted (recmerge_late): never dropped, never silent.
 */
#ifndef ABICAP_MERGE_H
#define ABICAP_MERGE_H

#include <stddef.h>
#include <stdint.h>
#include "event/record.h"

/* Called for each record in time order; non-zero: stop handing on now. */
typedef int (*recmerge_cb)(void *ctx, const union abicap_rec *r);

struct recmerge;

/* NULL if out of memory. */
struct recmerge *recmerge_new(int nsrc, uint64_t lag_ns, recmerge_cb cb,
			      void *ctx);
void recmerge_free(struct recmerge *m);

/*
 * Queue a record of source src. Where the queue cannot grow (out of
 * memory), everything queued is handed on first, in order, and the record
 * after it: late ones are counted, nothing is lost. Returns the callback's
 * non-zero value if it stopped, else 0.
 */
int recmerge_push(struct recmerge *m, int src, const union abicap_rec *r);

/*
 * Every source was drained after drained_ns: hand on what the bound allows
 * (UINT64_MAX: everything, at the end). Returns the callback's non-zero
 * value if it stopped (the rest stays queued), else 0.
 */
int recmerge_emit(struct recmerge *m, uint64_t drained_ns);

/* Records handed on after a later one (they came past the lag). */
uint64_t recmerge_late(const struct recmerge *m);
/* Records queued now. */
size_t recmerge_queued(const struct recmerge *m);

#endif
