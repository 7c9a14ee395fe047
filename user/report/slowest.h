/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The N slowest run-queue waits (runqslower's and perf sched's question):
 * each with when, the CPU, and every task that ran on that CPU meanwhile
 * with its time there inside the wait (most first), then the CPU's idle
 * and unknown time in it: together the wait. The waits come from the
 * analysis' wait callbacks; the CPU's time in each from a second pass over
 * the capture (slowest_holders), its task and CPU spans, since which waits
 * are the slowest is known only at the end.
 */
#ifndef ABICAP_SLOWEST_H
#define ABICAP_SLOWEST_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>
#include "analysis/analysis.h"
#include "analysis/observe.h"
#include "capfile/capinfo.h"
#include "lib/duration.h"

/* A task that ran on the wait's CPU during the wait, and how long. */
struct slow_holder {
	struct task_id id;
	char comm[ABICAP_COMM_LEN];
	uint64_t ran_ns;
	uint64_t runtime; /* its whole on-CPU time in the report */
	bool runtime_known;
};

struct slow_wait {
	/* holder: the task switched out when the waiter switched in */
	struct task_id id, holder;
	char comm[ABICAP_COMM_LEN], holder_comm[ABICAP_COMM_LEN];
	int32_t cpu;
	bool after_wakeup;
	bool holder_run_known; /* its switch-in there was seen */
	uint64_t start_ns, end_ns, holder_run_ns;
	uint64_t holder_runtime; /* its on-CPU time in the report (slowest_finish) */
	bool holder_known; /* the holder is a task of the analysis */
	/* slowest_holders: everyone on the CPU in the wait, most time first */
	struct slow_holder *holders;
	size_t nholders, holders_cap;
	uint64_t idle_ns, unknown_ns; /* the CPU idle; not known (lost, hidden) */
	bool holders_read;
};

struct slowest {
	struct slow_wait *v; /* a min-heap by wait, then sorted (slowest_finish) */
	size_t n, max;
	uint64_t seen; /* waits offered */
	/* slowest_holders: v's positions by CPU, then start; the longest wait */
	size_t *by_cpu;
	uint64_t longest;
	bool oom;
};

/* Keep the max slowest; -ENOMEM. */
int slowest_init(struct slowest *s, size_t max);
/* The observer's wait callback, ctx a struct slowest. */
void slowest_wait(void *ctx, const struct wait_ev *w);
/* Slowest first, each holder's runtime from a (after analysis_finish). */
void slowest_finish(struct slowest *s, const struct analysis *a);
/*
 * After slowest_finish: a second pass over the capture at path (its
 * facts ci, the report's window win; every task, whatever
 * the report's filters) for what ran on each wait's CPU during it, then
 * each holder's runtime from a. 0, or an EXIT_* code (reported).
 */
int slowest_holders(struct slowest *s, const char *path,
		    const struct capinfo *ci, const struct timewin *win,
		    const struct analysis *a);
/* The table for report's text; times from t0 (the first record). */
void slowest_text(FILE *f, const struct slowest *s, uint64_t t0);
/* The same as a JSON array. */
json_t *slowest_json(const struct slowest *s, uint64_t t0);
void slowest_free(struct slowest *s);

#endif
