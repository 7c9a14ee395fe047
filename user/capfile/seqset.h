/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A set of u32 sequence numbers as sorted runs: a file's blocks come in
 * order, so it is one run however many there are; a damaged or crafted
 * file costs a run per block at most.
 */
#ifndef ABICAP_SEQSET_H
#define ABICAP_SEQSET_H

#include <stddef.h>
#include <stdint.h>

struct seqset {
	struct seqrun {
		uint32_t lo, hi; /* both included */
	} *run;
	size_t n, cap;
};

/* Add seq: 1 added, 0 already there, -ENOMEM. */
int seqset_add(struct seqset *s, uint32_t seq);
int seqset_has(const struct seqset *s, uint32_t seq);
/* How many of [0, end) are in the set. */
uint64_t seqset_count_below(const struct seqset *s, uint64_t end);
void seqset_clear(struct seqset *s);

#endif
