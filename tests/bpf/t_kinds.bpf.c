// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Test object: every CO-RE relocation kind, on things every kernel since 5.8 has. */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

long out[12];

SEC("tp_btf/sched_switch")
int BPF_PROG(on_switch, bool preempt, struct task_struct *prev)
{
	out[0] = BPF_CORE_READ(prev, pid); /* field_byte_offset */
	out[1] = bpf_core_field_size(prev->comm); /* field_byte_size */
	out[2] = bpf_core_field_exists(prev->tgid); /* field_exists */
	/* byte offset and size, signed, lshift, rshift */
	out[3] = BPF_CORE_READ_BITFIELD_PROBED(prev, sched_reset_on_fork);
	out[4] = bpf_core_type_exists(struct sched_ext_entity); /* type_exists */
	out[5] = bpf_core_type_size(struct task_struct); /* type_size */
	out[6] = bpf_core_type_id_kernel(struct task_struct); /* type_id_target */
	out[7] = bpf_core_type_id_local(struct task_struct); /* type_id_local */
	out[8] = bpf_core_enum_value_exists(enum bpf_map_type,
					    BPF_MAP_TYPE_RINGBUF); /* enumval_exists */
	out[9] = bpf_core_enum_value(enum bpf_map_type, BPF_MAP_TYPE_RINGBUF);
	return 0;
}
