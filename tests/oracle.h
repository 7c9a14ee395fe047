/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The differential oracle: the kernel's own tracefs records the same window
 * as abicap, in a private instance with trace_clock=mono; the two are
 * matched event by event, per CPU, in time order. Plain C (no Criterion):
 * linked into build/test_kernel and the static build/vmcheck.
 */
#ifndef ABICAP_TEST_ORACLE_H
#define ABICAP_TEST_ORACLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event/record.h"

/*
 * Timestamp bound for a match, ns. tracefs prints microseconds (truncated)
 * and its clock read (ring_buffer reserve) and the program's
 * bpf_ktime_get_ns() are both ktime_get_mono_fast_ns() in two probes of the
 * same tracepoint call: the gap is the other probe's run time. Measured
 * here (see README "Correctness oracle"); the bound leaves room for an
 * interrupt between the two probes on a loaded machine. A pair further
 * apart still matches when abicap's timestamp lies between the oracle's
 * events before and after it on that CPU (orc_match; docs/testing.md): a
 * busy host can hold the CPU longer between the two probes.
 */
#define ORC_TS_TOL_NS 1000000ULL
/* The bound orc_match uses: ORC_TS_TOL_NS unless set (TCG guests: larger). */
extern uint64_t orc_tol_ns;

/* One event as tracefs printed it; type is an enum abicap_event. */
struct orc_ev {
	uint64_t ts; /* ns, from the printed seconds.microseconds */
	uint64_t ref_ts; /* abicap's ts of the matched record, else ts */
	int type;
	int cpu;
	int cur_pid; /* the task current when the event fired (header) */
	bool in_irq; /* fired in (soft)irq or NMI context: current is no waker */
	char ctx; /* tracefs's context mark: '.' task, 's' softirq, 'h' hardirq... */
	char cur_comm[16]; /* the current task's comm (header), tracefs only */
	/*
	 * wakeups: the waker, -1 if none (in interrupt context). sched_wakeup
	 * may fire on the target CPU: its waker is that of the task's last
	 * sched_waking, as abicap reports it.
	 */
	int waker;
	/* sched_switch */
	char prev_comm[16], next_comm[16];
	int prev_pid, prev_prio, next_pid, next_prio;
	char prev_state[16];
	/* wakeups */
	char comm[16];
	int pid, prio, target_cpu;
	/* power */
	uint32_t state, cpu_id;
	char *line; /* the raw line */
	bool matched;
	bool optional; /* in a blind spot (orc_match): need not match */
};

/* hidden tasks kept by orc_match (the rest counted in hidden_events) */
#define ORC_MAX_HIDDEN 64

struct orc_trace {
	struct orc_ev *v;
	size_t n, cap;
	uint64_t lost; /* overrun + dropped events + [LOST] lines, all CPUs */
	uint64_t unparsed; /* lines of the known events that did not parse */
	/*
	 * The oracle cannot see wakeups of this task (perf's own: perf drops
	 * events raised while it writes an event): abicap's are not required
	 * to match. 0: none.
	 */
	int blind_pid;
	/*
	 * The events abicap was asked for (a mask of 1 << type, from the
	 * capture's header; 0: all): the oracle's events of the others are
	 * not required of it (record's default leaves sched_waking's records
	 * out; its wakeups' wakers are still compared with tracefs's).
	 */
	unsigned int events;
	/*
	 * perf's lines carry no context flags: whether a sched_waking ran in
	 * an interrupt is unknown, and abicap's -2 wakers are not compared
	 */
	bool no_context;
};

struct orc_session;

/*
 * mkdir instances/<name> under the tracefs mount (mounted if it is not),
 * trace_clock=mono, buffer_size_kb per CPU, the six events on, tracing_on.
 * NULL with err.
 */
struct orc_session *orc_start(const char *name, unsigned buffer_kb,
			      char *err, size_t errlen);
/*
 * The same with only the events of mask (1 << ABICAP_EV_*) on, and only
 * on CPU cpu (tracing_cpumask) unless it is -1: on a loaded machine the
 * others' events overran 16 MiB a CPU in 3 s.
 */
struct orc_session *orc_start_events(const char *name, unsigned buffer_kb,
				     unsigned int mask, int cpu, char *err,
				     size_t errlen);
/*
 * tracing_on=0, read the instance's `trace` into t (in time order), add
 * its per-CPU losses, remove the instance. 0, or -1 with err (the instance
 * is removed either way).
 */
int orc_stop(struct orc_session *s, struct orc_trace *t, char *err,
	     size_t errlen);
/* Remove the instance without reading it (a failed test's cleanup). */
void orc_abort(struct orc_session *s);

/* Parse one line of the `trace` text: 1 an event, 0 not one of ours, -1 bad. */
int orc_parse_line(const char *line, struct orc_ev *e);
/* The same for a line of `perf script -F comm,tid,cpu,time,event,trace --ns`. */
int orc_parse_perf_line(const char *line, struct orc_ev *e);

/*
 * The second oracle: `perf record -k CLOCK_MONOTONIC -a` of the six events
 * into data, read back with perf script (nanosecond timestamps, no
 * interrupt-context flags). orc_perf_start returns once perf records;
 * orc_perf_stop stops it (SIGINT) and reads it into t, its losses in lost.
 */
struct orc_perf;
struct orc_perf *orc_perf_start(const char *data, char *err, size_t errlen);
int orc_perf_stop(struct orc_perf *p, struct orc_trace *t, char *err,
		  size_t errlen);
void orc_trace_free(struct orc_trace *t);

