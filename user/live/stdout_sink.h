/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * trace's sink: each record formatted onto stdout; a reader that goes away
 * (EPIPE) stops the writing, not the counting.
 */
#ifndef ABICAP_STDOUT_SINK_H
#define ABICAP_STDOUT_SINK_H

#include <stdbool.h>
#include <stdint.h>
#include "event/format.h"
#include "event/record.h"

struct stdout_sink {
	struct formatter f; /* the format, the start, the cgroups' names */
	bool out_closed; /* stdout went away (EPIPE): keep counting, stop writing */
	int out_errno; /* any other write error */
	uint64_t written;
};

/* A record (ctx: the stdout_sink) onto stdout: always 0. */
int stdout_sink_record(void *ctx, const union abicap_rec *r);

/* Whether stdout was closed or failed: nothing more is written. */
bool stdout_sink_done(void *ctx);

/* stdout flushed, unless it was closed or failed. */
void stdout_sink_flush(void *ctx);

#endif
