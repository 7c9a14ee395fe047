/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* --since/--until: the window of a capture that report, export, script and timechart read. */
#ifndef ABICAP_WINDOW_OPTS_H
#define ABICAP_WINDOW_OPTS_H

#include <stdbool.h>
#include "cmd/options.h"
#include "lib/duration.h"

#define OPT_SINCE OPT_LONG('S')
#define OPT_UNTIL OPT_LONG('U')

extern const struct opt opts_window[];

/*
 * Whether ch is --since or --until: *handled set, the value parsed into w,
 * 0 or EXIT_USAGE (reported).
 */
int window_opt(int ch, const char *arg, struct timewin *w, bool *handled);
/* After the options: until before since is EXIT_USAGE (reported), else 0. */
int window_check(const struct timewin *w);

#endif
