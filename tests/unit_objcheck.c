// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap check --object's matching on kernels built with libbpf's BTF
 * writer: the test objects (tests/bpf/) against a 5.10-era and a modern
 * kernel, with the outcome of every relocation that decides the load.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "harness.h"
#include "objfix.h"
#include "abi/contract.h"
#include "abi/contract_derive.h"
#include "abi/core_reach.h"
#include "abi/objcheck.h"
#include "lib/util.h"

static struct core_object o;
static struct obj_result r;

static void run(const char *obj, const struct kfix *k)
{
	char err[ERRMSG_LEN];
	struct btf *b = kfix_build(k);

	cr_assert_eq(core_object_open(obj, &o, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(objcheck(&o, b, &r), 0);
	btf__free(b);
}

static void fini(void)
{
	obj_result_free(&r);
	core_object_close(&o);
}

/* The relocation of kind `kind` on `what` (flavour.path). */
static const struct obj_relo *relo(const char *what, __u32 kind)
{
	for (int i = 0; i < o.nrelos; i++)
		if (o.relos[i].kind == kind && !strcmp(r.relos[i].r.what, what))
			return &r.relos[i];
	cr_assert_fail("no %s relocation on %s", core_kind_str(kind), what);
	return NULL;
}

TestSuite(objcheck, .fini = fini);

Test(objcheck, programs_and_attach_points_from_the_object)
{
	run("build/tests/bpf/t_switch4_raw_tp.bpf.o", &(struct kfix){ 0 });
	cr_assert_eq(o.nprogs, 1);
	cr_assert_str_eq(o.progs[0].name, "on_switch");
	cr_assert_str_eq(o.progs[0].attach, "raw_tp");
	cr_assert_str_eq(o.progs[0].target, "sched_switch");
	cr_assert_eq(o.progs[0].ctx_args, 4);
	cr_assert(r.loads);
}

/*
 * A program off by default (SEC("?tp_btf/...")), as all of abicap's own
 * are: its attach point is read past the '?', and it is checked like any.
 */
Test(objcheck, a_program_off_by_default_is_checked_like_any)
{
	int k;

	run("build/abicap.bpf.o", &(struct kfix){ 0 });
	for (k = 0; k < o.nprogs && strcmp(o.progs[k].name, "raw_tp_sched_switch"); k++)
		;
	cr_assert_lt(k, o.nprogs, "no program raw_tp_sched_switch");
	cr_assert_str_eq(o.progs[k].section, "?raw_tp/sched_switch");
	cr_assert_str_eq(o.progs[k].attach, "raw_tp");
	cr_assert_str_eq(o.progs[k].target, "sched_switch");
	cr_assert_eq(o.progs[k].ctx_args, 4);
	cr_assert(r.progs[k].loads);
}

Test(objcheck, raw_tp_reading_4_args_is_rejected_on_3_arg_kernels)
{
	run("build/tests/bpf/t_switch4_raw_tp.bpf.o", &KFIX_5_10);
	cr_assert_not(r.loads);
	cr_assert_not(r.progs[0].attach_ok);
	cr_assert_str_eq(r.progs[0].attach_detail, "reads argument 4, but "
			 "sched_switch has 3 here: attach fails with EINVAL");
}

Test(objcheck, unguarded_state_fails_on_modern_kernels)
{
	const struct obj_relo *x;

	run("build/tests/bpf/t_state_unguarded.bpf.o", &(struct kfix){ 0 });
	cr_assert_not(r.loads);
	cr_assert_eq(r.failed, 1);
	x = relo("task_struct___o.state", 0);
	cr_assert_eq(x->r.outcome, CORE_FAILED);
	cr_assert_not(x->guarded);
	cr_assert(x->reachable);
	cr_assert_str_eq(x->r.detail, "task_struct.state: not found; this "
			 "kernel has task_struct.__state (u32)");
}

Test(objcheck, unguarded_state_loads_on_5_10)
{
	const struct obj_relo *x;

	run("build/tests/bpf/t_state_unguarded.bpf.o", &KFIX_5_10);
	cr_assert(r.loads);
	x = relo("task_struct___o.state", 0);
	/* the fixture's state is at offset 16, the object's local type at 0 */
	cr_assert_eq(x->r.outcome, CORE_RESOLVED_DIFFERENT);
	cr_assert_eq(x->r.local, 0);
	cr_assert_eq(x->r.target, 16);
}

Test(objcheck, guarded_pair_loads_everywhere)
{
	const struct obj_relo *x;

	run("build/tests/bpf/t_state_guarded.bpf.o", &(struct kfix){ 0 });
	cr_assert(r.loads);
	x = relo("task_struct___o.state", 0);
	cr_assert_eq(x->r.outcome, CORE_FAILED);
	cr_assert(x->guarded);
	cr_assert_not(x->reachable);
	cr_assert_eq(r.failed, 0);
	cr_assert_eq(r.failed_unreached, 1);
	fini();
	run("build/tests/bpf/t_state_guarded.bpf.o", &KFIX_5_10);
	cr_assert(r.loads);
	x = relo("task_struct.__state", 2);
	cr_assert_eq(x->r.outcome, CORE_ABSENT);
	cr_assert(relo("task_struct.__state", 0)->guarded);
}

Test(objcheck, every_relocation_kind_is_read)
{
	bool seen[13] = { false };

	run("build/tests/bpf/t_kinds.bpf.o", &(struct kfix){ 0 });
	for (int i = 0; i < o.nrelos; i++)
		if (o.relos[i].kind < 13)
			seen[o.relos[i].kind] = true;
	for (int k = 0; k <= 11; k++)
		cr_assert(seen[k], "no %s relocation", core_kind_str(k));
	/* field_exists on tgid resolves; the fixture has no sched_ext_entity */
	cr_assert_eq(relo("task_struct.tgid", 2)->r.outcome, CORE_RESOLVED);
	cr_assert_eq(relo("sched_ext_entity", 8)->r.outcome, CORE_ABSENT);
}

/*
 * Issue 17: an exists-check guards only the branch it decides. Reading the
 * old state where __state exists (the branches swapped) is reached, and
 * rejected, on modern kernels; on 5.10 the branch is dead and it loads.
 */
Test(objcheck, swapped_branches_are_rejected_where_the_read_is_reached)
{
	const struct obj_relo *x;

	run("build/tests/bpf/t_state_wrong_guard.bpf.o", &(struct kfix){ 0 });
	cr_assert_not(r.loads);
	cr_assert_eq(r.failed, 1);
	x = relo("task_struct___o.state", 0);
	cr_assert_eq(x->r.outcome, CORE_FAILED);
	cr_assert(x->reachable);
	fini();
	run("build/tests/bpf/t_state_wrong_guard.bpf.o", &KFIX_5_10);
	cr_assert(r.loads);
	cr_assert_eq(r.failed, 0);
	/* pid is read in the other branch, which is the live one here */
	cr_assert(relo("task_struct.pid", 0)->reachable);
	cr_assert_not(relo("task_struct___o.state", 0)->reachable);
}

/* An exists-check on another field (pid, always there) guards nothing. */
Test(objcheck, a_guard_on_another_field_guards_nothing)
{
	const struct obj_relo *x;

	run("build/tests/bpf/t_other_guard.bpf.o", &(struct kfix){ 0 });
	cr_assert_not(r.loads);
	cr_assert_eq(r.failed, 1);
	cr_assert_eq(r.failed_unreached, 0);
	x = relo("task_struct___o.state", 0);
	cr_assert(x->reachable);
	fini();
	run("build/tests/bpf/t_other_guard.bpf.o", &KFIX_5_10);
	cr_assert(r.loads);
	cr_assert_eq(relo("task_struct___o.state", 0)->r.outcome,
		     CORE_RESOLVED_DIFFERENT);
}

/* Instructions for core_reach(), spelled out. */
#define I(c, d, s_, o, i) ((struct bpf_insn){ .code = (c), .dst_reg = (d), \
					      .src_reg = (s_), .off = (o), .imm = (i) })
