/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A capture read through the analysis for a picture or a table other than
 * the report (timechart, heat map): its span first (the picture's scale),
 * then its records into the analysis with the consumer's observer and the
 * window, with the report's warnings (integrity, losses, a file cut short).
 */
#ifndef ABICAP_CAPVIEW_H
#define ABICAP_CAPVIEW_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include "analysis/analysis.h"
#include "capfile/capfile.h"
#include "capfile/capinfo.h"
#include "capfile/capmeta.h"
#include "lib/duration.h"
#include "lib/hashtab.h"
#include "lib/util.h"

struct capview {
	const char *path;
	struct capr *r;
	struct capmeta cm; /* the header's metadata, typed */
	struct captrailer ct; /* the trailer's, typed (all absent: none) */
	bool ct_read; /* ct read already (at open, for the span) */
	int ct_rc; /* what captrailer_read() returned, and why */
	char ct_err[ERRMSG_LEN];
	struct capinfo ci;
	struct hashtab cg_used; /* the cgroup ids the records name */
	struct analysis a;
	bool analysed; /* a holds an analysis (to free) */
	int ncpus; /* the metadata's, or one past the highest CPU a record names */
	/* the capture's first and last record; the window inside them */
	uint64_t first, last, from, to;
	bool damaged;
	/* what the picture or table must say it lacks (capview_notice) */
	char notice[1024];
};

/*
 * Open path and find its span and the window w in it: an EXIT_* code,
 * errors reported (an empty capture or an empty window is EXIT_USAGE).
 */
int capview_open(struct capview *v, const char *path, const struct timewin *w);
/*
 * Every record into v->a with obs, the window and the task filters of
 * report (pid 0 / comm NULL: none), then analysis_finish and the warnings:
 * an EXIT_* code (EXIT_DAMAGED: read past damaged parts).
 */
int capview_run(struct capview *v, const struct analysis_observer *obs,
		const struct timewin *w, int32_t pid, const char *comm);
/*
 * After a run: one sentence of what the output lacks (records lost while
 * recording, damage, a file cut short) for a page or a JSON document, ""
 * when nothing; in v->notice.
 */
const char *capview_notice(struct capview *v);
void capview_close(struct capview *v);

#endif
