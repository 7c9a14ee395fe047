/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Checked decoding of ring-buffer records (bpf/abicap.h). */
#ifndef ABICAP_RECORD_H
#define ABICAP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abicap.h"
#include "lib/util.h"

/* A decoded record: hdr is valid, and so is the member hdr.type names. */
union abicap_rec {
	struct abicap_hdr hdr;
	struct abicap_switch sw;
	struct abicap_wakeup wk;
	struct abicap_power pw;
};

enum rec_error {
	REC_OK = 0,
	REC_SHORT, /* fewer bytes than a header, or than hdr.size */
	REC_BAD_TYPE, /* hdr.type is not an enum abicap_event */
	REC_BAD_SIZE, /* hdr.size does not match the type's layout */
};

/* Size of the record for event type ev, 0 if ev is unknown. */
size_t record_size(unsigned int ev);
/* Its size in record version 1 (before the cgroup ids were appended). */
size_t record_size_v1(unsigned int ev);

/*
 * Copy and validate one record of len bytes; comms come out NUL-terminated.
 * A version 1 record comes out in the current layout, its new fields 0.
 */
enum rec_error record_decode(const void *data, size_t len,
			     union abicap_rec *out);

const char *rec_error_str(enum rec_error e);

/*
 * Byte order. A ring buffer's records are in the kernel's byte order, the
 * host's; a capture file's are little-endian (capfile.h), so that a capture
 * recorded on a big-endian machine (s390x) reads anywhere. On a
 * little-endian host (HOST_BIG_ENDIAN false) both are the same bytes.
 *
 * record_swap: reverse the byte order of every field of a record of len
 * bytes (a version 1 record's fields too) of type ev (enum abicap_event,
 * in the host's order); comms are bytes and stay.
 */
void record_swap(void *rec, size_t len, unsigned int ev);
/*
 * A record as the file holds it (swapped: the host is big-endian) from one
 * in the host's order, into out (at least len bytes).
 */
void record_encode(const void *rec, size_t len, void *out, bool swapped);
/*
 * record_decode() of a record in the other byte order (swapped) or the
 * host's: out is in the host's order.
 */
enum rec_error record_decode_order(const void *data, size_t len,
				   union abicap_rec *out, bool swapped);

/*
 * Whether a record names a CPU at or past ncpus: where it ran, or for
 * cpu_idle and cpu_frequency the CPU it is about.
 */
bool record_cpu_past(const union abicap_rec *r, uint32_t ncpus);
/*
 * The cgroup ids a record names (a switch: prev's, next's; a wakeup: the
 * wakee's), 0 where none, into ids: how many it has places for (0 to 2).
 */
size_t record_cgroups(const union abicap_rec *r, uint64_t ids[2]);

/* Events were lost in (start_ns, end_ns]: count of them (capfile.h). */
struct drop_window {
	uint64_t start_ns, end_ns, count;
	int32_t cpu; /* whose events were lost; -1: any CPU */
};

#endif
