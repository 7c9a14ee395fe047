/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Every place where the kernel's layout differs between versions, in one file.
 * Old layouts are declared as "___o" flavours: libbpf strips the suffix when
 * it matches them against the running kernel's BTF, and bpf_core_field_exists
 * is resolved at load time, so the branch a kernel cannot take is removed by
 * the verifier before it could fail.
 *
 * `direct` is a compile-time constant at every call site: true in tp_btf
 * programs (typed arguments, plain loads), false in raw_tp programs (untyped
 * arguments, every pointer dereference is a CO-RE probe read).
 */
#ifndef CORE_FIXES_BPF_H
#define CORE_FIXES_BPF_H

#include <bpf/bpf_core_read.h>

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

#define TASK_FIELD(direct, t, f) ((direct) ? (t)->f : BPF_CORE_READ(t, f))

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

static __always_inline void task_comm(char dst[16], struct task_struct *t,
				      const bool direct)
{
	if (direct)
		__builtin_memcpy(dst, t->comm, 16);
	else
		bpf_core_read(dst, 16, &t->comm);
}

/*
 * The task's cgroup v2 id: the kernfs node id of its default-hierarchy
 * cgroup, what bpf_get_current_cgroup_id() returns for current (a u64 since
 * Linux 5.5) and the inode number of the cgroup's directory. 0 where the
 * kernel has no cgroups (the contract calls that degraded).
 */
static __always_inline __u64 task_cgroup_id(struct task_struct *t,
					    const bool direct)
{
	if (!bpf_core_field_exists(t->cgroups))
		return 0;
	if (direct)
		return t->cgroups->dfl_cgrp->kn->id;
	return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

/*
 * The task's cgroup is `id` (at depth `level`) or below it: walk up from
 * its cgroup to that depth through each cgroup's own css parent.
 */
static __always_inline bool task_in_cgroup(struct task_struct *t, __u64 id,
					   int level)
{
	struct cgroup *cg;
	int at;

	if (!bpf_core_field_exists(t->cgroups))
		return false;
	cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	if (!cg)
		return false;
	at = BPF_CORE_READ(cg, level);
	if (at < level || at - level >= ABICAP_CGROUP_MAX_DEPTH)
		return false;
	for (int i = 0; i < ABICAP_CGROUP_MAX_DEPTH && at > level; i++, at--) {
		struct cgroup_subsys_state *css = BPF_CORE_READ(cg, self.parent);

		if (!css)
			return false;
		/* cgroup.self is the cgroup's own css: step back to the cgroup */
		cg = (void *)css - bpf_core_field_offset(struct cgroup, self);
	}
	return BPF_CORE_READ(cg, kn, id) == id;
}

/*
 * The CPU is serving an interrupt (hardirq, NMI or softirq), where
 * "current" is whatever task it interrupted, not the one that caused the
 * event. preempt_count would say so, but x86 keeps it in a per-CPU variable
 * (__preempt_count; pcpu_hot.preempt_count 6.2-6.14) that BPF reaches only
 * as a typed ksym, which the verifier resolves through kallsyms: absent
 * without CONFIG_KALLSYMS_ALL (this project's 6.18 machine). The stack says
 * it too, on every kernel: x86-64 and arm64 run hardirqs, NMIs and softirqs
 * (from irq exit and from local_bh_enable) on per-CPU interrupt stacks, and
 * a BPF program's frame (JIT or interpreter) is on the stack it was called
 * on. Outside task_struct.stack's THREAD_SIZE bytes: an interrupt.
 * ksoftirqd, and every softirq on PREEMPT_RT, run in task context on the
 * task's stack and count as that task, as tracefs's common_pid does.
 *
 * THREAD_SIZE (16 KiB, 32 KiB with KASAN) is not in BTF: sched_switch,
 * which always runs on the switching task's own stack, learns it as the
 * power of two above its frame's offset in that stack (frames sit near the
 * top, the stack is THREAD_SIZE-aligned).
 *
 * Reading our own stack address as a number leaks a kernel pointer, which
 * the verifier allows programs loaded with CAP_PERFMON (bpf_allow_ptr_leaks);
 * abicap needs it anyway.
 */
__u64 thread_size = 0; /* .bss: 0 until sched_switch has measured it */

/*
 * Our frame's offset in task t's stack (huge when not on it). The address
 * goes through a probe read to become a plain number: the verifier allows
 * no arithmetic between a frame pointer and an unbounded value.
 */
static __always_inline __u64 stack_offset(struct task_struct *t)
{
	volatile int marker = 0;
	void *where = (void *)&marker;
	__u64 sp = 0;

	bpf_probe_read_kernel(&sp, sizeof(sp), &where);
	return sp - (__u64)(long)BPF_CORE_READ(t, stack);
}

static __always_inline void learn_thread_size(struct task_struct *prev)
{
	__u64 off, sz = 4096;

	if (thread_size || !bpf_core_field_exists(prev->stack))
		return;
	off = stack_offset(prev);
	for (int i = 0; i < 8; i++)
		if (off >= sz)
			sz <<= 1;
	/* not a plausible stack offset: leave it unknown */
	if (off < sz)
		thread_size = sz;
}

/* 1: interrupt context, 0: task context, -1: cannot tell (yet). */
static __always_inline int in_irq_context(void)
{
	struct task_struct *cur = (void *)bpf_get_current_task();
	__u64 sz = thread_size;

	if (!sz || !bpf_core_field_exists(cur->stack))
		return -1;
	return stack_offset(cur) >= sz;
}

#endif /* CORE_FIXES_BPF_H */
