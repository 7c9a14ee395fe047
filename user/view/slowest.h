/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The N slowest run-queue waits (runqslower's and perf sched's question):
 * each with when, the CPU, and the task that held that CPU meanwhile (the
 * one switched out when the waiter switched in), its time on the CPU in
 * the wait and its whole on-CPU runtime. From the analysis' wait callbacks.
 */
#ifndef ABICAP_SLOWEST_H
#define ABICAP_SLOWEST_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include "analysis/analysis.h"
#include "analysis/observe.h"

struct slow_wait {
	struct task_id id, holder;
	char comm[ABICAP_COMM_LEN], holder_comm[ABICAP_COMM_LEN];
	int32_t cpu;
	bool after_wakeup;
	bool holder_run_known; /* its switch-in there was seen */
	uint64_t start_ns, end_ns, holder_run_ns;
	uint64_t holder_runtime; /* its on-CPU time in the report (slowest_finish) */
	bool holder_known; /* the holder is a task of the analysis */
};

struct slowest {
	struct slow_wait *v; /* a min-heap by wait, then sorted (slowest_finish) */
	size_t n, max;
	uint64_t seen; /* waits offered */
};

/* Keep the max slowest; -ENOMEM. */
int slowest_init(struct slowest *s, size_t max);
/* The observer's wait callback, ctx a struct slowest. */
void slowest_wait(void *ctx, const struct wait_ev *w);
/* Slowest first, each holder's runtime from a (after analysis_finish). */
void slowest_finish(struct slowest *s, const struct analysis *a);
/* The table for report's text; times from t0 (the first record). */
void slowest_text(FILE *f, const struct slowest *s, uint64_t t0);
/* The same as a JSON array. */
json_t *slowest_json(const struct slowest *s, uint64_t t0);
void slowest_free(struct slowest *s);

#endif
