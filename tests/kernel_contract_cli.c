// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap check, diff and contract snapshot as a user runs them, on the
 * running kernel and on kernels built with libbpf's BTF writer; and trace
 * refusing a kernel that breaks the contract before anything attaches.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include "btf_fixture.h"
#include "harness.h"
#include "objfix.h"

#define path(name) scratch_path(name)

#define ABICAP(...) run_cmd((char *[]){ (char *)abicap_bin(), __VA_ARGS__, NULL })

TestSuite(contract_cli, .init = scratch_init, .fini = scratch_fini,
	  .timeout = 60);

/* s with every run of spaces made one: table rows whatever the column widths */
static char *squeezed(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;

	cr_assert(out);
	for (; *s; s++)
		if (*s != ' ' || o == out || o[-1] != ' ')
			*o++ = *s;
	*o = '\0';
	return out;
}

/*
 * The items check judges, counted from the default contract itself
 * (issue 34: not a number that fails on every new item): each event's
 * tracepoint and its arguments, each struct field, and each record field
 * once per record struct (events of one template share it).
 */
static int contract_items(void)
{
	json_t *c = json_load_file("bpf/contract.json", 0, NULL), *e, *f;
	json_t *seen = json_object();
	char key[256];
	size_t i, k;
	int n;

	cr_assert(c && seen, "bpf/contract.json does not parse");
	n = (int)json_array_size(json_object_get(c, "fields"));
	json_array_foreach(json_object_get(c, "events"), i, e) {
		json_t *rec = json_object_get(e, "record");

		n += 1 + (int)json_array_size(json_object_get(e, "args"));
		json_array_foreach(json_object_get(rec, "fields"), k, f) {
			snprintf(key, sizeof(key), "%s.%s", json_string_value(
				 json_object_get(rec, "struct")),
				 json_string_value(json_object_get(f, "name")));
			json_object_set_new(seen, key, json_true());
		}
	}
	n += (int)json_object_size(seen);
	json_decref(seen);
	json_decref(c);
	return n;
}

/*
 * The verdicts on the 5.10 fixture: the contract's items, and
 * record.success, which 5.10 has besides; not the 8 arguments of the
 * csd_* tracepoints it lacks (a missing tracepoint's arguments are not
 * checked)
 */
static int items_5_10(void)
{
	return contract_items() + 1 - 8;
}

Test(contract_cli, check_running_kernel_is_satisfied)
{
	char want[96];
	struct run r;

	require_kernel();
	r = ABICAP("check");
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "abicap check: running kernel "), "%s", r.out);
	snprintf(want, sizeof(want), "result: %d ok, 0 degraded, 0 broken: "
		 "satisfied\n", contract_items());
	cr_assert(strstr(r.out, want), "no '%s' in: %s", want, r.out);
	cr_assert(strstr(squeezed(r.out), "\nsched_switch arg 4 prev_state"), "%s", r.out);
}

Test(contract_cli, check_5_10_is_degraded_and_strict_fails)
{
	char *btf = path("5.10.btf"), want[96];
	struct run r;

	kfix_write_raw(&KFIX_5_10, btf);
	r = ABICAP("check", "--btf", btf);
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	/*
	 * 5.10: five items degraded, and record.success besides, ok; the
	 * three csd_* tracepoints (6.3+) missing, degraded, their arguments
	 * not checked
	 */
	snprintf(want, sizeof(want), "result: %d ok, 8 degraded, 0 broken: "
		 "satisfied (degraded)\n", items_5_10() - 8);
	cr_assert(strstr(r.out, want), "no '%s' in: %s", want, r.out);
	cr_assert(strstr(squeezed(r.out), "\ntask_struct __state u32 state: s64 "
			 "(long int) degraded\n"), "%s", r.out);
	cr_assert(strstr(squeezed(r.out), "\nsched_switch arg 4 prev_state u32 "
			 "missing (3 arguments) degraded\n"), "%s", r.out);
	cr_assert(strstr(squeezed(r.out), "\ncsd_queue_cpu tracepoint present "
			 "missing degraded\n"), "%s", r.out);
	r = ABICAP("check", "--btf", btf, "--strict");
	cr_assert_eq(r.code, 1);
	cr_assert(strstr(r.out, "degraded (fails under --strict)"), "%s", r.out);
}

