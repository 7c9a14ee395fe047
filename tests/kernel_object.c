// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap check --object against reality on the running kernel: the
 * prediction for each test object (tests/bpf/) must be exactly what libbpf
 * does when it loads and attaches the object; and abicap's own programs
 * that the contract chooses must be predicted to load.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <glob.h>
#include <jansson.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "abi/checker.h"
#include "abi/contract.h"
#include "event/events.h"
#include "harness.h"
#include "live/capture.h"
#include "abi/objcheck.h"
#include "tools/objload.h"
#include "lib/util.h"
#include "lib/bpflog.h"

static bool predict(const char *path, const struct btf *btf, char *why,
		    size_t len)
{
	struct core_object o;
	struct obj_result r;
	char err[ERRMSG_LEN];
	bool loads;

	cr_assert_eq(core_object_open(path, &o, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(objcheck(&o, btf, &r), 0);
	loads = r.loads;
	snprintf(why, len, "%d unguarded failures", r.failed);
	for (int i = 0; i < o.nprogs; i++)
		if (!r.progs[i].attach_ok)
			snprintf(why, len, "%s", r.progs[i].attach_detail);
	obj_result_free(&r);
	core_object_close(&o);
	return loads;
}

Test(object, prediction_matches_the_real_load, .timeout = 60)
{
	struct btf *btf;
	glob_t g;
	int n = 0;

	require_kernel();
	set_libbpf_verbose(false);
	btf = btf__load_vmlinux_btf();
	cr_assert(btf);
	cr_assert_eq(glob("build/tests/bpf/*.bpf.o", 0, NULL, &g), 0,
		     "no test objects: build them with make");
	for (size_t i = 0; i < g.gl_pathc; i++) {
		char why[256] = "", real_why[256] = "";
		bool predicted = predict(g.gl_pathv[i], btf, why, sizeof(why));
		bool real = objload_try(g.gl_pathv[i], real_why,
					sizeof(real_why)) == 0;

		cr_assert_eq(predicted, real, "%s: predicted %s (%s), the kernel "
			     "said %s (%s)", g.gl_pathv[i],
			     predicted ? "loads" : "rejected", why,
			     real ? "loads" : "rejected", real_why);
		/*
		 * this kernel (5.18+, 5.14+) has __state, 4 sched_switch args:
		 * every object that reads the old state where it is reached fails
		 */
		cr_assert_eq(real, !strstr(g.gl_pathv[i], "t_state_unguarded") &&
			     !strstr(g.gl_pathv[i], "t_state_wrong_guard") &&
			     !strstr(g.gl_pathv[i], "t_other_guard") &&
			     !strstr(g.gl_pathv[i], "t_subprog_state"),
			     "%s: %s", g.gl_pathv[i], real_why);
		n++;
	}
	cr_assert_geq(n, 8);
	globfree(&g);
	btf__free(btf);
}

/* The programs the loader picks for this kernel are predicted to load. */
Test(object, own_object_agrees_with_the_contract, .timeout = 60)
{
	struct capture_opts opts = { .events = EVENTS_ALL, .quiet = true };
	struct core_object o;
	struct obj_result r;
	char err[ERRMSG_LEN];
	struct capture *cap;
	struct btf *btf;
	int code;

	require_kernel();
	btf = btf__load_vmlinux_btf();
	cr_assert(btf);
	cap = capture_open(&opts, NULL, NULL, &code, err, sizeof(err));
	cr_assert(cap, "exit %d: %s", code, err);
	cr_assert_eq(core_object_open("build/abicap.bpf.o", &o, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(objcheck(&o, btf, &r), 0);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		const char *name = capture_program_name(cap, ev);
		int k;

		cr_assert(name, "no program loaded for %s", event_name(ev));
		for (k = 0; k < o.nprogs && strcmp(o.progs[k].name, name); k++)
			;
		cr_assert_lt(k, o.nprogs, "no program %s", name);
		cr_assert(r.progs[k].loads, "%s: chosen by the loader, "
			  "predicted not to load", name);
	}
	/* this kernel has sched_switch's 4th argument: the 4-argument program */
	cr_assert(strstr(capture_program_name(cap, ABICAP_EV_SCHED_SWITCH),
			 "sched_switch") &&
		  !strstr(capture_program_name(cap, ABICAP_EV_SCHED_SWITCH), "_3"));
	obj_result_free(&r);
	core_object_close(&o);
	capture_close(cap);
	btf__free(btf);
}

/* libbpf's poison: a call to helper 0xbad2310, which no kernel has. */
#define POISON_HELPER 195896080

/*
 * The instructions the prediction reasons about are libbpf's: after libbpf
 * relocates each test object for a kernel's BTF (btf_custom_path, or the
 * running kernel's; the load tried for real), every relocated instruction
 * holds the value check --object used, and every relocation it says fails
 * is poisoned by libbpf. Returns how many were poisoned.
 */
static int agrees_with_libbpf(const char *btf_path, const struct btf *btf)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	int checked = 0, poisoned = 0;
	glob_t g;

	cr_assert_eq(glob("build/tests/bpf/*.bpf.o", 0, NULL, &g), 0);
	for (size_t f = 0; f < g.gl_pathc; f++) {
		const char *path = g.gl_pathv[f];
		struct bpf_object *obj = bpf_object__open_file(path, &opts);
		struct core_object o;
		struct obj_result r;
		char err[ERRMSG_LEN];
		struct bpf_program *p;

		cr_assert(obj, "%s: %s", path, strerror(errno));
		bpf_object__load(obj); /* relocates, whatever the verifier says */
		cr_assert_eq(core_object_open(path, &o, err, sizeof(err)), 0, "%s", err);
		cr_assert_eq(objcheck(&o, btf, &r), 0);
		bpf_object__for_each_program(p, obj) {
			const struct bpf_insn *ins = bpf_program__insns(p);
			size_t n = bpf_program__insn_cnt(p);
			int k;

			for (k = 0; k < o.nprogs &&
			     strcmp(o.progs[k].name, bpf_program__name(p)); k++)
				;
			cr_assert_lt(k, o.nprogs, "%s: no program %s", path,
				     bpf_program__name(p));
			for (int i = 0; i < o.nrelos; i++) {
				const struct core_access *a = &o.relos[i];
				size_t at = (a->insn_off - o.progs[k].off) / 8;
				const struct bpf_insn *in = &ins[at];
				__u64 v;

				if (a->prog != k)
					continue;
				cr_assert_lt(at, n);
				if (r.relos[i].r.outcome == CORE_FAILED) {
					cr_assert(in->code == (BPF_JMP | BPF_CALL) &&
						  in->imm == POISON_HELPER,
						  "%s on %s: %s insn %zu: predicted to "
						  "fail, libbpf did not poison it", path,
						  btf_path, r.relos[i].r.what, at);
					poisoned++;
					continue;
				}
				cr_assert_neq(in->imm, POISON_HELPER, "%s on %s: %s "
					      "insn %zu: poisoned by libbpf, "
					      "predicted to resolve", path,
					      btf_path, r.relos[i].r.what, at);
				if (!core_relo_value(a, &r.relos[i].r, &v))
					continue;
				if (BPF_CLASS(in->code) == BPF_LDX ||
				    BPF_CLASS(in->code) == BPF_ST ||
				    BPF_CLASS(in->code) == BPF_STX)
					cr_assert_eq((__u64)in->off, v, "%s on %s: %s "
						     "(%s) insn %zu: libbpf %d, "
						     "predicted %llu", path, btf_path,
						     r.relos[i].r.what,
						     core_kind_str(a->kind), at,
						     in->off, (unsigned long long)v);
				else
					cr_assert_eq((__u32)in->imm, (__u32)v,
						     "%s on %s: %s (%s) insn %zu: "
						     "libbpf %d, predicted %llu", path,
						     btf_path, r.relos[i].r.what,
						     core_kind_str(a->kind), at,
						     in->imm, (unsigned long long)v);
				checked++;
			}
		}
		obj_result_free(&r);
		core_object_close(&o);
		bpf_object__close(obj);
	}
	cr_assert_geq(checked, 10, "%s: only %d values compared", btf_path,
		      checked);
	globfree(&g);
	return poisoned;
}

Test(object, relocated_values_are_libbpfs, .init = scratch_init,
     .fini = scratch_fini, .timeout = 60)
{
	struct btf *btf;
	char *old = scratch_path("5.10.btf"), *modern = scratch_path("6.x.btf");
	int n;

	require_kernel();
	set_libbpf_verbose(false);
	btf = btf__load_vmlinux_btf();
	cr_assert(btf);
	/* the unguarded, swapped and other-field state reads; the guarded one */
	cr_assert_eq(agrees_with_libbpf(NULL, btf), 4);
	btf__free(btf);
	/* libbpf relocating for the writer-built kernels, as check --btf does */
	kfix_write_raw(&KFIX_5_10, old);
	btf = btf__parse(old, NULL);
	cr_assert(btf);
	/*
	 * the guarded read of __state fails on 5.10, and more on these small
	 * kernels (no enum bpf_map_type, few task_struct fields)
	 */
	n = agrees_with_libbpf(old, btf);
	cr_log_info("5.10 fixture: %d poisoned", n);
	cr_assert_geq(n, 1);
	btf__free(btf);
	kfix_write_raw(&(struct kfix){ 0 }, modern);
	btf = btf__parse(modern, NULL);
	cr_assert(btf);
	n = agrees_with_libbpf(modern, btf);
	cr_log_info("modern fixture: %d poisoned", n);
	cr_assert_geq(n, 4);
	btf__free(btf);
}

#define ABICAP(...) run_cmd((char *[]){ (char *)abicap_bin(), __VA_ARGS__, NULL })

/*
 * As a user sees it: the swapped branches are rejected on a modern kernel
 * (exit 1) and load on 5.10; the right way round, the failing read is shown
 * as never reached; JSON says which relocation the verifier reaches.
 */
Test(object, cli_names_the_reached_failure, .init = scratch_init,
     .fini = scratch_fini, .timeout = 60)
{
	char *old = scratch_path("5.10.btf"), *modern = scratch_path("6.x.btf");
	char *obj = "build/tests/bpf/t_state_wrong_guard.bpf.o";
	json_t *j, *k, *relos;
	struct run r;
	int reached = 0;

	kfix_write_raw(&KFIX_5_10, old);
	kfix_write_raw(&(struct kfix){ 0 }, modern);
	r = ABICAP("check", "--object", obj, "--btf", old, "--btf", modern);
	cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "5.10.btf                 loads\n"), "%s", r.out);
	cr_assert(strstr(r.out, "6.x.btf                  REJECTED: on_switch: "
			 "task_struct.state: not found; this kernel has "
			 "task_struct.__state (u32)\n"), "%s", r.out);
	/* the right way round, the same failing read is dead code */
	r = ABICAP("check", "--object", "build/tests/bpf/t_state_guarded.bpf.o",
		   "--btf", modern);
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "task_struct___o.state                  "
			 "field_byte_offset  FAILS (never reached here): "
			 "task_struct.state: not found"), "%s", r.out);
	cr_assert(strstr(r.out, "prediction: loads (1 failing relocation in "
			 "code the verifier never reaches here)\n"), "%s", r.out);
	r = ABICAP("check", "--object", obj, "--btf", modern, "--format", "json");
	cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
	j = json_loads(r.out, 0, NULL);
	cr_assert(j, "%s", r.out);
	k = json_array_get(json_object_get(j, "kernels"), 0);
	cr_assert(json_is_false(json_object_get(k, "loads")));
	relos = json_object_get(k, "relocations");
	for (size_t i = 0; i < json_array_size(relos); i++) {
		json_t *x = json_array_get(relos, i);

		if (!strcmp(json_string_value(json_object_get(x, "access")),
			    "task_struct.pid"))
			cr_assert(json_is_false(json_object_get(x, "reachable")));
		if (!strcmp(json_string_value(json_object_get(x, "access")),
			    "task_struct___o.state")) {
			cr_assert(json_is_true(json_object_get(x, "reachable")));
			cr_assert(json_is_true(json_object_get(x, "guarded")));
			reached++;
		}
	}
	cr_assert_eq(reached, 1, "%s", r.out);
	json_decref(j);
}
