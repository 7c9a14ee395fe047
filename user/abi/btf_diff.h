/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What changed in the events between two kernels' BTF, judged by the
 * append-only rule of TRACE_EVENT_ABI.
 */
#ifndef ABICAP_BTF_DIFF_H
#define ABICAP_BTF_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include "abi/contract.h"
#include "abi/layout.h"

struct btf;

struct change {
	char scope[96]; /* event, or record struct */
	char what[96]; /* "arg 4", "record trace_event_raw_x.field", "tracepoint" */
	const char *kind; /* "added", "removed", "deleted", "retyped", ... */
	char old_type[TYPE_STR_MAX];
	char new_type[TYPE_STR_MAX];
	int old_idx, new_idx;
	bool breaking;
	/* "char signedness": plain char's sign before and after, "signed" or "unsigned" */
	const char *old_char, *new_char;
};

struct diff {
	struct change *v;
	int n;
	size_t cap;
	int breaking, compatible;
};

/*
 * The prototypes and records of the contract's events in mask into d,
 * each record shared by several events once; how many were compared.
 */
int diff_events(struct diff *d, const struct contract *c, unsigned int mask,
		const struct btf *ob, const struct btf *nb);

/* Every tracepoint and record struct either has, into d; how many. */
int diff_all(struct diff *d, const struct btf *ob, const struct btf *nb);

#endif
