/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The capture file (.abicap), format version 5, little-endian on every
 * machine (records too: the writer converts each from the host's order,
 * the reader back; the metadata's "byte_order" names the recorder's):
 *
 *   header   "ABICAP\r\n" u32 version, u32 meta_len, meta (JSON, meta_len
 *            bytes), u32 crc32(version, meta_len, meta)
 *   blocks   each "TAG" u32 seq, u32 len, u32 crc32(payload), u32 crc32(the
 *            16 bytes before it), then len bytes of payload. seq counts the
 *            blocks from 0, so a block missing, doubled or out of place is
 *            seen; a damaged header is found past by its own checksum.
 *   CGRP     entries: u64 cgroup id (never 0), u16 path_len, path (no NUL);
 *            before the chunk whose records first name those ids
 *   DROP     entries of 40: u64 start_ns, u64 end_ns, u64 count, u64 total,
 *            u32 cpu, u32 0: count records of events on cpu (0xffffffff:
 *            any CPU) were lost in (start_ns, end_ns] (CLOCK_MONOTONIC, the
 *            records' clock), total on all CPUs since the start; written as
 *            soon as the recorder sees the loss, so a file cut short keeps
 *            it. A CPU's own switches and idle records are on its own
 *            ring: one whose ring lost nothing there is whole.
 *   CHNK     u64 records before it, u64 records lost before it, u32 raw_len,
 *            u32 nrecords, zstd of nrecords raw records (bpf/abicap.h)
 *   TRLR     u64 records, u64 records lost, JSON (counts, drops, duration)
 *
 * Version 4 (still read) had DROP entries of 32 bytes, without the CPU.
 * Versions 1-3 (still read) had no header checksum, no sequence numbers
 * and no trailer checksum: "CGRP"/"DROP" u32 len, u32 crc32, entries (24
 * bytes a drop, from version 3; cgroups from version 2); "CHNK" u32 zlen,
 * u32 raw_len, u32 nrecords, u32 crc32, zstd; "TRLR" u32 len, JSON.
 *
 * The metadata says what was captured and how (kernel, BTF identity,
 * contract verdicts, program variants, clock, CPUs, command line). A file
 * without a trailer was cut short: it reads up to its last complete block.
 */
#ifndef ABICAP_CAPFILE_H
#define ABICAP_CAPFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event/record.h"

/*
 * reads 1 (no cgroup names), 2 (no drop windows), 3 (no sequence numbers),
 * 4 (drop windows of all CPUs)
 */
#define CAPFILE_VERSION 5
#define CAPFILE_CGROUP_PATH_MAX 65535 /* its u16 length; longer ones are not named */
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
/*
 * Write the records added so far as a chunk now (with the names they use),
 * however few: what a kill -9 would otherwise lose. 0 or -errno.
 */
int capw_flush(struct capw *w);
/* Write the last chunk and the trailer, close: 0 or -errno (err says which). */
int capw_close(struct capw *w, const char *trailer_json, char *err,
	       size_t errlen);
/*
 * Name a cgroup id (path in the v2 hierarchy): goes out before the next
 * chunk. -ENAMETOOLONG past CAPFILE_CGROUP_PATH_MAX bytes (nothing written).
 */
int capw_add_cgroup(struct capw *w, uint64_t id, const char *path);
/*
 * count records of events on cpu (-1: any CPU) were lost in (start_ns,
 * end_ns]: a DROP block, written now. 0 or -errno.
 */
int capw_add_drop(struct capw *w, uint64_t start_ns, uint64_t end_ns,
		  uint64_t count, int32_t cpu);
uint64_t capw_records(const struct capw *w);
/*
 * The records' span so far: the first and last time, one past the highest
 * CPU a record names (all 0 before the first). For the trailer: readers
 * take a capture's span from it instead of decoding the whole file.
 */
void capw_span(const struct capw *w, uint64_t *first_ns, uint64_t *last_ns,
	       uint32_t *cpus);
/* Of them, those in chunks written so far (the rest wait for the next). */
uint64_t capw_records_written(const struct capw *w);
uint64_t capw_bytes(const struct capw *w);

/*
 * Open and read the header: NULL with err (not a regular file, not a
 * capture, a newer version, a damaged header).
 */
struct capr *capr_open(const char *path, char *err, size_t errlen);
/*
 * The next record: 1, 0 at the end (of the file or of what is complete),
 * or -1 for a damaged chunk of a version 1-3 file (capr_error() says which;
 * records before it were returned). A version 4 file reads past a damaged
 * part to the next intact one: capr_integrity() says what was wrong.
 */
int capr_next(struct capr *r, union abicap_rec *out);
const char *capr_meta(const struct capr *r); /* the header's JSON */
/* the trailer's JSON: NULL until seen, cut short, or damaged */
const char *capr_trailer(const struct capr *r);
bool capr_cut_short(const struct capr *r); /* at the end without a trailer */
const char *capr_error(const struct capr *r);

/*
 * What the reader found wrong with a file, and what it still tells. For
 * version 4 all of it is known at open but what only reading the records
 * finds (a chunk that does not decompress, a malformed cgroup block); for
 * versions 1-3 little can be checked (verified false).
 */
enum capr_trailer_state {
	CAPR_TRAILER_INTACT,
	CAPR_TRAILER_MISSING, /* cut short: the recorder was killed */
	CAPR_TRAILER_DAMAGED, /* there, or maybe there, but not readable */
};
#define CAPR_PROBLEMS_KEPT 16
struct capr_problem {
	uint64_t offset; /* the byte of the file where the part starts */
	char what[200];
};
struct capr_integrity {
	bool verified; /* version 4: checksums and sequence numbers on every part */
	enum capr_trailer_state trailer;
	uint64_t parts; /* blocks after the header, read intact */
	uint64_t damaged; /* parts failing a checksum, malformed, or unreadable bytes */
	uint64_t duplicated; /* copies of a part read before: skipped */
	uint64_t reordered; /* parts found after a later one: read where found */
	uint64_t missing; /* parts the sequence numbers say are absent */
	uint64_t skipped_bytes; /* in damaged parts and between them */
	uint64_t records_expected; /* the trailer's count, else the chunks' */
	bool records_exact; /* records_expected from an intact trailer */
	uint64_t records_read; /* returned by capr_next() so far */
	uint64_t dropped; /* records lost while recording, as far as known */
	bool dropped_exact; /* false: at least dropped, maybe more */
	uint64_t nproblems; /* all of them; the first CAPR_PROBLEMS_KEPT here */
	struct capr_problem problem[CAPR_PROBLEMS_KEPT];
};
const struct capr_integrity *capr_integrity(const struct capr *r);
/* A part damaged, missing, doubled or out of place (cut short is not). */
bool capr_damaged(const struct capr *r);
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
 * consumer knows them before the first record.
 */
struct capfile_drop {
	uint64_t start_ns, end_ns, count;
	int32_t cpu; /* whose events were lost; -1: any CPU (format 4 and older) */
};
const struct capfile_drop *capr_drops(const struct capr *r, size_t *n);
/* The file's size in bytes, at open. */
uint64_t capr_size(const struct capr *r);
/* The file's format version (1 .. CAPFILE_VERSION). */
unsigned int capr_version(const struct capr *r);

/*
 * Every record that reads back, sorted in the total order of capsort_ext.h
 * (time, CPU, type, bytes; perf buffers interleave CPUs). *recs is malloc'd. 0 at a clean end or cut short, -1 for a damaged
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