Test(contract_cli, check_json_and_junit)
{
	char *btf = path("5.10.btf");
	json_error_t e;
	json_t *j, *items;
	struct run r;
	int cases = 0, failures = 0;
	char want[96];

	kfix_write_raw(&KFIX_5_10, btf);
	r = ABICAP("check", "--btf", btf, "--format", "json");
	cr_assert_eq(r.code, 0, "%s", r.err);
	j = json_loads(r.out, 0, &e);
	cr_assert(j, "%s: %s", e.text, r.out);
	cr_assert_str_eq(json_string_value(json_object_get(j, "verdict")), "degraded");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j, "summary"),
							"broken")), 0);
	items = json_object_get(j, "items");
	cr_assert_eq(json_array_size(items), (size_t)items_5_10());
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *it = json_array_get(items, i);

		if (!strcmp(json_string_value(json_object_get(it, "item")), "__state")) {
			cr_assert_str_eq(json_string_value(json_object_get(it, "verdict")),
					 "degraded");
			cr_assert_str_eq(json_string_value(json_object_get(it, "events")),
					 "sched_switch");
		}
	}
	json_decref(j);
	r = ABICAP("check", "--btf", btf, "--format", "junit", "--strict");
	cr_assert_eq(r.code, 1);
	cr_assert_eq(strncmp(r.out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", 39), 0);
	for (char *p = r.out; (p = strstr(p, "<testcase ")); p++)
		cases++;
	for (char *p = r.out; (p = strstr(p, "<failure ")); p++)
		failures++;
	cr_assert_eq(cases, items_5_10());
	cr_assert_eq(failures, 8);
	snprintf(want, sizeof(want), "<testsuites name=\"abicap check\" tests="
		 "\"%d\" failures=\"8\">", items_5_10());
	cr_assert(strstr(r.out, want), "%s", r.out);
	cr_assert(strstr(r.out, "<testcase classname=\"abicap.task_struct\" "
			 "name=\"__state\">"), "%s", r.out);
}

Test(contract_cli, check_broken_kernel_exits_1)
{
	char *btf = path("rc1.btf");
	struct run r;

	kfix_write_raw(&(struct kfix){ .sw = SW_518RC1 }, btf);
	r = ABICAP("check", "--btf", btf);
	cr_assert_eq(r.code, 1);
	cr_assert(strstr(squeezed(r.out), "\nsched_switch arg 2 prev struct "
			 "task_struct * u32 (unsigned int) broken\n"), "%s", r.out);
	cr_assert(strstr(r.out, "0 degraded, 1 broken: broken") ||
		  strstr(r.out, "1 degraded, 1 broken: broken"), "%s", r.out);
}

static void expect_exit2(struct run r, const char *says)
{
	cr_assert_eq(r.code, 2, "exit %d: %s", r.code, r.err);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, says), "'%s' lacks '%s'", r.err, says);
	cr_assert_eq(strchr(r.err, '\n') - r.err, (long)strlen(r.err) - 1,
		     "more than one line: %s", r.err);
}

Test(contract_cli, bad_input_exits_2_with_one_line)
{
	char *empty = path("empty"), *junk = path("junk.json");

	write_file(empty, "", 0);
	write_file(junk, "{\"abicap_contract\": 1,\n \"events\": [}\n", 37);
	expect_exit2(ABICAP("check", "--btf", empty), "is empty");
	expect_exit2(ABICAP("check", "--btf", "/nonexistent"), "cannot open BTF file");
	expect_exit2(ABICAP("check", "--contract", junk), "contract ");
	cr_assert(strstr(ABICAP("check", "--contract", junk).err, ":2:"));
	expect_exit2(ABICAP("check", "--format", "xml"), "--format 'xml'");
	expect_exit2(ABICAP("check", "--strikt"), "unknown option '--strikt'");
	expect_exit2(ABICAP("diff", empty), "diff needs two kernels");
	expect_exit2(ABICAP("diff", empty, empty), "is empty");
	expect_exit2(ABICAP("contract", "snapshot", "--btf", empty, "-o",
			    path("snap.json")), "is empty");
	expect_exit2(ABICAP("contract", "frob"), "unknown subcommand 'frob'");
}

/* With JSON output, a failure is a JSON object on stdout too, with the exit code. */
static void expect_json_error(struct run r, int code, const char *says)
{
	json_error_t je;
	json_t *o = json_loads(r.out, 0, &je);

	cr_assert_eq(r.code, code, "exit %d: %s", r.code, r.err);
	cr_assert(o, "stdout is not JSON (%s): '%s'", je.text, r.out);
	cr_assert(strstr(json_string_value(json_object_get(o, "error")), says),
		  "'%s' lacks '%s'", r.out, says);
	cr_assert_eq(json_integer_value(json_object_get(o, "exit_code")), code);
	cr_assert(strstr(r.err, says), "stderr '%s' lacks '%s'", r.err, says);
	json_decref(o);
}

Test(contract_cli, json_output_reports_errors_on_stdout)
{
	char *empty = path("empty"), *img = path("armhf-zImage");

	write_file(empty, "", 0);
	kfix_write_image(NULL, img, KIMG_ZIMAGE, false, "xz");
	expect_json_error(ABICAP("check", "--btf", empty, "--format", "json"), 2,
			  "is empty");
	expect_json_error(ABICAP("check", "--format=json", "--btf", img), 1,
			  "without BTF");
	expect_json_error(ABICAP("check", "-f", "json", "--strikt"), 2,
			  "unknown option '--strikt'");
	expect_json_error(ABICAP("diff", "-fjson", empty, empty), 2, "is empty");
	expect_json_error(ABICAP("diff", empty, img, "--format", "json"), 2,
			  "is empty");
	expect_json_error(ABICAP("diff", "--format", "json", img, img), 1,
			  "without BTF");
	expect_json_error(ABICAP("contract", "snapshot", "--btf", empty), 2,
			  "is empty");
	expect_json_error(ABICAP("contract", "from-object", "/nonexistent.bpf.o"), 2,
			  "/nonexistent.bpf.o");
	expect_json_error(ABICAP("report", "/nonexistent.cap", "--format", "json"),
			  2, "/nonexistent.cap");
	expect_json_error(ABICAP("trace", "--format", "json", "-p", "x"), 2, "-p");
	/* text output keeps stdout empty */
	expect_exit2(ABICAP("check", "--btf", empty), "is empty");
}

