// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The report's reading of a capture: streamed through the reordering
 * window where the metadata says enough, else loaded (or read twice).
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capmeta.h"
#include "capfile/report_read.h"
#include "lib/util.h"

static int set_filters(struct analysis *a, const struct report_read_opts *o)
{
	a->filter_tgid = o->pid;
	if (o->comm)
		snprintf(a->filter_comm, sizeof(a->filter_comm), "%s", o->comm);
	a->switch_flags = o->ci->flags;
	if (o->obs)
		analysis_observe(a, o->obs);
	return analysis_set_drops(a, o->ci->drops, o->ci->ndrops);
}

/* The analysis and the window of the options, which starts at the first record. */
struct read_ctx {
	struct analysis *a;
	const struct report_read_opts *o;
	bool started;
};

static void add_one(struct read_ctx *rc, const union abicap_rec *rec)
{
	if (!rc->started) {
		rc->started = true;
		if (timewin_set(&rc->o->win))
			analysis_set_window(rc->a,
				timewin_abs(rec->hdr.ts_ns, rc->o->win.since),
				timewin_abs(rec->hdr.ts_ns, rc->o->win.until));
	}
	if (rc->o->tap)
		rc->o->tap(rc->o->tap_ctx, rec);
	analysis_add(rc->a, rec);
}

static int add_record(void *ctx, const union abicap_rec *rec)
{
	add_one(ctx, rec);
	return 0;
}

/* Whether the metadata lists the events; *waking: sched_waking among them. */
static bool meta_lists_events(json_t *meta, bool *waking)
{
	json_t *evs = json_object_get(meta, "events"), *e;
	size_t i;

	if (!json_is_array(evs))
		return false;
	*waking = false;
	json_array_foreach(evs, i, e)
		if (json_is_string(e) &&
		    !strcmp(json_string_value(e), "sched_waking"))
			*waking = true;
	return true;
}

/* Records loaded at most (96 MiB); a capture with more streams. */
#define REPORT_LOAD_MAX ((size_t)1 << 20)

static int stream_records(struct capr *r, struct analysis *a, size_t *n,
			  const struct report_read_opts *o)
{
	struct read_ctx rc = { a, o, false };
	uint64_t late = 0;
	int c = capr_each(r, CAPR_WINDOW_NS, add_record, &rc, &late);

	*n = a->records;
	if (late)
		ab_warn("%llu records arrived over a second late (or past the "
			"%u-record window) and were taken out of time order",
			(unsigned long long)late, CAPR_WINDOW_MAX);
	return c;
}

/*
 * Without the metadata's CPU count and events: one pass to find them out,
 * then the records stream from a second reader, which replaces *r.
 */
static int scan_then_stream(struct capr **r, const char *path,
			    struct analysis *a, size_t *n,
			    const struct report_read_opts *o)
{
	char err[ERRMSG_LEN];
	union abicap_rec rec;
	struct capr *scan = capr_open(path, err, sizeof(err));
	uint32_t max = 0;
	bool waking = false;

	analysis_init(a, 1); /* freed by the caller on failure */
	if (!scan)
		return -ENOMEM;
	while (capr_next(scan, &rec) == 1) {
		if (rec.hdr.cpu >= max && rec.hdr.cpu < CAPTURE_MAX_CPUS)
			max = rec.hdr.cpu + 1;
		waking |= rec.hdr.type == ABICAP_EV_SCHED_WAKING;
	}
	capr_close(scan);
	if (o->from_waking && !waking)
		return -ENOENT;
	capr_close(*r);
	*r = capr_open(path, err, sizeof(err));
	if (!*r)
		return -ENOMEM;
	analysis_free(a);
	analysis_init(a, max ? (int)max : 1);
	a->from_waking = o->from_waking;
	if (set_filters(a, o))
		return -ENOMEM;
	return stream_records(*r, a, n, o);
}

int report_read_records(struct capr **r, const char *path, json_t *meta,
			struct analysis *a, size_t *n,
			const struct report_read_opts *o)
{
	int ncpus = meta_ncpus_given(meta);
	union abicap_rec *recs = NULL;
	bool waking;
	int c;

	if (ncpus && meta_lists_events(meta, &waking)) {
		analysis_init(a, ncpus);
		if (o->from_waking && !waking)
			return -ENOENT;
		a->from_waking = o->from_waking;
		if (set_filters(a, o))
			return -ENOMEM;
		return stream_records(*r, a, n, o);
	}
	c = capr_load_max(*r, &recs, n, REPORT_LOAD_MAX);
	if (c == -E2BIG)
		return scan_then_stream(r, path, a, n, o);
	analysis_init(a, meta_ncpus(meta, recs, *n));
	waking = false;
	for (size_t i = 0; i < *n && !waking; i++)
		waking = recs[i].hdr.type == ABICAP_EV_SCHED_WAKING;
	if (o->from_waking && !waking) {
		free(recs);
		return -ENOENT;
	}
	a->from_waking = o->from_waking;
	if (set_filters(a, o)) {
		free(recs);
		return -ENOMEM;
	}
	{
		struct read_ctx rc = { a, o, false };

		for (size_t i = 0; i < *n; i++)
			add_one(&rc, &recs[i]);
	}
	free(recs);
	return c;
}

struct cgnames *capture_cgnames(struct capr *r, bool grouping)
{
	struct cgnames *names = cgnames_table();
	const struct capfile_cgroup *cg;
	size_t n;

	if (!names)
		return NULL;
	cg = capr_cgroups(r, &n);
	if (!n && grouping)
		ab_warn("the capture names no cgroups (recorded by an abicap "
			"before cgroup attribution, or on a kernel without it): "
			"every task is in \"(unknown)\"");
	for (size_t i = 0; i < n; i++)
		if (cgnames_set(names, cg[i].id, cg[i].path)) {
			cgnames_free(names);
			return NULL;
		}
	return names;
}
