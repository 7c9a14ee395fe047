// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A capture recorded on a big-endian machine reads here as it did there.
 * tests/captures/s390x.abicap was recorded by abicap in an s390x guest
 * (Debian's s390x kernel under qemu, scripts/vmtest.sh: the whole system
 * for 2 s, a ping-pong on CPU 0 for 0.5 s), and the guest's own
 * `report --format json` and `export --perfetto` of it came out with it
 * (tests/captures/s390x.report.json, s390x.pftrace.sha256). Read here,
 * on a little-endian machine, they must be the same. Before the records
 * were written little-endian, every field of every record read here was
 * byte-swapped.
 */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness.h"

#define CAP "tests/captures/s390x.abicap"

TestSuite(portable, .init = scratch_init, .fini = scratch_fini);

/* JSON text (or, with file set, a file's), less the capture's path. */
static json_t *load_json(const char *text, bool file, const char *what)
{
	json_error_t e;
	json_t *j = file ? json_load_file(text, 0, &e) : json_loads(text, 0, &e);

	cr_assert(j, "%s is not JSON: %s", what, e.text);
	/* where the file was: /tmp/cap.abicap in the guest */
	json_object_del(j, "file");
	return j;
}

Test(portable, s390x_capture_reports_here_as_in_its_guest)
{
	struct run r = run_cmd((char *[]){ (char *)abicap_bin(), "report", CAP,
					   "--format", "json", NULL });
	json_t *got, *want, *cap;

	cr_assert_eq(r.code, 0, "%s", r.err);
	got = load_json(r.out, false, "report here");
	want = load_json("tests/captures/s390x.report.json", true,
			 "the guest's report");
	cap = json_object_get(got, "capture");
	cr_assert_str_eq(json_string_value(json_object_get(cap, "byte_order")),
			 "big-endian");
	cr_assert_str_eq(json_string_value(json_object_get(
		json_object_get(cap, "uname"), "machine")), "s390x");
	cr_assert(json_is_true(json_object_get(got, "figures_trustworthy")),
		  "%s", r.out);
	/*
	 * members added to a task's row since the guest's report was made
	 * (issue 37): none of its tasks had a switch hidden
	 */
	{
		json_t *t;
		size_t i;

		json_array_foreach(json_object_get(got, "tasks"), i, t) {
			cr_assert(json_is_true(json_object_get(t,
				  "runtime_complete")), "%s", r.out);
			/* a capture made before recorder_pid: none marked */
			cr_assert(json_is_false(json_object_get(t, "recorder")));
			json_object_del(t, "recorder");
			json_object_del(t, "runtime_complete");
			json_object_del(t, "hidden_switches");
			json_object_del(t, "unknown_ns");
		}
	}
	cr_assert(json_equal(got, want),
		  "report here differs from the guest's:\n%.2000s", r.out);
	json_decref(got);
	json_decref(want);
	free(r.out);
	free(r.err);
}

/* The text report says where the capture came from. */
Test(portable, s390x_capture_names_its_byte_order)
{
	struct run r = run_cmd((char *[]){ (char *)abicap_bin(), "report", CAP,
					   NULL });

	cr_assert_eq(r.code, 0, "%s", r.err);
	cr_assert(strstr(r.out, "(recorded on s390x, big-endian)"), "%.300s",
		  r.out);
	cr_assert(strstr(r.out, "abc_ping"), "the ping-pong's names: %.300s",
		  r.out);
	free(r.out);
	free(r.err);
}

Test(portable, s390x_capture_exports_here_as_in_its_guest)
{
	char *out = scratch_path("s390x.pftrace"), want[80] = "";
	FILE *f = fopen("tests/captures/s390x.pftrace.sha256", "r");
	struct run r = run_cmd((char *[]){ (char *)abicap_bin(), "export", CAP,
					   "--perfetto", out, NULL });
	struct run s;

	cr_assert(f && fgets(want, sizeof(want), f), "no sha256 of the guest's export");
	fclose(f);

	cr_assert_eq(r.code, 0, "%s", r.err);
	s = run_cmd((char *[]){ "sha256sum", out, NULL });
	cr_assert_eq(s.code, 0, "%s", s.err);
	cr_assert_eq(strncmp(s.out, want, 64), 0,
		     "export here %.64s, in the guest %.64s", s.out, want);
	free(r.out);
	free(r.err);
	free(s.out);
	free(s.err);
}
