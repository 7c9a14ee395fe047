/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Scheduling analysis of a sequence of records (time order): run-queue
 * latency, off-CPU time by state, CPU busy/idle and idle-state residency,
 * frequency residency, wakeup chains.
 */
#ifndef ABICAP_ANALYSIS_H
#define ABICAP_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>
#include "analysis/observe.h"
#include "event/record.h"
#include "lib/hashtab.h"

#define MAX_IDLE_STATES 16

/*
 * Latency samples as a log-linear histogram (docs/analysis.md): count,
 * total, min and max exact; a value below 256 ns in a bucket of its own,
 * above in one of 128 buckets per power of two, so a percentile read from
 * it is within 1/256 of a sample's value. Memory: one bin per bucket in use
 * (at most LAT_BUCKETS), whatever the number of samples.
 */
#define LAT_SUB_BITS 7
#define LAT_BUCKETS ((64 - LAT_SUB_BITS + 1) << LAT_SUB_BITS)

struct hbin {
	uint64_t count;
	uint32_t bucket;
};

struct lat {
	struct hbin *b; /* in bucket order */
	uint32_t nb;
	size_t cap;
	uint64_t n, total, min, max; /* ns */
};

/* Whether a task passed the capture's task filter, by its switch records. */
enum followed { FOLLOW_UNKNOWN = 0, FOLLOW_YES, FOLLOW_NO };

/* What the state machine knows of a task now (docs/analysis.md). */
enum phase {
	PH_UNKNOWN = 0, /* not known (why: enum unknown_why) */
	PH_RUN, /* on cpu since `since` */
	PH_OFF, /* switched out asleep (out_state) since `since` */
	PH_RQ, /* runnable since `since`: woken, or switched out in R/R+ */
	PH_DEAD, /* switched out for the last time (X, Z): the pid may return */
};

enum unknown_why {
	UNK_NEW = 0, /* not seen before: the capture began with it somewhere */
	UNK_DROP, /* a drop window since its last record */
	UNK_HIDDEN, /* a switch the kernel hid from abicap */
	UNK_ORDER, /* a record of it arrived out of time order */
};

/* What a task measured, made with its first measured interval. */
struct task_res {
	struct lat rq; /* run-queue latency: after a wakeup or a preemption */
	struct lat wake; /* those after a wakeup only (perf sched's "sch delay") */
	uint64_t off_by_state[10]; /* index: 0 R, 1 S, 2 D, 3 T, 4 t, 5 X, 6 Z, 7 P, 8 I, 9 R+ */
};

struct task {
	int32_t pid, tgid;
	uint64_t start_ns; /* first seen: its sched_wakeup_new or first record */
	char comm[ABICAP_COMM_LEN];
	/* current state */
	uint8_t phase; /* enum phase */
	uint8_t why; /* enum unknown_why, when PH_UNKNOWN */
	uint8_t followed; /* enum followed, as of its last switch record */
	bool rq_wakeup; /* PH_RQ: woken (else preempted / still runnable) */
	bool rq_ok; /* the wait began on a followed task */
	bool off_known; /* off_ts is its switch-out */
	bool off_ok; /* that switch-out passed the filter */
	bool gap; /* since its last switch-out, part of its life was not seen */
	bool run_ok; /* PH_RUN: its switch-in passed the filter */
	int32_t cpu; /* PH_RUN: where */
	uint32_t out_state; /* prev_state when switched out (tracefs encoding) */
	uint64_t since; /* the phase began */
	uint64_t span_ts; /* its current span began (a rename splits one) */
	uint64_t off_ts; /* switched out at */
	uint64_t last_ts; /* its last record */
	uint32_t wait_chain; /* PH_RQ after a wakeup: 1 + its chain, 0 none */
	uint64_t rq_ts; /* PH_RQ: the wait began */
	/*
	 * PH_RUN with from_waking: a sched_waking of it while it ran (0:
	 * none), and its waker (1 + index in tasks): if it then switches out
	 * asleep, that waking raced the switch-out and woke it
	 * (docs/analysis.md, "--from-waking")
	 */
	uint64_t raced_ts;
	uint32_t raced_waker;
	/* results */
	uint64_t off_total;
	uint64_t voluntary, involuntary;
	uint64_t runtime; /* on a CPU: the sum of its RUNNING spans */
	/*
	 * switch-outs of it the kernel hid (its next record found it elsewhere,
	 * or the CPU idle): runtime is then a lower bound; unknown_ns: its
	 * time in state not known after them (it ran some of it)
	 */
	uint32_t hidden;
	uint64_t unknown_ns;
	uint64_t cgroup; /* the last cgroup v2 id seen for it, 0: unknown */
	struct task_res *res; /* NULL: nothing measured (task_res()) */
};

struct cpu_stat {
	uint64_t acct_ts; /* its time is booked up to here */
	bool idle; /* the idle task runs */
	bool known; /* the task on it is known (a switch seen, nothing lost since) */
	int32_t cur_pid; /* the task last switched in (0: idle) */
	uint32_t cur_task; /* 1 + its index in tasks, 0: idle or none */
	uint64_t busy, idle_time;
	uint64_t lost_time; /* spans a drop window: neither busy nor idle known */
	/* before its first switch, or a gap the kernel hid (a switch out of
	 * a task not switched in): not known */
	uint64_t unknown_time;
	uint64_t hidden_gaps; /* such gaps */
	uint64_t state_enter_ts;
	uint64_t idle_exit_ts; /* the last cpu_idle exit */
	int32_t state; /* current idle state, -1 none */
	int32_t span_state; /* the idle state entered in this idle span, -1 none */
	uint64_t residency[MAX_IDLE_STATES];
	uint32_t freq_khz; /* current, 0 unknown */
	uint64_t freq_since;
	/* frequency residency: every distinct frequency seen, in first-seen order */
	uint32_t *freqs;
	uint64_t *freq_time;
	int nfreqs;
	size_t freqs_cap, freq_time_cap;
	struct hashtab freq_index; /* kHz -> position in freqs */
};