/* prev_state as tracefs prints it (4.14+ encoding, 0x100 "+"). */
void orc_state_str(uint32_t prev_state, char *buf, size_t len);
/* abicap's record as one line of text, for messages. */
void orc_rec_str(const union abicap_rec *r, char *buf, size_t len);

/*
 * abicap's side: every record of a capture file (time order), in *dropped
 * the events it lost: dropped, and those of the program runs the kernel
 * skipped (recursion_misses), and in *events those it was asked for (a
 * mask, from the header). 0 or -1, err.
 */
int orc_load_capture(const char *path, union abicap_rec **recs, size_t *n,
		     uint64_t *dropped, unsigned int *events, char *err,
		     size_t errlen);

/*
 * A task set for filtered captures: an oracle event must be in abicap's
 * capture when it involves one of these tids (prev, next, wakee, or with
 * wakers the waker: the task current at a wakeup).
 */
struct orc_filter {
	const int *tids;
	size_t ntids;
	bool wakers; /* a wakeup by one of them counts (-p, --tid) */
	const char *comm; /* --comm: prev, next or wakee of this name, as named then */
	/* optional: tids[i] counts only in [from[i], until[i]] (a pid reused later) */
	const uint64_t *from, *until;
};

#define ORC_DIFFS 4

struct orc_match {
	uint64_t matched[ABICAP_EV_COUNT];
	uint64_t oracle_only, abicap_only; /* inside the window */
	uint64_t max_skew_ns; /* largest |abicap ts - tracefs ts| matched */
	int64_t min_delta_ns, max_delta_ns; /* abicap ts - tracefs ts */
	uint64_t over_10us; /* matches more than 10 us apart */
	/* the first ORC_DIFFS differing pairs, as text; "" if none */
	char first[4096];
	int ndiffs;
	/* the first difference that is not an oracle event in interrupt context */
	char first_task[1024];
	uint64_t irq_only; /* tracefs-only events fired in interrupt context */
	/*
	 * Tasks the kernel hides from tracing (see orc_match): their events as
	 * current are not required of abicap, and are counted here. Also a
	 * task tracefs never shows current (nor switched out) though it lost
	 * nothing: it ran only where tracefs was blind (a hidden task's child
	 * switched in by it), so what abicap records while it is current is
	 * not required either.
	 */
	int hidden[ORC_MAX_HIDDEN];
	int nhidden;
	uint64_t hidden_events;
	/* switch-outs of an exiting task: tracefs Z, abicap X (reaped between) */
	uint64_t exit_races;
	/*
	 * matched wakeups (and wakings) whose waker both sides saw; those of
	 * them whose waking tasks differ, and those where only one side says
	 * the waking ran in interrupt context; the first of each as text
	 */
	uint64_t wakers_compared, waker_diffs, waker_irq_diffs;
	char first_waker[256], first_irq_waker[256];

};

/*
 * Match per CPU, in time order, one to one, over [t0, t1] (ns, monotonic).
 * Unfiltered (f NULL): every event of either side must have its match.
 * Filtered: every abicap record must match an oracle event, and every
 * oracle event involving f's tids must be in abicap's capture. Events
 * within ORC_TS_TOL_NS of the window's edges may go unmatched. Matched
 * oracle events get ref_ts = abicap's timestamp. Returns the mismatches.
 */
/*
 * Hidden tasks: a kernel may keep some tasks out of tracing (this
 * machine's, a Firecracker guest, does so for its agent, pid 1's threads):
 * tracefs then shows them switched in but never out, and BPF programs do
 * not run at all while they are current, even in interrupt context
 * (bpftrace sees none of those events either). A task the trace shows
 * switched in twice or more and never out cannot have run that way; its
 * events as current are left out of what abicap must have, and counted.
 */
uint64_t orc_match(struct orc_trace *t, const union abicap_rec *recs,
		   size_t nrecs, uint64_t t0, uint64_t t1,
		   const struct orc_filter *f, struct orc_match *m);

/*
 * Reference run-queue latency of one task from the oracle's events alone
 * (timestamps: ref_ts): a wait starts at a wakeup (sched_waking if
 * from_waking, else sched_wakeup; sched_wakeup_new always) of a task not on
 * a CPU, the latest wins, or at a switch-out in R/R+; a switch-out in any
 * other state ends it without a sample; the switch-in ends it.
 * With from_waking, a sched_waking while the task is on a CPU, followed by
 * its switch-out asleep (the waking raced it), starts the wait it then has.
 * matched_only: over the events abicap captured too (a filtered capture).
 * Percentiles: nearest rank on the sorted samples, the ceil(p/100 * n)-th
 * (docs/analysis.md); report's are within 1/256 of them.
 */
struct orc_rq {
	uint64_t count, total, p50, p99, max;
};
void orc_rq_ref(const struct orc_trace *t, int tid, bool from_waking,
		bool matched_only, struct orc_rq *out);
/* The same without the waits that overlap [ex0, ex1] (the task was frozen). */
void orc_rq_ref_excl(const struct orc_trace *t, int tid, bool from_waking,
		     bool matched_only, uint64_t ex0, uint64_t ex1,
		     struct orc_rq *out);
/*
 * The same without the waits [s, e] that overlap one of n windows
 * (start, end] (s <= end and e > start: a capture's drop windows).
 */
void orc_rq_ref_windows(const struct orc_trace *t, int tid, bool from_waking,
			bool matched_only, const uint64_t (*win)[2], size_t n,
			struct orc_rq *out);

#endif