/* check names the kernel it read: release (the image's banner) and architecture */
Test(contract_cli, check_names_the_kernel_release_and_architecture)
{
	char *img = path("Image"), *s390 = path("vmlinux-s390x"), *raw = path("raw.btf");
	char want[256];
	struct utsname u;
	json_t *j, *k;
	struct run r;

	cr_assert_eq(uname(&u), 0);
	r = ABICAP("check");
	snprintf(want, sizeof(want), "\nkernel: Linux %s (%s, little-endian BTF)\n",
		 u.release, strcmp(u.machine, "aarch64") ? u.machine : "arm64");
	cr_assert(strstr(r.out, want), "'%s' lacks '%s'", r.out, want);
	kfix_write_image(&(struct kfix){ 0 }, img, KIMG_ARM64, false, NULL);
	r = ABICAP("check", "--btf", img);
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "\nkernel: Linux " KFIX_RELEASE " (arm64, "
			 "little-endian BTF)\n"), "%s", r.out);
	kfix_write_image(&(struct kfix){ 0 }, s390, KIMG_ELF_S390, true, NULL);
	r = ABICAP("check", "--btf", s390);
	cr_assert(strstr(r.out, "\nkernel: Linux " KFIX_RELEASE " (s390x, "
			 "big-endian BTF)\n"), "%s", r.out);
	kfix_write_raw(&(struct kfix){ 0 }, raw);
	r = ABICAP("check", "--btf", raw);
	cr_assert(strstr(r.out, "\nkernel: release and architecture unknown "
			 "(raw BTF holds neither; little-endian BTF)\n"), "%s", r.out);
	r = ABICAP("check", "--btf", img, "--format", "json");
	j = json_loads(r.out, 0, NULL);
	cr_assert(j, "%s", r.out);
	k = json_object_get(j, "kernel");
	cr_assert_str_eq(json_string_value(json_object_get(k, "release")), KFIX_RELEASE);
	cr_assert_str_eq(json_string_value(json_object_get(k, "arch")), "arm64");
	cr_assert_str_eq(json_string_value(json_object_get(k, "byte_order")), "little");
	json_decref(j);
	r = ABICAP("check", "--btf", raw, "--format", "json");
	j = json_loads(r.out, 0, NULL);
	cr_assert(j, "%s", r.out);
	k = json_object_get(j, "kernel");
	cr_assert(json_is_null(json_object_get(k, "release")), "%s", r.out);
	cr_assert(json_is_null(json_object_get(k, "arch")), "%s", r.out);
	json_decref(j);
}

/* a program is not a kernel without BTF: bad input (2), not "the kernel cannot" (1) */
Test(contract_cli, check_btf_of_a_program_is_bad_input)
{
	char *elf = path("vmlinux-nobtf");

	expect_exit2(ABICAP("check", "--btf", "/bin/ls"), "not a Linux kernel");
	expect_json_error(ABICAP("check", "--btf", "/bin/ls", "--format", "json"),
			  2, "not a Linux kernel");
	expect_exit2(ABICAP("diff", "/bin/ls", "/bin/ls"), "not a Linux kernel");
	/* a kernel's ELF without BTF still is the kernel's shortcoming */
	kfix_write_image(NULL, elf, KIMG_ELF_S390, true, NULL);
	expect_json_error(ABICAP("check", "--btf", elf, "--format", "json"), 1,
			  "without a .BTF section");
}

/* Every row's columns start where the header's do, whatever the names' lengths. */
static void expect_aligned(const char *out)
{
	static const char *const heads[] = { "ITEM", "EXPECTED", "KERNEL HAS",
					     "VERDICT" };
	const char *hdr = strstr(out, "SCOPE "), *line;
	size_t col[4];
	int rows = 0;

	cr_assert(hdr, "%s", out);
	for (int i = 0; i < 4; i++)
		col[i] = strstr(hdr, heads[i]) - hdr;
	for (line = strchr(hdr, '\n') + 1; *line && strncmp(line, "result:", 7);
	     line = strchr(line, '\n') + 1) {
		size_t len = strcspn(line, "\n");

		if (line[0] == ' ')
			continue; /* a detail */
		rows++;
		for (int i = 0; i < 4; i++)
			cr_assert(len > col[i] && line[col[i] - 1] == ' ' &&
				  line[col[i]] != ' ',
				  "column %s does not start at %zu in '%.*s'",
				  heads[i], col[i], (int)len, line);
	}
	cr_assert_gt(rows, 10, "%s", out);
}

Test(contract_cli, check_table_columns_stay_aligned)
{
	char *con = path("long.json"), *raw = path("raw.btf"), *txt, *at;
	static const char item[] =
		"\n    { \"struct\": \"a_struct_with_a_rather_long_name\", "
		"\"field\": \"and_a_field_with_an_even_longer_name\", "
		"\"type\": \"struct some_type_with_a_long_name *\", "
		"\"required\": false, \"fallback\": \"none\", "
		"\"events\": [\"sched_switch\"], \"feeds\": \"nothing\" },";
	FILE *f;
	struct run r;
	size_t len;

	expect_aligned(ABICAP("check").out);
	kfix_write_raw(&KFIX_5_10, raw);
	expect_aligned(ABICAP("check", "--btf", raw).out);
	/* the built-in contract with one item of long names */
	txt = read_file("bpf/contract.json", &len);
	at = strstr(txt, "\n  \"fields\": [");
	cr_assert(at, "bpf/contract.json has no top-level fields");
	at += strlen("\n  \"fields\": [");
	f = fopen(con, "w");
	cr_assert(f);
	fprintf(f, "%.*s%s%s", (int)(at - txt), txt, item, at);
	fclose(f);
	free(txt);
	r = ABICAP("check", "--btf", raw, "--contract", con);
	cr_assert_lt(r.code, 2, "%s", r.err);
	cr_assert(strstr(r.out, "and_a_field_with_an_even_longer_name"), "%s", r.out);
	expect_aligned(r.out);
}