#define MOV64(d, i) I(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV32(d, i) I(BPF_ALU | BPF_MOV | BPF_K, d, 0, 0, i)
#define LDX(d, s_) I(BPF_LDX | BPF_MEM | BPF_DW, d, s_, 0, 0)
#define JK(op, d, i, o) I(BPF_JMP | (op) | BPF_K, d, 0, o, i)
#define J32K(op, d, i, o) I(BPF_JMP32 | (op) | BPF_K, d, 0, o, i)
#define JA(o) I(BPF_JMP | BPF_JA, 0, 0, o, 0)
#define POISON I(BPF_JMP | BPF_CALL, 0, 0, 0, 195896080)
#define EXIT I(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)

/* The first poisoned instruction reached, -1 if none; insn `poison` is poisoned. */
static int first_poison(const struct bpf_insn *in, size_t n, int poison,
			int unknown)
{
	enum reach_mark mark[16] = { 0 };
	bool reach[16];
	struct reach_result res;
	char err[128];

	cr_assert_leq(n, 16);
	mark[poison] = REACH_POISON;
	if (unknown >= 0)
		mark[unknown] = REACH_UNKNOWN;
	cr_assert_eq(core_reach(in, n, mark, reach, &res, err, sizeof(err)), 0,
		     "%s", err);
	return res.first_poison;
}

