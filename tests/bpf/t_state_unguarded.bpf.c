// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Test object: reads task_struct.state with no guard (it is __state since 5.14). */
#include "t_state.bpf.h"

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev)
{
	struct task_struct___o *o = (void *)prev;

	last_state = BPF_CORE_READ(o, state);
	return 0;
}