Test(contract_cli, diff_5_10_to_modern_names_the_success_deletion)
{
	char *old = path("5.10.btf"), *new = path("6.x.btf");
	struct run r;

	kfix_write_raw(&KFIX_5_10, old);
	kfix_write_raw(&(struct kfix){ 0 }, new);
	r = ABICAP("diff", old, new);
	cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "BREAKING  record trace_event_raw_sched_wakeup_"
			 "template.success: deleted, was s32 (was at 3)\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "BREAKING  record trace_event_raw_sched_wakeup_"
			 "template.target_cpu: moved (position 4 -> 3)\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "ok        sched_switch arg 4: appended, u32\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "result: 2 breaking, 1 compatible change: NOT "
			 "compatible under the append-only rule\n"), "%s", r.out);
	/* and back: the 4th argument removed is breaking too */
	r = ABICAP("diff", new, old, "--format", "json");
	cr_assert_eq(r.code, 1);
	cr_assert(strstr(r.out, "\"change\": \"removed\""), "%s", r.out);
}

Test(contract_cli, diff_appended_field_is_compatible)
{
	char *old = path("a.btf"), *new = path("b.btf");
	struct run r;

	kfix_write_raw(&(struct kfix){ 0 }, old);
	kfix_write_raw(&(struct kfix){ .switch_appended = true }, new);
	r = ABICAP("diff", old, new);
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "record trace_event_raw_sched_switch.next_flags"), "%s", r.out);
	cr_assert(strstr(r.out, "appended, u32 (at 7)"), "%s", r.out);
	cr_assert(strstr(r.out, ": compatible\n"), "%s", r.out);
	r = ABICAP("diff", old, old, "--all");
	cr_assert_eq(r.code, 0);
	cr_assert(strstr(r.out, "no changes"), "%s", r.out);
	r = ABICAP("diff", old, new, "--all", "-f", "json");
	cr_assert_eq(r.code, 0);
	cr_assert(strstr(r.out, "\"append_only_compatible\": true"), "%s", r.out);
}

Test(contract_cli, snapshot_pins_a_kernel)
{
	char *old = path("5.10.btf"), *new = path("6.x.btf"), *snap = path("snap.json");
	struct run r;

	kfix_write_raw(&KFIX_5_10, old);
	kfix_write_raw(&(struct kfix){ 0 }, new);
	r = ABICAP("contract", "snapshot", "--btf", old, "-o", snap);
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = ABICAP("check", "--contract", snap, "--btf", old);
	cr_assert_eq(r.code, 0, "%s", r.out);
	cr_assert(strstr(r.out, " 0 degraded, 0 broken: satisfied\n"), "%s", r.out);
	r = ABICAP("check", "--contract", snap, "--btf", new);
	cr_assert_eq(r.code, 1, "%s", r.out);
	cr_assert(strstr(squeezed(r.out), "\ntask_struct state s64"), "%s", r.out);
	cr_assert(strstr(r.out, "record.success"), "%s", r.out);
	r = ABICAP("contract", "show");
	cr_assert_eq(r.code, 0);
	cr_assert(strstr(r.out, "\"name\": \"abicap-default\""));
}

/* A contract like the built-in one, with one more required field. */
static char *contract_requiring(const char *struct_name, const char *field,
				const char *event)
{
	char *p = path("strict.json");
	struct run r = ABICAP("contract", "show");
	json_t *j = json_loads(r.out, 0, NULL);

	cr_assert(j);
	json_array_append_new(json_object_get(j, "fields"),
		json_pack("{s:s, s:s, s:s, s:[s], s:s}", "struct", struct_name,
			  "field", field, "type", "u64", "events", event,
			  "feeds", "a test"));
	cr_assert_eq(json_dump_file(j, p, 0), 0);
	json_decref(j);
	return p;
}

Test(contract_cli, trace_refuses_a_broken_kernel_before_attaching)
{
	char *con;
	struct run r;

	require_kernel();
	con = contract_requiring("task_struct", "no_such_field", "cpu_idle");
	r = ABICAP("trace", "-d", "0.2", "--contract", con);
	cr_assert_eq(r.code, 1, "%s", r.err);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, "abicap: error: this kernel ("), "%s", r.err);
	cr_assert(strstr(r.err, "breaks the ABI contract 'abicap-default', "
			 "nothing attached: task_struct no_such_field: expected "
			 "u64, kernel has missing (task_struct.no_such_field not "
			 "found; lost: a test)\n"), "%s", r.err);
	cr_assert_null(strstr(r.err, "tracing"), "%s", r.err);
	/* the item matters for cpu_idle only: without it the trace runs */
	r = ABICAP("trace", "-d", "0.2", "--contract", con, "-e", "sched_switch");
	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert(strstr(r.err, "abicap: tracing 1 event"), "%s", r.err);
}