Test(objcheck, reach_follows_a_constant_branch_one_way)
{
	struct bpf_insn p[] = {
		MOV64(1, 1), JK(BPF_JEQ, 1, 0, 1), POISON, EXIT,
	};

	/* exists == 1: the read behind it is reached */
	cr_assert_eq(first_poison(p, 4, 2, -1), 2);
	p[0].imm = 0;
	cr_assert_eq(first_poison(p, 4, 2, -1), -1);
	/* a value this analysis does not know: both ways */
	cr_assert_eq(first_poison(p, 4, 2, 0), 2);
}

Test(objcheck, reach_compares_like_the_verifier)
{
	/* 1 << 32: zero in the low 32 bits that jmp32 compares */
	struct bpf_insn wide[] = {
		I(BPF_LD | BPF_IMM | BPF_DW, 1, 0, 0, 0), I(0, 0, 0, 0, 1),
		J32K(BPF_JEQ, 1, 0, 1), POISON, EXIT,
	};
	/* -1 signed is below 0; unsigned it is not */
	struct bpf_insn sign[] = {
		MOV64(1, -1), JK(BPF_JSLT, 1, 0, 1), POISON,
		JK(BPF_JLT, 1, 0, 1), EXIT, POISON, EXIT,
	};
	/* w1 = -1 is 0xffffffff, not the sign-extended -1 of a 64-bit compare */
	struct bpf_insn alu32[] = {
		MOV32(1, -1), JK(BPF_JEQ, 1, -1, 1), EXIT, POISON, EXIT,
	};

	cr_assert_eq(first_poison(wide, 5, 3, -1), -1);
	wide[2].code = BPF_JMP | BPF_JEQ | BPF_K;
	cr_assert_eq(first_poison(wide, 5, 3, -1), 3);
	cr_assert_eq(first_poison(sign, 7, 2, -1), -1);
	cr_assert_eq(first_poison(sign, 7, 5, -1), -1);
	cr_assert_eq(first_poison(alu32, 5, 3, -1), -1);
}

