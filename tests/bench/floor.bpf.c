// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The floors abicap's programs are held to (scripts/bench.sh floor,
 * docs/floor.md): on the tracepoints abicap attaches to, tp_btf like
 * abicap's default variant,
 *
 *   fl_empty_*   nothing: the dispatch and bpf_stats' own cost
 *   fl_clock     bpf_ktime_get_ns() (sched_switch)
 *   fl_rb        ring buffer reserve + submit of 80 bytes, the header
 *                filled (sched_switch)
 *   fl_min_waker the least that keeps sched_waking's waker for
 *                sched_wakeup (no record), the interrupt not told apart
 *   fl_min_waker_ctx  the same, an interrupt's wakeup kept as such, as
 *                abicap's default does
 *   fl_min_wakeup_w   sched_wakeup's record with the waker taken from the
 *                task storage the two above fill, as record's is before
 *                6.3
 *   fl_min_wakeup_cur sched_wakeup's record with the waker current (-2 in
 *                an interrupt), as record's is on 6.3+ (bpf/waker.bpf.h)
 *   fl_min_waking_ctx sched_waking's record the same way, nothing kept:
 *                -e all's on 6.3+
 *   fl_min_waking_w   sched_waking's record, the waker (-2 in an
 *                interrupt) kept for sched_wakeup too, as -e all's is
 *   fl_min_*     the least that writes abicap's full record of the kind,
 *                every field as bpf/abicap.bpf.c fills it (cgroup ids, the
 *                report state, the comms copied as abicap copies them,
 *                8 bytes at a time), in the CPU's slab where use_slab is
 *                set (build/bpfstats sets it where the object has slabs,
 *                on x86-64, as abicap's default transport), else reserved
 *                and submitted in the CPU's ring, without a wakeup (the
 *                consumer drains on a timer): no filter, no counter, no
 *                waker kept for sched_wakeup, no interrupt check
 *
 * The programs write into one ring buffer per CPU, all of them into their
 * CPU's, as abicap's do (issue 36: each with a ring of its own, cold where
 * abicap's one ring stays hot, the floor cost more than abicap's programs:
 * sched_wakeup at 0.52x of it). scripts/bench.sh loads the
 * fl_min_* set together, as abicap's programs are (fl_min_waker for
 * record's default, fl_min_waking for -e all), and each reads the clock
 * once a record, as abicap's do.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "abicap.h"
#include "core_fixes.bpf.h"
#include "task_read.bpf.h"
#include "task_state.h"
#include "bench.bpf.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

CPU_RINGS(rings);
#include "slab.bpf.h"

/* written so that the calls are kept (a racy global is fine here) */
__u64 fl_sink;

#define EMPTY(tp)                                                            \
	SEC("tp_btf/" #tp)                                                   \
	int BPF_PROG(fl_empty_##tp)                                          \
	{                                                                    \
		return 0;                                                    \
	}

EMPTY(sched_switch)
EMPTY(sched_wakeup)
EMPTY(sched_waking)
EMPTY(cpu_idle)
EMPTY(cpu_frequency)

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_clock)
{
	fl_sink = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_rb)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct abicap_hdr *h = cpu_ring_reserve(&rings, 80, cpu);

	if (!h)
		return 0;
	h->ts_ns = 0;
	h->type = ABICAP_EV_SCHED_SWITCH;
	h->size = 80;
	h->cpu = cpu;
	bpf_ringbuf_submit(h, BPF_RB_NO_WAKEUP);
	return 0;
}

/* as bpf/cgroup.bpf.h reads it, where the kernel has the chain */
static __always_inline __u64 cg_id(struct task_struct *t)
{
	if (!bpf_core_field_exists(struct task_struct, cgroups) ||
	    !bpf_core_field_exists(struct kernfs_node, id))
		return 0;
	return t->cgroups->dfl_cgrp->kn->id;
}

/*
 * Room for a record, as abicap's reserve() finds it: in the CPU's slab
 * (*slab set), or its ring (use_slab off, or a program nested on the CPU)
 */
static __always_inline void *hdr(__u16 type, __u16 size, __u64 ts,
				 bool *slab)
{
	__u32 cpu = bpf_get_smp_processor_id();
	struct abicap_hdr *h = NULL;
	bool full = false;

	*slab = false;
	if (use_slab) {
		h = slab_reserve(cpu, &full);
		*slab = h != NULL;
	}
	if (!h && !full)
		h = cpu_ring_reserve(&rings, size, cpu);
	if (!h)
		return NULL;
	barrier_var(h);
	h->ts_ns = ts;
	h->type = type;
	h->size = size;
	h->cpu = cpu;
	return h;
}

