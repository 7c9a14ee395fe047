// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The floor for scripts/bench.sh: programs that do nothing, on the
 * tracepoints abicap's busiest programs attach to. bpf_stats' run time of
 * these is the cost of the dispatch and of the stats themselves.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "Dual BSD/GPL";

SEC("tp_btf/sched_switch")
int BPF_PROG(empty_sched_switch)
{
	return 0;
}

SEC("tp_btf/sched_wakeup")
int BPF_PROG(empty_sched_wakeup)
{
	return 0;
}

SEC("tp_btf/sched_waking")
int BPF_PROG(empty_sched_waking)
{
	return 0;
}
