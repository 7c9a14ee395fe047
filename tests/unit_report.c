// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap report on hand-written captures: names that are not UTF-8 or hold
 * control bytes, drop windows, filtered captures, as a user reads them.
 */
#define _GNU_SOURCE /* memmem */
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/analysis.h"
#include "capfile/capfile.h"
#include "report/report_group.h"
#include "cmd/commands.h"
#include "harness.h"
#include "lib/util.h"
#include "recfix.h"

#define path(n) scratch_path(n)
static char err[ERRMSG_LEN];

TestSuite(report, .init = scratch_init, .fini = scratch_fini);

#define S 0x1

static void add_sw(struct capw *w, uint64_t ts, int32_t prev,
		   const char *pcomm, uint32_t state, int32_t next,
		   const char *ncomm, uint8_t flags)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw) };
	r.sw.prev_pid = r.sw.prev_tgid = prev;
	r.sw.next_pid = r.sw.next_tgid = next;
	memcpy(r.sw.prev_comm, pcomm, strnlen(pcomm, ABICAP_COMM_LEN - 1));
	memcpy(r.sw.next_comm, ncomm, strnlen(ncomm, ABICAP_COMM_LEN - 1));
	r.sw.prev_state = state;
	r.sw.flags = flags;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
}

static void add_wk_type(struct capw *w, unsigned int type, uint64_t ts,
			int32_t pid, const char *comm, int32_t waker)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.wk.hdr = (struct abicap_hdr){ .ts_ns = ts, .type = type,
		.size = sizeof(r.wk) };
	r.wk.pid = r.wk.tgid = pid;
	r.wk.waker_pid = r.wk.waker_tgid = waker;
	memcpy(r.wk.comm, comm, strnlen(comm, ABICAP_COMM_LEN - 1));
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
}

static void add_wk(struct capw *w, uint64_t ts, int32_t pid, const char *comm,
		   int32_t waker)
{
	add_wk_type(w, ABICAP_EV_SCHED_WAKEUP, ts, pid, comm, waker);
}

/* do_report's stdout for these arguments. */
static char *report(int argc, char **argv, size_t *len)
{
	cr_assert(freopen(path("out"), "w", stdout));
	cr_assert_eq(do_report(argc, argv), 0);
	cr_assert_eq(fflush(stdout), 0);
	return read_file(path("out"), len);
}

/* report()'s stdout as a string (read_file() gives no NUL). */
static char *report_str(int argc, char **argv)
{
	size_t len;
	char *b = report(argc, argv, &len), *s = strndup(b, len);

	cr_assert(s);
	free(b);
	return s;
}

#define META "{\"ncpus\":1,\"record_format\":3,\"events\":[\"sched_switch\"," \
	"\"sched_wakeup\"]}"
#define BAD "bad\xff\xfe" "name"
#define ESCNAME "esc\x1b[31mred"

/* Two tasks each with one 1 us wait: one named BAD, one ESCNAME. */
static void odd_names(const char *p)
{
	struct capw *w = capw_open(p, false, META, err, sizeof(err));

	cr_assert(w, "%s", err);
	add_sw(w, 1000, 100, BAD, S, 200, ESCNAME, 3);
	add_wk(w, 2000, 100, BAD, 200);
	add_sw(w, 3000, 200, ESCNAME, S, 100, BAD, 3);
	add_wk(w, 4000, 200, ESCNAME, 100);
	add_sw(w, 5000, 100, BAD, S, 200, ESCNAME, 3);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
}

/*
 * A comm that is not UTF-8 (prctl PR_SET_NAME takes any bytes) is escaped,
 * not dropped (the JSON report left its task out).
 */
Test(report, json_keeps_a_task_whose_name_is_not_utf8)
{
	json_t *j, *t, *want1, *want2, *names = json_array();
	size_t len, i;
	char *out;

	odd_names(path("odd.abicap"));
	out = report(4, (char *[]){ "report", "--format", "json",
				    path("odd.abicap"), NULL }, &len);
	j = json_loadb(out, len, 0, NULL);
	cr_assert(j, "not JSON: %.*s", (int)len, out);
	cr_assert_eq(json_array_size(json_object_get(j, "tasks")), 2,
		     "%.*s", (int)len, out);
	json_array_foreach(json_object_get(j, "tasks"), i, t)
		json_array_append(names, json_object_get(t, "comm"));
	/* as trace's JSON: bytes not UTF-8 as the text \xHH, ESC as \u001b */
	want1 = json_pack("[s, s]", "bad\\xff\\xfename", ESCNAME);
	want2 = json_pack("[s, s]", ESCNAME, "bad\\xff\\xfename");
	cr_assert(json_equal(names, want1) || json_equal(names, want2),
		  "%s", json_dumps(names, 0));
	json_decref(want1);
	json_decref(want2);
	json_decref(names);
	json_array_foreach(json_object_get(j, "wakeup_chains"), i, t)
		cr_assert(json_is_string(json_object_get(t, "waker_comm")));
	cr_assert_eq(json_array_size(json_object_get(j, "wakeup_chains")), 2);
	json_decref(j);
	free(out);
}