struct chain {
	int32_t waker, wakee;
	uint32_t waker_task, wakee_task; /* 1 + index in tasks */
	char waker_comm[ABICAP_COMM_LEN], wakee_comm[ABICAP_COMM_LEN];
	uint64_t count; /* wakeups */
	uint64_t measured, total_lat, max_lat; /* the waits that followed */
};

struct analysis {
	struct task *tasks;
	size_t ntasks, cap;
	struct hashtab index; /* pid -> position in tasks of its latest task */
	struct cpu_stat *cpus;
	int ncpus;
	struct chain *chains;
	size_t nchains, chains_cap;
	struct hashtab chain_index; /* waker_task << 32 | wakee_task -> position */
	struct lat rq; /* all run-queue latency samples */
	uint64_t rq_log2us[40]; /* and exactly, by log2 of microseconds */
	uint64_t first_ts, last_ts, records;
	uint64_t bad_cpu; /* records naming a CPU past ncpus: left out */
	/*
	 * Records earlier than one already fed (out of time order): left
	 * out, the tasks and CPU they name unknown until seen again. An
	 * interval is never taken across them, so none is negative.
	 */
	uint64_t order_errors;
	/* intervals found ending before they start: left out (0 by design) */
	uint64_t negative;
	uint64_t pid_reuses; /* a pid seen again after its task exited */
	/*
	 * A wait after a wakeup starts when the task is queued (sched_wakeup,
	 * as runqlat counts it), or with from_waking (report --from-waking)
	 * when it is chosen to be woken (sched_waking, as perf sched counts
	 * it). sched_wakeup_new starts one either way.
	 */
	bool from_waking;
	int32_t filter_tgid; /* 0: none */
	char filter_comm[ABICAP_COMM_LEN]; /* "": none */
	/*
	 * Switch records say which side passed the capture's task filter
	 * (record version 3, ABICAP_SWITCH_*_OK); false: both sides did.
	 */
	bool switch_flags;
	/*
	 * The capture saw some tasks only: a switch out of a task not switched
	 * in there is the filter's doing, not a switch the kernel hid
	 */
	bool task_filtered;
	/* the recording abicap's process (its tasks are in the capture), 0 unknown */
	int32_t recorder_tgid;
	/* sorted by time, not overlapping (analysis_set_drops) */
	struct drop_window *drops; /* merged, any CPU: what tasks may lack */
	size_t ndrops;
	/* as given, by start: a CPU's own records lack only its windows */
	struct drop_window *cpu_drops;
	size_t ncpu_drops;
	uint64_t cpu_drop_longest;
	/*
	 * waits and off-CPU intervals not measured because part of them was
	 * not seen (a drop window, a hidden switch, a record out of order):
	 * a lower bound (docs/analysis.md)
	 */
	uint64_t waits_dropped, off_dropped;
	bool oom; /* a sample or table could not grow: figures incomplete */
	uint64_t win_since, win_until; /* analysis_set_window */
	struct analysis_observer obs;
};

void analysis_init(struct analysis *a, int ncpus);
/*
 * The windows in which the capture lost events, before any record: waits
 * and off-CPU intervals that overlap one are left out and counted. 0 or
 * -ENOMEM.
 */
int analysis_set_drops(struct analysis *a, const struct drop_window *d,
		       size_t n);
void analysis_add(struct analysis *a, const union abicap_rec *r);
/*
 * Close open intervals at the last timestamp. Per CPU, busy + idle + lost +
 * unknown is then the span (analysis_span).
 */
void analysis_finish(struct analysis *a);
void analysis_free(struct analysis *a);
/* The capture's span inside the window: [*from, *to]; its length. */
uint64_t analysis_span(const struct analysis *a, uint64_t *from, uint64_t *to);
/* Whether the figures are whole: no order error, nothing out of memory. */
bool analysis_trustworthy(const struct analysis *a);
/* Whether t passes report's own filters (--pid, --comm). */
bool analysis_wanted(const struct analysis *a, const struct task *t);
/* A task's name for a table: its comm, "(unknown)" if none was seen. */
const char *task_comm(const struct task *t);

/*
 * The latest task with this pid, NULL if never seen (before tasks are
 * re-sorted).
 */
const struct task *analysis_find(const struct analysis *a, int32_t pid);
/* What t measured (all zero if nothing). */
const struct task_res *task_res(const struct task *t);
/* Add v to l: false if no memory (then counted, not in a bin). */
bool lat_add(struct lat *l, uint64_t v);
/* Add every sample of from to to. 0, or -ENOMEM. */
int lat_merge(struct lat *to, const struct lat *from);
void lat_free(struct lat *l);

/*
 * The p-th percentile (0..100, to 0.1), nearest rank: the smallest
 * sample with at least ceil(p/100 * n) samples at or below it, read as
 * its bucket's middle value and kept inside [min, max]. 0 if no sample.
 */
uint64_t lat_percentile(const struct lat *l, double p);
/* tracefs prev_state -> off_by_state index */
int state_index(uint32_t prev_state);
extern const char *const state_names[10];

#endif
