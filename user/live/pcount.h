/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Where the kernel keeps preempt_count, and how the wakeup programs read
 * it to tell a waker in an interrupt (bpf/core_fixes.bpf.h,
 * in_irq_context).
 */
#ifndef ABICAP_PCOUNT_H
#define ABICAP_PCOUNT_H

#include <stdbool.h>
#include <linux/types.h>
#include "abicap.h"

struct pcount {
	enum abicap_pc_where where; /* ABICAP_PC_NONE: not found */
	__s64 off; /* from the task, or from the per-CPU run queue (x86) */
	/* one plain load through bpf_rdonly_cast: the *_pc programs */
	bool plain;
};

/*
 * From the running kernel's BTF: rq_ok, the contract's task_struct.se.
 * cfs_rq and cfs_rq.rq hold (x86's place is reached through them); tstore,
 * the *_ts programs are used (the *_pc programs are variants of those).
 */
void pcount_plan(struct pcount *pc, bool rq_ok, bool tstore);

#endif /* ABICAP_PCOUNT_H */
