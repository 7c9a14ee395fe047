// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Records into a capture file, with their cgroups' names and drop windows. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include "lib/array.h"
#include "capfile/capsink.h"

/*
 * Between a BPF program taking its record's time and counting the record
 * as lost: the program's run, a few microseconds; a drop counted just
 * after a look may belong to a record stamped just before it.
 */
#define DROP_SLACK_NS 1000000ull

/* The windows of the CPUs whose count grew: the records of them placed. */
static uint64_t cpu_windows(struct capsink *st, const uint64_t *per_cpu,
			    int n, uint64_t from, uint64_t now)
{
	uint64_t placed = 0;

	if (!per_cpu || n <= 0)
		return 0;
	if (!st->cpu_drops) {
		st->cpu_drops = calloc((size_t)n, sizeof(*st->cpu_drops));
		if (!st->cpu_drops)
			return 0; /* all of them a window of any CPU */
		st->ncpus = n;
	}
	for (int c = 0; c < n && c < st->ncpus && !st->werr; c++) {
		uint64_t grew = per_cpu[c] > st->cpu_drops[c] ?
				per_cpu[c] - st->cpu_drops[c] : 0;
		int e = grew ? capw_add_drop(st->w, from, now, grew, c) : 0;

		if (e)
			st->werr = e;
		placed += grew;
		st->cpu_drops[c] = per_cpu[c];
	}
	return placed;
}

void capsink_drops(struct capsink *st, uint64_t d, const uint64_t *per_cpu,
		   int n, uint64_t now)
{
	uint64_t from, placed;
	int e;

	if (d > st->drops && !st->werr) {
		from = st->looked_ns > DROP_SLACK_NS ?
		       st->looked_ns - DROP_SLACK_NS : 0;
		placed = cpu_windows(st, per_cpu, n, from, now);
		/* read apart from the total: never more than it grew */
		if (placed < d - st->drops && !st->werr) {
			e = capw_add_drop(st->w, from, now,
					  d - st->drops - placed, -1);
			if (e)
				st->werr = e;
		}
	}
	st->drops = d;
	st->looked_ns = now;
}

void capsink_flush_due(struct capsink *st, uint64_t now)
{
	int e;

	if (st->werr || now - st->flushed_ns < CAPSINK_FLUSH_NS)
		return;
	e = capw_flush(st->w);
	if (e)
		st->werr = e;
	st->flushed_ns = now;
}

/* A cgroup's path goes into the file once, before the chunk using it. */
static void name_cgroup(struct capsink *st, uint64_t id)
{
	const char *path;
	int e;

	if (!id || id == st->last_cg || !st->names)
		return;
	st->last_cg = id;
	if (!cgnames_first_use(st->names, id) ||
	    !(path = cgnames_path(st->names, id)))
		return;
	e = capw_add_cgroup(st->w, id, path);
	if (e == -ENAMETOOLONG)
		return; /* readers show cgroup#ID (CGNAMES_UNKNOWN_NOTE) */
	if (!e && !array_room(&st->named, st->nnamed, &st->named_cap,
			      sizeof(*st->named), 64))
		st->named[st->nnamed++] = id;
	if (e && !st->werr)
		st->werr = e;
}

void capsink_free(struct capsink *st)
{
	free(st->cpu_drops);
	st->cpu_drops = NULL;
	free(st->named);
	st->named = NULL;
	st->nnamed = st->named_cap = 0;
}

int capsink_record(void *ctx, const union abicap_rec *r)
{
	struct capsink *st = ctx;
	int e;

	if (st->werr)
		return 0;
	if (r->hdr.type == ABICAP_EV_SCHED_SWITCH) {
		name_cgroup(st, r->sw.prev_cgroup);
		name_cgroup(st, r->sw.next_cgroup);
	} else if (r->hdr.type != ABICAP_EV_CPU_IDLE &&
		   r->hdr.type != ABICAP_EV_CPU_FREQUENCY) {
		name_cgroup(st, r->wk.cgroup);
	}
	e = capw_add(st->w, r, r->hdr.size);
	if (e)
		st->werr = e;
	return 0;
}

bool capsink_done(const struct capsink *st)
{
	return st->werr != 0;
}