/* No control byte reaches the terminal: ESC comes out as the text \x1b. */
Test(report, text_escapes_control_bytes)
{
	size_t len;
	char *out;

	odd_names(path("odd.abicap"));
	out = report(2, (char *[]){ "report", path("odd.abicap"), NULL }, &len);
	cr_assert_null(memchr(out, 0x1b, len), "%.*s", (int)len, out);
	cr_assert_null(memchr(out, 0xff, len));
	cr_assert(memmem(out, len, "esc\\x1b[31mred", 14), "%.*s", (int)len, out);
	cr_assert(memmem(out, len, "bad\\xff\\xfename", 15), "%.*s", (int)len,
		  out);
	free(out);
}

/* Two CPUs' worth of switches, one wait of task 100 (1 us), into p. */
/* A switch on cpu from prev to next (no names). */
static void add_sw_on(struct capw *w, uint64_t ts, uint32_t cpu, int32_t prev,
		      int32_t next)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw), .cpu = cpu };
	r.sw.prev_pid = r.sw.prev_tgid = prev;
	r.sw.next_pid = r.sw.next_tgid = next;
	r.sw.flags = 3;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
}

/* t100's one wait on CPU 0; a switch to task 300 on CPU 1. */
static void two_cpus(const char *p, const char *meta)
{
	struct capw *w = capw_open(p, true, meta, err, sizeof(err));

	cr_assert(w, "%s", err);
	add_sw(w, 1000, 100, "t100", S, 0, "swapper", 3);
	add_wk(w, 2000, 100, "t100", 0);
	add_sw(w, 3000, 0, "swapper", 0, 100, "t100", 3);
	add_sw_on(w, 4000, 1, 0, 300);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
}

#define EVS "\"events\":[\"sched_switch\",\"sched_wakeup\"]"

/* Any task filter hides the CPU table (it does not see every switch), saying why. */
Test(report, cpu_table_not_shown_for_a_task_filtered_capture)
{
	size_t len;
	char *out;
	json_t *j;

	two_cpus(path("comm.abicap"), "{\"ncpus\":2,\"record_format\":3," EVS
		 ",\"filter\":{\"tasks\":true,\"comm\":\"t100\"}}");
	out = report(2, (char *[]){ "report", path("comm.abicap"), NULL }, &len);
	cr_assert(memmem(out, len, "not shown: the capture was filtered to "
			 "some tasks", 40), "%.*s", (int)len, out);
	cr_assert_null(memmem(out, len, "BUSY(ms)", 8));
	cr_assert(memmem(out, len, "\"comm\":\"t100\"", 13), "the filter is "
		  "shown: %.*s", (int)len, out);
	free(out);
	out = report(4, (char *[]){ "report", "--format", "json",
				    path("comm.abicap"), NULL }, &len);
	j = json_loadb(out, len, 0, NULL);
	cr_assert(j);
	cr_assert(json_is_null(json_object_get(j, "cpus")));
	cr_assert(json_is_string(json_object_get(j, "cpus_not_shown")));
	cr_assert_str_eq(json_string_value(json_object_get(json_object_get(j,
			 "filter"), "comm")), "t100");
	cr_assert(json_is_true(json_object_get(j, "figures_trustworthy")));
	json_decref(j);
	free(out);
}

/* -C 1: only CPU 1's row. */
Test(report, cpu_table_shows_only_the_cpus_captured)
{
	size_t len;
	char *out;
	json_t *j;

	two_cpus(path("cpu.abicap"), "{\"ncpus\":2,\"record_format\":3," EVS
		 ",\"filter\":{\"tasks\":false,\"cpus\":[1]}}");
	out = report(4, (char *[]){ "report", "--format", "json",
				    path("cpu.abicap"), NULL }, &len);
	j = json_loadb(out, len, 0, NULL);
	cr_assert(j);
	cr_assert_eq(json_array_size(json_object_get(j, "cpus")), 1, "%.*s",
		     (int)len, out);
	cr_assert_eq(json_integer_value(json_object_get(json_array_get(
		json_object_get(j, "cpus"), 0), "cpu")), 1);
	/* tasks may run on the CPUs not captured: said, not hidden */
	cr_assert(json_is_false(json_object_get(j, "figures_trustworthy")));
	json_decref(j);
	free(out);
	out = report(2, (char *[]){ "report", path("cpu.abicap"), NULL }, &len);
	cr_assert(strstr(out, "WARNING: some CPUs only (-C)"), "%s", out);
	free(out);
}

