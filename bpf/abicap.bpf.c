// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap's kernel side: sched_switch, sched_wakeup, sched_wakeup_new,
 * sched_waking, cpu_idle and cpu_frequency, each as a tp_btf program (typed
 * arguments, plain loads) and a raw_tp fallback (CO-RE probe reads). Every
 * program is off by default (SEC("?...")): the loader turns on the variant
 * it chose for each event from the contract. Records (bpf/abicap.h) go to
 * the ring buffer of the CPU the program runs on (events_cpu), to one ring
 * buffer shared by all CPUs (events), or, where the contract says the ring
 * buffer's lock could sleep (PREEMPT_RT before raw_spinlock_t), to per-CPU
 * perf buffers (each
 * record built on the program's stack: a program nested on the same CPU, or
 * preempting it on PREEMPT_RT, has its own). Every event that passes the
 * filters is counted as seen, and as dropped when the buffer is full. In
 * aggregation mode (abicap serve) the same programs keep per-cgroup
 * statistics in maps instead; an event whose update finds a map full is
 * counted as dropped, once, and the failure by its reason (enum abicap_aux).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "abicap.h"
#include "core_fixes.bpf.h"
#include "cgroup.bpf.h"
#include "task_read.bpf.h"
#include "task_state.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* Set by the loader before load. */
const volatile __u32 events_mask = (1u << ABICAP_EV_COUNT) - 1;
const volatile bool filter_pids = false;
const volatile bool filter_tids = false;
const volatile bool filter_comm = false;
const volatile bool filter_cpus = false;
/*
 * Wake the consumer once every wakeup_mask + 1 records of an event on a CPU
 * (a power of two, chosen by the loader so all of them together fill an
 * eighth of the ring at most); it also drains on a timer.
 */
const volatile __u64 wakeup_mask = 1023;
/* the perf buffer transport instead of the ring buffer */
const volatile bool use_perfbuf = false;
/* one ring buffer per CPU (events_cpu) instead of the shared one (events) */
const volatile bool use_percpu_rb = false;
/* add the children of filtered processes to the pid filter (record -- CMD) */
const volatile bool follow_forks = false;
/* --cgroup: tasks in this cgroup v2 subtree (id at depth level) only */
const volatile bool filter_cgroup = false;
const volatile __u64 cgroup_filter_id = 0;
const volatile __s32 cgroup_filter_level = 0;
/* send records (trace, record); aggregate into maps (serve) */
const volatile bool stream = true;
const volatile bool aggregate = false;
/*
 * Aggregation from the kernel's own accounting (the *_ts sched_switch
 * programs, where the loader found it kept: see agg_switch_kernel): the
 * run queue's clocks and each task's sched_info, no sched_wakeup program.
 */
const volatile bool agg_kernel = false;
/* CLOCK_MONOTONIC before the programs attached (serve: set by the loader) */
const volatile __u64 agg_since_ns = 0;
/*
 * The arrays last: the flags above, which every program reads (the
 * verifier knows their values, but keeps the loads), share a cache line
 * or two instead of lying on both sides of 1 KiB.
 */
const volatile char comm_filter[ABICAP_COMM_LEN] = {};
const volatile __u8 cpu_allowed[ABICAP_MAX_CPUS] = {};

/*
 * Records lost (any transport) on each CPU, for user space to read through
 * the skeleton's mmap'd .bss after each drain: when the sum grew, it knows
 * a window in which records are missing. One cache line per CPU, written
 * only by that CPU: no atomic and no shared line on the drop path.
 */
struct abicap_drop_line dropped_cpu[ABICAP_MAX_CPUS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 16 << 20); /* resized by the loader */
} events SEC(".maps");

/*
 * One ring buffer per possible CPU, indexed by CPU: the loader creates
 * them, each its share of the budget, and sizes the array. A program
 * reserves in its own CPU's ring, taking no lock another CPU takes.
 */
struct ringbuf_cpu {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* the template; each ring has its size */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1); /* resized by the loader: possible CPUs */
	__type(key, __u32);
	__array(values, struct ringbuf_cpu);
} events_cpu SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERF_EVENT_ARRAY);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} events_pb SEC(".maps");


struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ABICAP_EV_COUNT);
	__type(key, __u32);
	__type(value, struct abicap_counter);
} counters SEC(".maps");

/*
 * tgids given with -p (value 0: that pid, whoever it is), and the processes
 * a followed command forks (value: the process's start_time, so that a
 * stranger reusing the pid does not match). Removed when the process is
 * freed (sched_process_free of its leader).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ABICAP_PID_FILTER_MAX);
	__type(key, __s32);
	__type(value, __u64);
} pid_filter SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ABICAP_AUX_COUNT);
	__type(key, __u32);
	__type(value, __u64);
} aux_counters SEC(".maps");

/* tids given with --tid */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, ABICAP_MAX_PIDS);
	__type(key, __s32);
	__type(value, __u8);
} tid_filter SEC(".maps");

/* Aggregation mode; the loader shrinks these maps to 1 entry otherwise. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, ABICAP_MAX_CGROUPS_DEFAULT); /* --max-cgroups */
	__type(key, __u64);
	__type(value, struct abicap_cg_stats);
} cg_stats SEC(".maps");

