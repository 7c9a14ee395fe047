/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The timechart's content, collected from the analysis' observer (never
 * from records): a lane per CPU (busy, idle by idle-state depth, unknown,
 * lost; frequency) and per task (running, waiting for a CPU, sleeping,
 * blocked, other, unknown), each a row of pixels (view/pixrow.h), and the
 * wakeups as arrows from the waker's lane to the wakee's, one per wakee
 * and pixel (the others counted as merged). view/timechart_html.c draws it.
 */
#ifndef ABICAP_TIMECHART_H
#define ABICAP_TIMECHART_H

#include <stdint.h>
#include <stdio.h>
#include "analysis/observe.h"
#include "event/record.h"
#include "lib/hashtab.h"
#include "view/pixrow.h"

/* Task lane kinds: enum span_kind. CPU lane kinds: */
enum tc_cpu_kind {
	TC_CPU_BUSY = 0,
	TC_CPU_UNKNOWN = 1,
	TC_CPU_LOST = 2,
	TC_CPU_IDLE_NONE = 3, /* idle, no cpu_idle state seen */
	TC_CPU_IDLE0 = 4, /* idle in state 0 .. TC_IDLE_STATES - 1 */
};
#define TC_IDLE_STATES (PIX_KINDS - TC_CPU_IDLE0)
/* Frequencies told apart in a CPU's frequency row (more: counted, drawn as the last) */
#define TC_FREQS PIX_KINDS

/* Where an arrow comes from: a task lane (>= 0) or these. */
#define TC_FROM_UNKNOWN (-1)
#define TC_FROM_CPU(c) (-2 - (c)) /* interrupt context on CPU c */

struct tc_arrow {
	uint32_t x;
	int32_t from;
};

/*
 * Every task the window shows, lane or not: what choosing the lanes needs
 * when there are more tasks than --max-lanes.
 */
struct tc_task {
	struct task_id id;
	char comm[ABICAP_COMM_LEN]; /* the last name */
	char first_comm[ABICAP_COMM_LEN]; /* the first, if it changed (exec) */
	uint64_t run_ns, wait_ns; /* on a CPU, waiting for one (in the scale) */
	bool has_interval; /* a state interval in the window (else: wakeups only) */
	long lane; /* -1: none */
};

struct tc_lane {
	struct task_id id;
	size_t task; /* its tasks[]: its names */
	struct pixrow row;
	struct pixrow zrow; /* the zoom layer (timechart.zoom) */
	struct tc_arrow *arrows;
	size_t narrows, arrows_cap;
	uint64_t wakeups, arrows_merged;
	uint64_t waits, wait_ns; /* run-queue waits measured, their sum */
	/*
	 * the lane order's first key: 0 a task the capture followed (the
	 * command's, or all in a capture without a task filter), 1 one seen
	 * only beside those, 2 the recorder's own
	 */
	uint8_t rank;
};

struct tc_cpu {
	struct pixrow state, freq;
	struct pixrow zstate; /* the zoom layer (timechart.zoom) */
	uint32_t khz[TC_FREQS];
	int nkhz;
	uint64_t khz_other; /* spans of frequencies past TC_FREQS */
	uint64_t idle_deeper; /* idle spans in states past the last drawn */
	uint64_t irq_wakeups;
	/*
	 * who ran: per pixel, 1 + the tasks[] index of the task with the
	 * longest stint on this CPU in it (0: none), and that stint's ns;
	 * NULL past TC_WHO_CELLS pixels of CPU lanes in all
	 */
	uint32_t *who;
	uint64_t *who_ns;
};

/*
 * The zoom layer: the task and CPU rows again at a finer scale (zsc),
 * which the page draws its zoomed views from. Its pixels are at least
 * TC_ZOOM_MIN_NS (a scheduler switch takes about a microsecond); while its
 * runs would take more than TC_ZOOM_BUDGET bytes of the page (about
 * TC_ZOOM_RUN_BYTES each), its pixels are made twice as long, and where
 * they would no longer be finer than half a page pixel there is no layer.
 */
#define TC_ZOOM_MIN_NS 100u
#define TC_ZOOM_BUDGET (16u << 20)
#define TC_ZOOM_RUN_BYTES 6u

/* The most CPU-lane pixels whose runner is kept (12 bytes each). */
#define TC_WHO_CELLS (4u << 20)

/* Which tasks get a lane. */
struct tc_lanes_rule {
	size_t max; /* lanes at most (0: no limit) */
	int32_t tgid; /* only this process's tasks (0: every task) */
	/* only these tasks, sorted by (tid, start_ns) (NULL: any, up to max) */
	const struct task_id *only;
	size_t nonly;
};

struct timechart {
	struct pixscale sc;
	struct pixscale zsc; /* the zoom layer's scale (zoom: there is one) */
	bool zoom, zoom_dropped; /* dropped: past its budget */
	uint64_t zadds; /* intervals added to the layer (its budget looked at every 4096) */
	struct tc_cpu *cpus;
	int ncpus;
	struct tc_lanes_rule rule;
	struct tc_task *tasks;
	size_t ntasks, tasks_cap;
	struct hashtab index; /* task id -> tasks[] */
	struct tc_lane *lanes;
	size_t nlanes, lanes_cap;
	uint64_t wakeups, arrows, arrows_merged, bad_cpu;
	int max_idle; /* deepest idle state seen, -1 none */
	bool oom;
};

/* For sc and rule (both copied; rule->only is borrowed); ncpus CPU lanes. NULL: no memory. */
struct timechart *tc_new(const struct pixscale *sc, int ncpus,
			 const struct tc_lanes_rule *rule);
/* The observer that fills tc. */
void tc_observer(struct timechart *tc, struct analysis_observer *o);
/* Close every row (after analysis_finish). */
void tc_finish(struct timechart *tc);
void tc_free(struct timechart *tc);

/* Whether the page's filters (tgid 0, comm NULL: none) show task t. */
bool tc_task_shown(const struct tc_task *t, int32_t tgid, const char *comm);

/* The tasks a page can show (an interval in the window, through the filters). */
struct tc_choice {
	size_t shown; /* tasks the filters show */
	size_t filtered; /* tasks the filters leave out */
	size_t empty; /* tasks seen only in wakeups */
	bool all_have_lanes; /* every shown task got a lane */
	/* when not: the max shown tasks with the most time on a CPU (then
	 * waiting, then the earliest), sorted by (tid, start_ns) for the rule */
	struct task_id *chosen;
	size_t nchosen;
	size_t left_out; /* shown tasks past max: no lane */
	uint64_t left_out_run_ns, left_out_wait_ns; /* their time */
};

/* From a read with rule.max lanes: 0, or -ENOMEM. */
int tc_choose(const struct timechart *tc, int32_t tgid, const char *comm,
	      size_t max, struct tc_choice *ch);

#endif
