/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Record layout shared by the BPF programs (bpf/abicap.bpf.c) and user space.
 *
 * Every record in the ring buffer starts with struct abicap_hdr; hdr.type
 * says which body follows and hdr.size is the size of the whole record.
 * Fixed-width types only. Bump ABICAP_RECORD_VERSION on any layout change;
 * fields are only ever appended (a version 1 record is a prefix of its
 * version 2 form, and readers zero what it lacks).
 */
#ifndef ABICAP_H
#define ABICAP_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

/*
 * 2: cgroup ids appended; 3: abicap_switch.flags says which side passed the
 * task filter (the layout is unchanged: it was padding, 0 before)
 */
#define ABICAP_RECORD_VERSION 3
#define ABICAP_SWITCH_V1_SIZE 80
#define ABICAP_WAKEUP_V1_SIZE 56
#define ABICAP_COMM_LEN 16
#define ABICAP_MAX_PIDS 64 /* given with -p */
#define ABICAP_PID_FILTER_MAX 16384 /* with the children of a followed command */
#define ABICAP_MAX_CPUS 1024
#define ABICAP_CGROUP_MAX_DEPTH 32 /* --cgroup: deepest level searched */

enum abicap_event {
	ABICAP_EV_SCHED_SWITCH = 0,
	ABICAP_EV_SCHED_WAKEUP = 1,
	ABICAP_EV_SCHED_WAKEUP_NEW = 2,
	ABICAP_EV_SCHED_WAKING = 3,
	ABICAP_EV_CPU_IDLE = 4,
	ABICAP_EV_CPU_FREQUENCY = 5,
	ABICAP_EV_COUNT = 6,
};

/* prev_state as the sched_switch tracefs record encodes it (4.14+). */
#define ABICAP_STATE_PREEMPTED 0x100 /* TASK_REPORT_MAX: printed "R+" */

/* Value of waker_pid/waker_tgid when the waker could not be seen. */
#define ABICAP_PID_UNKNOWN (-1)
/*
 * Value of waker_pid/waker_tgid when sched_waking ran in interrupt context
 * (hardirq, softirq, NMI): the task it interrupted is not the waker.
 */
#define ABICAP_PID_INTERRUPT (-2)

struct abicap_hdr {
	__u64 ts_ns; /* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u16 type; /* enum abicap_event */
	__u16 size; /* whole record, header included */
	__u32 cpu; /* CPU the program ran on */
};

struct abicap_switch {
	struct abicap_hdr hdr;
	char prev_comm[ABICAP_COMM_LEN];
	char next_comm[ABICAP_COMM_LEN];
	__s32 prev_pid;
	__s32 prev_tgid;
	__s32 prev_prio;
	__s32 next_pid;
	__s32 next_tgid;
	__s32 next_prio;
	__u32 prev_state; /* tracefs encoding: 0 R, 0x1 S, 0x2 D, ..., 0x100 R+ */
	__u8 preempt; /* the switch was a preemption */
	__u8 flags; /* version 3: ABICAP_SWITCH_*_OK */
	__u8 pad[2];
	/* version 2: cgroup v2 ids (kernfs node ids), 0 if unknown */
	__u64 prev_cgroup;
	__u64 next_cgroup;
};

/*
 * abicap_switch.flags: prev / next passed the task filters (-p, --tid,
 * --comm, --cgroup, a followed command); both when there are none. A side
 * without its flag is in the record only because the other side passed:
 * the capture does not see all of that task's switches.
 */
#define ABICAP_SWITCH_PREV_OK 0x1
#define ABICAP_SWITCH_NEXT_OK 0x2

/* sched_wakeup, sched_wakeup_new and sched_waking. */
struct abicap_wakeup {
	struct abicap_hdr hdr;
	char comm[ABICAP_COMM_LEN];
	__s32 pid;
	__s32 tgid;
	__s32 prio;
	__s32 target_cpu;
	__s32 waker_pid; /* ABICAP_PID_UNKNOWN if not seen */
	__s32 waker_tgid;
	__u64 cgroup; /* version 2: the wakee's cgroup v2 id, 0 if unknown */
};

