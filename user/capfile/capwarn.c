// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include "capfile/capwarn.h"
#include "lib/escape.h"
#include "lib/util.h"

const char *capwarn_trailer_name(enum capr_trailer_state t)
{
	return t == CAPR_TRAILER_INTACT ? "intact" :
	       t == CAPR_TRAILER_MISSING ? "missing" : "damaged";
}

/* The time the drop windows cover, overlaps counted once (they are in time order). */
static uint64_t drops_span(const struct capfile_drop *d, size_t n)
{
	uint64_t sum = 0, end = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t from = d[i].start_ns > end ? d[i].start_ns : end;

		if (d[i].end_ns > from)
			sum += d[i].end_ns - from;
		if (d[i].end_ns > end)
			end = d[i].end_ns;
	}
	return sum;
}

bool capwarn_losses(const struct capr *r, char *buf, size_t len)
{
	const struct capr_integrity *ig = capr_integrity(r);
	const struct capfile_drop *d;
	size_t n;

	if (!ig->dropped)
		return false;
	d = capr_drops(r, &n);
	if (n)
		snprintf(buf, len, "%s%llu records were lost while recording "
			 "(the buffer was full), in %zu window%s, %.3f ms in "
			 "all: nothing recorded in them is here, and what spans "
			 "them is left out or marked", ig->dropped_exact ? "" :
			 "at least ", (unsigned long long)ig->dropped, n,
			 n == 1 ? "" : "s", drops_span(d, n) / 1e6);
	else
		snprintf(buf, len, "%s%llu records were lost while recording, "
			 "and the file does not say when (format %u): figures "
			 "spanning them may be off", ig->dropped_exact ? "" :
			 "at least ", (unsigned long long)ig->dropped,
			 capr_version(r));
	return true;
}

bool capwarn_integrity(const struct capr *r, const char *path)
{
	const struct capr_integrity *ig = capr_integrity(r);
	const char *p = text_escaped(path, ESCAPE_MAX);
	bool damaged = capr_damaged(r);
	char lost[512];

	if (!ig->verified)
		ab_warn("'%s' is capture format %u, without sequence numbers "
			"or a checksum on its trailer: a part missing, doubled "
			"or out of place, or a damaged trailer, cannot be seen "
			"(files of this abicap can be checked)", p,
			capr_version(r));
	for (uint64_t i = 0; i < ig->nproblems && i < CAPR_PROBLEMS_KEPT; i++)
		ab_warn("'%s': %s", p, ig->problem[i].what);
	if (ig->nproblems > CAPR_PROBLEMS_KEPT)
		ab_warn("'%s': %llu more problems (see report --format json for "
			"the counts)", p,
			(unsigned long long)(ig->nproblems - CAPR_PROBLEMS_KEPT));
	if (damaged)
		ab_warn("'%s' is damaged: %llu parts damaged, %llu duplicated "
			"(skipped), %llu out of order, %llu missing; trailer %s; "
			"what follows is from the %llu records that read intact "
			"(exit 5)", p, (unsigned long long)ig->damaged,
			(unsigned long long)ig->duplicated,
			(unsigned long long)ig->reordered,
			(unsigned long long)ig->missing,
			capwarn_trailer_name(ig->trailer),
			(unsigned long long)ig->records_read);
	if (capwarn_losses(r, lost, sizeof(lost)))
		ab_warn("'%s': %s", p, lost);
	return damaged;
}

bool capwarn_window(const char *path, const struct timewin *w, uint64_t span)
{
	if (w->until == UINT64_MAX || w->until <= span)
		return false;
	ab_warn("'%s': --until %.3f ms is past its last record, %.3f ms after "
		"its first: the window covers %.3f to %.3f ms",
		text_escaped(path, ESCAPE_MAX), (double)w->until / 1e6,
		(double)span / 1e6, (double)(w->since < span ? w->since : span) /
		1e6, (double)span / 1e6);
	return true;
}

void capwarn_task_missing(const char *path, int32_t pid, const char *comm,
			  int32_t thread_of, const char *thread_comm)
{
	const char *p = text_escaped(path, ESCAPE_MAX);

	if (thread_of)
		ab_error("%d is a thread of process %d (%s) in '%s': --pid takes "
			 "a process id: give --pid %d", pid, thread_of,
			 text_escaped(thread_comm, ABICAP_COMM_LEN), p, thread_of);
	else if (pid)
		ab_error("no task of process %d in '%s'%s: give a process it has "
			 "(abicap report '%s' --format json | jq '.tasks[].tgid')",
			 pid, p, comm ? " with that name" : "", p);
	else
		ab_error("no task named '%s' in '%s': give a name it has (abicap "
			 "report '%s' --format json | jq '.tasks[].comm')",
			 text_escaped(comm, ESCAPE_MAX), p, p);
}

bool capwarn_cpu_past(const union abicap_rec *r, uint32_t ncpus)
{
	return record_cpu_past(r, ncpus);
}

void capwarn_bad_cpu(uint64_t n, int ncpus)
{
	if (n)
		ab_warn("%llu record%s name a CPU past the capture's %d and "
			"%s left out", (unsigned long long)n, n == 1 ? "" : "s",
			ncpus, n == 1 ? "was" : "were");
}