/* Arithmetic the verifier follows on constants, and what 5.10's does not. */
Test(objcheck, reach_computes_only_what_the_verifier_knows)
{
	struct bpf_insn p[] = {
		MOV64(1, 3), I(BPF_ALU64 | BPF_LSH | BPF_K, 1, 0, 0, 2),
		I(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -2),
		JK(BPF_JEQ, 1, 10, 1), POISON, EXIT,
	};

	cr_assert_eq(first_poison(p, 6, 4, -1), -1);
	/* 48 / 4 is 12 to the CPU, unknown to the verifier: both ways */
	p[0] = MOV64(1, 48);
	p[1] = I(BPF_ALU64 | BPF_DIV | BPF_K, 1, 0, 0, 4);
	cr_assert_eq(first_poison(p, 6, 4, -1), 4);
	/* a shift by the width or more is undefined (not 12 << 0): unknown */
	p[0] = MOV64(1, 12);
	p[1] = I(BPF_ALU64 | BPF_LSH | BPF_K, 1, 0, 0, 64);
	cr_assert_eq(first_poison(p, 6, 4, -1), 4);
}

/* Paths that disagree about a register leave it unknown where they join. */
Test(objcheck, reach_merges_paths_that_disagree)
{
	struct bpf_insn p[] = {
		LDX(2, 1), MOV64(1, 0), JK(BPF_JEQ, 2, 0, 1), MOV64(1, 1),
		JK(BPF_JEQ, 1, 0, 1), POISON, EXIT,
	};
	struct bpf_insn agree[] = {
		LDX(2, 1), MOV64(1, 0), JK(BPF_JEQ, 2, 0, 1), MOV64(1, 0),
		JK(BPF_JEQ, 1, 0, 1), POISON, EXIT,
	};

	cr_assert_eq(first_poison(p, 7, 5, -1), 5);
	cr_assert_eq(first_poison(agree, 7, 5, -1), -1);
}

Test(objcheck, reach_refuses_a_jump_out_of_the_program)
{
	struct bpf_insn p[] = { JA(5), EXIT };
	enum reach_mark mark[2] = { 0 };
	bool reach[2];
	struct reach_result res;
	char err[128];

	cr_assert_eq(core_reach(p, 2, mark, reach, &res, err, sizeof(err)), -EINVAL);
	cr_assert(strstr(err, "instruction 0"), "%s", err);
}

/*
 * A failing read in a BPF-to-BPF subprogram (.text) counts against the
 * program that calls it; its branches are not followed.
 */
Test(objcheck, a_subprogram_fails_the_program_that_calls_it)
{
	const struct obj_relo *x;

	run("build/tests/bpf/t_subprog_state.bpf.o", &(struct kfix){ 0 });
	cr_assert_not(r.loads);
	cr_assert_not(r.progs[0].loads);
	cr_assert(r.progs[0].calls_subprog);
	x = relo("task_struct___o.state", 0);
	cr_assert(x->reachable);
	cr_assert_str_eq(o.relos[x - r.relos].program, "old_state (subprogram)");
	fini();
	run("build/tests/bpf/t_subprog_state.bpf.o", &KFIX_5_10);
	cr_assert(r.loads);
}

/*
 * Objects damaged where libbpf's own checks do not look (the relocation
 * records of .BTF.ext): each is refused in one line naming the broken
 * relocation, never read on (issue 23: a type_id of 0xffff crashed check
 * --object and contract from-object; an access string past the type's
 * members gave a contract with "field": "").
 */
static void expect_broken(const struct objfix *f, const char *says)
{
	char err[ERRMSG_LEN] = "";
	char *file = scratch_path("broken.bpf.o");

	objfix_write(f, file);
	cr_assert_eq(core_object_open(file, &o, err, sizeof(err)), -1,
		     "a broken object accepted (%s)", says);
	cr_assert(strstr(err, says), "'%s' lacks '%s'", err, says);
	cr_assert(strstr(err, "rebuild"), "%s", err);
	cr_assert_null(strchr(err, '\n'));
}

