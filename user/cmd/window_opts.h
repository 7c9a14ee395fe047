/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* --since/--until: the window of a capture that report, export, script and timechart read. */
#ifndef ABICAP_WINDOW_OPTS_H
#define ABICAP_WINDOW_OPTS_H

#include <stdbool.h>
#include <stdio.h>
#include "cmd/options.h"
#include "lib/duration.h"

#define OPT_SINCE OPT_LONG('S')
#define OPT_UNTIL OPT_LONG('U')

extern const struct opt opts_window[];
/* -o OUT and --force of the commands that write a page (timechart, heatmap). */
#define OPT_FORCE OPT_LONG('F')
extern const struct opt opts_page[];

/*
 * Whether ch is --since or --until: *handled set, the value parsed into w,
 * 0 or EXIT_USAGE (reported).
 */
int window_opt(int ch, const char *arg, struct timewin *w, bool *handled);
/*
 * "window: ..." for a report's text, with what it covers of a capture
 * whose records span span ns.
 */
void window_text(FILE *f, const struct timewin *w, uint64_t span);
/* After the options: until before since is EXIT_USAGE (reported), else 0. */
int window_check(const struct timewin *w);
/*
 * After the options of a command that reads one capture (cmd its name):
 * one operand left and a good window, else EXIT_USAGE (reported).
 */
int window_operand(int argc, const char *cmd, const struct timewin *w);

/* What the page-writing commands (timechart, heatmap) share. */
struct page_args {
	const char *out;
	bool force;
	long width;
	long tgid; /* --pid, 0: every task */
	const char *comm;
	struct timewin win;
};
/*
 * Whether ch is one of opts_page, --width, --pid, --comm or the window:
 * *handled set, the value into a, 0 or EXIT_USAGE (reported).
 */
int page_opt(int ch, const char *arg, struct page_args *a, bool *handled);
/* After the options: the capture and -o given, a good window; else EXIT_USAGE. */
int page_operands(int argc, const char *cmd, const struct page_args *a);

#endif