/*
 * Slots: where a cgroup's statistics go once serve gave it one, found
 * without a hash lookup (about 50 ns a switch less here). Slot
 * id & (cg_slots_n - 1) is the cgroup's if cg_owner there holds its id;
 * only user space writes cg_owner (user/live/cgslots.c): it gives a free
 * slot to each id in cg_stats, and takes it back, zeroed, after the id's
 * entry is deleted. The entry in cg_stats stays the cgroup's registration
 * (--max-cgroups) and holds what came before the slot: a cgroup's
 * statistics are its entry's plus its slot's, both only ever growing.
 */
const volatile __u32 cg_slots_n = 0; /* a power of 2; 0: no slots */

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE); /* serve writes it in place */
	__uint(max_entries, ABICAP_CG_SLOTS_MAX);
	__type(key, __u32);
	__type(value, __u64); /* 0 free, ABICAP_CG_SLOT_HELD being zeroed */
} cg_owner SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ABICAP_CG_SLOTS_MAX);
	__type(key, __u32);
	__type(value, struct abicap_cg_stats);
} cg_slots SEC(".maps");

/* a zeroed value to insert into cg_stats (never written) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct abicap_cg_stats);
} cg_zero SEC(".maps");

/* when each runnable task was woken or preempted, by tid */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 65536);
	__type(key, __s32);
	__type(value, __u64);
} queued_at SEC(".maps");

struct cpu_agg {
	__u64 running_since; /* the current task's switch-in */
	__u64 idle_since; /* 0: not idle */
	__u32 idle_state;
	__s32 running_pid; /* the task switched in then (next_pid) */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct cpu_agg);
} cpu_agg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ABICAP_IDLE_STATES);
	__type(key, __u32);
	__type(value, struct abicap_idle_stat);
} idle_stats SEC(".maps");

/* the last cpu_frequency of each CPU, kHz */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ABICAP_MAX_CPUS);
	__type(key, __u32);
	__type(value, __u32);
} cpu_freq SEC(".maps");

struct waker {
	__s32 pid; /* ABICAP_PID_INTERRUPT: sched_waking ran in an interrupt */
	__s32 tgid;
	__u8 on; /* the waker passed -p/--tid at sched_waking */
	__u8 valid; /* task storage: not yet taken by sched_wakeup */
	__u16 pad;
};

/*
 * sched_wakeup may run on the wakee's CPU from an IPI, where "current" is not
 * the waker; sched_waking always runs in the waker's context. Remember the
 * waker of each wakee there and look it up in sched_wakeup.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __s32);
	__type(value, struct waker);
} wakers SEC(".maps");

/*
 * What wakers and queued_at keep by pid, in each task's own storage
 * instead: half the cost of the LRU hash per sched_waking, no hash update
 * and delete per run-queue wait. tp_btf only (trusted task pointers), and
 * only where the loader finds task storage usable from tracing programs
 * (6.0+); elsewhere the map is not created and the *_ts programs are not
 * loaded.
 */
struct task_note {
	struct waker w; /* sched_waking for sched_wakeup */
	__u64 queued_at; /* aggregation: waiting to run since, 0: not */
	/*
	 * agg_kernel, valid if known: the task's sched_info.run_delay and
	 * pcount as of its last switch-in (the waits it had completed then,
	 * and how many), and its se.sum_exec_runtime as of its last switch
	 * (the run time counted)
	 */
	__u64 delay_at_arrival;
	__u64 pcount_at_arrival;
	__u64 exec_counted;
	__u32 known;
	__u32 pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct task_note);
} task_notes SEC(".maps");

static __always_inline bool event_on(enum abicap_event ev)
{
	return events_mask & (1u << ev);
}

static __always_inline bool cpu_on(__u32 cpu)
{
	if (!filter_cpus)
		return true;
	if (cpu >= ABICAP_MAX_CPUS)
		return false;
	return cpu_allowed[cpu];
}

static __always_inline void count_aux_n(enum abicap_aux i, __u64 n)
{
	__u32 key = i;
	__u64 *v = bpf_map_lookup_elem(&aux_counters, &key);

	if (v)
		*v += n;
}

static __always_inline void count_aux(enum abicap_aux i)
{
	count_aux_n(i, 1);
}

/* When the process of t started: its thread group leader's start_time. */
static __always_inline __u64 process_start(struct task_struct *t,
					   const bool direct)
{
	if (direct)
		return t->group_leader->start_time;
	return BPF_CORE_READ(t, group_leader, start_time);
}

/* The process of t (tgid) is followed: its pid, and for a child its start. */
static __always_inline bool pid_on(struct task_struct *t, __s32 tgid,
				   const bool direct)
{
	__u64 *v = bpf_map_lookup_elem(&pid_filter, &tgid);

	if (!v)
		return false;
	return !*v || *v == process_start(t, direct);
}

/* Any task filter (-p, --tid, --comm, --cgroup) is set. */
#define TASK_FILTERS (filter_pids || filter_tids || filter_comm || filter_cgroup)

