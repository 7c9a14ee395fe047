/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* abicap timechart: a capture into its timechart page, written whole or not at all. */
#ifndef ABICAP_TIMECHART_FILE_H
#define ABICAP_TIMECHART_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "lib/duration.h"

struct tc_args {
	uint32_t width; /* the page's pixels (tc_axis_px: the time axis's) */
	struct timewin win;
	int32_t tgid; /* 0: every task */
	const char *comm; /* NULL: every name */
	const char *cpulist; /* NULL: every CPU */
	size_t max_lanes; /* task lanes at most (0: no limit) */
	bool force; /* replace out */
};

/* An EXIT_* code, errors reported; out is created only once complete. */
int timechart_write(const char *cap, const char *out, const struct tc_args *a);

#endif
