/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A capture's events as text or JSON lines (abicap script), as trace prints them. */
#ifndef ABICAP_SCRIPT_H
#define ABICAP_SCRIPT_H

#include <stdio.h>
#include "event/format.h"
#include "event/recfilter.h"
#include "lib/duration.h"

struct script_opts {
	enum out_format fmt;
	struct recfilter filter;
	struct timewin win; /* relative to the capture's first record */
	const char *cpulist; /* -C, NULL: all (checked against the capture's CPUs) */
};

/*
 * The records of the capture at path that pass o, in time order, onto
 * out: an EXIT_* code, errors and integrity warnings on stderr. *written:
 * the lines written.
 */
int script_capture(const char *path, const struct script_opts *o, FILE *out,
		   unsigned long long *written);

#endif
