// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Test object: an exists-check that does not guard the read behind it. The
 * old task_struct.state is read where __state exists (the branches swapped):
 * rejected on 5.14+, loads on 5.10, where the branch is dead.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

struct task_struct___o {
	long state;
} __attribute__((preserve_access_index));

long last_state;

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
