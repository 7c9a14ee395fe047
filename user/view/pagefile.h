/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A page (timechart, heat map) into its file: created beside it, committed once complete. */
#ifndef ABICAP_PAGEFILE_H
#define ABICAP_PAGEFILE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * out (refused where outfile_open refuses it, or if it is the capture cap)
 * written by write(ctx, f) (0 or -errno), committed only if that and every
 * write succeeded: an EXIT_* code, errors reported.
 */
int page_write(const char *out, const char *cap, bool force,
	       int (*write)(void *ctx, FILE *f), void *ctx);
/* Whether out may be written for cap (before the work): 0 or EXIT_USAGE (reported). */
int page_check(const char *out, const char *cap);

#endif
