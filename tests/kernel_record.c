// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap record as a user runs it, read back with the capture reader. */
#include <criterion/criterion.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include "btf_fixture.h"
#include "capfile.h"
#include "harness.h"
#include "util.h"

#define path(n) scratch_path(n)
static char err[ERRMSG_LEN];

TestSuite(record, .init = scratch_init, .fini = scratch_fini, .timeout = 60);

/*
 * `record -- sh -c 'build/pingpong 1'`: the ping-pong process is the shell's
 * child, so only following forks in the kernel finds its events.
 */
Test(record, command_and_its_children_are_followed)
{
	char *file = path("pp.abicap");
	char *argv[] = { (char *)abicap_bin(), "record", "-o", file, "--", "sh",
			 "-c", "exec 3>&1; build/pingpong 1 0 > /dev/null", NULL };
	struct child ch;
	struct capr *r;
	union abicap_rec rec;
	json_t *meta, *trl;
	char *err_out;
	long long pp_switches = 0, n = 0;
	struct stat st;
	int c;

	require_kernel();
	spawn(&ch, argv);
	read_all(ch.out_fd);
	err_out = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "%s", err_out);
	cr_assert(strstr(err_out, "abicap: the command exited with status 0"),
		  "%s", err_out);
	cr_assert_eq(stat(file, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	r = capr_open(file, err, sizeof(err));
	cr_assert(r, "%s", err);
	while ((c = capr_next(r, &rec)) == 1) {
		n++;
		cr_assert_neq(rec.hdr.type, ABICAP_EV_CPU_IDLE);
		if (rec.hdr.type == ABICAP_EV_SCHED_SWITCH &&
		    !strcmp(rec.sw.prev_comm, "abc_ping") &&
		    !strcmp(rec.sw.next_comm, "abc_pong"))
			pp_switches++;
	}
	cr_assert_eq(c, 0, "%s", capr_error(r));
	cr_assert_not(capr_cut_short(r));
	cr_assert_gt(pp_switches, 1000, "%lld ping -> pong switches", pp_switches);
	meta = json_loads(capr_meta(r), 0, NULL);
	trl = json_loads(capr_trailer(r), 0, NULL);
	cr_assert(meta && trl);
	cr_assert_eq(json_integer_value(json_object_get(meta, "capture_format")), 2);
	cr_assert_str_eq(json_string_value(json_object_get(meta, "clock")),
			 "CLOCK_MONOTONIC");
	cr_assert(json_is_string(json_object_get(
		json_object_get(meta, "variants"), "sched_switch")));
	cr_assert_eq(json_integer_value(json_object_get(trl, "records")), n);
	cr_assert_eq(json_integer_value(json_object_get(trl, "command_status")), 0);
	json_decref(meta);
	json_decref(trl);
	capr_close(r);
	free(err_out);
}

/* report refuses what is not a capture file, naming it. */
Test(record, report_refuses_a_non_capture)
{
	struct child ch;
	char *e;

	write_file(path("junk"), "garbage", 7);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "report", path("junk"), NULL });
	e = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 2);
	cr_assert(strstr(e, "is not an abicap capture file"), "%s", e);
	free(e);
}

Test(record, usage_errors)
{
	struct child ch;
	char *e;

	spawn(&ch, (char *[]){ (char *)abicap_bin(), "record", NULL });
	e = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 2);
	cr_assert(strstr(e, "record needs -o FILE"), "%s", e);
	free(e);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "record", "-o", "/tmp/x",
			       "-p", "1", "--", "true", NULL });
	e = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 2);
	cr_assert(strstr(e, "-p and a command exclude each other"), "%s", e);
	free(e);
}

/* A real capture exported to Perfetto: protoc decodes as many events of each kind. */
Test(record, perfetto_export_keeps_every_event)
{
	char *file = path("p.abicap"), *pf = path("p.pftrace"), seen[4096];
	char *argv[] = { (char *)abicap_bin(), "record", "-o", file, "-d", "1.5", NULL };
	static const char *kinds[ABICAP_EV_COUNT] = { "sched_switch {",
		"sched_wakeup {", "sched_wakeup_new {", "sched_waking {",
		"cpu_idle {", "cpu_frequency {" };
	long long want[ABICAP_EV_COUNT] = { 0 };
	struct child ch;
	struct pingpong pp;
	struct capr *r;
	union abicap_rec rec;
	char *txt;

	require_kernel();
	spawn(&ch, argv);
	wait_for_stderr(&ch, "abicap: recording", seen, sizeof(seen));
	pingpong_run(&pp, 2000, 0);
	free(read_all(ch.err_fd));
	cr_assert_eq(wait_exit(&ch, 30), 0);
	r = capr_open(file, err, sizeof(err));
	cr_assert(r, "%s", err);
	while (capr_next(r, &rec) == 1)
		want[rec.hdr.type]++;
	capr_close(r);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", file, "--perfetto",
			       pf, NULL });
	free(read_all(ch.err_fd));
	cr_assert_eq(wait_exit(&ch, 30), 0);
	txt = protoc_decode(pf);
	cr_assert_gt(want[ABICAP_EV_SCHED_SWITCH], 4000);
	for (int k = 0; k < ABICAP_EV_COUNT; k++) {
		long long got = 0;

		for (const char *s = txt; (s = strstr(s, kinds[k])); s++)
			got++;
		cr_assert_eq(got, want[k], "%s: %lld in the trace, %lld captured",
			     kinds[k], got, want[k]);
	}
	cr_assert(strstr(txt, "name: \"abc_ping\""));
	/* the capturing kernel's uname, for Perfetto's prev_state layout */
	{
		struct utsname u;
		char want_uts[1024];

		cr_assert_eq(uname(&u), 0);
		snprintf(want_uts, sizeof(want_uts), "utsname {\n      sysname: "
			 "\"%s\"\n      version: \"%s\"\n      release: \"%s\"\n"
			 "      machine: \"%s\"\n", u.sysname, u.version, u.release,
			 u.machine);
		cr_assert(strstr(txt, want_uts), "no %s", want_uts);
	}
	free(txt);
}
