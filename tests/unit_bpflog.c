// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What a failed load was: libbpf 1.1's own warnings, as it sends them, name
 * the map or the program and the verifier's reason. A failed load closes
 * every map, so the maps' state afterwards cannot say (a riscv64 7.2
 * kernel with its JIT off refused a program, and abicap blamed the ring
 * buffer's size).
 */
#include <criterion/criterion.h>
#include <bpf/libbpf.h>
#include "lib/bpflog.h"

Test(bpflog, a_refused_program_and_the_verifiers_reason)
{
	const struct bpflog_failure *f = bpflog_failure();

	bpflog_reset();
	bpflog_note(LIBBPF_INFO, "libbpf: map 'events': created successfully, fd=3\n");
	bpflog_note(LIBBPF_WARN, "libbpf: prog 'tp_btf_sched_switch': BPF program load "
		    "failed: Invalid argument\n");
	bpflog_note(LIBBPF_WARN, "libbpf: prog 'tp_btf_sched_switch': -- BEGIN PROG "
		    "LOAD LOG --\n0: R1=ctx() R10=fp0\n; int x\nprogram requires "
		    "BPF JIT compiler but it is not available\nprocessed 356 "
		    "insns (limit 1000000) max_states_per_insn 1\n-- END PROG "
		    "LOAD LOG --\n");
	bpflog_note(LIBBPF_WARN, "libbpf: failed to load object 'abicap_bpf'\n");
	cr_assert_str_eq(f->map, "");
	cr_assert_str_eq(f->prog, "tp_btf_sched_switch");
	cr_assert_str_eq(f->why, "program requires BPF JIT compiler but it is "
			 "not available");
}

Test(bpflog, a_map_the_kernel_would_not_create)
{
	const struct bpflog_failure *f = bpflog_failure();

	bpflog_reset();
	bpflog_note(LIBBPF_WARN, "libbpf: map 'events': failed to create: Operation "
		    "not permitted(-1)\n");
	bpflog_note(LIBBPF_WARN, "libbpf: prog 'x': BPF program load failed: "
		    "-EINVAL\n");
	cr_assert_str_eq(f->map, "events");
	cr_assert_str_eq(f->prog, "", "only the first failure is kept");
	bpflog_reset();
	cr_assert_str_eq(f->map, "");
	/* informational lines and other warnings name nothing */
	bpflog_note(LIBBPF_WARN, "libbpf: failed to find valid kernel BTF\n");
	bpflog_note(LIBBPF_DEBUG, "map 'x': failed to create: nothing\n");
	cr_assert_str_eq(f->map, "");
	cr_assert_str_eq(f->prog, "");
}
