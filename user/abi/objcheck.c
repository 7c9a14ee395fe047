// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap check --object: will this BPF object load on that kernel? Every
 * CO-RE relocation resolved by libbpf's rules, every attach point looked up,
 * and a prediction per program and per kernel.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_util.h"
#include "abi/core_match.h"
#include "abi/core_reach.h"
#include "lib/escape.h"
#include "abi/objcheck.h"
#include "lib/strfit.h"
#include "lib/util.h"

/* Write v where libbpf writes it: an ALU immediate or a 64-bit immediate. */
static void patch(struct bpf_insn *in, size_t left, __u64 v)
{
	__u8 cls = BPF_CLASS(in->code);

	if (in->code == (BPF_LD | BPF_IMM | BPF_DW) && left > 1) {
		in[0].imm = (__u32)v;
		in[1].imm = (__u32)(v >> 32);
	} else if ((cls == BPF_ALU || cls == BPF_ALU64) &&
		   BPF_SRC(in->code) == BPF_K) {
		in->imm = (__s32)v;
	}
}

/*
 * The program's instructions as libbpf hands them to the verifier, as far
 * as branches go: every relocated instruction holds its value (set), is
 * unknown, or is poisoned (fail). mark[] gets one entry per instruction.
 */
struct prog_view {
	struct bpf_insn *insns;
	enum reach_mark *mark;
	bool *reach;
	size_t n;
};

static int view_init(struct prog_view *v, const struct core_prog *p)
{
	v->n = p->size / sizeof(struct bpf_insn);
	v->insns = malloc(p->size + 1);
	v->mark = calloc(v->n + 1, sizeof(*v->mark));
	v->reach = calloc(v->n + 1, sizeof(*v->reach));
	if (!v->insns || !v->mark || !v->reach)
		return -1;
	memcpy(v->insns, p->insns, p->size);
	return 0;
}

static void view_free(struct prog_view *v)
{
	free(v->insns);
	free(v->mark);
	free(v->reach);
}

/*
 * One check of an object against one kernel: the kernel's types indexed,
 * each program's relocations listed, and the budget of analysis (each
 * pass over a program's instructions costs their number, plus its
 * relocations: finding guards takes two passes per exists-check).
 */
struct objwork {
	int *relos; /* relocation indexes grouped by program */
	int *first; /* program pi's are relos[first[pi] .. first[pi + 1]) */
	unsigned long long spent;
	bool over;
};

/* Spend n of the analysis budget: false (and w->over) if it is gone. */
static bool work(struct objwork *w, unsigned long long n)
{
	if (w->over || n > OBJ_BUDGET - w->spent) {
		w->over = true;
		return false;
	}
	w->spent += n;
	return true;
}

/* The relocation's instruction in its program, or -1. */
static long relo_insn(const struct core_object *o, const struct core_access *a)
{
	const struct core_prog *p;

	if (a->prog < 0 || a->insn_off % sizeof(struct bpf_insn))
		return -1;
	p = &o->progs[a->prog];
	if (a->insn_off < p->off || a->insn_off >= p->off + p->size)
		return -1;
	return (a->insn_off - p->off) / sizeof(struct bpf_insn);
}

/*
 * Which relocations of program pi the verifier reaches on this kernel:
 * libbpf's values in, poison where a relocation fails, branches on the
 * constants followed one way. 0, or -1 (out of memory).
 */
static int reach_on_kernel(const struct core_object *o, int pi,
			   struct obj_result *res, struct objwork *w)
{
	struct obj_prog *op = &res->progs[pi];
	int *rel = w->relos + w->first[pi], nrel = w->first[pi + 1] - w->first[pi];
	struct prog_view v = { 0 };
	struct reach_result rr;
	char err[128];
	int ret = -1, rc;

