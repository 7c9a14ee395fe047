// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The report's reading of a capture: every record once, in the total order
 * of capsort_ext.h, whatever order the file holds them in.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capmeta.h"
#include "capfile/capsort_ext.h"
#include "capfile/capwarn.h"
#include "report/report_read.h"
#include "event/record.h"
#include "lib/util.h"

static int set_filters(struct analysis *a, const struct report_read_opts *o)
{
	a->filter_tgid = o->pid;
	if (o->comm)
		snprintf(a->filter_comm, sizeof(a->filter_comm), "%s", o->comm);
	a->switch_flags = o->ci->flags;
	a->task_filtered = o->ci->task_filtered;
	a->recorder_tgid = o->ci->meta->recorder_pid > 0 &&
			   o->ci->meta->recorder_pid <= INT32_MAX ?
			   (int32_t)o->ci->meta->recorder_pid : 0;
	if (o->obs)
		analysis_observe(a, o->obs);
	return analysis_set_drops(a, o->ci->drops, o->ci->ndrops);
}

/* The budget of the ordering (records held), from the environment for tests. */
static size_t order_budget(void)
{
	const char *v = getenv("ABICAP_ORDER_BUDGET");
	long n;

	return v && parse_long(v, 256, 1L << 30, &n) ? (size_t)n : 0;
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
	analysis_add(rc->a, rec);
}

/* The cgroup ids a record names, into used. */
static int note_cgroups(struct hashtab *used, const union abicap_rec *rec)
{
	uint64_t ids[2];
	size_t n = record_cgroups(rec, ids);

	for (size_t i = 0; i < n; i++)
		if (ids[i] && hashtab_put(used, ids[i], 0) < 0)
			return -ENOMEM;
	return 0;
}

int report_read_records(struct capr **r, const char *path,
			struct analysis *a, size_t *n,
			const struct report_read_opts *o)
{
	struct capr_order_opts oo = { .budget = order_budget(), .path = path };
	const struct capr_order_stats *st;
	char err[ERRMSG_LEN];
	struct capr_ordered *s;
	union abicap_rec rec;
	const struct capmeta *m = o->ci->meta;
	int ncpus = capmeta_ncpus(m), rc, c;
	struct read_ctx rx = { a, o, false };
	bool waking;

	analysis_init(a, 1); /* freed by the caller on failure */
	s = capr_ordered_open(*r, &oo, &rc, err, sizeof(err));
	if (!s) {
		if (strstr(err, "out of memory"))
			return -ENOMEM;
		ab_error("'%s': %s", path, err);
		/* past the bound for one input: the file's doing, not ours */
		return strstr(err, "temporary space") ? -E2BIG : -EIO;
	}
	st = capr_ordered_stats(s);
	waking = m->events_given ?
		 (m->events & (1u << ABICAP_EV_SCHED_WAKING)) != 0 : st->waking;
	if (o->from_waking && !waking) {
		capr_ordered_close(s);
		return -ENOENT;
	}
	analysis_free(a);
	analysis_init(a, ncpus ? ncpus : st->ncpus ? (int)st->ncpus : 1);
	a->from_waking = o->from_waking;
	if (set_filters(a, o)) {
		capr_ordered_close(s);
		return -ENOMEM;
	}
	while ((c = capr_next_ordered(s, &rec)) == 1) {
		add_one(&rx, &rec);
		if (o->cg_used && note_cgroups(o->cg_used, &rec)) {
			capr_ordered_close(s);
			return -ENOMEM;
		}
	}
	if (c < 0)
		ab_error("%s", capr_ordered_error(s));
	*n = st->records;
	capr_ordered_close(s);
	return c < 0 ? -EIO : rc;
}

struct cgnames *capture_cgnames(struct capr *r, bool grouping,
				const struct hashtab *used,
				const struct captrailer *t)
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
		if (hashtab_get(used, cg[i].id) &&
		    cgnames_set(names, cg[i].id, cg[i].path)) {
			cgnames_free(names);
			return NULL;
		}
	for (size_t i = 0; t && i < t->nct; i++)
		if (cgnames_set_ct_names(names, t->ct[i].id, &t->ct[i].names)) {
			cgnames_free(names);
			return NULL;
		}
	if (grouping && t && t->ct_not_listed)
		ab_warn("%llu containers' names were not kept in the capture "
			"(abicap record keeps %d at most): those are named by "
			"container id", (unsigned long long)t->ct_not_listed,
			CAPTRAILER_CT_MAX);
	return names;
}

static bool task_matches(const struct task *t, int32_t pid, const char *comm)
{
	return (!pid || t->tgid == pid) &&
	       (!comm || !strncmp(t->comm, comm, sizeof(t->comm)));
}

bool report_no_task(const struct analysis *a, const char *path, int32_t pid,
		    const char *comm)
{
	const struct task *thread = NULL;

	if (!pid && !comm)
		return false;
	for (size_t i = 0; i < a->ntasks; i++) {
		if (task_matches(&a->tasks[i], pid, comm))
			return false;
		if (pid && a->tasks[i].pid == pid && a->tasks[i].tgid != pid)
			thread = &a->tasks[i];
	}
	capwarn_task_missing(path, pid, comm, thread ? thread->tgid : 0,
			     thread ? thread->comm : NULL);
	return true;
}