/* hdr()'s record e of size bytes is written */
static __always_inline void commit(void *e, __u16 size, bool slab)
{
	if (use_slab && slab)
		slab_commit(((struct abicap_hdr *)e)->cpu, size);
	else
		bpf_ringbuf_submit(e, BPF_RB_NO_WAKEUP);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(fl_min_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	bool slab;
	struct abicap_switch *e = hdr(ABICAP_EV_SCHED_SWITCH, sizeof(*e),
				      bpf_ktime_get_ns(), &slab);

	if (!e)
		return 0;
	task_comm(e->prev_comm, prev, true);
	task_comm(e->next_comm, next, true);
	fill_fields(e, preempt, prev, next, prev_state);
	e->flags = ABICAP_SWITCH_PREV_OK | ABICAP_SWITCH_NEXT_OK;
	e->prev_cgroup = cg_id(prev);
	e->next_cgroup = cg_id(next);
	commit(e, sizeof(*e), slab);
	return 0;
}

static __always_inline int min_wakeup(__u16 type,
				      struct task_struct *p, __s32 waker_pid,
				      __s32 waker_tgid)
{
	bool slab;
	struct abicap_wakeup *e = hdr(type, sizeof(*e), bpf_ktime_get_ns(),
				      &slab);

	if (!e)
		return 0;
	task_comm(e->comm, p, true);
	e->pid = p->pid;
	e->tgid = p->tgid;
	e->prio = p->prio;
	e->target_cpu = task_cpu(p, true);
	e->waker_pid = waker_pid;
	e->waker_tgid = waker_tgid;
	e->cgroup = cg_id(p);
	commit(e, sizeof(*e), slab);
	return 0;
}

/* sched_wakeup: the waker is not current there (abicap takes it from waking) */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(fl_min_wakeup, struct task_struct *p)
{
	return min_wakeup(ABICAP_EV_SCHED_WAKEUP, p,
			  ABICAP_PID_UNKNOWN, ABICAP_PID_UNKNOWN);
}

/* sched_waking: the waker is current (no interrupt check) */
SEC("tp_btf/sched_waking")
int BPF_PROG(fl_min_waking, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();

	return min_wakeup(ABICAP_EV_SCHED_WAKING, p, (__s32)id,
			  (__s32)(id >> 32));
}

/*
 * sched_waking as abicap runs it by default, writing no record (its events
 * left out of -e): the least that keeps the waker for sched_wakeup, the
 * current task's ids in the wakee's task storage (no clock, no interrupt
 * check)
 */
struct fl_waker {
	__s32 pid;
	__s32 tgid;
	__u32 valid;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fl_waker);
} fl_wakers SEC(".maps");

/*
 * -r fl_pc_off=N (scripts/bench.sh, from the kernel's BTF): x86's per-CPU
 * preempt_count, its distance from the run queue `runqueues` in the per-CPU
 * section, as abicap's loader gives it (pc_off)
 */
const volatile __s64 fl_pc_off = 0;
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * Interrupt context, told the least way known: current's run queue by two
 * plain loads, preempt_count beside it by one fault-safe load (the kfunc
 * bpf_rdonly_cast, 6.2+; a probe read where the kernel has none)
 */
static __always_inline bool fl_in_irq(void)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	void *pcp = (void *)cur->se.cfs_rq->rq + fl_pc_off;
	unsigned int pc = 0;

	if (bpf_rdonly_cast)
		pc = *(volatile unsigned int *)bpf_rdonly_cast(pcp,
				bpf_core_type_id_kernel(struct rq));
	else
		bpf_probe_read_kernel(&pc, sizeof(pc), pcp);
	return (pc & K_IRQ_CONTEXT_MASK) || (pc & K_SOFTIRQ_OFFSET);
}

