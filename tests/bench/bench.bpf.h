/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What the cost variants of tests/bench/ share with abicap.bpf.c's setup. */
#ifndef BENCH_BPF_H
#define BENCH_BPF_H

/* as abicap sets it for its default 16 MiB buffer: 1/8 of it */
const volatile __u64 wakeup_bytes = 2 << 20;

/* one ring buffer per variant, so that variants do not share a lock */
#define RING(name)                                                           \
	struct {                                                             \
		__uint(type, BPF_MAP_TYPE_RINGBUF);                          \
		__uint(max_entries, 8 << 20);                                \
	} name SEC(".maps")

/* abicap's per-CPU seen/dropped counters */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, ABICAP_EV_COUNT);
	__type(key, __u32);
	__type(value, struct abicap_counter);
} counters SEC(".maps");

/*
 * A switch record's ids, prios and state, as on_switch() fills them (flags
 * 0: the caller's, like the cgroup ids)
 */
static __always_inline void fill_fields(struct abicap_switch *e, bool preempt,
					struct task_struct *prev,
					struct task_struct *next,
					unsigned int prev_state)
{
	e->prev_pid = prev->pid;
	e->prev_tgid = prev->tgid;
	e->prev_prio = prev->prio;
	e->next_pid = next->pid;
	e->next_tgid = next->tgid;
	e->next_prio = next->prio;
	e->prev_state = abicap_report_state(preempt, prev_state,
					    prev->exit_state);
	e->preempt = preempt;
	e->flags = 0;
	e->pad[0] = e->pad[1] = 0;
}

#endif
