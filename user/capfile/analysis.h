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
#include "event/record.h"

#define MAX_IDLE_STATES 16

struct lat {
	uint64_t *v; /* ns */
	size_t n, cap;
	uint64_t total, max;
	uint64_t lost; /* samples in total but not in v: no memory */
	bool sorted; /* v is in order (lat_percentile sorts it once) */
};

/* Whether a task passed the capture's task filter, by its switch records. */
enum followed { FOLLOW_UNKNOWN = 0, FOLLOW_YES, FOLLOW_NO };

struct task {
	int32_t pid, tgid;
	char comm[ABICAP_COMM_LEN];
	/* current state */
	bool on_cpu; /* its last switch record switched it in */
	uint8_t followed; /* enum followed, as of its last switch record */
	uint64_t runnable_ts; /* woken or preempted, waiting to run (0: no) */
	bool runnable_by_wakeup; /* (not preempted / still runnable) */
	bool runnable_ok; /* the wait began on a followed task */
	uint64_t out_ts; /* switched out at (0: running or unknown) */
	bool out_ok; /* that switch-out passed the filter */
	uint32_t out_state; /* prev_state when switched out (tracefs encoding) */
	/* results */
	struct lat rq; /* run-queue latency samples: after a wakeup or a preemption */
	struct lat wake; /* those after a wakeup only (perf sched's "sch delay") */
	uint64_t off_total;
	uint64_t off_by_state[10]; /* index: 0 R, 1 S, 2 D, 3 T, 4 t, 5 X, 6 Z, 7 P, 8 I, 9 R+ */
	uint64_t voluntary, involuntary;
	int32_t last_waker_pid;
	char last_waker_comm[ABICAP_COMM_LEN];
	uint64_t cgroup; /* the last cgroup v2 id seen for it, 0: unknown */
};

struct cpu_stat {
	uint64_t last_switch_ts;
	bool idle; /* the idle task runs */
	bool known;
	uint64_t busy, idle_time;
	uint64_t lost_time; /* spans a drop window: neither busy nor idle known */
	uint64_t state_enter_ts;
	int32_t state; /* current idle state, -1 none */
	uint64_t residency[MAX_IDLE_STATES];
	uint32_t freq_khz; /* current, 0 unknown */
	uint64_t freq_since;
	/* frequency residency: every distinct frequency seen */
	uint32_t *freqs;
	uint64_t *freq_time;
	int nfreqs, freqs_cap;
};

struct chain {
	int32_t waker, wakee;
	char waker_comm[ABICAP_COMM_LEN], wakee_comm[ABICAP_COMM_LEN];
	uint64_t count; /* wakeups */
	uint64_t measured, total_lat, max_lat; /* the waits that followed */
};

/* Events were lost in (start_ns, end_ns]: count of them (capfile.h). */
struct drop_window {
	uint64_t start_ns, end_ns, count;
};

struct analysis {
	struct task *tasks;
	size_t ntasks, cap;
	uint32_t *index; /* open addressing on pid: 1 + position in tasks, 0 free */
	size_t index_size; /* a power of two, at least twice ntasks */
	struct cpu_stat *cpus;
	int ncpus;
	struct chain *chains;
	size_t nchains, chains_cap;
	uint32_t *chain_index; /* open addressing on (waker, wakee): 1 + position */
	size_t chain_index_size;
	struct lat rq; /* all run-queue latency samples */
	uint64_t first_ts, last_ts, records;
	uint64_t bad_cpu; /* records naming a CPU past ncpus: left out */
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
	/* sorted by time, not overlapping (analysis_set_drops) */
	struct drop_window *drops;
	size_t ndrops;
	/* intervals whose both ends were seen but that span a drop window */
	uint64_t waits_dropped, off_dropped;
	bool oom; /* a sample or table could not grow: figures incomplete */
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
/* Close open intervals at the last timestamp. */
void analysis_finish(struct analysis *a);
void analysis_free(struct analysis *a);

/* The task with this pid, NULL if never seen (before tasks are re-sorted). */
const struct task *analysis_find(const struct analysis *a, int32_t pid);
/* Append every sample of from to to. 0, or -ENOMEM. */
int lat_merge(struct lat *to, const struct lat *from);
void lat_free(struct lat *l);

/* Sort the samples, then the p-th percentile (0..100). */
uint64_t lat_percentile(struct lat *l, double p);
/* tracefs prev_state -> off_by_state index */
int state_index(uint32_t prev_state);
extern const char *const state_names[10];

#endif
