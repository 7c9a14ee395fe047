// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap diff --all held against an independent reading of the same two
 * BTFs (scripts/btfdiff_oracle.py: bpftool's raw dump, compared by its own
 * code), change by change, on pairs that need no download: the running
 * kernel's BTF, a mutated copy of it in the other byte order, and the
 * fixture kernels. And the oracle itself must catch a diff that lies.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "harness.h"

#define path(name) scratch_path(name)

TestSuite(diff_oracle, .init = scratch_init, .fini = scratch_fini,
	  .timeout = 240);

static struct run oracle(const char *abicap, const char *old, const char *new)
{
	return run_cmd((char *[]){ "python3", "scripts/btfdiff_oracle.py",
				   "--abicap", (char *)abicap, (char *)old,
				   (char *)new, NULL });
}

static void expect_agree(const char *old, const char *new)
{
	struct run r = oracle(abicap_bin(), old, new);

	cr_assert_eq(r.code, 0, "oracle on %s -> %s: exit %d\n%s%s", old, new,
		     r.code, r.out, r.err);
	cr_assert(strstr(r.out, ": agree on "), "%s", r.out);
	cr_log_info("%s", r.out);
}

static struct btf_type *type_named(struct btf *b, const char *name, int kind)
{
	int id = btf__find_by_name_kind(b, name, kind);

	cr_assert_gt(id, 0, "no %s in the running kernel's BTF", name);
	return (struct btf_type *)btf__type_by_id(b, id);
}

static struct btf_member *member_named(struct btf *b, struct btf_type *t,
				       const char *name)
{
	struct btf_member *m = btf_members(t);

	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(b, m->name_off), name))
			return m;
	cr_assert_fail("no member %s", name);
	return NULL;
}

static struct btf_type *trace_proto(struct btf *b, const char *tp)
{
	char n[128];
	const struct btf_type *t;

	snprintf(n, sizeof(n), "btf_trace_%s", tp);
	t = type_named(b, n, BTF_KIND_TYPEDEF);
	t = btf__type_by_id(b, btf__type_by_id(b, t->type)->type);
	cr_assert(btf_is_func_proto(t));
	return (struct btf_type *)t;
}

/*
 * The running kernel's BTF with every kind of change the rule knows, in
 * the other byte order: plain char's sign flipped (every char * argument),
 * sched_switch's last argument removed, cpu_idle's first retyped, a
 * sched_switch record field renamed (deleted, and a new one inserted), the
 * cpu record's first field retyped, two sched_wakeup record fields swapped.
 */
static void mutated_copy(const char *out, bool big_endian)
{
	struct btf *b = btf__parse_raw("/sys/kernel/btf/vmlinux");
	struct btf_type *t;
	struct btf_member *m, tmp;
	const void *raw;
	__u32 len, *enc, params[16];
	int s32, u64, n, proto, ptr;

	cr_assert(b, "cannot read /sys/kernel/btf/vmlinux");
	s32 = btf__find_by_name_kind(b, "int", BTF_KIND_INT);
	u64 = btf__find_by_name_kind(b, "long long unsigned int", BTF_KIND_INT);
	cr_assert(s32 > 0 && u64 > 0);
	/* sched_switch's prototype without its last argument, added first: adding makes the types move */
	t = trace_proto(b, "sched_switch");
	n = btf_vlen(t) - 1;
	for (int i = 0; i < n; i++)
		params[i] = btf_params(t)[i].type;
	proto = btf__add_func_proto(b, 0);
	for (int i = 0; i < n; i++)
		cr_assert_eq(btf__add_func_param(b, i ? "" : "__data", params[i]), 0);
	ptr = btf__add_ptr(b, proto);
	cr_assert_gt(ptr, 0);
	type_named(b, "btf_trace_sched_switch", BTF_KIND_TYPEDEF)->type = ptr;
	t = type_named(b, "char", BTF_KIND_INT);
	enc = (__u32 *)(t + 1);
	*enc ^= BTF_INT_SIGNED << 24;
	btf_params(trace_proto(b, "cpu_idle"))[1].type = s32;
	t = type_named(b, "trace_event_raw_sched_switch", BTF_KIND_STRUCT);
	member_named(b, t, "prev_pid")->name_off = member_named(b,
		type_named(b, "task_struct", BTF_KIND_STRUCT), "tgid")->name_off;
	t = type_named(b, "trace_event_raw_cpu", BTF_KIND_STRUCT);
	member_named(b, t, "state")->type = u64;
	t = type_named(b, "trace_event_raw_sched_wakeup_template", BTF_KIND_STRUCT);
	m = member_named(b, t, "comm");
	tmp = m[0];
	m[0] = m[1];
	m[1] = tmp;
	cr_assert_eq(btf__set_endianness(b, big_endian ? BTF_BIG_ENDIAN :
					 BTF_LITTLE_ENDIAN), 0);
	raw = btf__raw_data(b, &len);
	cr_assert(raw);
	write_file(out, raw, len);
	btf__free(b);
}

