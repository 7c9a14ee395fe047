/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The capture file (.abicap), format version 3, little-endian:
 *
 *   header   "ABICAP\r\n" u32 version, u32 meta_len, meta (JSON, meta_len bytes)
 *   cgroups  "CGRP" u32 len, u32 crc32(entries), len bytes of entries:
 *            u64 cgroup id, u16 path_len, path (no NUL); written before the
 *            chunk whose records first name those ids (version 2)
 *   drops    "DROP" u32 len, u32 crc32(entries), len bytes of entries (24
 *            each): u64 start_ns, u64 end_ns, u64 count: count records were
 *            lost in the window (start_ns, end_ns] (CLOCK_MONOTONIC, the
 *            records' clock); written as soon as the recorder sees the
 *            loss, so a file cut short keeps it; anywhere between chunks,
 *            in time order (version 3)
 *   chunk    "CHNK" u32 zlen, u32 raw_len, u32 nrecords, u32 crc32(zstd bytes),
 *            zlen bytes: zstd of nrecords raw records (bpf/abicap.h) back to back
 *   ...
 *   trailer  "TRLR" u32 len, len bytes of JSON (counts, drops, duration)
 *
 * The metadata says what was captured and how (kernel, BTF identity,
 * contract verdicts, program variants, clock, CPUs, command line). A file
 * without a trailer was cut short: it reads up to its last complete chunk.
 */
#ifndef ABICAP_CAPFILE_H
#define ABICAP_CAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "record.h"

#define CAPFILE_VERSION 3 /* reads 1 (no cgroup names) and 2 (no drop windows) */
#define CAPFILE_CGROUP_PATH_MAX 4096
#define CAPFILE_CHUNK_RAW (1u << 20) /* records per chunk: up to 1 MiB raw */

struct capw;
struct capr;

/*
 * Create path (outfile_open: 0600, never through a symlink, an existing
 * file only replaced with force, and then only by capw_close) and write
 * the header. NULL with err.
 */
struct capw *capw_open(const char *path, bool force, const char *meta_json,
		       char *err, size_t errlen);
/*
 * The same on fd, a file created earlier for path (by outfile_open, before
 * privileges were dropped; the caller commits it). Takes fd; on failure
 * closes it (removing the file is the caller's: outfile_abort).
 */
struct capw *capw_fdopen(int fd, const char *path, const char *meta_json,
			 char *err, size_t errlen);
/* Append one record; a full chunk is compressed and written. 0 or -errno. */
int capw_add(struct capw *w, const void *rec, size_t len);
/* Write the last chunk and the trailer, close: 0 or -errno (err says which). */
int capw_close(struct capw *w, const char *trailer_json, char *err,
	       size_t errlen);
/* Name a cgroup id (path in the v2 hierarchy): goes out before the next chunk. */
int capw_add_cgroup(struct capw *w, uint64_t id, const char *path);
/* Records were lost in (start_ns, end_ns]: a DROP block, written now. 0 or -errno. */
int capw_add_drop(struct capw *w, uint64_t start_ns, uint64_t end_ns,
		  uint64_t count);
uint64_t capw_records(const struct capw *w);
uint64_t capw_bytes(const struct capw *w);

/* Open and read the header: NULL with err (not a capture, wrong version...). */
struct capr *capr_open(const char *path, char *err, size_t errlen);
/*
 * The next record: 1, 0 at the end (of the trailer or of what is complete),
 * or -1 for a damaged chunk (capr_error() says which; records before it
 * were returned).
 */
int capr_next(struct capr *r, union abicap_rec *out);
const char *capr_meta(const struct capr *r); /* the header's JSON */
const char *capr_trailer(const struct capr *r); /* NULL until seen, or cut short */
bool capr_cut_short(const struct capr *r); /* at the end without a trailer */
const char *capr_error(const struct capr *r);
void capr_close(struct capr *r);

/* The cgroup names read so far (all of them after the last record). */
struct capfile_cgroup {
	uint64_t id;
	char *path;
};
const struct capfile_cgroup *capr_cgroups(const struct capr *r, size_t *n);

/*
 * The drop windows (DROP blocks) of the whole file, in time order: the
 * reader finds them all at open (it skips over the chunks), so a record's
 * consumer knows them before the first record; those read so far where the
 * file cannot seek.
 */
struct capfile_drop {
	uint64_t start_ns, end_ns, count;
};
const struct capfile_drop *capr_drops(const struct capr *r, size_t *n);
/* The file's format version (1 .. CAPFILE_VERSION). */
unsigned int capr_version(const struct capr *r);

/*
 * Every record that reads back, sorted by time (perf buffers interleave
 * CPUs). *recs is malloc'd. 0 at a clean end or cut short, -1 for a damaged
 * chunk (the records before it are there; capr_error() says what), -ENOMEM.
 */
int capr_load(struct capr *r, union abicap_rec **recs, size_t *n);
/*
 * The same, holding no more than max records: -E2BIG (nothing kept) for a
 * capture with more. A small file can hold millions of records (they
 * compress well): callers that must stay bounded stream instead.
 */
int capr_load_max(struct capr *r, union abicap_rec **recs, size_t *n,
		  size_t max);

/*
 * Every record in time order, holding only a window of them: a record is
 * passed to cb once one newer by window_ns has been read (a ring buffer's
 * records are nearly in order; perf buffers interleave CPUs within a drain
 * period), ties in the order read. Memory: the records of one window, and
 * never more than CAPR_WINDOW_MAX of them, whatever the file's size or
 * times: when the window is full the oldest goes on. A record older than
 * one already passed on is passed on at once and counted in *late. cb's
 * non-zero return stops. 0 at a clean end or cut short, -1 for a damaged
 * chunk (the records before it were passed on; capr_error() says what),
 * -ENOMEM.
 */
typedef int (*capr_cb)(void *ctx, const union abicap_rec *rec);
#define CAPR_WINDOW_NS 1000000000ULL
/* 512 Ki records, 52 MiB: a perf buffer drain on a large machine fits */
#define CAPR_WINDOW_MAX (1u << 19)
int capr_each(struct capr *r, uint64_t window_ns, capr_cb cb, void *ctx,
	      uint64_t *late);

/* capr_each() with its window given and measured. */
struct capr_window {
	uint64_t ns; /* in: the window by time */
	size_t max; /* in: records held at most (0: CAPR_WINDOW_MAX) */
	uint64_t late; /* out: records passed on out of time order */
	size_t peak; /* out: the most records held at once */
};
int capr_each_window(struct capr *r, struct capr_window *w, capr_cb cb,
		     void *ctx);

#endif
