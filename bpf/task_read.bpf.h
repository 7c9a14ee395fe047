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

/*
 * dst must be 8-byte aligned (the records' comm fields are, and so is
 * every local copy): said so, the direct copy is two 8-byte loads and
 * stores; without it clang copies byte by byte (32 instructions a comm,
 * about 15 ns a sched_switch), since a parameter's alignment is not known.
 */
static __always_inline void task_comm(char dst[16], struct task_struct *t,
				      const bool direct)
{
	if (direct)
		__builtin_memcpy(__builtin_assume_aligned(dst, 8), t->comm, 16);
	else
		bpf_core_read(dst, 16, &t->comm);
}

#endif /* ABICAP_TASK_READ_BPF_H */