Test(contract_cli, check_object_predicts_per_kernel)
{
	char *old = path("5.10.btf"), *new = path("6.x.btf");
	char *obj = "build/tests/bpf/t_state_unguarded.bpf.o";
	json_t *j;
	struct run r;

	kfix_write_raw(&KFIX_5_10, old);
	kfix_write_raw(&(struct kfix){ 0 }, new);
	r = ABICAP("check", "--object", obj, "--btf", old, "--btf", new);
	cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "abicap check --object build/tests/bpf/"
			 "t_state_unguarded.bpf.o: 1 program, 1 CO-RE relocation\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "REJECTED: on_switch: task_struct.state: not "
			 "found; this kernel has task_struct.__state (u32)\n"),
		  "%s", r.out);
	cr_assert(strstr(r.out, "5.10.btf"), "%s", r.out);
	r = ABICAP("check", "--object", obj, "--btf", old, "--btf", new,
		   "--format", "json");
	cr_assert_eq(r.code, 1);
	j = json_loads(r.out, 0, NULL);
	cr_assert(j, "%s", r.out);
	cr_assert(json_is_true(json_object_get(json_array_get(
		json_object_get(j, "kernels"), 0), "loads")));
	cr_assert(json_is_false(json_object_get(json_array_get(
		json_object_get(j, "kernels"), 1), "loads")));
	json_decref(j);
	r = ABICAP("check", "--object", obj, "--btf", new, "--format", "junit");
	cr_assert_eq(r.code, 1);
	cr_assert(strstr(r.out, "tests=\"2\" failures=\"1\""), "%s", r.out);
	/* every relocation kind, on the running kernel (the fixtures lack bitfields) */
	r = ABICAP("check", "--object", "build/tests/bpf/t_kinds.bpf.o", "--btf",
		   "/sys/kernel/btf/vmlinux");
	cr_assert_eq(r.code, 0, "%s", r.out);
	cr_assert(strstr(r.out, "prediction: loads"), "%s", r.out);
	expect_exit2(ABICAP("check", "--object", "/nonexistent.o"),
		     "cannot open BPF object '/nonexistent.o'");
	expect_exit2(ABICAP("check", "--object", obj, "--strict"),
		     "takes no --contract or --strict");
	expect_exit2(ABICAP("check", "--btf", old, "--btf", new),
		     "several --btf go with --object");
}

Test(contract_cli, contract_from_object_is_checkable)
{
	char *old = path("5.10.btf"), *new = path("6.x.btf"), *con = path("d.json");
	struct run r;

	kfix_write_raw(&KFIX_5_10, old);
	kfix_write_raw(&(struct kfix){ 0 }, new);
	r = ABICAP("contract", "from-object",
		   "build/tests/bpf/t_state_guarded.bpf.o", "-o", con);
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = ABICAP("check", "--contract", con, "--btf", old);
	cr_assert_eq(r.code, 0, "%s", r.out);
	cr_assert(strstr(squeezed(r.out), "\ntask_struct __state u32 state: s64 "
			 "(long int) degraded\n"), "%s", r.out);
	r = ABICAP("check", "--contract", con, "--btf", new);
	cr_assert_eq(r.code, 0, "%s", r.out);
	cr_assert(strstr(r.out, " 0 degraded, 0 broken: satisfied\n"), "%s", r.out);
	/* the unguarded object: state is required, and gone in 6.x */
	r = ABICAP("contract", "from-object",
		   "build/tests/bpf/t_state_unguarded.bpf.o", "-o", con,
		   "--force");
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = ABICAP("check", "--contract", con, "--btf", new);
	cr_assert_eq(r.code, 1, "%s", r.out);
	cr_assert(strstr(squeezed(r.out), "\ntask_struct state s64 missing broken\n"),
		  "%s", r.out);
	expect_json_error(ABICAP("contract", "from-object"), 2,
			  "needs one BPF object");
}

/* abicap diff --all OLD NEW on two fixture kernels; stdout. */
static char *diff_all(const char *const *old, int no, const char *const *new,
		      int nn, int code)
{
	char *o = path("old.btf"), *n = path("new.btf");
	struct run r;

	tpfix_write(o, old, no);
	tpfix_write(n, new, nn);
	r = ABICAP("diff", "--all", o, n);
	cr_assert_eq(r.code, code, "%s%s", r.out, r.err);
	return r.out;
}

/* 5.10 -> 6.1: percpu_refill (int) appended after migratetype (int) */
Test(contract_cli, diff_append_of_the_last_args_type_is_an_append)
{
	static const char *const old[] = {
		"mm_page_alloc_zone_locked(struct page *, unsigned int, int)" };
	static const char *const new[] = {
		"mm_page_alloc_zone_locked(struct page *, unsigned int, int, int)" };
	char *out = diff_all(old, 1, new, 1, 0);

	cr_assert(strstr(out, "ok        mm_page_alloc_zone_locked arg 4: "
			 "appended, s32\n"), "%s", out);
	cr_assert_null(strstr(out, "BREAKING"), "%s", out);
}

/* 6.16 -> 6.17: scmi_xfer_end gains int inflight, argument and record field */
Test(contract_cli, diff_scmi_xfer_end_inflight_appended_in_both)
{
	static const char *const old[] = {
		"scmi_xfer_end(int, u8, u8, u16, int)",
		"scmi_xfer_end{int transfer_id; u8 msg_id; u8 protocol_id; "
		"u16 seq; int status}" };
	static const char *const new[] = {
		"scmi_xfer_end(int, u8, u8, u16, int, int)",
		"scmi_xfer_end{int transfer_id; u8 msg_id; u8 protocol_id; "
		"u16 seq; int status; int inflight}" };
	char *out = diff_all(old, 2, new, 2, 0);

	cr_assert(strstr(out, "ok        scmi_xfer_end arg 6: appended, s32\n"),
		  "%s", out);
	cr_assert(strstr(out, "ok        record trace_event_raw_scmi_xfer_end."
			 "inflight: appended, s32 (at 5)\n"), "%s", out);
	cr_assert(strstr(out, "result: 0 breaking, 2 compatible changes"), "%s",
		  out);
}

