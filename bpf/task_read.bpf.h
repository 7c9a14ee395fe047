/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Reading a task in either program variant. `direct` is a compile-time
 * constant at every call site: true in tp_btf programs (typed arguments,
 * plain loads), false in raw_tp programs (untyped arguments, every pointer
 * dereference is a CO-RE probe read).
 */
#ifndef ABICAP_TASK_READ_BPF_H
#define ABICAP_TASK_READ_BPF_H

#include <bpf/bpf_core_read.h>

#define TASK_FIELD(direct, t, f) ((direct) ? (t)->f : BPF_CORE_READ(t, f))

static __always_inline void task_comm(char dst[16], struct task_struct *t,
				      const bool direct)
{
	if (direct)
		__builtin_memcpy(dst, t->comm, 16);
	else
		bpf_core_read(dst, 16, &t->comm);
}

#endif /* ABICAP_TASK_READ_BPF_H */
