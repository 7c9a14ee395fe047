// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Test object: sched_switch's 4th argument (5.18+) read through raw_tp. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

unsigned long last_state;

SEC("raw_tp/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev,
	     struct task_struct *next, unsigned int prev_state)
{
	last_state = prev_state;
	return 0;
}
