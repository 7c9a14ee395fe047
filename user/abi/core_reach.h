/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Which instructions of a CO-RE-relocated BPF program the verifier walks:
 * branches decided by constants (the values exists-, size- and enum-
 * relocations resolve to) are followed one way only, as the verifier does.
 */
#ifndef ABICAP_CORE_REACH_H
#define ABICAP_CORE_REACH_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>

enum reach_mark {
	REACH_PLAIN, /* the instruction as it stands */
	REACH_UNKNOWN, /* relocated to a value not known here: its result is unknown */
	REACH_POISON, /* libbpf poisons it: the verifier rejects it if reached */
};

struct reach_result {
	bool calls_subprog; /* a reachable BPF-to-BPF call: not followed */
	int first_poison; /* the first reachable poisoned instruction, or -1 */
};

/*
 * Mark reach[i] for each of the n instructions the verifier can get to,
 * with mark[i] for each: 0, -EINVAL with err (a jump out of the program),
 * or -ENOMEM.
 */
int core_reach(const struct bpf_insn *insns, size_t n,
	       const enum reach_mark *mark, bool *reach,
	       struct reach_result *res, char *err, size_t errlen);

#endif