Test(objcheck, broken_relocations_are_refused_in_one_line,
     .init = scratch_init, .fini = scratch_fini)
{
	static const struct {
		enum objfix_field field;
		__u32 value;
		const char *says;
	} cases[] = {
		{ OF_TYPE_ID, 0xffff, "CO-RE relocation 1 (on_switch, instruction " },
		{ OF_TYPE_ID, 0xffff, "type [65535], which the object's BTF does "
				      "not have" },
		{ OF_TYPE_ID, 0, "type [0], which the object's BTF does not have" },
		{ OF_ACCESS_STR, 0x7fffffff, "its access string is not in the "
					     "object's BTF" },
		{ OF_KIND, 99, "unknown kind 99" },
	};
	struct objfix f;
	char *acc;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		objfix_load(&f, "build/tests/bpf/t_state_guarded.bpf.o");
		objfix_set(&f, cases[i].field, cases[i].value);
		expect_broken(&f, cases[i].says);
		objfix_free(&f);
	}
	/* found by fuzz_object: libbpf copied a .BTF without data from NULL */
	for (int i = 0; i < 2; i++) {
		const char *sec = i ? ".BTF.ext" : ".BTF";

		objfix_load(&f, "build/tests/bpf/t_state_guarded.bpf.o");
		objfix_section_type(&f, sec, 8 /* SHT_NOBITS */);
		expect_broken(&f, i ? "its .BTF.ext section holds no data" :
			      "its .BTF section holds no data");
		objfix_free(&f);
	}

	/* "0:1" (task_struct.__state) on task_struct___o, which has one member */
	objfix_load(&f, "build/tests/bpf/t_state_guarded.bpf.o");
	acc = objfix_access(&f);
	cr_assert_str_eq(acc, "0:1");
	objfix_set(&f, OF_TYPE_ID, objfix_type(&f, "task_struct___o"));
	expect_broken(&f, "access string '0:1' steps past the type: struct "
		      "task_struct___o has no member 1");
	/* not a number */
	acc[2] = 'x';
	expect_broken(&f, "is not a list of indexes");
	objfix_free(&f);
}

/*
 * An object made to cost: one program of n instructions with g
 * exists-checks, each needing two passes over the program to see what it
 * guards (a 3.6 MB object with 4,000 checks took 45 s before issue 23).
 * The work is counted, and past OBJ_BUDGET refused.
 */
static void costly(struct core_object *x, int n, int g)
{
	struct btf *b = btf__new_empty();
	int ts, in;

	memset(x, 0, sizeof(*x));
	in = btf__add_int(b, "int", 4, BTF_INT_SIGNED);
	ts = btf__add_struct(b, "task_struct", 4);
	cr_assert_eq(btf__add_field(b, "pid", in, 0, 0), 0);
	x->btf = b;
	x->nprogs = 1;
	x->progs = calloc(1, sizeof(*x->progs));
	snprintf(x->progs[0].name, sizeof(x->progs[0].name), "p");
	snprintf(x->progs[0].section, sizeof(x->progs[0].section), "tp_btf/x");
	x->progs[0].size = n * sizeof(struct bpf_insn);
	x->progs[0].insns = calloc(n, sizeof(struct bpf_insn));
	for (int i = 0; i < n; i++)
		x->progs[0].insns[i] = (struct bpf_insn){
			.code = i == n - 1 ? BPF_JMP | BPF_EXIT :
				BPF_ALU64 | BPF_MOV | BPF_K };
	x->nrelos = g;
	x->relos = calloc(g, sizeof(*x->relos));
	for (int i = 0; i < g; i++) {
		struct core_access *a = &x->relos[i];

		a->insn_off = i * sizeof(struct bpf_insn);
		a->type_id = ts;
		a->kind = CORE_FIELD_EXISTS;
		snprintf(a->root, sizeof(a->root), "task_struct");
		snprintf(a->flavour, sizeof(a->flavour), "task_struct");
		snprintf(a->path, sizeof(a->path), "pid");
		snprintf(a->access, sizeof(a->access), "0:0");
	}
}

