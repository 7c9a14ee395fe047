// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture through the analysis with an observer: span, read, warnings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capmeta.h"
#include "capfile/capwarn.h"
#include "report/report_read.h"
#include "lib/util.h"
#include "view/capview.h"

/* The trailer into v->ct, once (the span and the run both want it). */
static void read_trailer(struct capview *v)
{
	if (v->ct_read)
		return;
	v->ct_rc = captrailer_read(&v->ct, capr_trailer(v->r), v->ct_err,
				   sizeof(v->ct_err));
	v->ct_read = true;
}

/*
 * The span as the trailer gives it (record writes it), where opening found
 * the file whole (every part's checksum and number checked, the trailer
 * intact): no decoding of every chunk to learn it. False: the records
 * must tell.
 */
static bool span_from_trailer(struct capview *v)
{
	const struct capr_integrity *ig = capr_integrity(v->r);

	if (!capr_trailer(v->r) || !ig->verified ||
	    ig->trailer != CAPR_TRAILER_INTACT || ig->damaged || ig->missing ||
	    ig->duplicated || ig->reordered || ig->skipped_bytes)
		return false;
	/* read once: run() takes it from here (and warns of a bad member) */
	read_trailer(v);
	if (v->ct_rc == -ENOMEM || !v->ct.span_given || v->ct.records <= 0)
		return false;
	v->first = v->ct.first_ns;
	v->last = v->ct.last_ns;
	v->ncpus = (int)v->ct.record_cpus;
	return true;
}

/* The first and last record times: the trailer's, else by a pass over the file. */
static int span_of(struct capview *v)
{
	char err[ERRMSG_LEN];
	struct capr *scan;
	union abicap_rec rec;
	uint64_t n = 0;

	if (span_from_trailer(v)) {
		if (capmeta_ncpus(&v->cm) > v->ncpus)
			v->ncpus = capmeta_ncpus(&v->cm);
		return 0;
	}
	scan = capr_open(v->path, err, sizeof(err));
	if (!scan) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	v->first = UINT64_MAX;
	v->last = 0;
	while (capr_next(scan, &rec) == 1) {
		n++;
		if (rec.hdr.ts_ns < v->first)
			v->first = rec.hdr.ts_ns;
		if (rec.hdr.ts_ns > v->last)
			v->last = rec.hdr.ts_ns;
		if (rec.hdr.cpu < CAPTURE_MAX_CPUS && (int)rec.hdr.cpu >= v->ncpus)
			v->ncpus = (int)rec.hdr.cpu + 1;
	}
	if (capmeta_ncpus(&v->cm) > v->ncpus)
		v->ncpus = capmeta_ncpus(&v->cm);
	capr_close(scan);
	if (!n) {
		ab_error("'%s' holds no records: nothing to draw", v->path);
		return EXIT_USAGE;
	}
	return 0;
}

int capview_open(struct capview *v, const char *path, const struct timewin *w)
{
	char err[ERRMSG_LEN];
	int ret;

	memset(v, 0, sizeof(*v));
	capmeta_init(&v->cm);
	captrailer_init(&v->ct);
	v->path = path;
	v->r = capr_open(path, err, sizeof(err));
	if (!v->r) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	ret = capmeta_read(&v->cm, capr_meta(v->r), err, sizeof(err));
	if (ret == -1)
		ab_warn("'%s': %s", path, err);
	if (ret == -ENOMEM) {
		ab_error("out of memory reading '%s'", path);
		return EXIT_RUNTIME;
	}
	ret = span_of(v);
	if (ret)
		return ret;
	v->from = timewin_abs(v->first, w->since);
	v->to = timewin_abs(v->first, w->until);
	if (v->to > v->last)
		v->to = v->last;
	/* an empty window is refused below; a window cut short is said */
	if (v->from < v->last)
		capwarn_window(path, w, v->last - v->first);
	if (v->from >= v->to) {
		ab_error("'%s' has nothing in that window: its records span "
			 "%.3f ms after the first", path,
			 (double)(v->last - v->first) / 1e6);
		return EXIT_USAGE;
	}
	if (capinfo_read(&v->ci, &v->cm, v->r)) {
		ab_error("out of memory reading '%s'", path);
		return EXIT_RUNTIME;
	}
	return 0;
}

static int run(struct capview *v, const struct report_read_opts *o);

int capview_run(struct capview *v, const struct analysis_observer *obs,
		const struct timewin *w, int32_t pid, const char *comm)
{
	struct report_read_opts ro = { .pid = pid, .comm = comm, .ci = &v->ci,
		.win = *w, .obs = obs, .cg_used = &v->cg_used };

	return run(v, &ro);
}

static int run(struct capview *v, const struct report_read_opts *o)
{
	size_t n = 0;
	int c;

	c = report_read_records(&v->r, v->path, &v->a, &n, o);
	v->analysed = true;
	if (c == -ENOMEM || c == -EIO || c == -E2BIG) {
		if (c == -ENOMEM)
			ab_error("out of memory reading '%s'", v->path);
		return c == -E2BIG ? EXIT_USAGE : EXIT_RUNTIME;
	}
	if (capr_cut_short(v->r))
		ab_warn("'%s' was cut short (no trailer): drawing the %zu "
			"records of its complete chunks", v->path, n);
	v->ci.damaged = v->damaged = capwarn_integrity(v->r, v->path);
	if (capr_trailer(v->r)) {
		read_trailer(v);
		/* no JSON object at all: the integrity said it (damaged) */
		if (v->ct_rc == -1 && v->ct.raw)
			ab_warn("'%s': %s", v->path, v->ct_err);
	}
	capinfo_dropped(&v->ci, v->r, v->ct.raw ? &v->ct : NULL);
	v->ci.trailer = &v->ct;
	analysis_finish(&v->a);
	capinfo_warn(&v->ci, v->r, v->path);
	capwarn_bad_cpu(v->a.bad_cpu, v->a.ncpus);
	if (v->a.oom) {
		ab_error("out of memory analysing '%s'", v->path);
		return EXIT_RUNTIME;
	}
	if (o->pid || o->comm) {
		if (report_no_task(&v->a, v->path, o->pid, o->comm))
			return EXIT_USAGE;
	}
	return v->damaged ? EXIT_DAMAGED : EXIT_OK;
}

const char *capview_notice(struct capview *v)
{
	char lost[512];
	size_t n = 0;

	v->notice[0] = '\0';
	if (capwarn_losses(v->r, lost, sizeof(lost)))
		n += snprintf(v->notice, sizeof(v->notice), "%s.", lost);
	if (v->damaged && n < sizeof(v->notice))
		n += snprintf(v->notice + n, sizeof(v->notice) - n, "%sThe "
			      "capture is damaged: this is from the parts that "
			      "read intact (abicap report names each problem).",
			      n ? " " : "");
	if (capr_cut_short(v->r) && n < sizeof(v->notice))
		snprintf(v->notice + n, sizeof(v->notice) - n, "%sThe capture "
			 "was cut short (its recorder did not end it): this is "
			 "up to its last complete chunk.", n ? " " : "");
	return v->notice;
}

void capview_close(struct capview *v)
{
	if (v->analysed)
		analysis_free(&v->a);
	free(v->ci.drops);
	capmeta_free(&v->cm);
	captrailer_free(&v->ct);
	hashtab_free(&v->cg_used);
	capr_close(v->r);
}
