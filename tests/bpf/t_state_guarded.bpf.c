// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Test object: __state or state, behind bpf_core_field_exists(): loads everywhere. */
#include "t_state.bpf.h"

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev)
{
	struct task_struct___o *o = (void *)prev;

	if (bpf_core_field_exists(prev->__state))
		last_state = BPF_CORE_READ(prev, __state);
	else
		last_state = BPF_CORE_READ(o, state);
	return 0;
}