/* Task t (pid/tgid) passes -p and --tid. */
static __always_inline bool ids_on(struct task_struct *t, __s32 pid,
				   __s32 tgid, const bool direct)
{
	if (filter_pids && !pid_on(t, tgid, direct))
		return false;
	if (filter_tids && !bpf_map_lookup_elem(&tid_filter, &pid))
		return false;
	return true;
}

/* The task passes every task filter (--comm compares its 16-byte name). */
static __always_inline bool task_on(struct task_struct *t, __s32 pid,
				    __s32 tgid, const bool direct)
{
	char comm[ABICAP_COMM_LEN] __attribute__((aligned(8)));

	if (!ids_on(t, pid, tgid, direct))
		return false;
	if (filter_cgroup &&
	    !task_in_cgroup(t, cgroup_filter_id, cgroup_filter_level))
		return false;
	if (!filter_comm)
		return true;
	task_comm(comm, t, direct);
	for (int i = 0; i < ABICAP_COMM_LEN; i++) {
		if (comm[i] != comm_filter[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* Count an event that passed the filters; its counter (NULL: none). */
static __always_inline struct abicap_counter *count_seen(enum abicap_event ev)
{
	__u32 key = ev;
	struct abicap_counter *c = bpf_map_lookup_elem(&counters, &key);

	if (c)
		c->seen++;
	return c;
}

/*
 * The event (counter c) is lost: counted as dropped once, however many of
 * its updates failed (lost: whether it already was).
 */
static __always_inline void lose(struct abicap_counter *c, bool *lost)
{
	if (!*lost && c)
		c->dropped++;
	*lost = true;
}

/* A record lost by the transport: counted for user space's drain, per CPU. */
static __always_inline void lose_record(struct abicap_counter *c, bool *lost,
					__u32 cpu)
{
	lose(c, lost);
	if (cpu < ABICAP_MAX_CPUS)
		dropped_cpu[cpu].n++;
}

#include "transport.bpf.h"

/* The statistics of cgroup cg, created on first use; NULL if the map is full. */
static __always_inline struct abicap_cg_stats *
cg_stats_of(__u64 cg, struct abicap_counter *cnt, bool *lost)
{
	struct abicap_cg_stats *st;
	__u32 zero = 0, slot = (__u32)cg & (cg_slots_n - 1);
	__u64 *owner;
	void *z;

	if (cg_slots_n) {
		owner = bpf_map_lookup_elem(&cg_owner, &slot);
		if (owner && *owner == cg) {
			st = bpf_map_lookup_elem(&cg_slots, &slot);
			if (st)
				return st;
		}
	}
	st = bpf_map_lookup_elem(&cg_stats, &cg);
	if (st)
		return st;
	z = bpf_map_lookup_elem(&cg_zero, &zero);
	if (z && !bpf_map_update_elem(&cg_stats, &cg, z, BPF_NOEXIST))
		count_aux(ABICAP_AUX_CG_CREATED);
	st = bpf_map_lookup_elem(&cg_stats, &cg);
	if (!st) {
		count_aux(ABICAP_AUX_CG_MAP_FULL);
		lose(cnt, lost);
	}
	return st;
}

/* The histogram bucket of a run-queue latency (ABICAP_LAT_BUCKETS: +Inf). */
static __always_inline __u32 lat_bucket(__u64 ns)
{
	__u32 i;

#pragma unroll
	for (i = 0; i < ABICAP_LAT_BUCKETS; i++)
		if (ns <= (ABICAP_LAT_BUCKET0_NS << i))
			break;
	return i;
}

/* A task starts waiting for a CPU (woken, or preempted while runnable). */
static __always_inline void agg_queue(struct task_struct *t, __s32 pid,
				      __u64 ts, struct abicap_counter *cnt,
				      bool *lost, const bool tstore)
{
	struct task_note *n;

	if (tstore) {
		n = bpf_task_storage_get(&task_notes, t, 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (n) {
			n->queued_at = ts;
			return;
		}
	} else if (!bpf_map_update_elem(&queued_at, &pid, &ts, BPF_ANY)) {
		return;
	}
	count_aux(ABICAP_AUX_QUEUE_LOST);
	lose(cnt, lost);
}

/* When next started waiting (and it no longer is), 0 if unknown. */
static __always_inline __u64 agg_dequeue(struct task_struct *t, __s32 pid,
					 const bool tstore)
{
	struct task_note *n;
	__u64 since, *q;

	if (tstore) {
		n = bpf_task_storage_get(&task_notes, t, 0, 0);
		if (!n)
			return 0;
		since = n->queued_at;
		n->queued_at = 0;
		return since;
	}
	q = bpf_map_lookup_elem(&queued_at, &pid);
	if (!q)
		return 0;
	since = *q;
	bpf_map_delete_elem(&queued_at, &pid);
	return since;
}

/*
 * sched_switch in aggregation mode: prev's on-CPU time and switch kind,
 * prev queued again if still runnable, next's wait in the run queue. The
 * idle task (pid 0) is not a cgroup's work: idle time is in idle_stats.
 */
static __always_inline void agg_switch(__u64 ts, struct task_struct *prev,
				       __s32 prev_pid, __u64 prev_cg,
				       bool prev_ok, __u32 state,
				       struct task_struct *next, __s32 next_pid,
				       __u64 next_cg, bool next_ok,
				       struct abicap_counter *cnt, bool *lost,
				       const bool tstore)
{
	__u32 zero = 0;
	struct cpu_agg *ca = bpf_map_lookup_elem(&cpu_agg, &zero);
	struct abicap_cg_stats *st = NULL;
	__u64 since = 0;
	bool unseen = false;

	if (ca) {
		since = ca->running_since;
		/*
		 * prev is not the task the last switch seen here put on this
		 * CPU: a switch between ran without this program (a task the
		 * kernel hides from tracing was current, or a run was missed).
		 * prev ran for some part of the time since, not known which.
		 */
		unseen = since && ca->running_pid != prev_pid;
		ca->running_since = ts;
		ca->running_pid = next_pid;
	}
	if (prev_pid && prev_ok) {
		bool runnable = !(state & (ABICAP_STATE_PREEMPTED - 1));

		st = cg_stats_of(prev_cg, cnt, lost);
		if (st && unseen)
			st->oncpu_unseen++;
		else if (st && since && ts > since)
			st->oncpu_ns += ts - since;
		if (st) {
			if (runnable)
				st->switches_involuntary++;
			else
				st->switches_voluntary++;
		}
		if (runnable)
			agg_queue(prev, prev_pid, ts, cnt, lost, tstore);
	}
	if (!next_pid || !next_ok)
		return;
	since = agg_dequeue(next, next_pid, tstore);
	if (!since || ts < since)
		return;
	/* most switches stay in one cgroup: one lookup then */
	if (!st || next_cg != prev_cg)
		st = cg_stats_of(next_cg, cnt, lost);
	if (!st)
		return;
	st->rq_count++;
	st->rq_sum_ns += ts - since;
	zero = lat_bucket(ts - since);
	if (zero < ABICAP_LAT_BUCKETS)
		st->rq_bucket[zero]++;
}

/*
 * sched_switch in aggregation mode from the kernel's own accounting (tp_btf
 * with task storage; the loader turns it on where every item below holds):
 *
 * - the clock is the run queue's, as the scheduler set it for this switch
 *   (rq->clock, reached as prev->se.cfs_rq->rq); no bpf_ktime_get_ns();
 * - on-CPU time: what the scheduler charged prev since its last switch
 *   counted (se.sum_exec_runtime, brought up to date before this
 *   tracepoint by the dequeue or the put_prev of the pick, less the value
 *   kept in its task storage then): the cgroup's cpu.stat usage is the sum
 *   of the same charges;
 * - run-queue waits: the scheduler keeps them in next->sched_info: the
 *   completed ones summed in run_delay (a wait cut by a migration is added
 *   there at the dequeue) and the current one's start in last_queued (set
 *   at the enqueue: a wakeup, a preemption, a migration), added to run_delay
 *   right after this tracepoint with the same clock. The wait ending now is
 *   run_delay + (rq->clock - last_queued) less the same sum at next's last
 *   switch-in, kept in its task storage: exactly what /proc/TID/schedstat's
 *   run_delay grows by at this switch, however many run queues it spanned.
 *   pcount, the arrivals after a wait, says how many waits that was: more
 *   than one when the kernel switched the task in without this tracepoint
 *   (seen here, rarely, with migrations): one wait is counted, holding
 *   their time, and the others in ABICAP_AUX_WAITS_MERGED.
 *   No sched_wakeup program is needed. A task first seen here that started
 *   after serve attached waited from 0; an older one's first wait is not
 *   known whole and is not counted (it sets the sum).
 */
static __always_inline void agg_switch_kernel(struct task_struct *prev,
					      __s32 prev_pid, __u64 prev_cg,
					      bool prev_ok, __u32 state,
					      struct task_struct *next,
					      __s32 next_pid, __u64 next_cg,
					      bool next_ok,
					      struct abicap_counter *cnt,
					      bool *lost)
{
	struct abicap_cg_stats *st = NULL;
	struct task_note *n;
	__u64 now, delay, queued, wait, arrivals, exec, ran = 0;
	__u32 bucket;
	struct rq *rq;

	/* constants at load: where one is missing the loader never sets agg_kernel */
	if (!bpf_core_field_exists(struct task_struct, se.cfs_rq) ||
	    !bpf_core_field_exists(struct cfs_rq, rq) ||
	    !bpf_core_field_exists(struct rq, clock) ||
	    !bpf_core_field_exists(struct task_struct, se.sum_exec_runtime) ||
	    !bpf_core_field_exists(struct task_struct, sched_info.run_delay) ||
	    !bpf_core_field_exists(struct task_struct, sched_info.pcount) ||
	    !bpf_core_field_exists(struct task_struct, sched_info.last_queued))
		return;
	if (prev_pid) {
		/*
		 * what the scheduler charged prev since last counted; taken
		 * also where a filter leaves prev out (--cgroup), so that a
		 * task coming back is not charged for its time outside
		 */
		n = bpf_task_storage_get(&task_notes, prev, 0, 0);
		if (n && n->known) {
			exec = prev->se.sum_exec_runtime;
			if (exec >= n->exec_counted) {
				ran = exec - n->exec_counted;
			} else {
				/* never seen: counted, not guessed */
				count_aux(ABICAP_AUX_SUMS_BACK);
				lose(cnt, lost);
			}
			n->exec_counted = exec;
			/*
			 * outside the filter: its waits so far are not the
			 * subtree's, even one whose switch-in no sched_switch
			 * showed (a hidden task before it), which the next
			 * switch-in seen, back inside, would count
			 */
			if (!prev_ok) {
				n->delay_at_arrival = prev->sched_info.run_delay;
				n->pcount_at_arrival = prev->sched_info.pcount;
			}
		}
		st = prev_ok ? cg_stats_of(prev_cg, cnt, lost) : NULL;
		if (st) {
			st->oncpu_ns += ran;
			if (!(state & (ABICAP_STATE_PREEMPTED - 1)))
				st->switches_involuntary++;
			else
				st->switches_voluntary++;
		}
	}
	if (!next_pid)
		return;
	rq = prev->se.cfs_rq->rq;
	if (!rq)
		return;
	now = rq->clock;
	delay = next->sched_info.run_delay;
	queued = next->sched_info.last_queued;
	arrivals = next->sched_info.pcount;
	if (queued && now > queued)
		delay += now - queued;
	if (queued)
		arrivals++;
	/* a task a filter leaves out: its sums kept up, if it has storage */
	n = bpf_task_storage_get(&task_notes, next, 0, next_ok ?
				 BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	if (!n) {
		if (next_ok) {
			count_aux(ABICAP_AUX_QUEUE_LOST);
			lose(cnt, lost);
		}
		return;
	}
	if (!n->known) {
		n->known = 1;
		/* older than serve: its first wait is not known whole */
		if (next->start_time < agg_since_ns) {
			n->delay_at_arrival = delay;
			n->pcount_at_arrival = arrivals;
			n->exec_counted = next->se.sum_exec_runtime;
			return;
		}
		/* born after serve attached: every wait and run of its life */
		n->delay_at_arrival = 0;
		n->pcount_at_arrival = 0;
		n->exec_counted = 0;
	}
	if (delay < n->delay_at_arrival || arrivals < n->pcount_at_arrival) {
		/* the kernel's sums went back: never seen; counted, not guessed */
		n->delay_at_arrival = delay;
		n->pcount_at_arrival = arrivals;
		count_aux(ABICAP_AUX_SUMS_BACK);
		lose(cnt, lost);
		return;
	}
	wait = delay - n->delay_at_arrival;
	arrivals -= n->pcount_at_arrival;
	n->delay_at_arrival += wait;
	n->pcount_at_arrival += arrivals;
	/* a switch-in with no enqueue before it: no wait (the kernel's too) */
	if (!arrivals || !next_ok)
		return;
	/* arrivals no sched_switch showed: their waits are in this one */
	if (arrivals > 1)
		count_aux_n(ABICAP_AUX_WAITS_MERGED, arrivals - 1);
	if (!st || next_cg != prev_cg)
		st = cg_stats_of(next_cg, cnt, lost);
	if (!st)
		return;
	st->rq_count++;
	st->rq_sum_ns += wait;
	bucket = lat_bucket(wait);
	if (bucket < ABICAP_LAT_BUCKETS)
		st->rq_bucket[bucket]++;
}

/*
 * The switch's record: every field read here, after the reservation,
 * straight into the record (the floor's way: no field's value held across
 * the helper call, so none spilled to the stack; in raw_tp programs with
 * task filters, pid and tgid are read again); flags: which side passed the
 * task filters; lost: the event was already counted as dropped.
 */
static __always_inline void emit_switch(void *ctx, __u64 ts, __u32 cpu,
					bool preempt, struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state,
					const bool have_prev_state, __u8 flags,
					struct abicap_counter *cnt, bool *lost,
					const bool direct)
{
	struct abicap_switch *e, rec;
	bool slab;

	e = reserve(ABICAP_EV_SCHED_SWITCH, sizeof(*e), cpu, ts, &rec, cnt,
		    lost, &slab);
	if (!e)
		return;
	/*
	 * loads from here on are new to clang: it would otherwise merge them
	 * with the filters' and aggregation's and hoist them above the call
	 */
	barrier_var(prev);
	barrier_var(next);
	task_comm(e->prev_comm, prev, direct);
	task_comm(e->next_comm, next, direct);
	e->prev_pid = TASK_FIELD(direct, prev, pid);
	e->prev_tgid = TASK_FIELD(direct, prev, tgid);
	e->prev_prio = TASK_FIELD(direct, prev, prio);
	e->next_pid = TASK_FIELD(direct, next, pid);
	e->next_tgid = TASK_FIELD(direct, next, tgid);
	e->next_prio = TASK_FIELD(direct, next, prio);
	e->prev_state = abicap_report_state(preempt,
			switch_prev_state(prev, prev_state, have_prev_state,
					  direct),
			TASK_FIELD(direct, prev, exit_state));
	e->preempt = preempt;
	e->flags = flags;
	e->pad[0] = e->pad[1] = 0;
	e->prev_cgroup = task_cgroup_id(prev, direct);
	e->next_cgroup = task_cgroup_id(next, direct);
	submit(ctx, e, sizeof(*e), cnt, lost, slab, cpu);
}

/*
 * Without task filters and aggregation (the loader's flags, constants to
 * the verifier, which drops the code they guard), a switch is: the time,
 * the counter, the record.
 */
static __always_inline int on_switch(void *ctx, bool preempt,
				     struct task_struct *prev,
				     struct task_struct *next,
				     unsigned int prev_state,
				     const bool have_prev_state,
				     const bool direct, const bool tstore)
{
	/* the kernel's accounting: the run queue's clocks, not ours */
	const bool kernel_clock = aggregate && agg_kernel && direct && tstore;
	/* the time first: the event happened at the tracepoint, not after our work */
	__u64 ts = kernel_clock ? 0 : bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id();
	struct abicap_counter *cnt;
	bool prev_ok = true, next_ok = true, lost = false;

	if (!event_on(ABICAP_EV_SCHED_SWITCH) || !cpu_on(cpu))
		return 0;
	if (TASK_FILTERS) {
		/* each side: the record says which passed (report needs both) */
		prev_ok = task_on(prev, TASK_FIELD(direct, prev, pid),
				  TASK_FIELD(direct, prev, tgid), direct);
		next_ok = task_on(next, TASK_FIELD(direct, next, pid),
				  TASK_FIELD(direct, next, tgid), direct);
		if (!prev_ok && !next_ok) {
			/*
			 * the kernel's accounting keeps the sums of tasks it
			 * leaves out up to date (none is counted here)
			 */
			if (kernel_clock)
				agg_switch_kernel(prev,
						  TASK_FIELD(direct, prev, pid),
						  0, false, 0, next,
						  TASK_FIELD(direct, next, pid),
						  0, false, NULL, &lost);
			return 0;
		}
	}
	cnt = count_seen(ABICAP_EV_SCHED_SWITCH);
	if (aggregate) {
		__u64 prev_cg = task_cgroup_id(prev, direct);
		__u32 state;

		prev_state = switch_prev_state(prev, prev_state,
					       have_prev_state, direct);
		state = abicap_report_state(preempt, prev_state,
					    TASK_FIELD(direct, prev, exit_state));
		if (kernel_clock)
			agg_switch_kernel(prev, TASK_FIELD(direct, prev, pid),
					  prev_cg, prev_ok, state, next,
					  TASK_FIELD(direct, next, pid),
					  task_cgroup_id(next, direct), next_ok,
					  cnt, &lost);
		else
			agg_switch(ts, prev, TASK_FIELD(direct, prev, pid),
				   prev_cg, prev_ok, state, next,
				   TASK_FIELD(direct, next, pid),
				   task_cgroup_id(next, direct), next_ok, cnt,
				   &lost, tstore);
	}
	if (!stream)
		return 0;
	emit_switch(ctx, ts, cpu, preempt, prev, next, prev_state,
		    have_prev_state,
		    (prev_ok ? ABICAP_SWITCH_PREV_OK : 0) |
		    (next_ok ? ABICAP_SWITCH_NEXT_OK : 0), cnt, &lost, direct);
	return 0;
}

#include "waker.bpf.h"

static __always_inline int on_wakeup(void *ctx, enum abicap_event ev,
				     struct task_struct *p, const bool direct,
				     const bool tstore, const bool plain)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct abicap_counter *cnt;
	struct abicap_wakeup *e, rec;
	struct waker w = {};
	__s32 pid, tgid;
	bool lost = false, slab;
	__u64 ts;

	if (ev != ABICAP_EV_SCHED_WAKEUP)
		w = current_waker(ev, direct, plain);
	/* wakers for sched_wakeup's records (no records: no wakers) */
	if (stream && ev == ABICAP_EV_SCHED_WAKING && !wakelist_wakers &&
	    event_on(ABICAP_EV_SCHED_WAKEUP))
		note_waker(p, &w, direct, tstore);
	if (!event_on(ev) || !cpu_on(cpu))
		return 0;
	pid = TASK_FIELD(direct, p, pid);
	if (stream && ev == ABICAP_EV_SCHED_WAKEUP)
		w = wakelist_wakers ? wakelist_waker(pid, cpu, direct, plain) :
				      take_waker(p, pid, tstore);
	tgid = TASK_FIELD(direct, p, tgid);
	/* the wakee by every filter; the waker by pid/tid, judged at waking */
	if (TASK_FILTERS && !task_on(p, pid, tgid, direct) &&
	    (aggregate || filter_comm || filter_cgroup || !w.on))
		return 0;
	cnt = count_seen(ev);
	/*
	 * the clock only for what is kept: sched_waking run for its waker
	 * alone reads none (a read is 120-150 ns on kvm-clock, issue 36)
	 */
	ts = bpf_ktime_get_ns();
	/* the wakee starts waiting in the run queue */
	if (aggregate && ev != ABICAP_EV_SCHED_WAKING)
		agg_queue(p, pid, ts, cnt, &lost, tstore);
	if (!stream)
		return 0;
	e = reserve(ev, sizeof(*e), cpu, ts, &rec, cnt, &lost, &slab);
	if (!e)
		return 0;
	task_comm(e->comm, p, direct);
	e->pid = pid;
	e->tgid = tgid;
	e->prio = TASK_FIELD(direct, p, prio);
	e->target_cpu = task_cpu(p, direct);
	e->waker_pid = w.pid;
	e->waker_tgid = w.tgid;
	e->cgroup = task_cgroup_id(p, direct);
	submit(ctx, e, sizeof(*e), cnt, &lost, slab, cpu);
	return 0;
}

/*
 * cpu_idle: residency per idle state; cpu_frequency: the CPU's last value.
 * An idle state or a CPU beyond the maps is not kept: the event is lost,
 * counted by its reason.
 */
static __always_inline void agg_power(enum abicap_event ev, __u64 ts,
				      __u32 state, __u32 cpu_id,
				      struct abicap_counter *cnt, bool *lost)
{
	struct abicap_idle_stat *is;
	struct cpu_agg *ca;
	__u32 zero = 0;

	if (ev == ABICAP_EV_CPU_FREQUENCY) {
		if (bpf_map_update_elem(&cpu_freq, &cpu_id, &state, BPF_ANY)) {
			count_aux(ABICAP_AUX_CPU_ID_BIG);
			lose(cnt, lost);
		}
		return;
	}
	ca = bpf_map_lookup_elem(&cpu_agg, &zero);
	if (!ca)
		return;
	if (state != (__u32)-1) {
		/* an exit after it closes no period */
		ca->idle_since = state < ABICAP_IDLE_STATES ? ts : 0;
		ca->idle_state = state;
		if (state >= ABICAP_IDLE_STATES) {
			count_aux(ABICAP_AUX_IDLE_STATE_BIG);
			lose(cnt, lost);
		}
		return;
	}
	if (!ca->idle_since)
		return;
	zero = ca->idle_state;
	is = bpf_map_lookup_elem(&idle_stats, &zero);
	if (is && ts > ca->idle_since) {
		is->ns += ts - ca->idle_since;
		is->count++;
	}
	ca->idle_since = 0;
}

static __always_inline int on_power(void *ctx, enum abicap_event ev,
				    __u32 state, __u32 cpu_id)
{
	__u64 ts = bpf_ktime_get_ns();
	__u32 cpu = bpf_get_smp_processor_id();
	struct abicap_counter *cnt;
	struct abicap_power *e, rec;
	bool lost = false, slab;

	/*
	 * Power events belong to no task: a task filter leaves them out of
	 * the records, but not out of the CPUs' statistics. -C keeps them by
	 * the CPU they are about: cpufreq emits cpu_frequency for every CPU
	 * of a policy from whichever CPU changed it.
	 */
	if (!event_on(ev) || !cpu_on(cpu_id) || (TASK_FILTERS && !aggregate))
		return 0;
	cnt = count_seen(ev);
	if (aggregate)
		agg_power(ev, ts, state, cpu_id, cnt, &lost);
	if (!stream || TASK_FILTERS)
		return 0;
	e = reserve(ev, sizeof(*e), cpu, ts, &rec, cnt, &lost, &slab);
	if (!e)
		return 0;
	e->state = state;
	e->cpu_id = cpu_id;
	submit(ctx, e, sizeof(*e), cnt, &lost, slab, cpu);
	return 0;
}

/*
 * sched_process_fork: a new process whose parent is followed is followed
 * too (threads share their tgid and need nothing). No record is emitted;
 * a process that cannot be added (the map is full) is counted.
 */
static __always_inline int on_fork(struct task_struct *parent,
				   struct task_struct *child, const bool direct)
{
	__s32 ptgid, ctgid;
	__u64 start;

	if (!follow_forks)
		return 0;
	ptgid = TASK_FIELD(direct, parent, tgid);
	ctgid = TASK_FIELD(direct, child, tgid);
	if (ctgid == ptgid || !pid_on(parent, ptgid, direct))
		return 0;
	/* a new process is its own leader; start_time is set by now */
	start = TASK_FIELD(direct, child, start_time);
	if (bpf_map_update_elem(&pid_filter, &ctgid, &start, BPF_ANY))
		count_aux(ABICAP_AUX_FOLLOW_FAILED);
	else
		count_aux(ABICAP_AUX_FOLLOW_ADDED);
	return 0;
}

/*
 * sched_process_free of a followed process's leader: every thread is gone
 * and its pid is about to be (or already is) free for reuse; the start
 * time in the entry makes sure a newer process with that pid keeps its own.
 */
static __always_inline int on_free(struct task_struct *p, const bool direct)
{
	__s32 tgid = TASK_FIELD(direct, p, tgid);
	__u64 *v;

	if (TASK_FIELD(direct, p, pid) != tgid)
		return 0;
	v = bpf_map_lookup_elem(&pid_filter, &tgid);
	if (!v || (*v && *v != TASK_FIELD(direct, p, start_time)))
		return 0;
	if (!bpf_map_delete_elem(&pid_filter, &tgid))
		count_aux(ABICAP_AUX_FOLLOW_REMOVED);
	return 0;
}

SEC("?tp_btf/sched_process_fork")
int BPF_PROG(tp_btf_sched_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	return on_fork(parent, child, true);
}

SEC("?raw_tp/sched_process_fork")
int BPF_PROG(raw_tp_sched_process_fork, struct task_struct *parent,
	     struct task_struct *child)
{
	return on_fork(parent, child, false);
}

SEC("?tp_btf/sched_process_free")
int BPF_PROG(tp_btf_sched_process_free, struct task_struct *p)
{
	return on_free(p, true);
}

SEC("?raw_tp/sched_process_free")
int BPF_PROG(raw_tp_sched_process_free, struct task_struct *p)
{
	return on_free(p, false);
}

/* sched_switch: 4 arguments since Linux 5.18 (prev_state last), 3 before. */
SEC("?tp_btf/sched_switch")
int BPF_PROG(tp_btf_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(ctx, preempt, prev, next, prev_state, true, true, false);
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(tp_btf_sched_switch_3, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return on_switch(ctx, preempt, prev, next, 0, false, true, false);
}

SEC("?raw_tp/sched_switch")
int BPF_PROG(raw_tp_sched_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(ctx, preempt, prev, next, prev_state, true, false, false);
}

SEC("?raw_tp/sched_switch")
int BPF_PROG(raw_tp_sched_switch_3, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return on_switch(ctx, preempt, prev, next, 0, false, false, false);
}

/* The same, with task storage (tp_btf, 6.0+: see task_notes) */
SEC("?tp_btf/sched_switch")
int BPF_PROG(tp_btf_sched_switch_ts, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	return on_switch(ctx, preempt, prev, next, prev_state, true, true, true);
}

SEC("?tp_btf/sched_switch")
int BPF_PROG(tp_btf_sched_switch_3_ts, bool preempt, struct task_struct *prev,
	     struct task_struct *next)
{
	return on_switch(ctx, preempt, prev, next, 0, false, true, true);
}

#define WAKEUP_PROGS(name, ev)                                               \
	SEC("?tp_btf/" #name)                                                \
	int BPF_PROG(tp_btf_##name, struct task_struct *p)                   \
	{                                                                    \
		return on_wakeup(ctx, ev, p, true, false, false);            \
	}                                                                    \
	SEC("?raw_tp/" #name)                                                \
	int BPF_PROG(raw_tp_##name, struct task_struct *p)                   \
	{                                                                    \
		return on_wakeup(ctx, ev, p, false, false, false);           \
	}

WAKEUP_PROGS(sched_wakeup, ABICAP_EV_SCHED_WAKEUP)
WAKEUP_PROGS(sched_wakeup_new, ABICAP_EV_SCHED_WAKEUP_NEW)
WAKEUP_PROGS(sched_waking, ABICAP_EV_SCHED_WAKING)

/*
 * The wakeup programs with task storage (tp_btf, 6.0+: see task_notes);
 * the *_ts_pc ones read preempt_count by a plain load (bpf_rdonly_cast: see
 * in_irq_context), for the two that read it: chosen by the loader only
 * where that kfunc may be called (x86, the JIT on, 6.2+)
 */
#define WAKEUP_PROG_TS(name, sfx, ev, plain)                                 \
	SEC("?tp_btf/" #name)                                                \
	int BPF_PROG(tp_btf_##name##sfx, struct task_struct *p)              \
	{                                                                    \
		return on_wakeup(ctx, ev, p, true, true, plain);             \
	}

WAKEUP_PROG_TS(sched_wakeup, _ts, ABICAP_EV_SCHED_WAKEUP, false)
WAKEUP_PROG_TS(sched_wakeup_new, _ts, ABICAP_EV_SCHED_WAKEUP_NEW, false)
WAKEUP_PROG_TS(sched_waking, _ts, ABICAP_EV_SCHED_WAKING, false)
WAKEUP_PROG_TS(sched_wakeup, _ts_pc, ABICAP_EV_SCHED_WAKEUP, true)
WAKEUP_PROG_TS(sched_waking, _ts_pc, ABICAP_EV_SCHED_WAKING, true)

#define POWER_PROGS(name, ev)                                                \
	SEC("?tp_btf/" #name)                                                \
	int BPF_PROG(tp_btf_##name, unsigned int state, unsigned int cpu_id) \
	{                                                                    \
		return on_power(ctx, ev, state, cpu_id);                     \
	}                                                                    \
	SEC("?raw_tp/" #name)                                                \
	int BPF_PROG(raw_tp_##name, unsigned int state, unsigned int cpu_id) \
	{                                                                    \
		return on_power(ctx, ev, state, cpu_id);                     \
	}

POWER_PROGS(cpu_idle, ABICAP_EV_CPU_IDLE)
POWER_PROGS(cpu_frequency, ABICAP_EV_CPU_FREQUENCY)