Test(objcheck, analysis_is_counted_and_bounded, .timeout = 60)
{
	struct btf *k = kfix_build(&(struct kfix){ 0 });
	char msg[ERRMSG_LEN];
	int rc;

	/* 10 checks: one pass, then two per check, each 100 + 10 */
	costly(&o, 100, 10);
	cr_assert_eq(objcheck(&o, k, &r), 0);
	cr_assert_eq(r.analysed, 21 * 110);
	cr_assert(r.loads);
	fini();
	/* 1,100 checks on 8,000 instructions: 2,201 passes of 9,100 */
	costly(&o, 8000, 1100);
	rc = objcheck(&o, k, &r);
	cr_assert_eq(rc, -E2BIG);
	cr_assert_leq(r.analysed, OBJ_BUDGET);
	cr_assert_eq(objcheck_error(rc, "x.bpf.o", msg, sizeof(msg)), EXIT_USAGE);
	cr_assert(strstr(msg, "'x.bpf.o' needs more analysis than abicap's "
			 "budget for one object on one kernel (16777216 "
			 "instructions and relocations followed"), "%s", msg);
	btf__free(k);
}

/*
 * A field relocation whose member path a contract cannot hold (found by
 * fuzz_object: a member named "\x01") was written as a field that check
 * --contract refuses. It becomes a note, and the contract reads back.
 */
Test(objcheck, from_object_notes_what_a_contract_cannot_hold,
     .init = scratch_init, .fini = scratch_fini)
{
	char err[ERRMSG_LEN] = "", *file = scratch_path("odd.bpf.o"), *text;
	struct objfix f;
	struct contract *c;
	json_t *doc;
	char *at;

	objfix_load(&f, "build/tests/bpf/t_state_guarded.bpf.o");
	at = memmem(f.buf + f.strs, f.strs_len, "\0__state\0", 9);
	cr_assert(at);
	memcpy(at + 1, "__st-te", 7);
	objfix_write(&f, file);
	objfix_free(&f);
	cr_assert_eq(core_object_open(file, &o, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(objcheck(&o, o.btf, &r), 0);
	doc = contract_derived(&o, &r, contract_derived_events(&o, &r), file);
	text = json_dumps(doc, 0);
	c = contract_parse(text, strlen(text), "derived", err, sizeof(err));
	cr_assert(c, "%s", err);
	cr_assert(strstr(text, "field_exists of task_struct.__st-te (guarded), "
			 "not a member path of a type a contract holds"), "%s", text);
	cr_assert_null(strstr(text, "\"field\": \"__st-te\""));
	contract_free(c);
	free(text);
	json_decref(doc);
}

/* A program's section names no tracepoint (found by fuzz_object): no event is derived from it. */
Test(objcheck, from_object_derives_no_event_from_a_bad_section_name,
     .init = scratch_init, .fini = scratch_fini)
{
	char err[ERRMSG_LEN] = "", *file = scratch_path("odd.bpf.o");
	struct objfix f;
	json_t *events;
	char *at;

	objfix_load(&f, "build/tests/bpf/t_state_guarded.bpf.o");
	/* in the section table and in .BTF's strings (.BTF.ext's section names) */
	while ((at = memmem(f.buf, f.len, "tp_btf/sched_switch", 19)))
		at[14] = ',';
	objfix_write(&f, file);
	objfix_free(&f);
	cr_assert_eq(core_object_open(file, &o, err, sizeof(err)), 0, "%s", err);
	cr_assert_str_eq(o.progs[0].target, "sched_s,itch");
	cr_assert_eq(objcheck(&o, o.btf, &r), 0);
	events = contract_derived_events(&o, &r);
	cr_assert_eq(json_array_size(events), 0);
	json_decref(events);
}
