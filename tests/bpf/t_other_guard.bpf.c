// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test object: task_struct___o.state behind an exists-check on another
 * field (pid, in every kernel): the guard is always true, so the read is
 * reached and rejected wherever state is gone (5.14+).
 */
#include "t_state.bpf.h"

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev)
{
	struct task_struct___o *o = (void *)prev;

	if (bpf_core_field_exists(prev->pid))
		last_state = BPF_CORE_READ(o, state);
	return 0;
}