/* 6.1 -> 6.12: large_folio_split inserted after thp_split, the 6th argument */
Test(contract_cli, diff_mm_migrate_pages_names_the_inserted_position)
{
	static const char *const old[] = {
		"mm_migrate_pages(unsigned long, unsigned long, unsigned long, "
		"unsigned long, unsigned long, enum migrate_mode, int)" };
	static const char *const new[] = {
		"mm_migrate_pages(unsigned long, unsigned long, unsigned long, "
		"unsigned long, unsigned long, unsigned long, enum migrate_mode, "
		"int)" };
	char *out = diff_all(old, 1, new, 1, 1);

	cr_assert(strstr(out, "BREAKING  mm_migrate_pages arg 6: inserted before "
			 "the end, u64\n"), "%s", out);
	cr_assert(strstr(out, "BREAKING  mm_migrate_pages arg 6: moved "
			 "(position 6 -> 7)\n"), "%s", out);
	cr_assert(strstr(out, "BREAKING  mm_migrate_pages arg 7: moved "
			 "(position 7 -> 8)\n"), "%s", out);
	cr_assert_null(strstr(out, "arg 1:"), "%s", out);
	/* and back: the 6th argument removed */
	out = diff_all(new, 1, old, 1, 1);
	cr_assert(strstr(out, "BREAKING  mm_migrate_pages arg 6: removed, was u64\n"),
		  "%s", out);
}

/*
 * 6.1 -> 6.2 on x86: the kernel is built with -funsigned-char, so every
 * plain char turns from signed to unsigned without a line of a tracepoint
 * changing. diff names it (never "s8 * -> u8 *") and calls it compatible;
 * char * turned into signed char * is a retype.
 */
Test(contract_cli, diff_names_the_signedness_of_char)
{
	static const char *const old[] = {
		"devres_log(char *, int, s8 *)",
		"devres_log{char * name; int size}" };
	static const char *const new[] = {
		"-funsigned-char", "devres_log(char *, int, char *)",
		"devres_log{char * name; int size}" };
	char *o = path("old.btf"), *n = path("new.btf"), *out;
	json_t *j, *c;
	struct run r;

	out = diff_all(old, 2, new, 3, 1);
	cr_assert(strstr(out, "ok        devres_log arg 1: char signedness, char * "
			 "(plain char: signed -> unsigned; Linux 6.2+ builds with "
			 "-funsigned-char)\n"), "%s", out);
	cr_assert(strstr(out, "ok        record trace_event_raw_devres_log.name: "
			 "char signedness, char * (plain char: signed -> "
			 "unsigned; Linux 6.2+ builds with -funsigned-char)\n"),
		  "%s", out);
	cr_assert(strstr(out, "BREAKING  devres_log arg 3: retyped, s8 * -> char *\n"),
		  "%s", out);
	cr_assert_null(strstr(out, "u8"), "%s", out);
	cr_assert(strstr(out, "result: 1 breaking, 2 compatible changes"), "%s", out);
	r = ABICAP("diff", "--all", "--format", "json", o, n);
	cr_assert_eq(r.code, 1, "%s%s", r.out, r.err);
	j = json_loads(r.out, 0, NULL);
	cr_assert(j, "%s", r.out);
	c = json_array_get(json_object_get(j, "changes"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(c, "change")),
			 "char signedness", "%s", r.out);
	cr_assert_str_eq(json_string_value(json_object_get(c, "old_type")), "char *");
	cr_assert_str_eq(json_string_value(json_object_get(c, "new_type")), "char *");
	cr_assert_str_eq(json_string_value(json_object_get(c, "old_char")), "signed");
	cr_assert_str_eq(json_string_value(json_object_get(c, "new_char")), "unsigned");
	cr_assert(json_is_false(json_object_get(c, "breaking")), "%s", r.out);
	json_decref(j);
	/* and back: a downgrade names the other direction */
	out = diff_all(new, 3, old, 2, 1);
	cr_assert(strstr(out, "ok        devres_log arg 1: char signedness, char * "
			 "(plain char: unsigned -> signed)\n"), "%s", out);
}

/* scripts/tpabi.py over kernels given in order: each step's states, and the marked events */
Test(contract_cli, tpabi_reports_every_step)
{
	char *k1 = path("5.10.btf"), *k2 = path("6.1.elf"), *k3 = path("6.12.btf");
	char *out = path("docs"), *md, *json, bin[4096];
	json_t *j, *st;
	struct run r;
	size_t len;

	kfix_write_raw(&KFIX_5_10, k1);
	kfix_write_elf(&(struct kfix){ 0 }, k2);
	kfix_write_raw(&(struct kfix){ .switch_appended = true }, k3);
	cr_assert(realpath(abicap_bin(), bin));
	r = run_cmd((char *[]){ "python3", "scripts/tpabi.py", "--abicap", bin,
				"--out", out, k1, k2, k3, NULL });
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	md = read_file(path("docs/tracepoint-abi.md"), &len);
	/* the ELF's release is its banner's */
	cr_assert(strstr(md, "| given/given | " KFIX_RELEASE " -> "), "%s", md);
	cr_assert(strstr(md, "sched_wakeup (trace_event_raw_sched_wakeup_template): "
			 "broke at "), "%s", md);
	cr_assert(strstr(md, "success: deleted, was s32; target_cpu: moved"), "%s", md);
	cr_assert(strstr(md, "sched_switch (trace_event_raw_sched_switch): never "
			 "broke"), "%s", md);
	json = read_file(path("docs/tracepoint-abi.json"), &len);
	j = json_loads(json, 0, NULL);
	cr_assert(j, "%s", json);
	st = json_array_get(json_object_get(json_array_get(json_object_get(j,
		"chains"), 0), "steps"), 0);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		json_object_get(st, "tracepoints"), "changed"), "sched_switch")),
		"append-only", "%s", json);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		json_object_get(st, "marked"), "sched_wakeup"), "record")),
		"breaking", "%s", json);
	st = json_array_get(json_object_get(json_array_get(json_object_get(j,
		"chains"), 0), "steps"), 1);
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(
		json_object_get(st, "records"), "changed"),
		"trace_event_raw_sched_switch")), "append-only", "%s", json);
	json_decref(j);
	r = run_cmd((char *[]){ "python3", "scripts/tpabi.py", k1, NULL });
	cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.err, "at least two kernels"), "%s", r.err);
}

