/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A capture's records in ONE total order, whatever order the file holds
 * them in and whatever its size, in bounded memory:
 *
 *   by time, then CPU, then record type, then the record's bytes
 *
 * (two records equal in all of that are the same bytes: their order cannot
 * show). Capture files hold records as they were drained (a ring buffer
 * nearly in order; perf buffers by CPU; a shuffled copy in any order): every
 * consumer sees the same sequence from any of them.
 *
 * Method: the records are read once, at open, in runs of up to `budget`
 * records. A capture that fits in one run is sorted in memory. A larger
 * one, where the file can be read again (opts.path), goes through a window
 * of budget records (a heap in the total order) without output, to see
 * whether the window alone puts it in order (no record older than one it
 * passed on): then the second reading streams through the same window,
 * no temporary file (a recorder's capture, nearly in order). Otherwise,
 * an external merge sort: each run is sorted and written to a
 * private temporary file (O_TMPFILE under $TMPDIR, else /tmp: unnamed,
 * gone when closed), then merged, `fanin` runs at a time (passes over the
 * file until at most fanin runs are left), the last merge feeding
 * capr_next_ordered(). Memory: budget records (CAPR_ORDER_BUDGET: 512 Ki
 * records, 52 MiB) for the run being sorted, reused for the merge's read
 * buffers; the temporary file: the records, uncompressed (the capture's
 * count times sizeof(union abicap_rec)) at most twice.
 */
#ifndef ABICAP_CAPSORT_EXT_H
#define ABICAP_CAPSORT_EXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "capfile/capfile.h"

#define CAPR_ORDER_BUDGET ((size_t)1 << 19)
#define CAPR_ORDER_FANIN 64
/*
 * The temporary file at most CAPR_TMP_RATIO times the capture's size, and
 * CAPR_TMP_FLOOR (issue 37: a 92 KB capture of 500 chunks of one record,
 * each older than the last, took 524 MB of /tmp, RAM on many hosts); a
 * recorder's capture streams through the window and needs none, and a
 * shuffled real one about 35 times its size. ABICAP_SORT_TMP_MB sets it.
 */
#define CAPR_TMP_RATIO 128
#define CAPR_TMP_FLOOR (64ull << 20)

/* The total order: <0, 0 (the same bytes), >0. */
int capr_rec_cmp(const union abicap_rec *a, const union abicap_rec *b);

struct capr_order_opts {
	size_t budget; /* records held at most (0: CAPR_ORDER_BUDGET, >= 2*fanin) */
	size_t fanin; /* runs merged at once (0: CAPR_ORDER_FANIN, >= 2) */
	const char *tmpdir; /* NULL: $TMPDIR, else /tmp */
	/*
	 * The file r reads, to read it again: a capture past the budget whose
	 * records the window of budget records puts in the total order (a
	 * recorder's file: nearly in order) streams through it the second
	 * time, with no temporary file; one that it does not is sorted from
	 * a second reading. NULL: always the temporary file.
	 */
	const char *path;
	uint64_t tmp_max; /* the temporary file's bytes at most (0: as above) */
};

/* What the reading at open saw (every record of the file, once). */
struct capr_order_stats {
	uint64_t records;
	uint32_t ncpus; /* 1 + the highest CPU a record names (below CAPTURE_MAX_CPUS) */
	bool waking; /* a sched_waking record */
	uint64_t out_of_order; /* records before one read earlier, in the order */
	uint64_t runs; /* sorted runs written (0: in memory, or streamed) */
	bool streamed; /* read again through the window: no temporary file */
	uint64_t merge_passes; /* passes over the temporary file */
	size_t peak_records; /* records held in memory at once */
	uint64_t tmp_bytes; /* the temporary file's size at its largest */
};

struct capr_ordered;

/*
 * Read every record of r (which stays the caller's; read to its end here)
 * and get ready to give them in order. NULL with err: no memory, the
 * temporary file cannot be made or written (err names the directory and
 * says to set TMPDIR), or it would grow past tmp_max (err says "temporary
 * space"). *rc: as capr_next()'s last return (0 clean or cut
 * short, -1 damaged: the records before the damage are kept).
 */
struct capr_ordered *capr_ordered_open(struct capr *r,
				       const struct capr_order_opts *o,
				       int *rc, char *err, size_t errlen);
/* The next record in the total order: 1, 0 at the end, -1 (err set) on an I/O error. */
int capr_next_ordered(struct capr_ordered *s, union abicap_rec *out);
const struct capr_order_stats *capr_ordered_stats(const struct capr_ordered *s);
const char *capr_ordered_error(const struct capr_ordered *s);
void capr_ordered_close(struct capr_ordered *s);

#endif