/*
 * A filtered capture of an older abicap (record format 2: no flags says
 * which side of a switch passed the filter): figures said untrustworthy.
 */
Test(report, older_filtered_capture_is_flagged)
{
	size_t len;
	char *out;
	json_t *j;

	two_cpus(path("old.abicap"), "{\"ncpus\":2,\"record_format\":2," EVS
		 ",\"pid_filter\":0,\"command_line\":[\"abicap\",\"record\","
		 "\"-o\",\"x\",\"--comm\",\"t100\"]}");
	out = report(4, (char *[]){ "report", "--format", "json",
				    path("old.abicap"), NULL }, &len);
	j = json_loadb(out, len, 0, NULL);
	cr_assert(j);
	cr_assert(json_is_false(json_object_get(j, "figures_trustworthy")));
	cr_assert(json_is_null(json_object_get(j, "cpus")));
	json_decref(j);
	free(out);
	two_cpus(path("old.abicap"), "{\"ncpus\":2,\"record_format\":2," EVS
		 ",\"pid_filter\":0,\"command_line\":[\"abicap\",\"record\","
		 "\"-o\",\"x\"]}");
	out = report(4, (char *[]){ "report", "--format", "json",
				    path("old.abicap"), NULL }, &len);
	j = json_loadb(out, len, 0, NULL);
	cr_assert(json_is_true(json_object_get(j, "figures_trustworthy")));
	cr_assert_eq(json_array_size(json_object_get(j, "cpus")), 2);
	json_decref(j);
	free(out);
}

/* The JSON report of argv, parsed. */
static json_t *report_json(int argc, char **argv)
{
	size_t len;
	char *out = report(argc, argv, &len);
	json_t *j = json_loadb(out, len, 0, NULL);

	cr_assert(j, "not JSON: %.*s", (int)len, out);
	free(out);
	return j;
}

/*
 * t100 out asleep at 1000, woken (sched_waking 2000, sched_wakeup 2500),
 * in at 3000; meta_more added to the metadata.
 */
static void waking_capture(const char *p, const char *meta_more)
{
	char meta[512];
	struct capw *w;

	snprintf(meta, sizeof(meta), "{\"ncpus\":1,\"record_format\":3,"
		 "\"events\":[\"sched_switch\",\"sched_wakeup\","
		 "\"sched_waking\"]%s}", meta_more);
	w = capw_open(p, false, meta, err, sizeof(err));
	cr_assert(w, "%s", err);
	add_sw(w, 1000, 100, "t100", S, 0, "swapper", 3);
	add_wk_type(w, ABICAP_EV_SCHED_WAKING, 2000, 100, "t100", 0);
	add_wk(w, 2500, 100, "t100", 0);
	add_sw(w, 3000, 0, "swapper", 0, 100, "t100", 3);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
}

/*
 * A wait after a wakeup starts at sched_wakeup (as runqlat and the tracefs
 * oracle count), or with --from-waking at sched_waking (as perf sched).
 */
Test(report, wakeup_or_waking)
{
	json_t *j;

	waking_capture(path("wk.abicap"), "");
	j = report_json(4, (char *[]){ "report", "--format", "json",
				       path("wk.abicap"), NULL });
	cr_assert_str_eq(json_string_value(json_object_get(j, "wakeup_from")),
			 "sched_wakeup");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j,
		     "runqueue_latency"), "max_ns")), 500);
	json_decref(j);
	j = report_json(5, (char *[]){ "report", "--format", "json",
				       "--from-waking", path("wk.abicap"), NULL });
	cr_assert_str_eq(json_string_value(json_object_get(j, "wakeup_from")),
			 "sched_waking");
	cr_assert_eq(json_integer_value(json_object_get(json_object_get(j,
		     "runqueue_latency"), "max_ns")), 1000);
	json_decref(j);
}

/* --from-waking on a capture without sched_waking: exit 2, saying so. */
Test(report, from_waking_needs_sched_waking)
{
	odd_names(path("odd.abicap"));
	cr_assert_eq(do_report(3, (char *[]){ "report", "--from-waking",
					   path("odd.abicap"), NULL }), 2);
}