/* a kernel of the matrix: DIR/vmlinux.btf and its manifest.tsv line */
static void matrix_kernel(FILE *m, const struct kfix *k, const char *arch,
			  const char *line, const char *version)
{
	char dir[512], btf[600];

	snprintf(dir, sizeof(dir), "%s", path(version));
	cr_assert_eq(mkdir(dir, 0755), 0);
	snprintf(btf, sizeof(btf), "%s/vmlinux.btf", dir);
	kfix_write_raw(k, btf);
	fprintf(m, "%s-%s\t%s\t%s\tlinux-image-%s\t%s\t%s-%s\t%s\tok\t%s\n", line,
		arch, line, arch, version, version, version, arch, dir, arch);
}

/* scripts/abi-history.sh: the README table and the JSON, from abicap diff and check */
Test(contract_cli, abi_history_is_generated_from_the_matrix)
{
	char *man = path("manifest.tsv"), *readme = path("README.md");
	char *json = path("history.json"), *txt;
	char bin[4096];
	FILE *m = fopen(man, "w");
	const char *table;
	struct run r;
	size_t len;

	cr_assert(m);
	/* listed out of order: the script sorts by version */
	matrix_kernel(m, &(struct kfix){ 0 }, "amd64", "6.1", "6.1.7-1");
	matrix_kernel(m, &KFIX_5_10, "amd64", "5.10", "5.10.9-1");
	matrix_kernel(m, &(struct kfix){ .switch_appended = true }, "amd64",
		      "6.12", "6.12.3-1");
	matrix_kernel(m, &(struct kfix){ .cpu_signed = true }, "riscv64",
		      "6.12", "6.12.3-1r");
	matrix_kernel(m, &(struct kfix){ .cpu_signed = true,
		      .rb_lock = RB_RQSPINLOCK_TAS }, "riscv64", "7.2", "7.2.1-1");
	fclose(m);
	txt = "intro\n<!-- abi-history: begin (generated by scripts/abi-history.sh; "
	      "do not edit) -->\nstale\n<!-- abi-history: end -->\nrest\n";
	write_file(readme, txt, strlen(txt));
	cr_assert(realpath(abicap_bin(), bin));
	setenv("ABICAP", bin, 1);
	setenv("README", readme, 1);
	setenv("JSON_OUT", json, 1);
	r = run_cmd((char *[]){ "scripts/abi-history.sh", man, NULL });
	unsetenv("ABICAP");
	unsetenv("README");
	unsetenv("JSON_OUT");
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	table = read_file(readme, &len);
	cr_assert(strstr(table, "5 kernels with BTF, 2 architecture(s)"), "%s",
		  table);
	cr_assert_null(strstr(table, "stale"), "%s", table);
	cr_assert(strstr(table, "\nrest\n") && !strncmp(table, "intro\n", 6));
	cr_assert(strstr(table, "| 5.10 -> 6.1 (5.10.9-1 -> 6.1.7-1) | "
			 "record trace_event_raw_sched_wakeup_template.success | deleted | "
			 "s32 | - | BREAKING | amd64/amd64 |\n"), "%s", table);
	cr_assert(strstr(table, "| 5.10 -> 6.1 (5.10.9-1 -> 6.1.7-1) | "
			 "sched_switch arg 4 | appended | - | u32 | compatible | "
			 "amd64/amd64 |\n"), "%s", table);
	cr_assert(strstr(table, "| 5.10 -> 6.1 (5.10.9-1 -> 6.1.7-1) | task_struct."
			 "__state | degraded -> ok | state: s64 (long int) | u32 "
			 "(unsigned int) | CO-RE: ok | amd64/amd64 |\n"), "%s", table);
	cr_assert(strstr(table, "| 6.1 -> 6.12 (6.1.7-1 -> 6.12.3-1) | "
			 "record trace_event_raw_sched_switch.next_flags | appended | - | u32 | compatible "
			 "| amd64/amd64 |\n"), "%s", table);
	cr_assert(strstr(table, "| 6.12 -> 7.2 (6.12.3-1r -> 7.2.1-1) | "
			 "bpf_ringbuf.spinlock | ok -> ok | struct raw_spinlock "
			 "(raw_spinlock_t) | spinlock: struct rqspinlock "
			 "(rqspinlock_t) | CO-RE: ok | riscv64/riscv64 |\n"), "%s",
		  table);
	/* what another architecture has at the same line, with why it is ok */
	cr_assert(strstr(table, "| 6.12 | task_struct thread_info.cpu | u32 "
			 "(unsigned int) | s32 (int) | ok | thread_info.cpu is s32 (int) here, an "
			 "integer of the same size and the other signedness"), "%s",
		  table);
	cr_assert(strstr(table, "| 6.12 | sched_switch record.next_flags | u32 at 7 "
			 "| - | - | - | riscv64/riscv64 |\n"), "%s", table);
	txt = read_file(json, &len);
	cr_assert(strstr(txt, "\"steps\""), "%s", txt);
	cr_assert(strstr(txt, "\"generated_by\": \"scripts/abi-history.sh\""));
}