	if (view_init(&v, &o->progs[pi]))
		goto out;
	if (!work(w, v.n + nrel)) {
		ret = -E2BIG;
		goto out;
	}
	for (int j = 0; j < nrel; j++) {
		int i = rel[j];
		long at = relo_insn(o, &o->relos[i]);
		__u64 val;

		if (at < 0)
			continue;
		if (res->relos[i].r.outcome == CORE_FAILED)
			v.mark[at] = REACH_POISON;
		else if (core_relo_value(&o->relos[i], &res->relos[i].r, &val))
			patch(&v.insns[at], v.n - at, val);
		else
			v.mark[at] = REACH_UNKNOWN;
	}
	err[0] = 0;
	rc = core_reach(v.insns, v.n, v.mark, v.reach, &rr, err, sizeof(err));
	if (rc == -ENOMEM)
		goto out;
	if (rc) {
		/* not analysable: every relocation counts as reached */
		snprintf(op->reach_detail, sizeof(op->reach_detail),
			 "branches not followed (%s): every relocation counted "
			 "as reached", err);
		for (size_t i = 0; i < v.n; i++)
			v.reach[i] = true;
		rr.calls_subprog = true;
	}
	op->calls_subprog = rr.calls_subprog;
	for (int j = 0; j < nrel; j++) {
		long at = relo_insn(o, &o->relos[rel[j]]);

		/* off an instruction boundary: counted as reached */
		res->relos[rel[j]].reachable = at < 0 || v.reach[at];
	}
	ret = 0;
out:
	view_free(&v);
	return ret;
}

/*
 * Whether each relocation of program pi sits behind an exists-check, on any
 * kernel: with one check's answer fixed to 0 or 1 and every other relocated
 * value unknown, the verifier would not reach it.
 */
static int guards_of(const struct core_object *o, int pi, struct obj_result *res,
		     struct objwork *w)
{
	int *rel = w->relos + w->first[pi], nrel = w->first[pi + 1] - w->first[pi];
	struct prog_view v = { 0 };
	struct reach_result rr;
	char err[128];
	int ret = -1, rc;

	if (view_init(&v, &o->progs[pi]))
		goto out;
	for (int jg = 0; jg < nrel; jg++) {
		int g = rel[jg];
		long gat = relo_insn(o, &o->relos[g]);

		if (gat < 0 || !core_kind_is_guard(o->relos[g].kind))
			continue;
		for (__u64 answer = 0; answer <= 1; answer++) {
			if (!work(w, v.n + nrel)) {
				ret = -E2BIG;
				goto out;
			}
			memcpy(v.insns, o->progs[pi].insns, o->progs[pi].size);
			for (int j = 0; j < nrel; j++) {
				long at = relo_insn(o, &o->relos[rel[j]]);

				if (at >= 0)
					v.mark[at] = REACH_UNKNOWN;
			}
			v.mark[gat] = REACH_PLAIN;
			patch(&v.insns[gat], v.n - gat, answer);
			rc = core_reach(v.insns, v.n, v.mark, v.reach, &rr, err,
					sizeof(err));
			if (rc == -ENOMEM)
				goto out;
			if (rc)
				break; /* reported by reach_on_kernel() */
			for (int j = 0; j < nrel; j++) {
				long at = relo_insn(o, &o->relos[rel[j]]);

				if (at >= 0 && !v.reach[at])
					res->relos[rel[j]].guarded = true;
			}
		}
	}
	ret = 0;
out:
	view_free(&v);
	return ret;
}