/*
 * the same, the waker told from an interrupt (abicap's -2): the floor of
 * record's default sched_waking program, which does that check
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(fl_min_waker_ctx, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	bool irq = fl_in_irq();
	struct fl_waker *w = bpf_task_storage_get(&fl_wakers, p, 0,
						  BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (w) {
		w->pid = irq ? ABICAP_PID_INTERRUPT : (__s32)id;
		w->tgid = irq ? ABICAP_PID_INTERRUPT : (__s32)(id >> 32);
		w->valid = 1;
	}
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(fl_min_waker, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	struct fl_waker *w = bpf_task_storage_get(&fl_wakers, p, 0,
						  BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (w) {
		w->pid = (__s32)id;
		w->tgid = (__s32)(id >> 32);
		w->valid = 1;
	}
	return 0;
}

/*
 * sched_wakeup as record writes it: the full record, its waker taken (once)
 * from the wakee's task storage, where sched_waking's program kept it
 */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(fl_min_wakeup_w, struct task_struct *p)
{
	struct fl_waker *w = bpf_task_storage_get(&fl_wakers, p, 0, 0);
	__s32 pid = ABICAP_PID_UNKNOWN, tgid = ABICAP_PID_UNKNOWN;

	if (w && w->valid) {
		pid = w->pid;
		tgid = w->tgid;
		w->valid = 0;
	}
	return min_wakeup(ABICAP_EV_SCHED_WAKEUP, p, pid, tgid);
}

/* CPUs running a wakelist, as bpf/waker.bpf.h marks them (never here) */
struct abicap_flush_line fl_flush[ABICAP_MAX_CPUS];

/* the record with current as its waker, -2 in an interrupt */
static __always_inline int min_wakeup_cur(__u16 type, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	bool irq = fl_in_irq();

	return min_wakeup(type, p, irq ? ABICAP_PID_INTERRUPT : (__s32)id,
			  irq ? ABICAP_PID_INTERRUPT : (__s32)(id >> 32));
}

/*
 * sched_wakeup as record writes it on 6.3+ (bpf/waker.bpf.h): the full
 * record, its waker current (-2 in an interrupt) unless the CPU runs a
 * wakelist (a wakeup queued there: none in the pinned pipe)
 */
SEC("tp_btf/sched_wakeup")
int BPF_PROG(fl_min_wakeup_cur, struct task_struct *p)
{
	__u32 cpu = bpf_get_smp_processor_id();

	if (cpu < ABICAP_MAX_CPUS && fl_flush[cpu].on)
		return min_wakeup(ABICAP_EV_SCHED_WAKEUP, p,
				  ABICAP_PID_UNKNOWN, ABICAP_PID_UNKNOWN);
	return min_wakeup_cur(ABICAP_EV_SCHED_WAKEUP, p);
}

/*
 * sched_waking as record -e all runs it on 6.3+: its record, the waker
 * current (-2 in an interrupt), nothing kept for sched_wakeup
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(fl_min_waking_ctx, struct task_struct *p)
{
	return min_wakeup_cur(ABICAP_EV_SCHED_WAKING, p);
}

/*
 * sched_waking as record -e all runs it: its record written, the waker
 * (-2 in an interrupt) kept for sched_wakeup's record too
 */
SEC("tp_btf/sched_waking")
int BPF_PROG(fl_min_waking_w, struct task_struct *p)
{
	__u64 id = bpf_get_current_pid_tgid();
	bool irq = fl_in_irq();
	__s32 pid = irq ? ABICAP_PID_INTERRUPT : (__s32)id;
	__s32 tgid = irq ? ABICAP_PID_INTERRUPT : (__s32)(id >> 32);
	struct fl_waker *w = bpf_task_storage_get(&fl_wakers, p, 0,
						  BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (w) {
		w->pid = pid;
		w->tgid = tgid;
		w->valid = 1;
	}
	return min_wakeup(ABICAP_EV_SCHED_WAKING, p, pid, tgid);
}

static __always_inline int min_power(__u16 type, __u32 state, __u32 cpu_id)
{
	bool slab;
	struct abicap_power *e = hdr(type, sizeof(*e), bpf_ktime_get_ns(),
				     &slab);

	if (!e)
		return 0;
	e->state = state;
	e->cpu_id = cpu_id;
	commit(e, sizeof(*e), slab);
	return 0;
}

SEC("tp_btf/cpu_idle")
int BPF_PROG(fl_min_idle, unsigned int state, unsigned int cpu_id)
{
	return min_power(ABICAP_EV_CPU_IDLE, state, cpu_id);
}

SEC("tp_btf/cpu_frequency")
int BPF_PROG(fl_min_frequency, unsigned int state, unsigned int cpu_id)
{
	return min_power(ABICAP_EV_CPU_FREQUENCY, state, cpu_id);
}
