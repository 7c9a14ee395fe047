/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * PowerTOP's question, who wakes the CPUs: each CPU's idle exits (cpu_idle
 * leaving a state), per second, each attributed to the task the exit let
 * run and its waker (interrupt context where the waker was one): the first
 * wakeup placed on that CPU from its idle entry to its next one. An exit
 * with no such wakeup was an interrupt or timer handled in idle with no
 * task to run. Idle entries are counted per state as the kernel's cpuidle
 * usage counters count them (/sys/devices/system/cpu/cpuN/cpuidle/stateM/
 * usage). Wakeups and idle-state changes both come from the analysis'
 * observer: what the analysis leaves out (out of order) is not counted.
 */
#ifndef ABICAP_WAKEUPS_H
#define ABICAP_WAKEUPS_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "analysis/analysis.h"
#include "analysis/observe.h"
#include "capfile/capfile.h"
#include "lib/hashtab.h"

#define WK_STATES 16

struct wk_cause {
	int32_t cpu;
	bool in_irq, none; /* none: no task woken */
	bool lost; /* none, and records were lost from the idle entry on */
	struct task_id wakee, waker;
	char wakee_comm[ABICAP_COMM_LEN], waker_comm[ABICAP_COMM_LEN];
	uint64_t exits;
};

struct wk_cpu {
	bool in_idle, pending, has_cause;
	uint64_t entry_ts; /* the last idle entry */
	struct wk_cause cause; /* the one for the exit under way */
	uint64_t entries[WK_STATES], entries_deeper; /* past WK_STATES */
	uint64_t exits;
};

struct wakeups {
	uint64_t from, to; /* the window (absolute) */
	struct wk_cpu *cpus;
	int ncpus;
	struct wk_cause *causes;
	size_t ncauses, cap;
	struct hashtab index; /* cause -> its position in causes */
	/* the capture's drop windows (capr_drops): a wakeup may be in one */
	const struct capfile_drop *drops;
	size_t ndrops;
	bool oom;
	bool by_process; /* wk_by_process() made the causes per process */
};

/* For ncpus CPUs, counting in [from, to]: 0 or -ENOMEM. */
int wk_init(struct wakeups *w, int ncpus, uint64_t from, uint64_t to);
/* The analysis observer's idle and wakeup callbacks (ctx a struct wakeups). */
void wk_idle(void *ctx, const struct idle_ev *e);
void wk_wakeup(void *ctx, const struct wake_ev *e);
/* Close what is under way; causes sorted, most exits first. */
void wk_finish(struct wakeups *w);
/*
 * After wk_finish(): the causes per process instead of per task (each
 * task as its process, "name:tgid" as report --by process names it), the
 * exits of a process's threads summed. 0 or -ENOMEM.
 */
int wk_by_process(struct wakeups *w, const struct analysis *a);
/* The tables: per CPU with a's residencies, then the causes (top rows). */
void wk_text(FILE *f, const struct wakeups *w, const struct analysis *a,
	     size_t top);
json_t *wk_json(const struct wakeups *w, const struct analysis *a);
void wk_free(struct wakeups *w);

#endif