/*
 * Records naming a CPU at or past the capture's count (where they ran, or
 * the CPU a power event is about) are left out, counted and said, in text
 * and JSON, as export says it (issue 23: report dropped them silently).
 */
Test(report, records_on_a_cpu_past_the_count_are_counted)
{
	char *cap = path("bad.abicap"), *pf = path("bad.pftrace");
	union abicap_rec r;
	struct run ex;
	struct capw *w;
	size_t len;
	char *out;
	json_t *j;

	w = capw_open(cap, false, "{\"ncpus\":2,\"record_format\":3,"
		      "\"events\":[\"sched_switch\",\"sched_wakeup\",\"cpu_idle\"]}",
		      err, sizeof(err));
	cr_assert(w, "%s", err);
	add_sw(w, 1000, 100, "t100", S, 0, "swapper", 3);
	add_wk(w, 2000, 100, "t100", 0);
	add_sw(w, 3000, 0, "swapper", 0, 100, "t100", 3);
	add_sw_on(w, 3500, 5, 100, 700);
	memset(&r, 0, sizeof(r));
	r.pw = (struct abicap_power){ .hdr = { 3600, ABICAP_EV_CPU_IDLE,
		sizeof(r.pw), 0 }, .state = 1, .cpu_id = 3 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);

	out = report(2, (char *[]){ "report", cap, NULL }, &len);
	cr_assert(strstr(out, ", 3 records\n"), "%s", out);
	cr_assert(strstr(out, "WARNING: 2 records name a CPU past the capture's "
			 "2 and were left out"), "%s", out);
	free(out);
	out = report(4, (char *[]){ "report", "--format", "json", cap, NULL },
		     &len);
	j = json_loadb(out, len, 0, NULL);
	cr_assert(j, "%.*s", (int)len, out);
	cr_assert_eq(json_integer_value(json_object_get(j, "records_bad_cpu")),
		     2, "%.*s", (int)len, out);
	cr_assert(json_is_false(json_object_get(j, "figures_trustworthy")));
	json_decref(j);
	free(out);

	/* export counts the same two (the idle record's own CPU is 0) */
	ex = run_cmd((char *[]){ (char *)abicap_bin(), "export", cap,
				 "--perfetto", pf, NULL });
	cr_assert_eq(ex.code, 0, "%s", ex.err);
	cr_assert(strstr(ex.err, "2 records name a CPU past the capture's 2 and "
			  "were left out") && strstr(ex.err, "wrote 3 events"),
		  "%s", ex.err);
	free(ex.out);
	free(ex.err);
}

/*
 * report --pid of a process the capture does not have (issue 25: exit 0,
 * empty tables, no word): exit 2, one line naming the pid and the file;
 * likewise --comm. A pid it has still reports.
 */
Test(report, a_pid_or_comm_the_capture_lacks_is_exit_2)
{
	char *cap = path("odd.abicap");

	odd_names(cap);
	cr_assert(freopen(path("err"), "w", stderr));
	cr_assert_eq(do_report(4, (char *[]){ "report", "--pid", "99999", cap,
					   NULL }), 2);
	cr_assert_eq(do_report(4, (char *[]){ "report", "--comm", "nosuch",
					   cap, NULL }), 2);
	cr_assert_eq(fflush(stderr), 0);
	{
		size_t len;
		char *b = read_file(path("err"), &len), *e = strndup(b, len);

		cr_assert(e);
		cr_assert(strstr(e, "no task of process 99999 in"), "%s", e);
		cr_assert(strstr(e, "no task named 'nosuch' in"), "%s", e);
		free(e);
		free(b);
	}
	cr_assert(freopen(path("out"), "w", stdout));
	cr_assert_eq(do_report(4, (char *[]){ "report", "--pid", "100", cap,
					   NULL }), 0);
}

/*
 * The header shows the report's own filter and, labelled as such, the
 * recording's; the footnote under the latency table names the event a
 * wait after a wakeup starts at as --help does (sched_wakeup: runqlat;
 * sched_waking, --from-waking: perf sched).
 */