Test(diff_oracle, running_kernel_and_its_mutated_big_endian_copy)
{
	char *mut = path("mutated-be.btf");
	struct run r;

	require_kernel();
	mutated_copy(mut, true);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "diff", "--all",
				"/sys/kernel/btf/vmlinux", mut, NULL });
	cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
	/* the mutations, as diff names them */
	cr_assert(strstr(r.out, "BREAKING  sched_switch arg 4: removed, was u32\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "BREAKING  cpu_idle arg 1: retyped, u32 -> s32\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "BREAKING  record trace_event_raw_sched_switch."
			 "prev_pid: deleted, was s32 (was at 1)\n"), "%s", r.out);
	cr_assert(strstr(r.out, "BREAKING  record trace_event_raw_cpu.state: "
			 "retyped, u32 -> u64\n"), "%s", r.out);
	cr_assert(strstr(r.out, "BREAKING  record trace_event_raw_sched_wakeup_"
			 "template.comm: moved (position 0 -> 1)\n"), "%s", r.out);
	cr_assert(strstr(r.out, ": char signedness, char * (plain char: unsigned -> "
			 "signed)\n"), "%s", r.out);
	expect_agree("/sys/kernel/btf/vmlinux", mut);
}

Test(diff_oracle, fixtures_and_the_running_kernel_in_both_byte_orders)
{
	char *old_be = path("5.10-be.btf"), *old = path("5.10.btf");
	char *new = path("6.x.btf");

	require_kernel();
	kfix_write_image(&KFIX_5_10, old_be, KIMG_RAW, true, NULL);
	kfix_write_raw(&KFIX_5_10, old);
	kfix_write_raw(&(struct kfix){ .switch_appended = true }, new);
	expect_agree(old, new);
	expect_agree(old_be, new);
	expect_agree(old_be, "/sys/kernel/btf/vmlinux");
}

/* An oracle that cannot fail proves nothing: a diff that drops or alters a change is caught. */
Test(diff_oracle, a_diff_that_lies_is_caught)
{
	char *old = path("5.10.btf"), *new = path("6.x.btf");
	char *liar = path("liar.sh"), script[1024];
	struct run r;

	kfix_write_raw(&KFIX_5_10, old);
	kfix_write_raw(&(struct kfix){ 0 }, new);
	/* abicap's JSON with the first change's verdict turned over */
	snprintf(script, sizeof(script),
		 "#!/bin/sh\n%s \"$@\" | jq '.changes[0].breaking |= not'\n"
		 "exit 1\n", abicap_bin());
	write_file(liar, script, strlen(script));
	cr_assert_eq(chmod(liar, 0755), 0);
	r = oracle(liar, old, new);
	cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "only abicap: "), "%s", r.out);
	cr_assert(strstr(r.out, "only oracle: "), "%s", r.out);
	cr_assert(strstr(r.out, ": DISAGREE ("), "%s", r.out);
}
