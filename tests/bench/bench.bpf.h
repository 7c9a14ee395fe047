/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* What the cost variants of tests/bench/ share with abicap.bpf.c's setup. */
#ifndef BENCH_BPF_H
#define BENCH_BPF_H

/* as abicap sets it for its default 16 MiB buffer: 1/8 of it */
const volatile __u64 wakeup_bytes = 2 << 20;

/*
 * One ring buffer per variant, so that variants do not share a lock (the
 * cost variants, compared with each other, not with abicap).
 */
#define RING(name)                                                           \
	struct {                                                             \
		__uint(type, BPF_MAP_TYPE_RINGBUF);                          \
		__uint(max_entries, 8 << 20);                                \
	} name SEC(".maps")

/*
 * A ring buffer per CPU, indexed by CPU, as abicap's default transport
 * keeps them (bpf/abicap.bpf.c events_cpu): build/bpfstats sizes the
 * array to the possible CPUs and gives each its ring (8 MiB, abicap's
 * 16 MiB default on two CPUs). Every program of an object writes into its
 * CPU's one ring, as all of abicap's do.
 */
struct bench_ring_cpu {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096); /* the template; each ring has its size */
};

#define CPU_RINGS(name)                                                      \
	struct {                                                             \
		__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);                    \
		__uint(max_entries, 1); /* resized by the loader */          \
		__type(key, __u32);                                          \
		__array(values, struct bench_ring_cpu);                      \
	} name SEC(".maps")

/* Reserve size bytes in this CPU's ring of the array rings (NULL: none). */
static __always_inline void *cpu_ring_reserve(void *rings, __u32 size,
					      __u32 cpu)
{
	void *rb = bpf_map_lookup_elem(rings, &cpu);

	return rb ? bpf_ringbuf_reserve(rb, size, 0) : NULL;
}

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
