/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A set of u32 sequence numbers as sorted runs: a file's blocks come in
 * order, so it is one run however many there are. Numbers that come out of
 * order wait in a hash set and join the runs (one sort) at the next
 * question, and a count below a number is a binary search in running
 * totals: every operation O(log n) amortised whatever the order or the gaps
 * of a crafted file (issue 21: blocks numbered 0, 2, 4, ... made the
 * count per gap quadratic).
 */
#ifndef ABICAP_SEQSET_H
#define ABICAP_SEQSET_H

#include <stddef.h>
#include <stdint.h>
#include "lib/hashtab.h"

struct seqset {
	struct seqrun {
		uint32_t lo, hi; /* both included */
	} *run;
	uint64_t *before; /* numbers in the runs before run i */
	size_t n, cap;
	struct hashtab late; /* below the last run's end, not in a run yet */
	uint32_t *pending;
	size_t npending, pending_cap;
};

/* Add seq: 1 added, 0 already there, -ENOMEM. */
int seqset_add(struct seqset *s, uint32_t seq);
/* 1 if seq is in the set; -ENOMEM (joining the late ones) */
int seqset_has(struct seqset *s, uint32_t seq);
/* How many of [0, end) are in the set (0 if out of memory: see seqset_has). */
uint64_t seqset_count_below(struct seqset *s, uint64_t end);
void seqset_clear(struct seqset *s);

#endif
