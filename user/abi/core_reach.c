// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Reachability of a relocated BPF program's instructions, the part of the
 * verifier that decides whether a poisoned CO-RE relocation matters: libbpf
 * replaces an instruction whose relocation fails with a call to an invalid
 * helper (0xbad2310), and the verifier rejects it only if it gets there.
 * The verifier follows only one side of a conditional jump whose operands
 * are known constants (is_branch_taken(), long before 5.10), so a read
 * behind bpf_core_field_exists() == 0 is never looked at.
 *
 * Constants are propagated through registers (moves, ALU operations on
 * constants, 64-bit immediates) and merged where paths join: a register is
 * known only if every path agrees. The verifier is path-sensitive and also
 * tracks ranges and stack spills, so where this analysis sees a branch as
 * open the verifier may still prove it dead; it never sees a branch as
 * dead that the verifier would walk. Its error is a false "rejected",
 * never a false "loads".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi/core_reach.h"

struct reg {
	bool known;
	__u64 val;
};

struct state {
	bool set;
	struct reg r[MAX_BPF_REG];
};

static bool is_ldimm64(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_IMM | BPF_DW);
}

/*
 * dst OP src on 64 bits (alu64) or on the low 32, zero-extended; false
 * where the verifier of the oldest kernel that matters (5.10) stops knowing
 * the value: division, modulo and negation (adjust_scalar_min_max_vals()
 * leaves them unknown), shifts by the width or more.
 */
static bool alu(__u8 op, bool alu64, __u64 d, __u64 s, __u64 *out)
{
	unsigned int width = alu64 ? 64 : 32;

	if (!alu64) {
		d = (__u32)d;
		s = (__u32)s;
	}
	switch (op) {
	case BPF_ADD: d += s; break;
	case BPF_SUB: d -= s; break;
	case BPF_MUL: d *= s; break;
	case BPF_OR: d |= s; break;
	case BPF_AND: d &= s; break;
	case BPF_XOR: d ^= s; break;
	case BPF_LSH:
	case BPF_RSH:
	case BPF_ARSH:
		if (s >= width)
			return false;
		if (op == BPF_LSH)
			d <<= s;
		else if (op == BPF_RSH)
			d >>= s;
		else if (alu64)
			d = (__u64)((__s64)d >> s);
		else
			d = (__u32)((__s32)d >> s);
		break;
	default:
		return false;
	}
	*out = alu64 ? d : (__u32)d;
	return true;
}

/* Whether a conditional jump is taken: 1, 0, or -1 when not decided. */
static int taken(__u8 op, bool jmp32, __u64 d, __u64 s)
{
	__s64 sd = (__s64)d, ss = (__s64)s;

	if (jmp32) {
		d = (__u32)d;
		s = (__u32)s;
		sd = (__s32)d;
		ss = (__s32)s;
	}
	switch (op) {
	case BPF_JEQ: return d == s;
	case BPF_JNE: return d != s;
	case BPF_JGT: return d > s;
	case BPF_JGE: return d >= s;
	case BPF_JLT: return d < s;
	case BPF_JLE: return d <= s;
	case BPF_JSET: return (d & s) != 0;
	case BPF_JSGT: return sd > ss;
	case BPF_JSGE: return sd >= ss;
	case BPF_JSLT: return sd < ss;
	case BPF_JSLE: return sd <= ss;
	}
	return -1;
}

struct walk {
	const struct bpf_insn *insns;
	size_t n;
	struct state *st;
	size_t *work;
	size_t nwork;
	bool *queued;
};

/* Merge s into the state at pc; queue pc if that changed what is known there. */
static int flow(struct walk *w, size_t pc, const struct state *s)
{
	struct state *t;
	bool changed = false;

	if (pc >= w->n)
		return -1;
	t = &w->st[pc];
	if (!t->set) {
		*t = *s;
		changed = true;
	} else {
		for (int i = 0; i < MAX_BPF_REG; i++) {
			if (!t->r[i].known ||
			    (s->r[i].known && s->r[i].val == t->r[i].val))
				continue;
			t->r[i].known = false;
			changed = true;
		}
	}
	if (changed && !w->queued[pc]) {
		w->queued[pc] = true;
		w->work[w->nwork++] = pc;
	}
	return 0;
}

static void clobber_call(struct state *s)
{
	for (int i = BPF_REG_0; i <= BPF_REG_5; i++)
		s->r[i].known = false;
}

