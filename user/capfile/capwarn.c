// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include "capfile/capwarn.h"
#include "lib/escape.h"
#include "lib/util.h"

const char *capwarn_trailer_name(enum capr_trailer_state t)
{
	return t == CAPR_TRAILER_INTACT ? "intact" :
	       t == CAPR_TRAILER_MISSING ? "missing" : "damaged";
}

bool capwarn_integrity(const struct capr *r, const char *path)
{
	const struct capr_integrity *ig = capr_integrity(r);
	const char *p = text_escaped(path, ESCAPE_MAX);
	bool damaged = capr_damaged(r);

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
	return damaged;
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