static bool has_func(const struct btf *btf, const char *name)
{
	return btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

/* The program's attach point in this kernel: ok, or why not. */
static bool check_attach(const struct core_prog *p, const struct btf *btf,
			 char *detail, size_t len)
{
	const struct btf_type *proto;
	char lsm[128];
	int nargs;

	detail[0] = 0;
	if (!p->attach[0]) {
		snprintf(detail, len, "no attach point in the section name");
		return true;
	}
	if (!strcmp(p->attach, "tp_btf") || !strcmp(p->attach, "raw_tp") ||
	    !strcmp(p->attach, "tp")) {
		proto = btf_trace_proto(btf, p->target);
		if (!proto) {
			if (strcmp(p->attach, "tp_btf") && !btf_has_trace_types(btf)) {
				snprintf(detail, len, "not checkable: no btf_trace_* "
					 "types in this kernel's BTF");
				return true;
			}
			snprintf(detail, len, "tracepoint %s not in this kernel",
				 p->target);
			return false;
		}
		nargs = btf_vlen(proto) - 1;
		if (p->ctx_args > nargs) {
			snprintf(detail, len, "reads argument %d, but %s has %d "
				 "here: %s", p->ctx_args, p->target, nargs,
				 !strcmp(p->attach, "tp_btf") ? "the verifier "
				 "rejects the load" : "attach fails with EINVAL");
			return false;
		}
		snprintf(detail, len, "%d argument%s%s", nargs,
			 nargs == 1 ? "" : "s",
			 p->ctx_args >= 0 ? " (reads " : "");
		if (p->ctx_args >= 0)
			snprintf(detail + strlen(detail), len - strlen(detail),
				 "%d)", p->ctx_args);
		return true;
	}
	if (!strcmp(p->attach, "fentry") || !strcmp(p->attach, "fexit") ||
	    !strcmp(p->attach, "fmod_ret")) {
		if (has_func(btf, p->target))
			return true;
		snprintf(detail, len, "function %s not in this kernel's BTF",
			 p->target);
		return false;
	}
	if (!strcmp(p->attach, "lsm")) {
		snprintf(lsm, sizeof(lsm), "bpf_lsm_%s", p->target);
		if (has_func(btf, lsm))
			return true;
		snprintf(detail, len, "LSM hook %s not in this kernel", p->target);
		return false;
	}
	if (!strcmp(p->attach, "kprobe") || !strcmp(p->attach, "kretprobe")) {
		if (!has_func(btf, p->target))
			snprintf(detail, len, "warning: %s not in BTF (it may "
				 "still be in kallsyms)", p->target);
		return true;
	}
	return true;
}

/* Group the relocations by program (counting sort): w->relos, w->first. */
static int group_relos(const struct core_object *o, struct objwork *w)
{
	int *fill;

	w->first = calloc(o->nprogs + 2, sizeof(*w->first));
	w->relos = malloc((o->nrelos + 1) * sizeof(*w->relos));
	fill = calloc(o->nprogs + 1, sizeof(*fill));
	if (!w->first || !w->relos || !fill) {
		free(fill);
		return -1;
	}
	for (int i = 0; i < o->nrelos; i++)
		if (o->relos[i].prog >= 0)
			w->first[o->relos[i].prog + 1]++;
	for (int pi = 0; pi < o->nprogs; pi++)
		w->first[pi + 1] += w->first[pi];
	for (int i = 0; i < o->nrelos; i++) {
		int pi = o->relos[i].prog;

		if (pi >= 0)
			w->relos[w->first[pi] + fill[pi]++] = i;
	}
	free(fill);
	return 0;
}

int objcheck(const struct core_object *o, const struct btf *btf,
	     struct obj_result *res)
{
	struct objwork w = { 0 };
	struct core_index *ix;
	bool subprog_calls = false;
	int ret = -1;

	memset(res, 0, sizeof(*res));
	res->nprogs = o->nprogs;
	res->progs = calloc(o->nprogs + 1, sizeof(*res->progs));
	res->relos = calloc(o->nrelos + 1, sizeof(*res->relos));
	ix = core_index_new(btf);
	if (!res->progs || !res->relos || !ix || group_relos(o, &w))
		goto out;
	res->loads = true;
	for (int i = 0; i < o->nprogs; i++) {
		struct obj_prog *p = &res->progs[i];

		p->loads = p->attach_ok = check_attach(&o->progs[i], btf,
						       p->attach_detail,
						       sizeof(p->attach_detail));
	}
	for (int i = 0; i < o->nrelos; i++) {
		core_match(o->btf, &o->relos[i], btf, ix, &res->relos[i].r);
		res->relos[i].guarded = core_kind_is_guard(o->relos[i].kind);
	}
	for (int i = 0; i < o->nprogs; i++) {
		if ((ret = reach_on_kernel(o, i, res, &w)) ||
		    (ret = guards_of(o, i, res, &w)))
			goto out;
		subprog_calls |= res->progs[i].calls_subprog;
	}
	for (int i = 0; i < o->nrelos; i++) {
		const struct core_access *a = &o->relos[i];
		struct obj_relo *r = &res->relos[i];

		/*
		 * A subprogram (.text) is loaded only into the programs that
		 * call it, and its branches are not followed here: reached if
		 * any program calls one.
		 */
		if (a->prog < 0)
			r->reachable = subprog_calls;
		if (r->r.outcome != CORE_FAILED)
			continue;
		if (!r->reachable) {
			res->failed_unreached++;
			continue;
		}
		res->failed++;
		if (a->prog >= 0)
			res->progs[a->prog].loads = false;
		else
			res->subprog_fails = true;
	}
	for (int i = 0; i < o->nprogs; i++) {
		if (res->subprog_fails && res->progs[i].calls_subprog)
			res->progs[i].loads = false;
		res->loads &= res->progs[i].loads;
	}
	ret = 0;
out:
	res->analysed = w.spent;
	core_index_free(ix);
	free(w.relos);
	free(w.first);
	return ret;
}

int objcheck_error(int rc, const char *obj, char *msg, size_t len)
{
	if (rc != -E2BIG) {
		snprintf(msg, len, "out of memory");
		return EXIT_RUNTIME;
	}
	strfit(msg, len, "'%s' needs more analysis than abicap's budget for one "
	       "object on one kernel (%llu instructions and relocations "
	       "followed: once per program, twice per exists-check): no BPF "
	       "object abicap has seen needs a hundredth of it; split its "
	       "programs", obj, OBJ_BUDGET);
	return EXIT_USAGE;
}

void obj_result_free(struct obj_result *r)
{
	free(r->progs);
	free(r->relos);
	memset(r, 0, sizeof(*r));
}

/* The first reason the object will not load, for summaries. */
static void first_reason(const struct core_object *o, const struct obj_result *r,
			 char *out, size_t len)
{
	for (int i = 0; i < o->nprogs; i++)
		if (!r->progs[i].attach_ok) {
			strfit(out, len, "%s: %s", o->progs[i].name,
			       r->progs[i].attach_detail);
			return;
		}
	for (int i = 0; i < o->nrelos; i++)
		if (r->relos[i].r.outcome == CORE_FAILED && r->relos[i].reachable) {
			strfit(out, len, "%s: %s", o->relos[i].program,
			       r->relos[i].r.detail);
			return;
		}
	snprintf(out, len, "-");
}

static void print_text(FILE *f, const struct core_object *o,
		       const struct obj_result *r, const char *source)
{
	char why[400];

	text_printf(f, "kernel: %s\n", source);
	text_printf(f, "  %-20s %-38s %-18s %s\n", "PROGRAM", "ACCESS", "KIND",
		"RESULT");
	for (int i = 0; i < o->nprogs; i++) {
		const struct core_prog *p = &o->progs[i];
		char at[160];

		snprintf(at, sizeof(at), "attach %s", p->section);
		text_printf(f, "  %-20s %-38s %-18s %s%s%s\n", p->name, at, "-",
			r->progs[i].attach_ok ? "ok" : "FAILS",
			r->progs[i].attach_detail[0] ? ": " : "",
			r->progs[i].attach_detail);
	}
	for (int i = 0; i < o->nrelos; i++) {
		const struct obj_relo *x = &r->relos[i];

		text_printf(f, "  %-20s %-38s %-18s %s%s: %s\n", o->relos[i].program,
			x->r.what, core_kind_str(o->relos[i].kind),
			core_outcome_str(x->r.outcome),
			x->r.outcome == CORE_FAILED && !x->reachable ?
			" (never reached here)" : "",
			x->r.detail);
	}
	first_reason(o, r, why, sizeof(why));
	for (int i = 0; i < o->nprogs; i++)
		if (r->progs[i].reach_detail[0])
			text_printf(f, "  note: %s: %s\n", o->progs[i].name,
				r->progs[i].reach_detail);
	if (r->loads && !r->failed_unreached)
		text_printf(f, "  prediction: loads\n");
	else if (r->loads)
		text_printf(f, "  prediction: loads (%d failing relocation%s in code "
			"the verifier never reaches here)\n", r->failed_unreached,
			r->failed_unreached == 1 ? "" : "s");
	else
		text_printf(f, "  prediction: REJECTED: %s\n", why);
}

static json_t *to_json(const struct core_object *o, const struct obj_result *r,
		       const char *source)
{
	json_t *progs = json_array(), *relos = json_array();
	char why[400];

	for (int i = 0; i < o->nprogs; i++)
		json_array_append_new(progs, json_pack(
			"{s:s, s:s, s:s, s:s, s:i, s:b, s:s, s:s, s:b}",
			"name", o->progs[i].name, "section", o->progs[i].section,
			"attach", o->progs[i].attach, "target", o->progs[i].target,
			"ctx_args", o->progs[i].ctx_args,
			"attach_ok", r->progs[i].attach_ok,
			"attach_detail", r->progs[i].attach_detail,
			"branches_detail", r->progs[i].reach_detail,
			"loads", r->progs[i].loads));
	for (int i = 0; i < o->nrelos; i++) {
		const struct obj_relo *x = &r->relos[i];

		json_array_append_new(relos, json_pack(
			"{s:s, s:i, s:s, s:s, s:s, s:s, s:b, s:b, s:s}",
			"program", o->relos[i].program,
			"insn", (int)(o->relos[i].insn_off / 8),
			"kind", core_kind_str(o->relos[i].kind),
			"access", x->r.what, "path", o->relos[i].access,
			"result", core_outcome_str(x->r.outcome),
			"guarded", x->guarded, "reachable", x->reachable,
			"detail", x->r.detail));
	}
	first_reason(o, r, why, sizeof(why));
	return json_pack("{s:s, s:b, s:i, s:i, s:s, s:o, s:o}", "kernel", source,
			 "loads", r->loads, "unguarded_failures", r->failed,
			 "guarded_failures", r->failed_unreached,
			 "reason", r->loads ? "" : why, "programs", progs,
			 "relocations", relos);
}

static void junit_suite(FILE *f, const struct core_object *o,
			const struct obj_result *r, const char *source)
{
	int fails = r->failed;

	for (int i = 0; i < o->nprogs; i++)
		fails += !r->progs[i].attach_ok;
	fprintf(f, "  <testsuite name=\"");
	xml_escaped(f, source);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\">\n", o->nprogs + o->nrelos,
		fails);
	for (int i = 0; i < o->nprogs; i++) {
		fprintf(f, "    <testcase classname=\"abicap.object.");
		xml_escaped(f, o->progs[i].name);
		fprintf(f, "\" name=\"attach ");
		xml_escaped(f, o->progs[i].section);
		fprintf(f, "\">");
		if (!r->progs[i].attach_ok) {
			fprintf(f, "<failure message=\"");
			xml_escaped(f, r->progs[i].attach_detail);
			fprintf(f, "\"/>");
		}
		fprintf(f, "</testcase>\n");
	}
	for (int i = 0; i < o->nrelos; i++) {
		const struct obj_relo *x = &r->relos[i];

		fprintf(f, "    <testcase classname=\"abicap.object.");
		xml_escaped(f, o->relos[i].program);
		fprintf(f, "\" name=\"%s ", core_kind_str(o->relos[i].kind));
		xml_escaped(f, x->r.what);
		fprintf(f, " (insn %u)\">", o->relos[i].insn_off / 8);
		if (x->r.outcome == CORE_FAILED && x->reachable) {
			fprintf(f, "<failure message=\"");
			xml_escaped(f, x->r.detail);
			fprintf(f, "\"/>");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "  </testsuite>\n");
}

void objcheck_print(FILE *f, enum vformat fmt, const char *obj_path,
		    const struct core_object *o, const struct obj_result *res,
		    const char *const *sources, int n)
{
	char why[400];

	if (fmt == VF_JSON) {
		json_t *ks = json_array(), *root;

		for (int k = 0; k < n; k++)
			json_array_append_new(ks, to_json(o, &res[k], sources[k]));
		root = json_pack("{s:s, s:o}", "object", obj_path, "kernels", ks);
		json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', f);
		json_decref(root);
		return;
	}
	if (fmt == VF_JUNIT) {
		fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
			"<testsuites name=\"abicap check --object ");
		xml_escaped(f, obj_path);
		fprintf(f, "\">\n");
		for (int k = 0; k < n; k++)
			junit_suite(f, o, &res[k], sources[k]);
		fprintf(f, "</testsuites>\n");
		return;
	}
	text_printf(f, "abicap check --object %s: %d program%s, %d CO-RE "
		"relocation%s\n", obj_path, o->nprogs, o->nprogs == 1 ? "" : "s",
		o->nrelos, o->nrelos == 1 ? "" : "s");
	for (int k = 0; k < n; k++)
		print_text(f, o, &res[k], sources[k]);
	if (n > 1) {
		text_printf(f, "summary:\n");
		for (int k = 0; k < n; k++) {
			first_reason(o, &res[k], why, sizeof(why));
			text_printf(f, "  %-48s %s%s\n", sources[k],
				res[k].loads ? "loads" : "REJECTED: ",
				res[k].loads ? "" : why);
		}
	}
}