/* One instruction: the state after it, and where control goes. */
static int step(struct walk *w, size_t pc, const enum reach_mark *mark,
		struct reach_result *res)
{
	const struct bpf_insn *in = &w->insns[pc];
	struct state s = w->st[pc];
	__u8 cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
	bool k = BPF_SRC(in->code) == BPF_K;
	struct reg *dst, src;
	int t;

	if (in->dst_reg >= MAX_BPF_REG || in->src_reg >= MAX_BPF_REG)
		return -1;
	dst = &s.r[in->dst_reg];
	if (mark[pc] == REACH_POISON) {
		if (res->first_poison < 0 || (size_t)res->first_poison > pc)
			res->first_poison = pc;
		return 0; /* the verifier stops here */
	}
	if (k)
		src = (struct reg){ true, (__u64)(__s64)in->imm };
	else
		src = s.r[in->src_reg];
	switch (cls) {
	case BPF_ALU:
	case BPF_ALU64:
		if (mark[pc] == REACH_UNKNOWN) {
			dst->known = false;
		} else if (op == BPF_MOV) {
			/* off != 0: sign-extending moves (cpu v4) */
			dst->known = src.known && !in->off;
			dst->val = cls == BPF_ALU64 ? src.val : (__u32)src.val;
		} else if (op == BPF_END) {
			dst->known = false;
		} else {
			dst->known = dst->known && src.known &&
				     alu(op, cls == BPF_ALU64, dst->val, src.val,
					 &dst->val);
		}
		return flow(w, pc + 1, &s);
	case BPF_LD:
		if (is_ldimm64(in)) {
			if (pc + 1 >= w->n)
				return -1;
			dst->known = mark[pc] != REACH_UNKNOWN && !in->src_reg;
			dst->val = (__u32)in->imm | (__u64)(__u32)in[1].imm << 32;
			return flow(w, pc + 2, &s);
		}
		clobber_call(&s); /* LD_ABS, LD_IND */
		return flow(w, pc + 1, &s);
	case BPF_LDX:
		dst->known = false;
		return flow(w, pc + 1, &s);
	case BPF_ST:
		return flow(w, pc + 1, &s);
	case BPF_STX:
		if (BPF_MODE(in->code) == BPF_ATOMIC) {
			s.r[in->src_reg].known = false;
			s.r[BPF_REG_0].known = false;
		}
		return flow(w, pc + 1, &s);
	case BPF_JMP:
	case BPF_JMP32:
		if (op == BPF_EXIT)
			return 0;
		if (op == BPF_CALL) {
			if (in->src_reg == BPF_PSEUDO_CALL)
				res->calls_subprog = true;
			clobber_call(&s);
			return flow(w, pc + 1, &s);
		}
		if (op == BPF_JA)
			return flow(w, pc + 1 + (cls == BPF_JMP ? in->off : in->imm), &s);
		if (!k && cls == BPF_JMP32)
			src.val = (__u32)src.val;
		if (k && cls == BPF_JMP32)
			src.val = (__u32)in->imm;
		t = dst->known && src.known ?
		    taken(op, cls == BPF_JMP32, dst->val, src.val) : -1;
		if (t != 1 && flow(w, pc + 1, &s))
			return -1;
		if (t != 0 && flow(w, pc + 1 + in->off, &s))
			return -1;
		return 0;
	}
	return -1;
}

int core_reach(const struct bpf_insn *insns, size_t n,
	       const enum reach_mark *mark, bool *reach,
	       struct reach_result *res, char *err, size_t errlen)
{
	struct walk w = { .insns = insns, .n = n };
	struct state entry = { .set = true };
	int ret = -ENOMEM;

	res->calls_subprog = false;
	res->first_poison = -1;
	memset(reach, 0, n * sizeof(*reach));
	if (!n)
		return 0;
	w.st = calloc(n, sizeof(*w.st));
	w.work = calloc(n, sizeof(*w.work));
	w.queued = calloc(n, sizeof(*w.queued));
	if (!w.st || !w.work || !w.queued) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	flow(&w, 0, &entry);
	while (w.nwork) {
		size_t pc = w.work[--w.nwork];

		w.queued[pc] = false;
		reach[pc] = true;
		if (step(&w, pc, mark, res)) {
			snprintf(err, errlen, "instruction %zu: a jump out of the "
				 "program or an invalid register", pc);
			ret = -EINVAL;
			goto out;
		}
	}
	ret = 0;
out:
	free(w.st);
	free(w.work);
	free(w.queued);
	return ret;
}
