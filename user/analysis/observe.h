/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Observers of the analysis: every interval the one state machine closes
 * (a task's running, waiting, off-CPU and unknown spans; a CPU's busy, idle,
 * unknown and lost spans; frequency spans), every wakeup, every idle-state
 * change and every measured run-queue wait, as it closes. Consumers other than the report (timechart,
 * heat map, wakeups, slowest waits) register one instead of re-deriving task
 * states from records. docs/analysis.md defines each kind.
 *
 * Spans are emitted when they close (in order of end time per task or CPU),
 * those still open at the end by analysis_finish(). Every span lies inside
 * [first record, last record] and inside the window (analysis_set_window,
 * clipped to it), and start_ns <= end_ns. Strings are valid during the call.
 */
#ifndef ABICAP_OBSERVE_H
#define ABICAP_OBSERVE_H

#include <stdbool.h>
#include <stdint.h>

struct analysis;

/*
 * A task across pid reuse: its tid and the time it was first seen (its
 * sched_wakeup_new, or its first record).
 */
struct task_id {
	int32_t tid, tgid;
	uint64_t start_ns;
};

enum span_kind {
	SPAN_RUNNING, /* on a CPU */
	SPAN_RUNQUEUE, /* runnable, waiting for a CPU (after a wakeup or a preemption) */
	SPAN_SLEEP, /* off CPU in S, or in I (an idle kernel thread) */
	SPAN_BLOCKED, /* off CPU in D */
	SPAN_OFF_OTHER, /* off CPU in another state (T, t, X, Z, P) */
	SPAN_UNKNOWN, /* a drop window or a gap the kernel hid: state not known */
};

struct task_span {
	struct task_id id;
	const char *comm; /* the name the task had during the span */
	enum span_kind kind;
	uint32_t prev_state; /* tracefs encoding, for the off-CPU kinds */
	int32_t cpu; /* RUNNING: the CPU; RUNQUEUE: the CPU it then ran on; else -1 */
	uint64_t start_ns, end_ns; /* start <= end, both inside the capture */
};

enum cpu_kind { CPUSPAN_BUSY, CPUSPAN_IDLE, CPUSPAN_UNKNOWN, CPUSPAN_LOST };

struct cpu_span {
	int32_t cpu;
	enum cpu_kind kind;
	int32_t idle_state; /* IDLE: the cpu_idle state entered, -1 if none seen */
	uint64_t start_ns, end_ns;
};

struct freq_span {
	int32_t cpu;
	uint32_t khz;
	uint64_t start_ns, end_ns;
};

struct wake_ev {
	uint64_t ts;
	int32_t cpu; /* where the waker ran */
	int32_t target_cpu;
	bool in_irq; /* the waker was interrupt context (ABICAP_PID_INTERRUPT) */
	bool is_new; /* sched_wakeup_new */
	struct task_id waker; /* tid -1: unknown */
	const char *waker_comm; /* never empty: "(unknown)" if not known */
	struct task_id wakee;
	const char *wakee_comm;
};

/*
 * A CPU's cpu_idle record as the analysis takes it: in time order, on a
 * CPU of the capture (those the analysis leaves out, it counts instead).
 */
struct idle_ev {
	uint64_t ts;
	int32_t cpu; /* the CPU whose idle state changed */
	int32_t state; /* the state entered; -1: the exit from idle */
};

/* One run-queue wait, as the report counts it. */
struct wait_ev {
	struct task_id id;
	const char *comm;
	int32_t cpu; /* the CPU it then ran on */
	uint64_t start_ns, end_ns;
	bool after_wakeup; /* false: after a preemption */
	/* the task switched out when this one switched in (tid -1: unknown/idle) */
	struct task_id holder;
	const char *holder_comm;
	uint64_t holder_run_ns; /* the holder's time on that CPU inside [start_ns, end_ns] */
	/* false: the holder's switch-in there was not seen (hidden, lost) */
	bool holder_run_known;
};

struct analysis_observer {
	void *ctx;
	void (*task_span)(void *ctx, const struct task_span *s);
	void (*cpu_span)(void *ctx, const struct cpu_span *s);
	void (*freq_span)(void *ctx, const struct freq_span *s);
	void (*wakeup)(void *ctx, const struct wake_ev *w);
	void (*wait)(void *ctx, const struct wait_ev *w);
	void (*idle)(void *ctx, const struct idle_ev *e);
};

/* Before the first record; any callback may be NULL. */
void analysis_observe(struct analysis *a, const struct analysis_observer *o);

/*
 * Count only what lies inside [since_ns, until_ns] (CLOCK_MONOTONIC, as
 * records): records outside still drive the state machine, time totals and
 * spans are clipped to the window, a wait counts when it ends inside it
 * (whole). 0 / UINT64_MAX: no bound. Before the first record.
 */
void analysis_set_window(struct analysis *a, uint64_t since_ns,
			 uint64_t until_ns);

#endif
