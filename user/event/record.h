/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Checked decoding of ring-buffer records (bpf/abicap.h). */
#ifndef ABICAP_RECORD_H
#define ABICAP_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "abicap.h"

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
 * Whether a record names a CPU at or past ncpus: where it ran, or for
 * cpu_idle and cpu_frequency the CPU it is about.
 */
bool record_cpu_past(const union abicap_rec *r, uint32_t ncpus);
/*
 * The cgroup ids a record names (a switch: prev's, next's; a wakeup: the
 * wakee's), 0 where none, into ids: how many it has places for (0 to 2).
 */
size_t record_cgroups(const union abicap_rec *r, uint64_t ids[2]);

#endif