/* The built-in contract without sched_switch's prev_state and/or the ring buffer's lock. */
static char *trimmed_contract(const char *name, bool prev_state, bool ringbuf)
{
	char *p = path(name);
	struct run r = ABICAP("contract", "show");
	json_t *j = json_loads(r.out, 0, NULL), *e, *f;
	size_t i;

	cr_assert(j);
	json_array_foreach(json_object_get(j, "events"), i, e)
		if (prev_state && !strcmp(json_string_value(json_object_get(e,
					  "name")), "sched_switch"))
			json_array_remove(json_object_get(e, "args"), 3);
	json_array_foreach(json_object_get(j, "fields"), i, f)
		if (ringbuf && !strcmp(json_string_value(json_object_get(f,
				       "struct")), "bpf_ringbuf")) {
			json_array_remove(json_object_get(j, "fields"), i);
			break;
		}
	cr_assert_eq(json_dump_file(j, p, 0), 0);
	json_decref(j);
	return p;
}

/*
 * A contract that hides a dependency of abicap's programs is refused (exit
 * 2, one line naming the item and the fix) by check and by trace, before
 * anything loads: it said "53 ok ... satisfied", and trace ran the racy
 * 3-argument sched_switch program on a 4-argument kernel.
 */
Test(contract_cli, a_contract_missing_a_dependency_is_refused)
{
	char *both = trimmed_contract("trim.json", true, true);
	char *rb = trimmed_contract("trim-rb.json", false, true);
	struct run r;

	require_kernel();
	r = ABICAP("check", "--contract", both);
	cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, "abicap: error: contract 'abicap-default' does "
			 "not declare sched_switch arg 4 prev_state, which "
			 "chooses the 4-argument sched_switch program"), "%s",
		  r.err);
	cr_assert(strstr(r.err, "(abicap contract show)\n"), "%s", r.err);
	cr_assert_eq(strchr(r.err, '\n'), r.err + strlen(r.err) - 1,
		     "more than one line: %s", r.err);
	r = ABICAP("trace", "-d", "0.2", "--contract", both);
	cr_assert_eq(r.code, 2, "%s", r.err);
	cr_assert_str_empty(r.out);
	cr_assert(strstr(r.err, "sched_switch arg 4 prev_state"), "%s", r.err);
	cr_assert_null(strstr(r.err, "tracing"), "%s", r.err);
	/* the ring buffer's lock alone, and for an event that is not sched_switch */
	r = ABICAP("check", "--contract", rb, "--format", "json");
	cr_assert_eq(r.code, 2, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, "\"error\": \"contract 'abicap-default' omits "
			 "bpf_ringbuf.spinlock, which chooses the ring buffer"),
		  "%s", r.out);
	r = ABICAP("trace", "-d", "0.2", "--contract", rb, "-e", "cpu_idle");
	cr_assert_eq(r.code, 2, "%s", r.err);
	cr_assert(strstr(r.err, "omits bpf_ringbuf.spinlock"), "%s", r.err);
	/* without sched_switch, its argument is no dependency */
	r = ABICAP("trace", "-d", "0.2", "--contract", trimmed_contract(
			   "trim-sw.json", true, false), "-e", "cpu_idle");
	cr_assert_eq(r.code, 0, "%s", r.err);
}

/* A contract derived from another object describes that object: check holds it as given. */
Test(contract_cli, a_derived_contract_describes_its_object)
{
	char *der = path("derived.json");
	struct run r;

	require_kernel();
	r = ABICAP("contract", "from-object", "build/abicap.bpf.o", "-o", der);
	cr_assert_eq(r.code, 0, "%s", r.err);
	r = ABICAP("check", "--contract", der);
	cr_assert_eq(r.code, 0, "%s%s", r.out, r.err);
	cr_assert(strstr(r.out, ": satisfied\n"), "%s", r.out);
	/* but it cannot stand in for abicap's own contract */
	r = ABICAP("trace", "-d", "0.2", "--contract", der);
	cr_assert_eq(r.code, 2, "%s", r.err);
	cr_assert(strstr(r.err, "sched_switch arg 4 prev_state"), "%s", r.err);
}

/*
 * A relocation naming a type the object's BTF lacks (type_id 0xffff in
 * .BTF.ext) crashed both commands that read objects (exit 139, issue 23):
 * now bad input, exit 2, one line naming the relocation.
 */
Test(contract_cli, a_broken_object_exits_2_not_a_crash)
{
	char *obj = path("broken.bpf.o");
	struct objfix f;

	objfix_load(&f, "build/tests/bpf/t_state_guarded.bpf.o");
	objfix_set(&f, OF_TYPE_ID, 0xffff);
	objfix_write(&f, obj);
	objfix_free(&f);
	expect_exit2(ABICAP("check", "--object", obj, "--btf",
			    "tests/fuzz/corpus/fuzz_btf/raw-6x.btf"),
		     "CO-RE relocation 1 (on_switch, instruction ");
	expect_exit2(ABICAP("contract", "from-object", obj, "-o", path("c.json")),
		     "type [65535], which the object's BTF does not have");
	cr_assert(access(path("c.json"), F_OK), "a contract was written");
}
