/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Text and JSON renderings of records and state letters. */
#ifndef ABICAP_FORMAT_H
#define ABICAP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event/record.h"
#include "lib/sbuf.h"


/*
 * prev_state (tracefs encoding) as perf and tracefs print it: "R", "S", "D",
 * "R+" (preempted), flags joined with '|'. buf needs 32 bytes.
 */
const char *state_str(uint32_t prev_state, char *buf, size_t len);

#define FORMAT_LINE_MAX 16384 /* two cgroup paths of up to 4096 bytes fit */

enum out_format { FMT_TEXT, FMT_JSON };

struct cgnames;

/* How records are written, and what the writing has shown. */
struct formatter {
	enum out_format fmt;
	uint64_t t0_ns; /* the capture's start: text times count from it */
	/*
	 * Names for cgroup ids (path, container); NULL: ids only
	 * ("cgroup#ID" in text, a null path in JSON)
	 */
	struct cgnames *names;
	bool unknown_shown; /* out: a cgroup#ID was written without names */
};

/*
 * What "cgroup#ID" in the text means, once f's text output has shown one
 * (for the summary); NULL until then.
 */
const char *format_cgroup_note(const struct formatter *f);

/* Column header for text output (no trailing newline). */
const char *format_text_header(void);
/* One line, newline included. */
void format_record(struct sbuf *sb, struct formatter *f,
		   const union abicap_rec *r);

#endif
