/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The running kernel: its release, and the program variant each event
 * gets (tp_btf or raw_tp; sched_switch with or without the prev_state
 * argument), which checker.c derives from the contract's verdicts.
 */
#ifndef ABICAP_KERNEL_H
#define ABICAP_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include "abicap.h"

enum attach_mode {
	ATTACH_AUTO, /* tp_btf where the kernel has it, raw_tp otherwise */
	ATTACH_TP_BTF,
	ATTACH_RAW_TP,
};

enum transport {
	TRANSPORT_AUTO, /* per-CPU ring buffers, unless the contract says unsafe */
	TRANSPORT_RINGBUF, /* one ring buffer shared by every CPU */
	TRANSPORT_PERFBUF,
	TRANSPORT_PERCPU, /* one ring buffer per CPU */
	TRANSPORT_SLAB, /* one slab per CPU, its ring for nested records */
};

struct kernel_plan {
	bool tp_btf[ABICAP_EV_COUNT];
	/* sched_switch has the 4th argument prev_state (Linux 5.18+) */
	bool switch_prev_state;
	/* per-CPU perf buffers: the ring buffer's lock may sleep (PREEMPT_RT) */
	bool perfbuf;
	/* sched_process_fork (following a command's children): usable, tp_btf */
	bool fork_ok;
	bool fork_tp_btf;
	/* sched_process_free (the pid filter forgets freed processes) */
	bool free_ok;
	bool free_tp_btf;
	/* cgroup ids (task_struct.cgroups -> ... -> kernfs_node.id) hold */
	bool cgroup_ok;
	/* and so does the walk --cgroup needs (cgroup.level, self.parent) */
	bool cgroup_filter_ok;
	/* x86: current's run queue (se.cfs_rq, cfs_rq.rq) locates preempt_count */
	bool rq_ok;
	/* serve's statistics from sched_info and the run queue's clocks */
	bool kernel_agg_ok;
	/*
	 * sched_wakeup's wakers from the wakelists (csd_queue_cpu,
	 * csd_function_entry/exit, task_struct.wake_entry; 6.3+, tp_btf):
	 * no sched_waking program for them (bpf/waker.bpf.h)
	 */
	bool wakelist_ok;
};

/* The running kernel's release is below major.minor (false if unknown). */
bool kernel_older_than(int major, int minor);

/* "6.18.44-..." */
const char *kernel_release(void);

#endif
