/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What the test objects on task_struct's state share: a sched_switch
 * program reads prev's state, new (__state, 5.14+) or old (the "___o"
 * flavour below), rightly guarded or not, into last_state.
 */
#ifndef T_STATE_BPF_H
#define T_STATE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

/* task_struct.state, renamed __state in 5.14 */
struct task_struct___o {
	long state;
} __attribute__((preserve_access_index));

long last_state;

#endif
