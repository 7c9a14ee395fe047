/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* abicap wakeups: a capture's idle exits and their causes onto stdout. */
#ifndef ABICAP_WAKEUPS_FILE_H
#define ABICAP_WAKEUPS_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include "lib/duration.h"

/* An EXIT_* code, errors reported. */
int wakeups_report(const char *cap, const struct timewin *win, bool json,
		   size_t top, bool by_process);

#endif
