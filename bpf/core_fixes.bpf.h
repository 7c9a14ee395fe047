/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Every place where the kernel's layout differs between versions (or
 * architectures), in one file; each shim names the kernel and commit that
 * made it necessary. Old layouts are declared as "___" flavours: libbpf
 * strips the suffix when it matches them against the running kernel's BTF,
 * and bpf_core_field_exists is resolved at load time, so the branch a
 * kernel cannot take is removed by the verifier before it could fail.
 * `direct`: see task_read.bpf.h.
 */
#ifndef CORE_FIXES_BPF_H
#define CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>
#include "abicap.h"
#include "task_read.bpf.h"

/*
 * Linux 5.14 (commit 2f064a59a11f, "sched: Change task_struct::state")
 * renamed task_struct.state (long) to __state (unsigned int).
 */
struct task_struct___o {
	long state;
} __attribute__((preserve_access_index));

/*
 * Linux 5.16 (commit bcf9033e5449, "sched: move CPU field back into
 * thread_info if THREAD_INFO_IN_TASK=y") moved task_struct.cpu to
 * task_struct.thread_info.cpu.
 */
struct task_struct___cpu {
	unsigned int cpu;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(struct task_struct *t,
					       const bool direct)
{
	struct task_struct___o *o = (void *)t;

	if (bpf_core_field_exists(t->__state))
		return TASK_FIELD(direct, t, __state);
	return (unsigned int)TASK_FIELD(direct, o, state);
}

static __always_inline int task_cpu(struct task_struct *t, const bool direct)
{
	struct task_struct___cpu *c = (void *)t;

	if (bpf_core_field_exists(t->thread_info.cpu))
		return TASK_FIELD(direct, t, thread_info.cpu);
	return TASK_FIELD(direct, c, cpu);
}

/*
 * sched_switch's prev_state: the tracepoint's 4th argument since Linux 5.18
 * (commit fa2c3254d7cf, "sched/tracing: Don't re-read p->state when
 * emitting sched_switch event", added it as the 2nd in 5.18-rc1, which
 * broke every BPF program on the tracepoint; commit 9c2136be0878,
 * "sched/tracing: Append prev_state to tp args instead", moved it last in
 * 5.18-rc7). Before, the 3-argument programs read it from the task, as the
 * tracepoint itself did.
 */
static __always_inline unsigned int switch_prev_state(struct task_struct *prev,
						      unsigned int arg,
						      const bool have_arg,
						      const bool direct)
{
	return have_arg ? arg : task_state(prev, direct);
}

/*
 * The CPU is serving an interrupt (hardirq, NMI or softirq), where
 * "current" is whatever task it interrupted, not the one that caused the
 * event: preempt_count says so (HARDIRQ_MASK 0x000f0000, NMI_MASK
 * 0x00f00000 or 0x00100000 before 5.11, SOFTIRQ_OFFSET 0x100 while serving
 * softirqs; a bh-disabled section in task context is not an interrupt).
 * Where it is (the loader finds it in BTF and sets pc_where):
 * - arm64 and others: task_struct.thread_info.preempt_count, at a byte
 *   offset from the task (pc_off);
 * - x86: a per-CPU variable, __preempt_count (to 6.1, and again 6.15+) or
 *   pcpu_hot.preempt_count (6.2-6.14). A typed ksym would need the symbol
 *   in kallsyms (CONFIG_KALLSYMS_ALL; this project's 6.18 machine has
 *   none), so the loader gives instead its distance (pc_off), in the per-CPU
 *   section (BTF DATASEC .data..percpu), from the per-CPU run queue
 *   `runqueues`, which current's sched_entity points into (through its
 *   cfs_rq, on this CPU while current runs).
 * The stack cannot tell: x86 runs an interrupt from user mode on the
 * task's own stack. PREEMPT_RT (5.12+, "softirq: Make softirq control and
 * processing RT aware") runs softirqs in task context and counts them in
 * task_struct.softirq_disable_cnt, not read: a wakeup from a softirq there
 * is the running task's, as tracefs's common_pid says; so is one from
 * ksoftirqd, except while it serves one (SOFTIRQ_OFFSET set, on every
 * non-RT kernel).
 * Returns 1 in interrupt context, 0 in task context, -1 where it cannot be
 * read (the caller must not guess then).
 */
#define K_IRQ_CONTEXT_MASK 0x00ff0000u
#define K_SOFTIRQ_OFFSET 0x00000100u

/*
 * set by the loader from BTF (user/live/capture.c, preempt_count_place);
 * ABICAP_PC_NONE on x86 where the contract's optional task_struct.se.cfs_rq
 * or cfs_rq.rq do not hold, which the exists-checks below also gate
 */
const volatile __u32 pc_where = ABICAP_PC_NONE;
const volatile __s64 pc_off = 0;

/*
 * The kfunc that makes any kernel address a read-only typed pointer whose
 * loads cannot fault (6.2+; the verifier turns it into a move). A program
 * that calls it, even in dead code, loads only where the JIT is on:
 * only the *_pc program variants do (see in_irq_context).
 */
extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/*
 * direct (tp_btf programs, 5.11+: bpf_get_current_task_btf): current's
 * run queue by two plain loads from its trusted pointer; then the count
 * itself, which is no member of struct rq (a plain load there fails the
 * verifier): with plain (the *_pc variants, which the loader picks on x86
 * with the JIT on and bpf_rdonly_cast in the kernel) by one load through
 * bpf_rdonly_cast, else by a probe read (about 25 ns more a run here).
 * Elsewhere, and in raw_tp programs, three probe reads (about 60 ns more).
 * The helper's existence is a CO-RE check on the kernel's enum
 * bpf_func_id, resolved at load: on a kernel without it the branch is dead
 * code; so is the kfunc's where the kernel lacks it (libbpf sets a weak
 * ksym's address to 0).
 */
static __always_inline int in_irq_context(const bool direct, const bool plain)
{
	struct task_struct *cur;
	unsigned int pc = 0;
	void *base;

	if (pc_where == ABICAP_PC_TASK) {
		base = (void *)bpf_get_current_task();
	} else if (pc_where == ABICAP_PC_PERCPU &&
		   bpf_core_field_exists(struct task_struct, se.cfs_rq) &&
		   bpf_core_field_exists(struct cfs_rq, rq)) {
		if (direct && bpf_core_enum_value_exists(enum bpf_func_id,
							 BPF_FUNC_get_current_task_btf)) {
			cur = bpf_get_current_task_btf();
			base = cur->se.cfs_rq->rq;
			if (plain && bpf_rdonly_cast) {
				pc = *(volatile unsigned int *)bpf_rdonly_cast(
					base + pc_off,
					bpf_core_type_id_kernel(struct rq));
				return (pc & K_IRQ_CONTEXT_MASK) ||
				       (pc & K_SOFTIRQ_OFFSET);
			}
		} else {
			cur = (void *)bpf_get_current_task();
			base = BPF_CORE_READ(cur, se.cfs_rq, rq);
		}
	} else {
		return -1;
	}
	if (!base || bpf_probe_read_kernel(&pc, sizeof(pc), base + pc_off))
		return -1;
	return (pc & K_IRQ_CONTEXT_MASK) || (pc & K_SOFTIRQ_OFFSET);
}

#endif /* CORE_FIXES_BPF_H */
