// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test object: the unguarded read of task_struct.state in a BPF-to-BPF
 * subprogram (.text): rejected on 5.14+ through the program that calls it.
 */
#include "t_state.bpf.h"

static __noinline long old_state(struct task_struct *t)
{
	struct task_struct___o *o = (void *)t;

	return BPF_CORE_READ(o, state);
}

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev)
{
	last_state = old_state(prev);
	return 0;
}