/* cpu_idle (state: idle state index, (u32)-1 on exit) and cpu_frequency (kHz). */
struct abicap_power {
	struct abicap_hdr hdr;
	__u32 state;
	__u32 cpu_id;
};

/* Per-CPU counters, one slot per enum abicap_event, in map "counters". */
struct abicap_counter {
	__u64 seen; /* events that passed the filters: = received + dropped */
	/*
	 * records: the buffer was full; aggregation: a map update failed
	 * (the reasons in enum abicap_aux). At most once per event.
	 */
	__u64 dropped;
};

/*
 * Records a CPU's programs could not put in the buffer (.bss dropped_cpu,
 * indexed by CPU): one cache line each, written by that CPU only.
 */
struct abicap_drop_line {
	__u64 n;
	__u64 pad[7];
};

/*
 * A CPU running a wakelist of wakeups other CPUs queued (.bss ttwu_flush,
 * indexed by CPU, bpf/waker.bpf.h): one cache line each, that CPU's only.
 */
struct abicap_flush_line {
	__u32 on;
	__u32 taken; /* its slots sched_wakeup took, given back at the end */
	__u32 pad[14];
};

/*
 * Wakers of wakeups queued on a CPU's wakelist (bpf/waker.bpf.h), in that
 * CPU's slots (map wl_slots, indexed by the wakee's CPU): claimed by the
 * waker with a compare-and-swap of key (0: free), read by the wakee's CPU's
 * sched_wakeup, freed when that CPU is done with its wakelist.
 */
#define ABICAP_WL_SLOTS 32
struct abicap_wl_slot {
	__u64 key; /* 0: free; else the wakee's pid | ABICAP_WL_TAKEN */
	__s32 waker_pid;
	__s32 waker_tgid;
};
#define ABICAP_WL_TAKEN (1ull << 63)
#define ABICAP_WL_ON (1ull << 62) /* the waker passed -p/--tid */

struct abicap_wl_cpu {
	struct abicap_wl_slot s[ABICAP_WL_SLOTS];
};

/*
 * The slab transport (bpf/slab.bpf.h, docs/transport.md): each CPU's
 * records in an array of its own that user space maps, written by that
 * CPU's programs without a lock or an atomic. A CPU's control lines (.bss
 * slab_ctl, indexed by CPU): head, written by the CPU's programs only (the
 * end of its last committed record), busy while one of them writes (a
 * program nested on the CPU then writes into the CPU's ring buffer
 * instead); tail, on a line of its own, written by the consumer only
 * (where it has read up to). Positions count bytes from the start and never
 * wrap; a record never straddles a chunk: where fewer than
 * ABICAP_SLAB_MAXREC bytes are left in one, the next record starts the
 * next chunk.
 */
#define ABICAP_SLAB_MAXREC 128 /* the largest record, rounded up */

struct abicap_slab_ctl {
	__u64 head;
	__u64 busy;
	__u64 pad[6];
	__u64 tail;
	__u64 pad2[7];
};

/*
 * Per-CPU bookkeeping counters, map "aux_counters" (one __u64 per index):
 * what the programs could not do, so that nothing is lost silently.
 */
