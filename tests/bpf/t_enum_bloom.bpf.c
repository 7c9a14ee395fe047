// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Test object: an enum value that appears in later kernels (BLOOM_FILTER, 5.16), unguarded. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

long bloom;

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt)
{
	bloom = bpf_core_enum_value(enum bpf_map_type, BPF_MAP_TYPE_BLOOM_FILTER);
	return 0;
}
