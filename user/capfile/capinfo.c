// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What a capture says of its filters and losses, for the report. */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capinfo.h"
#include "capfile/capwarn.h"
#include "lib/util.h"

/* An option of the recorder's command line that filters tasks (older files). */
static bool filter_option(const char *arg)
{
	static const char *const opts[] = { "-p", "--pid", "--tid", "--comm",
					    "--cgroup", "--" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
		size_t n = strlen(opts[i]);

		if (!strncmp(arg, opts[i], n) &&
		    (!arg[n] || arg[n] == '=' || (n == 2 && arg[1] == 'p')))
			return true;
	}
	return false;
}

static int cmp_drop(const void *a, const void *b)
{
	const struct drop_window *x = a, *y = b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

int capinfo_read(struct capinfo *ci, const struct capmeta *m, struct capr *r)
{
	const struct capfile_drop *d;
	size_t i, n;

	memset(ci, 0, sizeof(*ci));
	ci->meta = m;
	ci->flags = m->record_format >= 3;
	if (m->filter.present) {
		ci->task_filtered = m->filter.tasks;
		ci->cpus = m->filter.cpus_given ? m->filter.cpus : NULL;
		ci->ncpus_captured = m->filter.ncpus;
	} else {
		ci->task_filtered = m->pid_filter > 0;
		for (i = 0; i < m->ncommand_line; i++)
			if (filter_option(m->command_line[i]))
				ci->task_filtered = true;
	}
	ci->untrusted = ci->task_filtered && !ci->flags;
	ci->cpus_partial = ci->cpus != NULL;
	d = capr_drops(r, &n);
	ci->drops = n ? malloc(n * sizeof(*ci->drops)) : NULL;
	if (n && !ci->drops)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ci->drops[i] = (struct drop_window){ d[i].start_ns, d[i].end_ns,
						     d[i].count, d[i].cpu };
		ci->dropped_in_windows += d[i].count;
	}
	ci->ndrops = n;
	if (n)
		qsort(ci->drops, n, sizeof(*ci->drops), cmp_drop);
	return 0;
}

/* The trailer's count of lost records (0 without a trailer). */
static uint64_t trailer_dropped(const struct captrailer *t)
{
	uint64_t drop = 0;

	for (int ev = 0; t && ev < ABICAP_EV_COUNT; ev++)
		drop += t->dropped[ev];
	return drop;
}

/*
 * The trailer's recursion_misses: by program, summed. Not known from an
 * older file (none), or from one whose counts are not counts.
 */
static void trailer_misses(struct capinfo *ci, const struct captrailer *t)
{
	if (!t || !t->misses_known)
		return;
	ci->misses_known = true;
	for (int k = 0; k < ABICAP_EV_COUNT + OTHER_TP_COUNT; k++)
		ci->misses += t->miss[k];
}

void capinfo_dropped(struct capinfo *ci, const struct capr *r,
		     const struct captrailer *trl)
{
	const struct capr_integrity *ig = capr_integrity(r);

	ci->ig = ig;
	ci->version = capr_version(r);
	if (ig->verified) {
		ci->dropped = ig->dropped;
		ci->dropped_exact = ig->dropped_exact;
	} else if (trl) {
		ci->dropped = trailer_dropped(trl);
		ci->dropped_exact = true;
	} else {
		ci->dropped_exact = false;
	}
	if (trl && trailer_dropped(trl) > ci->dropped)
		ci->dropped = trailer_dropped(trl);
	if (ci->dropped_in_windows > ci->dropped)
		ci->dropped = ci->dropped_in_windows;
	trailer_misses(ci, trl);
	ci->dropped_why = ig->trailer == CAPR_TRAILER_MISSING ?
		"cut short: losses after its last drop block are not known" :
		"the trailer is damaged or missing: what it counted is not known";
}

void capinfo_warn(struct capinfo *ci, const struct capr *r, const char *path)
{
	/* a file's windows are all found at open: any more lost are unplaced */
	ci->drops_unplaced = ci->dropped > ci->dropped_in_windows;
	if (ci->drops_unplaced)
		ab_warn("'%s' lost %llu records %s: waits and off-CPU times "
			"spanning them cannot be left out and may be too long "
			"(record it again with this abicap)", path,
			(unsigned long long)(ci->dropped - ci->dropped_in_windows),
			capr_version(r) < 3 ? "and its format (version 2 or "
			"older) has no drop windows" : "outside any drop window");
	if (ci->untrusted)
		ab_warn("'%s' was filtered to some tasks by an abicap whose "
			"records do not say which side of a switch passed the "
			"filter: its run-queue latency and off-CPU figures are "
			"not trustworthy (record it again with this abicap)",
			path);
	if (ci->cpus_partial)
		ab_warn("'%s' was captured on some CPUs only (-C): waits and "
			"off-CPU times of tasks that also ran on other CPUs may "
			"span runs that were not captured", path);
}

bool capinfo_cpu_captured(const struct capinfo *ci, int c)
{
	if (!ci->cpus)
		return true;
	for (size_t i = 0; i < ci->ncpus_captured; i++)
		if (ci->cpus[i] == c)
			return true;
	return false;
}

/* What the reader found wrong with the file: see README "Capture integrity". */
json_t *capinfo_json_integrity(const struct capinfo *ci)
{
	const struct capr_integrity *ig = ci->ig;
	json_t *probs = json_array();
	bool known = ig->verified || ig->records_exact;
	uint64_t exp = ig->records_expected, rd = ig->records_read;

	for (uint64_t i = 0; i < ig->nproblems && i < CAPR_PROBLEMS_KEPT; i++)
		json_array_append_new(probs, json_pack("{s:I, s:s}", "offset",
			(json_int_t)ig->problem[i].offset, "problem",
			ig->problem[i].what));
	return json_pack("{s:i, s:b, s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:o, s:b, s:o, s:I, s:b, s:o, s:o, s:I}",
		"format_version", (int)ci->version,
		"verified", ig->verified, "damaged", ci->damaged,
		"trailer", capwarn_trailer_name(ig->trailer),
		"parts", (json_int_t)ig->parts,
		"damaged_parts", (json_int_t)ig->damaged,
		"duplicated_parts", (json_int_t)ig->duplicated,
		"reordered_parts", (json_int_t)ig->reordered,
		"missing_parts", (json_int_t)ig->missing,
		"bytes_skipped", (json_int_t)ig->skipped_bytes,
		"records_expected", known ? json_integer((json_int_t)exp) :
		json_null(), "records_exact", ig->records_exact,
		"records_missing", known ? json_integer((json_int_t)(exp > rd ?
		exp - rd : 0)) : json_null(),
		"dropped", (json_int_t)ci->dropped,
		"dropped_exact", ci->dropped_exact,
		"recursion_misses", ci->misses_known ?
		json_integer((json_int_t)ci->misses) : json_null(),
		"problems", probs,
		"problems_not_listed", (json_int_t)(ig->nproblems >
			CAPR_PROBLEMS_KEPT ? ig->nproblems - CAPR_PROBLEMS_KEPT : 0));
}
