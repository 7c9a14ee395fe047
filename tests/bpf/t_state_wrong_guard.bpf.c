// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test object: an exists-check that does not guard the read behind it. The
 * old task_struct.state is read where __state exists (the branches swapped):
 * rejected on 5.14+, loads on 5.10, where the branch is dead.
 */
#include "t_state.bpf.h"

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev)
{
	struct task_struct___o *o = (void *)prev;

	if (bpf_core_field_exists(prev->__state))
		last_state = BPF_CORE_READ(o, state);
	else
		last_state = prev->pid;
	return 0;
}
