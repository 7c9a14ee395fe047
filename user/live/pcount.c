// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Where preempt_count is (the kernel's BTF says), and whether the wakeup
 * programs may read it with one plain load: the *_pc variants call the
 * kfunc bpf_rdonly_cast (6.2+), and a program that calls a kfunc loads
 * only where the JIT is on, so they are chosen only then; the others read
 * it with a probe read (bpf/core_fixes.bpf.h, in_irq_context).
 */
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "live/pcount.h"
#include "live/features.h"
#include "abi/btf_util.h"

/*
 * task_struct.thread_info.preempt_count (arm64 and others), or on x86 a
 * per-CPU variable, __preempt_count or pcpu_hot.preempt_count (6.2-6.14),
 * given as its distance in the per-CPU section from the run queue
 * `runqueues`.
 */
static enum abicap_pc_where place(const struct btf *btf, __s64 *off)
{
	long long rq = -1, pc = -1;
	const struct btf_type *t;
	__u32 bits = 0;
	int id;

	if (btf_find_member(btf, btf_find_struct(btf, "task_struct"),
			    "thread_info.preempt_count", &bits)) {
		*off = bits / 8;
		return ABICAP_PC_TASK;
	}
	id = btf__find_by_name_kind(btf, ".data..percpu", BTF_KIND_DATASEC);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	for (int i = 0; t && i < btf_vlen(t); i++) {
		const struct btf_var_secinfo *v = btf_var_secinfos(t) + i;
		const char *name = btf__name_by_offset(btf,
				btf__type_by_id(btf, v->type)->name_off);

		if (!strcmp(name, "runqueues"))
			rq = v->offset;
		else if (!strcmp(name, "__preempt_count"))
			pc = v->offset;
		else if (!strcmp(name, "pcpu_hot") && pc < 0 &&
			 btf_find_member(btf, btf_find_struct(btf, "pcpu_hot"),
					 "preempt_count", &bits))
			pc = v->offset + bits / 8;
	}
	if (rq < 0 || pc < 0)
		return ABICAP_PC_NONE;
	*off = pc - rq;
	return ABICAP_PC_PERCPU;
}

void pcount_plan(struct pcount *pc, bool rq_ok, bool tstore)
{
	struct btf *btf = btf__load_vmlinux_btf();

	memset(pc, 0, sizeof(*pc));
	if (!btf)
		return;
	pc->where = place(btf, &pc->off);
	/* x86's place is reached through current's run queue: its items must hold */
	if (pc->where == ABICAP_PC_PERCPU && !rq_ok)
		pc->where = ABICAP_PC_NONE;
	pc->plain = pc->where == ABICAP_PC_PERCPU && tstore &&
		    feature_jit_enabled() > 0 &&
		    btf__find_by_name_kind(btf, "bpf_rdonly_cast",
					   BTF_KIND_FUNC) > 0;
	btf__free(btf);
}