Test(report, header_shows_both_filters_and_the_footnote_matches_help)
{
	char *cap = path("wk.abicap"), *out;

	waking_capture(cap, ",\"filter\":{\"tasks\":false}");
	out = report_str(4, (char *[]){ "report", "--comm", "t100", cap, NULL });
	cr_assert(strstr(out, "\nreport's filter: --comm t100\n"), "%s", out);
	cr_assert(strstr(out, "\nrecording's filter: {\"tasks\":false,"), "%s",
		  out);
	cr_assert(strstr(out, "from sched_wakeup (when queued, as runqlat "
			 "counts; --from-waking: from sched_waking, as perf "
			 "sched counts its delay)"), "%s", out);
	free(out);
	out = report_str(3, (char *[]){ "report", "--from-waking", cap, NULL });
	cr_assert(strstr(out, "\nreport's filter: none\n"), "%s", out);
	cr_assert(strstr(out, "from sched_waking (when the waker chose to wake "
			 "it, as perf sched counts its delay)"), "%s", out);
	free(out);
}

/*
 * The per-task table names a task's cgroup by its full path (issue 25:
 * text showed "systemd:foo.service" where JSON had the path); a cgroup id
 * the capture holds no path for is "cgroup#ID", explained under the table.
 */
Test(report, cgroups_by_full_path_and_unknown_ids_explained)
{
	char *cap = path("cg.abicap"), *out;
	struct capw *w = capw_open(cap, false, META, err, sizeof(err));
	union abicap_rec r;

	cr_assert(w, "%s", err);
	cr_assert_eq(capw_add_cgroup(w, 50, "/system.slice/foo.service"), 0);
	for (int i = 0; i < 3; i++) {
		uint64_t t = 1000 + i * 4000;

		memset(&r, 0, sizeof(r));
		r.sw.hdr = (struct abicap_hdr){ .ts_ns = t, .type =
			ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw) };
		r.sw.prev_pid = r.sw.prev_tgid = i % 2 ? 200 : 100;
		r.sw.next_pid = r.sw.next_tgid = i % 2 ? 100 : 200;
		memcpy(r.sw.prev_comm, i % 2 ? "b" : "a", 1);
		memcpy(r.sw.next_comm, i % 2 ? "a" : "b", 1);
		r.sw.prev_cgroup = i % 2 ? 77 : 50;
		r.sw.next_cgroup = i % 2 ? 50 : 77;
		r.sw.prev_state = S;
		r.sw.flags = 3;
		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
		add_wk(w, t + 2000, i % 2 ? 200 : 100, i % 2 ? "b" : "a",
		       i % 2 ? 100 : 200);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	out = report_str(2, (char *[]){ "report", cap, NULL });
	cr_assert(strstr(out, "  /system.slice/foo.service\n"), "%s", out);
	cr_assert_null(strstr(out, "systemd:foo.service"), "%s", out);
	cr_assert(strstr(out, "  cgroup#77\n"), "%s", out);
	cr_assert(strstr(out, "cgroup#ID: a cgroup whose path was not known"),
		  "%s", out);
	free(out);
}

/*
 * issue 21 defect 7: report --by cgroup with 10k/20k/40k cgroups took
 * 0.54/1.7/7.6 s at 610 MB (a linear lookup per task, 4 KiB per group,
 * realloc by one). 100,000 tasks in as many cgroups, and a wakeup chain
 * between each pair of neighbours: grouped well inside the timeout.
 */
Test(report, grouping_many_cgroups_in_linear_time, .timeout = 20)
{
	struct analysis a;
	struct cgnames *names = cgnames_table();
	struct grouping g;
	uint64_t ts = 1000;

	cr_assert(names);
	analysis_init(&a, 1);
	for (int i = 0; i < 100000; i++) {
		union abicap_rec r = recfix_wakeup(ABICAP_EV_SCHED_WAKEUP, ts++,
						   1000 + i, NULL, 999 + i);

		r.wk.cgroup = 5000 + (uint64_t)i;
		analysis_add(&a, &r);
		r = recfix_switch(ts++, 0, 0, NULL, 0, 1000 + i, NULL, 3);
		r.sw.next_cgroup = 5000 + (uint64_t)i;
		analysis_add(&a, &r);
		r = recfix_switch(ts++, 0, 1000 + i, NULL, 1, 0, NULL, 3);
		analysis_add(&a, &r);
	}
	analysis_finish(&a);
	cr_assert_eq(group_analysis(&a, names, GROUP_CGROUP, NULL, &g), 0);
	cr_assert_geq(g.n, 100000);
	cr_assert_eq(g.nch, a.nchains);
	for (size_t i = 0; i < g.n; i++)
		cr_assert(g.g[i].ntasks <= 1, "%s: %zu tasks", g.g[i].name,
			  g.g[i].ntasks);
	grouping_free(&g);
	cgnames_free(names);
	analysis_free(&a);
}