enum abicap_aux {
	ABICAP_AUX_FOLLOW_ADDED = 0, /* processes added to the pid filter */
	ABICAP_AUX_FOLLOW_FAILED = 1, /* a new process could not be added (map full) */
	ABICAP_AUX_FOLLOW_REMOVED = 2, /* followed processes gone (sched_process_free) */
	ABICAP_AUX_WAKER_LOST = 3, /* a waker could not be kept, or was not found */
	ABICAP_AUX_IRQ_UNKNOWN = 4, /* filtered wakings whose context was unknown */
	ABICAP_AUX_WAKER_IN_HASH = 5, /* task storage failed: waker kept in a hash */
	ABICAP_AUX_CG_CREATED = 6, /* entries made in cg_stats (serve: less those deleted, its fill) */
	/*
	 * Aggregation (serve): why events were counted as dropped. An event
	 * is dropped once (abicap_counter.dropped) whatever failed; each
	 * failure is counted here by its reason (a switch can have three).
	 */
	ABICAP_AUX_CG_MAP_FULL = 7, /* a cgroup's statistics: cg_stats full */
	ABICAP_AUX_QUEUE_LOST = 8, /* a task's run-queue wait start not kept */
	ABICAP_AUX_IDLE_STATE_BIG = 9, /* cpu_idle state >= ABICAP_IDLE_STATES */
	ABICAP_AUX_CPU_ID_BIG = 10, /* cpu_frequency cpu_id >= ABICAP_MAX_CPUS */
	/*
	 * serve from the kernel's accounting: waits the scheduler counted
	 * (sched_info.pcount) at a switch-in no sched_switch showed, whose
	 * time is in the next wait counted (not a loss: nothing is dropped)
	 */
	ABICAP_AUX_WAITS_MERGED = 11,
	/*
	 * serve from the kernel's accounting: a task's sums (run_delay,
	 * pcount, se.sum_exec_runtime) below what was kept of them, which
	 * they never are: that switch's wait or run is not counted
	 */
	ABICAP_AUX_SUMS_BACK = 12,
	/*
	 * slabs: records of programs nested on their CPU (the slab busy),
	 * written into the CPU's ring buffer instead (not a loss)
	 */
	ABICAP_AUX_SLAB_NESTED = 13,
	/* wakers taken from a wakelist's slots (bpf/waker.bpf.h) */
	ABICAP_AUX_WAKELIST_KEPT = 14,
	ABICAP_AUX_COUNT = 15,
};

/* Where the programs find preempt_count (rodata pc_where, set by the loader). */
enum abicap_pc_where {
	ABICAP_PC_NONE = 0, /* not found: the waker's context is unknown */
	ABICAP_PC_TASK = 1, /* at pc_off in the task (thread_info, arm64) */
	ABICAP_PC_PERCPU = 2, /* at pc_off from the CPU's run queue (x86) */
};

/*
 * Aggregation mode (abicap serve): no records, per-cgroup statistics in
 * map "cg_stats" (per-CPU hash keyed by cgroup id; user space sums CPUs).
 * Run-queue latency bucket i counts latencies of at most
 * ABICAP_LAT_BUCKET0_NS << i; longer ones are in rq_count only (+Inf).
 */
#define ABICAP_LAT_BUCKETS 24
#define ABICAP_LAT_BUCKET0_NS 1024ULL /* 1.024 us .. 8.6 s */
#define ABICAP_IDLE_STATES 16
#define ABICAP_MAX_CGROUPS_DEFAULT 1024
/* serve's slots (cg_owner, cg_slots): at most this many, a power of 2 */
#define ABICAP_CG_SLOTS_MAX 256
/* cg_owner: a slot taken back, to be zeroed before it is free (0) */
#define ABICAP_CG_SLOT_HELD (~0ULL)

struct abicap_cg_stats {
	__u64 rq_count; /* wakeup or preemption to running */
	__u64 rq_sum_ns;
	__u64 rq_bucket[ABICAP_LAT_BUCKETS]; /* not cumulative */
	__u64 switches_voluntary; /* switched out blocked (S, D, ...) */
	__u64 switches_involuntary; /* switched out still runnable (R, R+) */
	__u64 oncpu_ns;
	/*
	 * accounting events: switch-outs whose switch-in no sched_switch
	 * showed (a task hidden from tracing ran between): that run's time
	 * is not in oncpu_ns
	 */
	__u64 oncpu_unseen;
};

/* Per-CPU idle residency, map "idle_stats" indexed by idle state. */
struct abicap_idle_stat {
	__u64 ns;
	__u64 count;
};

#endif /* ABICAP_H */
