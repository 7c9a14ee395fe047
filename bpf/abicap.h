/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Record layout shared by the BPF programs (bpf/abicap.bpf.c) and user space.
 *
 * Every record in the ring buffer starts with struct abicap_hdr; hdr.type
 * says which body follows and hdr.size is the size of the whole record.
 * Fixed-width types only. Bump ABICAP_RECORD_VERSION on any layout change.
 */
#ifndef ABICAP_H
#define ABICAP_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define ABICAP_RECORD_VERSION 1
#define ABICAP_COMM_LEN 16
#define ABICAP_MAX_PIDS 64 /* given with -p */
#define ABICAP_PID_FILTER_MAX 16384 /* with the children of a followed command */
#define ABICAP_MAX_CPUS 1024

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
	__u8 pad[3];
};

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
	__u64 dropped; /* ring buffer was full */
};

#endif /* ABICAP_H */
