/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A page (timechart, heat map) into its file: created beside it, committed once complete. */
#ifndef ABICAP_PAGEFILE_H
#define ABICAP_PAGEFILE_H

#include <stdbool.h>
#include <stdio.h>

struct outfile;

/*
 * Open out for the page (refused where outfile_open refuses it, or if it
 * is the capture cap), before any work: 0 or an EXIT_* code, reported.
 */
int page_open(struct outfile *of, const char *out, const char *cap,
	      bool force);
/*
 * The page written by write(ctx, f) (0 or -errno) into of, committed only
 * if that and every write succeeded; of is closed either way: an EXIT_*
 * code, errors reported.
 */
int page_write(struct outfile *of, const char *out,
	       int (*write)(void *ctx, FILE *f), void *ctx);
/* Give up a page opened (nothing left at its name). */
void page_abort(struct outfile *of);

#endif
