// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The views of a capture as a user meets them, on hand-written captures:
 * --since/--until values, script's filters and window, the pixel rows of
 * the pictures (what is under a pixel merged, totals kept), and the
 * pictures' and tables' usage errors.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "browser.h"
#include "capfile/capfile.h"
#include "cmd/commands.h"
#include "harness.h"
#include "lib/duration.h"
#include "lib/util.h"
#include "recfix.h"
#include "view/heatmap.h"
#include "view/pixrow.h"
#include "view/heatmap_file.h"
#include "view/timechart_file.h"
#include "view/timechart_html.h"

#define path(n) scratch_path(n)
static char err[ERRMSG_LEN];

TestSuite(view, .init = scratch_init, .fini = scratch_fini);

Test(view, durations_need_a_unit)
{
	static const struct { const char *s; uint64_t ns; } ok[] = {
		{ "1.5s", 1500000000ull }, { "200ms", 200000000ull },
		{ "2us", 2000ull }, { "500ns", 500ull }, { "0ns", 0 },
		{ "0.000000001s", 1 }, { ".5ms", 500000ull },
		{ "10s", 10000000000ull },
	};
	static const char *const bad[] = {
		"", "1", "1.5", "s", "-1s", "1.5x", "1e3s", " 1s", "1s ",
		"99999999999999s", "1.5 s", "ms", ".s",
	};
	uint64_t ns;

	for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		cr_assert(parse_duration_ns(ok[i].s, &ns), "'%s' refused", ok[i].s);
		cr_assert_eq(ns, ok[i].ns, "'%s' is %llu ns", ok[i].s,
			     (unsigned long long)ns);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		cr_assert_not(parse_duration_ns(bad[i], &ns), "'%s' taken",
			      bad[i]);
}

/* Intervals far shorter than a pixel: each kind's pixels stay near its time. */
Test(view, pixrow_merges_and_keeps_totals)
{
	struct pixscale sc = { .t0 = 1000, .px_ns = 1000, .width = 500 };
	struct pixrow r;
	uint64_t t = 1000, pixels = 0;

	pixrow_init(&r, &sc);
	srand(7);
	while (t < 1000 + 500 * 1000) {
		uint64_t len = 1 + (uint64_t)(rand() % 700);
		unsigned int kind = (unsigned int)(rand() % 3);

		if (rand() % 50 == 0)
			len = 5000; /* now and then a run of whole pixels */
		pixrow_add(&r, t, t + len, kind);
		t += len;
	}
	pixrow_finish(&r);
	cr_assert_not(r.oom);
	for (size_t i = 0; i < r.n; i++) {
		cr_assert_lt(r.runs[i].x0, r.runs[i].x1);
		if (i)
			cr_assert_leq(r.runs[i - 1].x1, r.runs[i].x0,
				      "runs out of order or overlapping");
		pixels += r.runs[i].x1 - r.runs[i].x0;
	}
	cr_assert_eq(pixels, 500, "every pixel drawn once");
	cr_assert_gt(r.merged, 0);
	cr_assert_gt(r.inexact, 0);
	for (unsigned int k = 0; k < 3; k++) {
		uint64_t got = r.drawn[k] * sc.px_ns, want = r.total[k];

		cr_assert_leq(got > want ? got - want : want - got,
			      pixrow_error(&r));
	}
	cr_assert_leq(pixrow_error(&r), 2 * sc.px_ns, "error %llu ns over 2 "
		      "pixels", (unsigned long long)pixrow_error(&r));
	pixrow_free(&r);
}

/* Whole pixels of one kind are exact: no pixel mixed. */
Test(view, pixrow_pure_pixels_are_exact)
{
	struct pixscale sc = { .t0 = 0, .px_ns = 100, .width = 10 };
	struct pixrow r;

	pixrow_init(&r, &sc);
	pixrow_add(&r, 0, 300, 1);
	pixrow_add(&r, 300, 700, 2);
	pixrow_add(&r, 700, 1000, 1);
	pixrow_finish(&r);
	cr_assert_eq(r.n, 3);
	cr_assert_eq(r.inexact, 0);
	cr_assert_eq(r.runs[1].x0, 3);
	cr_assert_eq(r.runs[1].x1, 7);
	cr_assert_eq(r.runs[1].kind, 2);
	cr_assert_eq(pixrow_error(&r), 0);
	pixrow_free(&r);
}

static void sw(struct capw *w, uint64_t ts, uint32_t cpu, int32_t prev,
	       const char *pc, int32_t next, const char *nc)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw), .cpu = cpu };
	r.sw.prev_pid = r.sw.prev_tgid = prev;
	r.sw.next_pid = r.sw.next_tgid = next;
	strncpy(r.sw.prev_comm, pc, ABICAP_COMM_LEN - 1);
	strncpy(r.sw.next_comm, nc, ABICAP_COMM_LEN - 1);
	r.sw.prev_state = 1;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
}

static void idle(struct capw *w, uint64_t ts, uint32_t cpu, uint32_t state)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.pw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type = ABICAP_EV_CPU_IDLE,
		.size = sizeof(r.pw), .cpu = cpu };
	r.pw.state = state;
	r.pw.cpu_id = cpu;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
}

/* 1 ms apart: a (100) and b (200) switching on CPU 0, cpu_idle on CPU 1. */
static const char *capture(void)
{
	static char p[4096];
	struct capw *w;

	snprintf(p, sizeof(p), "%s", path("c.abicap"));
	w = capw_open(p, true, "{\"ncpus\":2,\"events\":["
				   "\"sched_switch\",\"cpu_idle\"]}", err,
				   sizeof(err));

	cr_assert(w, "%s", err);
	for (int i = 0; i < 10; i++) {
		uint64_t t = 1000000000ull + (uint64_t)i * 1000000;

		sw(w, t, 0, i % 2 ? 200 : 100, i % 2 ? "b" : "a",
		   i % 2 ? 100 : 200, i % 2 ? "a" : "b");
		idle(w, t + 500, 1, i % 2 ? UINT32_MAX : 1);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	return p;
}

/* A file as a string (read_file's buffer is not terminated). */
static char *read_text(const char *p)
{
	size_t len;
	char *b = read_file(p, &len), *s = malloc(len + 1);

	cr_assert(s);
	memcpy(s, b, len);
	s[len] = '\0';
	free(b);
	return s;
}

struct out {
	int code;
	char *out, *err;
};

/* A command run in this process: exit code, stdout, stderr. */
static struct out run_do(int (*fn)(int, char **), char **argv)
{
	static char so[4096], se[4096];
	static int runs;
	struct out o;
	int argc = 0;
	char name[32];

	while (argv[argc])
		argc++;
	/* a new file each run: nothing left of the one before */
	snprintf(name, sizeof(name), "stdout.%d", runs);
	snprintf(so, sizeof(so), "%s", path(name));
	snprintf(name, sizeof(name), "stderr.%d", runs++);
	snprintf(se, sizeof(se), "%s", path(name));
	fflush(stdout);
	fflush(stderr);
	cr_assert(freopen(so, "w", stdout));
	cr_assert(freopen(se, "w", stderr));
	setvbuf(stderr, NULL, _IONBF, 0);
	o.code = fn(argc, argv);
	fflush(stdout);
	fflush(stderr);
	o.out = read_text(so);
	o.err = read_text(se);
	return o;
}

static size_t lines(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

Test(view, script_filters_and_window)
{
	const char *cap = capture();
	struct out o;

	o = run_do(do_script, (char *[]){ "script", (char *)cap, NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert_eq(lines(o.out), 21, "%s", o.out); /* the header and 20 */
	o = run_do(do_script, (char *[]){ "script", (char *)cap, "-e",
					  "cpu_idle", "-f", "json", NULL });
	cr_assert_eq(lines(o.out), 10, "%s", o.out);
	cr_assert(strstr(o.out, "\"event\":\"cpu_idle\""));
	o = run_do(do_script, (char *[]){ "script", (char *)cap, "--since",
					  "2ms", "--until", "4.0005ms", NULL });
	/* switches at 2, 3, 4 ms and idles at 2.0005, 3.0005, 4.0005 ms */
	cr_assert_eq(lines(o.out), 7, "%s", o.out);
	cr_assert(strstr(o.out, "       2.000   0 sched_switch"), "%s", o.out);
	cr_assert(strstr(o.out, "       4.000   1 cpu_idle"), "%s", o.out);
	o = run_do(do_script, (char *[]){ "script", (char *)cap, "--comm", "b",
					  "-f", "json", NULL });
	cr_assert_eq(lines(o.out), 10, "every switch names b: %s", o.out);
	o = run_do(do_script, (char *[]){ "script", (char *)cap, "-p", "300",
					  NULL });
	/* one policy with report and the pages (issue 37): exit 2, said */
	cr_assert_eq(o.code, EXIT_USAGE, "%s", o.err);
	cr_assert(strstr(o.err, "no task of process 300 in"), "%s", o.err);
	o = run_do(do_script, (char *[]){ "script", (char *)cap, "-C", "1",
					  "-f", "json", NULL });
	cr_assert_eq(lines(o.out), 10, "%s", o.out);
}

static void usage_error(int (*fn)(int, char **), char **argv, const char *want)
{
	struct out o = run_do(fn, argv);

	cr_assert_eq(o.code, EXIT_USAGE, "%s %s: exit %d", argv[0], argv[1],
		     o.code);
	cr_assert_eq(lines(o.err), 1, "not one line: %s", o.err);
	cr_assert(strstr(o.err, want), "'%s' not in: %s", want, o.err);
	free(o.out);
	free(o.err);
}

Test(view, bad_values_are_one_line_errors)
{
	char *cap = (char *)capture();
	char out[4096];

	snprintf(out, sizeof(out), "%s", path("o.html"));

	usage_error(do_script, (char *[]){ "script", cap, "--since", "1.5",
		    NULL }, "--since '1.5': give a time");
	usage_error(do_report, (char *[]){ "report", cap, "--until", "5x",
		    NULL }, "--until '5x'");
	usage_error(do_export, (char *[]){ "export", cap, "--perfetto", out,
		    "--since", "2s", "--until", "1s", NULL },
		    "--until comes before --since");
	usage_error(do_timechart, (char *[]){ "timechart", cap, "-o", out,
		    "--since", "1s", NULL }, "nothing in that window");
	usage_error(do_timechart, (char *[]){ "timechart", cap, NULL },
		    "-o OUT.html");
	usage_error(do_timechart, (char *[]){ "timechart", cap, "-o", out,
		    "--width", "5", NULL }, "--width '5'");
	usage_error(do_timechart, (char *[]){ "timechart", cap, "-o", cap,
		    "--force", NULL }, "");
	usage_error(do_heatmap, (char *[]){ "heatmap", cap, "-o", out,
		    "--cell", "0", NULL }, "--cell '0'");
	usage_error(do_report, (char *[]){ "report", cap, "--slowest", "0",
		    NULL }, "--slowest '0'");
	usage_error(do_script, (char *[]){ "script", cap, "-p", "1", "-e",
		    "cpu_idle", NULL }, "power events");
	usage_error(do_script, (char *[]){ "script", cap, "-C", "7", NULL },
		    "-C '7'");
	usage_error(do_wakeups, (char *[]){ "wakeups", cap, "--top", "x",
		    NULL }, "--top 'x'");
	cr_assert_neq(access(out, F_OK), 0, "a refused run left %s", out);
}

/*
 * The timechart's scale is exactly what --width leaves beside the labels
 * (issue 33: the page is --width wide, 1600 - 180 - 50 by default),
 * whatever the span (issue 37: a capture spanning ~2^64 ns drew "in 0
 * pixels", with --since 1us "in 4294966296 pixels"; ordinary ones got
 * 1601 of 1600).
 */
Test(view, timechart_scale_is_exactly_the_width)
{
	const char *cap = capture(), *huge = path("huge.abicap");
	char out[4096];
	struct capw *w = capw_open(huge, true, "{\"ncpus\":1}", err, sizeof(err));
	union abicap_rec r[2] = {
		recfix_switch(1000, 0, 0, "swapper/0", 0, 7, "t7", 0),
		recfix_switch(UINT64_MAX - 1000, 0, 7, "t7", 1, 0, "swapper/0", 0),
	};
	struct out o;

	cr_assert(w, "%s", err);
	for (int i = 0; i < 2; i++)
		cr_assert_eq(capw_add(w, &r[i], r[i].hdr.size), 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0, "%s", err);
	snprintf(out, sizeof(out), "%s", path("scale.html"));
	o = run_do(do_timechart, (char *[]){ "timechart", (char *)huge, "-o",
					     out, "--force", NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert(strstr(o.err, " in 1370 pixels of "), "%s", o.err);
	o = run_do(do_timechart, (char *[]){ "timechart", (char *)huge, "-o",
					     out, "--force", "--since", "1us",
					     NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert(strstr(o.err, " in 1370 pixels of "), "%s", o.err);
	o = run_do(do_timechart, (char *[]){ "timechart", (char *)cap, "-o", out,
					     "--force", "--width", "329", NULL });
	cr_assert_eq(o.code, 2, "%s", o.err);
	cr_assert(strstr(o.err, "--width 330 or more"), "%s", o.err);
	for (int wd = 330; wd <= 1600; wd += 1270) {
		char ws[16], want[64];

		snprintf(ws, sizeof(ws), "%d", wd);
		snprintf(want, sizeof(want), " in %d pixels of ", wd - 230);
		o = run_do(do_timechart, (char *[]){ "timechart", (char *)cap,
			   "-o", out, "--force", "--width", ws, NULL });
		cr_assert_eq(o.code, 0, "%s", o.err);
		cr_assert(strstr(o.err, want), "%s", o.err);
	}
}

/* The pages are written whole, 0600, and state their resolution. */
Test(view, pages_written_whole)
{
	char *cap = (char *)capture();
	char out[4096], hm[4096];
	struct stat st;
	struct out o;
	char *page;

	snprintf(out, sizeof(out), "%s", path("t.html"));
	snprintf(hm, sizeof(hm), "%s", path("h.html"));
	o = run_do(do_timechart, (char *[]){ "timechart", cap, "-o", out,
					     "--width", "330", NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert_eq(stat(out, &st), 0);
	cr_assert_eq(st.st_mode & 0777, 0600);
	page = read_text(out);
	cr_assert(strstr(page, "1 pixel = "), "no resolution stated");
	cr_assert(strstr(page, "</html>\n"));
	cr_assert_null(strstr(page, "http"), "the page reaches the network");
	free(page);
	o = run_do(do_timechart, (char *[]){ "timechart", cap, "-o", out, NULL });
	cr_assert_eq(o.code, EXIT_USAGE, "an existing page replaced without "
		     "--force");
	o = run_do(do_heatmap, (char *[]){ "heatmap", cap, "-o", hm, NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	o = run_do(do_wakeups, (char *[]){ "wakeups", cap, NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	/* CPU 1 entered state 1 five times and left it five times */
	cr_assert(strstr(o.out, "     1         5"), "%s", o.out);
}


/* The report says the window it counts in, in text and JSON. */
Test(view, report_states_its_window)
{
	char *cap = (char *)capture();
	struct out o;

	o = run_do(do_report, (char *[]){ "report", cap, "--since", "2ms",
					  "--until", "5ms", NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert(strstr(o.out, "window: from 2.000 ms to 5.000 ms after the "
			 "capture's first record"), "%s", o.out);
	o = run_do(do_report, (char *[]){ "report", cap, "--since", "2ms",
					  "-f", "json", NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert(strstr(o.out, "\"window\": {\n    \"since_ns\": 2000000,\n"
			 "    \"until_ns\": null"), "%s", o.out);
	o = run_do(do_report, (char *[]){ "report", cap, NULL });
	cr_assert_null(strstr(o.out, "window:"));
}

/* cpu_frequency becomes the CPU's frequency row: both frequencies, in time. */
Test(view, timechart_draws_frequency)
{
	char p[4096], out[4096];
	struct capw *w;
	union abicap_rec r;
	struct out o;
	char *page, *cpu0;

	snprintf(p, sizeof(p), "%s", path("f.abicap"));
	snprintf(out, sizeof(out), "%s", path("f.html"));
	w = capw_open(p, true, "{\"ncpus\":1,\"events\":[\"sched_switch\","
		      "\"cpu_frequency\"]}", err, sizeof(err));
	cr_assert(w, "%s", err);
	for (int i = 0; i < 4; i++) {
		memset(&r, 0, sizeof(r));
		r.pw.hdr = (struct abicap_hdr){ .ts_ns = 1000000 + (uint64_t)i *
			1000000, .type = ABICAP_EV_CPU_FREQUENCY,
			.size = sizeof(r.pw) };
		r.pw.state = i % 2 ? 2400000 : 800000;
		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	sw(w, 5000000, 0, 100, "a", 200, "b");
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	o = run_do(do_timechart, (char *[]){ "timechart", p, "-o", out,
					     "--width", "400", NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	page = read_text(out);
	cpu0 = strstr(page, "{\"cpu\":0,");
	cr_assert(cpu0, "no CPU 0 lane");
	cr_assert(strstr(cpu0, "\"khz\":[800000,2400000]"), "%.300s", cpu0);
	/* 4 ms of frequency spans (1-5 ms) in 400 pixels of 10 us: A/B runs */
	cr_assert(strstr(cpu0, "\"f\":\"A"), "%.300s", cpu0);
	cr_assert(strstr(cpu0, "B"), "%.300s", cpu0);
	free(page);
}

static void swcg(struct capw *w, uint64_t ts, int32_t prev, uint32_t state,
		 uint64_t pcg, int32_t next, uint64_t ncg)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw) };
	r.sw.prev_pid = r.sw.prev_tgid = prev;
	r.sw.next_pid = r.sw.next_tgid = next;
	snprintf(r.sw.prev_comm, ABICAP_COMM_LEN, "t%d", prev);
	snprintf(r.sw.next_comm, ABICAP_COMM_LEN, "t%d", next);
	r.sw.prev_state = state;
	r.sw.preempt = state == ABICAP_STATE_PREEMPTED;
	r.sw.prev_cgroup = pcg;
	r.sw.next_cgroup = ncg;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
}

/* The waits the heat map counts for --cgroup PATH or --container NAME. */
static long hm_waits(const char *cap, const char *opt, const char *val)
{
	char out[4096];
	struct out o;
	char *page, *p;
	long n;

	snprintf(out, sizeof(out), "%s", path("hm.html"));
	o = run_do(do_heatmap, (char *[]){ "heatmap", (char *)cap, "-o", out,
		   "--force", (char *)opt, (char *)val, NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	page = read_text(out);
	p = strstr(page, "\"waits\":");
	cr_assert(p);
	n = strtol(p + 8, NULL, 10);
	free(page);
	return n;
}

/* Task 100 in /a waits 1 ms after a wakeup, 200 in /b/c 2 ms after a preemption. */
Test(view, heatmap_selects_by_cgroup)
{
	static char cap[4096];
	union abicap_rec r;
	struct capw *w;

	snprintf(cap, sizeof(cap), "%s", path("cg.abicap"));
	w = capw_open(cap, true, "{\"ncpus\":1,\"events\":[\"sched_switch\","
		      "\"sched_wakeup\"]}", err, sizeof(err));
	cr_assert(w, "%s", err);
	cr_assert_eq(capw_add_cgroup(w, 11, "/a"), 0);
	cr_assert_eq(capw_add_cgroup(w, 22, "/b/c"), 0);
	swcg(w, 1000000, 0, 0, 0, 100, 11);
	swcg(w, 2000000, 100, 1, 11, 200, 22);
	memset(&r, 0, sizeof(r));
	r.wk.hdr = (struct abicap_hdr){ .ts_ns = 3000000, .type =
		ABICAP_EV_SCHED_WAKEUP, .size = sizeof(r.wk) };
	r.wk.pid = r.wk.tgid = 100;
	r.wk.waker_pid = r.wk.waker_tgid = 200;
	r.wk.cgroup = 11;
	snprintf(r.wk.comm, ABICAP_COMM_LEN, "t100");
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	swcg(w, 4000000, 200, ABICAP_STATE_PREEMPTED, 22, 100, 11);
	swcg(w, 6000000, 100, 1, 11, 200, 22);
	swcg(w, 7000000, 200, 1, 22, 0, 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);

	cr_assert_eq(hm_waits(cap, "--cgroup", "/"), 2);
	cr_assert_eq(hm_waits(cap, "--cgroup", "/a"), 1);
	cr_assert_eq(hm_waits(cap, "--cgroup", "/b"), 1);
	cr_assert_eq(hm_waits(cap, "--cgroup", "/b/c/"), 1);
	cr_assert_eq(hm_waits(cap, "--cgroup", "/b/cd"), 0);
	cr_assert_eq(hm_waits(cap, "--container", "docker:0123456789ab"), 0);
	cr_assert_eq(hm_waits(cap, "--comm", "t200"), 1);
}

/* A capture filtered to some tasks gets no CPU lane, and says why. */
Test(view, timechart_of_a_task_filtered_capture_has_no_cpu_lanes)
{
	char p[4096], out[4096];
	struct capw *w;
	struct out o;
	char *page;

	snprintf(p, sizeof(p), "%s", path("tf.abicap"));
	snprintf(out, sizeof(out), "%s", path("tf.html"));
	w = capw_open(p, true, "{\"ncpus\":1,\"record_format\":3,\"events\":"
		      "[\"sched_switch\"],\"filter\":{\"tasks\":true,\"pids\":"
		      "[100]}}", err, sizeof(err));
	cr_assert(w, "%s", err);
	sw(w, 1000000, 0, 100, "a", 200, "b");
	sw(w, 2000000, 0, 200, "b", 100, "a");
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	o = run_do(do_timechart, (char *[]){ "timechart", p, "-o", out, NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	page = read_text(out);
	cr_assert(strstr(page, "\"cpus\":[]"), "CPU lanes drawn");
	cr_assert(strstr(page, "filtered to some tasks"), "not said why");
	free(page);
}

/*
 * Issue 33: a heat map cell names the tasks with the most waits in it,
 * most first, by the name each had at its last wait; a cell of others'
 * waits does not mix in.
 */
Test(view, heatmap_cells_name_their_top_tasks)
{
	static const struct { int32_t tid; int n; const char *comm; } in[] = {
		{ 7, 3, "t7" }, { 8, 5, "t8" }, { 9, 1, "t9" }, { 10, 2, "t10" },
		{ 8, 0, "t8b" },
	};
	struct hm_select sel = { 0 };
	struct hm_top top[2 * HM_ROWS];
	struct heatmap h;
	const struct hm_top *c = &top[hm_bucket(500)];
	const struct hm_top *late = &top[HM_ROWS + hm_bucket(1999)];

	hm_init(&h, 0, 1000, 2, NULL, false);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		for (int k = 0; k < (in[i].n ? in[i].n : 1); k++) {
			/* t8b: tid 8's new name, a wait in the second column */
			struct wait_ev w = { .id = { .tid = in[i].tid },
					     .comm = in[i].comm,
					     .start_ns = in[i].n ? 100 : 0,
					     .end_ns = in[i].n ? 600 : 1999 };

			hm_wait(&h, &w);
		}
	cr_assert_eq(hm_top_tasks(&h, &sel, NULL, top), 0);
	cr_assert_eq(c->tid[0], 8);
	cr_assert_eq(c->n[0], 5);
	cr_assert_eq(c->tid[1], 7);
	cr_assert_eq(c->n[1], 3);
	cr_assert_eq(c->tid[2], 10);
	cr_assert_eq(c->n[2], 2);
	cr_assert_eq(late->tid[0], 8);
	cr_assert_eq(late->n[0], 1);
	cr_assert_eq(late->tid[1], 0, "a task of no wait there");
	cr_assert_str_eq(hm_comm(&h, 8), "t8b");
	cr_assert_str_eq(hm_comm(&h, 7), "t7");
	cr_assert_str_eq(hm_comm(&h, 11), "?");
	cr_assert(!h.tasks_partial);
	hm_free(&h);
}

/* --by process: a cell's top processes count their threads' waits as one. */
Test(view, heatmap_cells_name_their_top_processes)
{
	static const struct { int32_t tid, tgid; int n; } in[] = {
		{ 7, 5, 2 }, { 8, 5, 2 }, { 9, 9, 3 },
	};
	struct hm_select sel = { 0 };
	struct hm_top top[2 * HM_ROWS];
	struct heatmap h;
	const struct hm_top *c = &top[hm_bucket(500)];

	hm_init(&h, 0, 1000, 2, NULL, false);
	h.by_process = true;
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		for (int k = 0; k < in[i].n; k++) {
			struct wait_ev w = { .id = { .tid = in[i].tid,
						     .tgid = in[i].tgid },
					     .comm = "t", .start_ns = 100,
					     .end_ns = 600 };

			hm_wait(&h, &w);
		}
	cr_assert_eq(hm_top_tasks(&h, &sel, NULL, top), 0);
	cr_assert_eq(c->tid[0], 5, "process 5's two threads: 4 waits");
	cr_assert_eq(c->n[0], 4);
	cr_assert_eq(c->tid[1], 9);
	cr_assert_eq(c->n[1], 3);
	cr_assert_eq(c->tid[2], 0);
	hm_free(&h);
}

/*
 * A cell holds a count of 2^32 waits or more: an error, never a count
 * wrapped or clamped to 32 bits (the page's cells are 32-bit).
 */
Test(view, heatmap_cell_beyond_32_bits_is_an_error)
{
	struct wait_ev w = { .start_ns = 100, .end_ns = 600 };
	struct hm_select sel = { 0 };
	struct heatmap h;
	uint32_t out[2 * HM_ROWS];
	uint64_t waits;

	hm_init(&h, 0, 1000, 2, NULL, false);
	hm_wait(&h, &w);
	cr_assert_eq(hm_sum(&h, &sel, NULL, out, &waits), 0);
	cr_assert_eq(waits, 1);
	cr_assert_eq(out[hm_bucket(500)], 1);
	h.grid[hm_bucket(500)] = UINT32_MAX;
	cr_assert_eq(hm_sum(&h, &sel, NULL, out, &waits), 0);
	cr_assert_eq(out[hm_bucket(500)], UINT32_MAX);
	h.grid[hm_bucket(500)]++;
	cr_assert_eq(hm_sum(&h, &sel, NULL, out, &waits), -EOVERFLOW);
	hm_free(&h);
}

/* Lanes in a timechart page (each lane's data starts {"tid":). */
static size_t page_lanes(const char *page)
{
	size_t n = 0;

	for (const char *s = page; (s = strstr(s, "{\"tid\":")); s++)
		n++;
	return n;
}

static bool page_has_tid(const char *page, int tid)
{
	char k[32];

	snprintf(k, sizeof(k), "{\"tid\":%d,", tid);
	return strstr(page, k) != NULL;
}

/*
 * 13 tasks on one CPU, one after the other: tids 103, 107 and 111 ("busy")
 * run 5 ms each, the other ten ("small") 0.1 ms; idle at the end, so every
 * running span is closed.
 */
static const char *busy_and_small(void)
{
	static char p[4096];
	uint64_t t = 1000000000ull;
	struct capw *w;
	int prev = 0;

	snprintf(p, sizeof(p), "%s", path("bs.abicap"));
	w = capw_open(p, true, "{\"ncpus\":1,\"events\":[\"sched_switch\"]}",
		      err, sizeof(err));
	cr_assert(w, "%s", err);
	for (int k = 0; k <= 13; k++) {
		int next = k < 13 ? 100 + k : 0;
		bool busy = next && (next - 100) % 4 == 3;

		sw(w, t, 0, prev, prev ? (prev - 100) % 4 == 3 ? "busy" :
		   "small" : "swapper/0", next, next ? busy ? "busy" : "small" :
		   "swapper/0");
		t += busy ? 5000000 : 100000;
		prev = next;
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	return p;
}

/*
 * Past --max-lanes the lanes go to the tasks with the most time on a CPU,
 * and the page and stderr count the rest and their time: never a task
 * dropped unsaid, never a page too big for a browser (a 6 MB capture of
 * 800,000 tasks made a 137 MB page at 1.1 GB of memory).
 */
/*
 * timechart of busy_and_small() with opts (NULL-terminated, at most 6) into
 * scratch file name: o, and the page (NULL if it failed).
 */
static char *busy_chart(const char *name, char *const opts[], struct out *o)
{
	static char out[4096];
	char *argv[12] = { "timechart", (char *)busy_and_small(), "-o", out,
			   "--force" };
	int n = 5;

	snprintf(out, sizeof(out), "%s", path(name));
	for (int i = 0; opts[i]; i++)
		argv[n++] = opts[i];
	*o = run_do(do_timechart, argv);
	return o->code ? NULL : read_text(out);
}

Test(view, timechart_past_max_lanes_draws_the_busiest)
{
	struct out o;
	char *page;

	page = busy_chart("bs.html", (char *[]){ "--max-lanes", "3", NULL },
			  &o);
	cr_assert(page, "exit %d: %s", o.code, o.err);
	cr_assert(strstr(o.err, "shows 13 tasks, past --max-lanes 3: the 3 "
			 "with the most time on a CPU have lanes, 10 more do "
			 "not"), "%s", o.err);
	cr_assert_eq(page_lanes(page), 3, "%.600s", page);
	cr_assert(page_has_tid(page, 103) && page_has_tid(page, 107) &&
		  page_has_tid(page, 111), "not the busy tasks");
	cr_assert(strstr(page, "3 task lanes of 13 tasks: <b>10 more tasks "
			 "have no lane</b>"), "%.600s", page);
	/* the ten small tasks: 0.1 ms on the CPU each */
	cr_assert(strstr(page, "those left out ran 1.000 ms and waited "
			 "0.000 ms in all"), "%.800s", page);
	free(page);

	/* no limit: every task */
	page = busy_chart("bs.html", (char *[]){ "--max-lanes", "0", NULL },
			  &o);
	cr_assert(page, "exit %d: %s", o.code, o.err);
	cr_assert_null(strstr(o.err, "warning"), "%s", o.err);
	cr_assert_eq(page_lanes(page), 13);
	cr_assert_null(strstr(page, "have no lane"));
	free(page);
}

/*
 * The filters choose first: the busy tasks come after three small ones
 * took the three lanes the first read allows, and --comm busy still gets
 * all three busy tasks (read again, quietly), with nothing left out.
 */
Test(view, timechart_max_lanes_counts_only_what_the_filters_show)
{
	struct out o;
	char *page;

	page = busy_chart("bsc.html", (char *[]){ "--max-lanes", "3", "--comm",
						   "busy", NULL }, &o);
	cr_assert(page, "exit %d: %s", o.code, o.err);
	cr_assert_null(strstr(o.err, "warning"), "%s", o.err);
	cr_assert_eq(page_lanes(page), 3, "%.600s", page);
	cr_assert(page_has_tid(page, 103) && page_has_tid(page, 107) &&
		  page_has_tid(page, 111), "not the busy tasks");
	cr_assert(strstr(page, "(10 more left out by the filters)"),
		  "%.600s", page);
	cr_assert_null(strstr(page, "have no lane"));
	free(page);
	page = busy_chart("bsc.html", (char *[]){ "--max-lanes", "100001",
						   NULL }, &o);
	cr_assert_null(page);
	cr_assert_eq(o.code, 2, "%s", o.err);
	cr_assert(strstr(o.err, "--max-lanes"), "%s", o.err);
}

/*
 * A page taller than a browser's largest canvas (65,535 pixels in
 * Chromium, 32,767 in Firefox): 5,600 task lanes, one after the other on
 * one CPU, every one running for 1 us. The last lane is drawn (it was
 * blank: one canvas of 67,000 pixels is not drawn at all).
 */
Test(view, timechart_taller_than_a_canvas_is_drawn, .timeout = 180)
{
	enum { N = 5600, WIDTH = 100 };
	char cap[4096], out[4096], png[4096];
	uint64_t t = 1000000000ull;
	uint32_t y, x, run = colour_of(tc_task_colour[SPAN_RUNNING]);
	struct image im;
	struct capw *w;
	struct out o;
	size_t label = 0;

	require_browser();
	snprintf(cap, sizeof(cap), "%s", path("tall.abicap"));
	snprintf(out, sizeof(out), "%s", path("tall.html"));
	snprintf(png, sizeof(png), "%s", path("tall.png"));
	w = capw_open(cap, true, "{\"ncpus\":1,\"events\":[\"sched_switch\"]}",
		      err, sizeof(err));
	cr_assert(w, "%s", err);
	for (int k = 0; k <= N; k++, t += 1000)
		sw(w, t, 0, k ? 100 + k - 1 : 0, k ? "t" : "swapper/0",
		   k < N ? 100 + k : 0, k < N ? "t" : "swapper/0");
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	o = run_do(do_timechart, (char *[]){ "timechart", cap, "-o", out,
					     "--width", "330", "--max-lanes",
					     "0", NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	y = TC_LEGEND_H + TC_AXIS_H + TC_CPU_H + (N - 1) * TC_LANE_H;
	browser_screenshot(out, "#noarrows", png, TC_LABEL_W + WIDTH,
			   (int)(y + TC_LANE_H + 8), 150);
	png_read(png, &im);
	cr_assert_geq(im.h, y + TC_LANE_H);
	/* the last task runs in the last 1 us of the 5.6 ms: the right end */
	x = TC_LABEL_W + WIDTH - 1;
	cr_assert_eq(image_px(&im, x, y + TC_ROW_H / 2), run,
		     "the last lane's end is %06x, not running blue",
		     image_px(&im, x, y + TC_ROW_H / 2));
	/* and its label is written */
	for (uint32_t dy = 0; dy < TC_ROW_H; dy++)
		for (x = 0; x < 60; x++)
			label += image_px(&im, x, y + dy) != 0xffffff;
	cr_assert_gt(label, 0, "the last lane has no label");
	image_free(&im);
}

/*
 * report --by container names a container by the names the trailer kept
 * for it, and says how many containers' names record had no room for
 * ("containers_not_listed": those are named by id, never silently).
 */
Test(view, report_names_containers_from_the_trailer_and_counts_the_rest)
{
	static const char id[] = "9601db7daeea0123456789abcdef0123456789abcdef"
				 "0123456789abcdef0123";
	char cap[4096], cg[200], trl[400];
	struct capw *w;
	struct out o;

	snprintf(cap, sizeof(cap), "%s", path("ct.abicap"));
	snprintf(cg, sizeof(cg), "/system.slice/docker-%s.scope", id);
	snprintf(trl, sizeof(trl), "{\"containers\":{\"%s\":{\"pod_name\":\"\","
		 "\"namespace\":\"\",\"container_name\":\"web\"}},"
		 "\"containers_not_listed\":3}", id);
	w = capw_open(cap, true, "{\"ncpus\":1,\"events\":[\"sched_switch\"]}",
		      err, sizeof(err));
	cr_assert(w, "%s", err);
	cr_assert_eq(capw_add_cgroup(w, 11, cg), 0);
	swcg(w, 1000000, 0, 0, 0, 100, 11);
	swcg(w, 2000000, 100, 1, 11, 0, 0);
	cr_assert_eq(capw_close(w, trl, err, sizeof(err)), 0);
	o = run_do(do_report, (char *[]){ "report", cap, "--by", "container",
					   NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert(strstr(o.out, "docker:web"), "%s", o.out);
	cr_assert(strstr(o.err, "3 containers' names were not kept in the "
			 "capture"), "%s", o.err);
	o = run_do(do_report, (char *[]){ "report", cap, NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	cr_assert_null(strstr(o.err, "containers' names"), "%s", o.err);
}

/*
 * A page too narrow for its labels is refused by the writers themselves,
 * not only by the commands' option checks (fuzz_views divided by zero on
 * a 200-pixel page once the labels came out of --width).
 */
Test(view, pages_too_narrow_for_their_labels_are_refused)
{
	const char *cap = capture();
	char out[4096];
	struct tc_args ta = { .width = 200, .win = TIMEWIN_ALL, .force = true };
	struct hm_args ha = { .width = 200, .cell_w = 4, .win = TIMEWIN_ALL,
			      .force = true };

	snprintf(out, sizeof(out), "%s", path("narrow.html"));
	cr_assert_eq(timechart_write(cap, out, &ta), EXIT_USAGE);
	cr_assert_eq(heatmap_write(cap, out, &ha), EXIT_USAGE);
	cr_assert_neq(access(out, F_OK), 0, "a page was written");
}

/*
 * One rule for --comm, the report's: a task is named by the last name it
 * had. Task 300 runs as "a", then as "b" (a rename, or its pid reused
 * with the fork lost under load: what made a loaded CI run's timechart
 * show a lane the report did not have); 100 is "a" throughout. --comm a
 * is task 100 alone in both, --comm b task 300 alone in both.
 */
Test(view, timechart_and_report_filter_a_renamed_task_alike)
{
	static char cap[4096], html[4096];
	char want[32], not[32];
	uint64_t t = 1000000000ull;
	struct capw *w;
	struct out o;
	char *page;

	snprintf(cap, sizeof(cap), "%s", path("ren.abicap"));
	snprintf(html, sizeof(html), "%s", path("ren.html"));
	w = capw_open(cap, true, "{\"ncpus\":1,\"events\":[\"sched_switch\"]}",
		      err, sizeof(err));
	cr_assert(w, "%s", err);
	sw(w, t, 0, 0, "swapper/0", 100, "a");
	sw(w, t + 1000000, 0, 100, "a", 300, "a");
	sw(w, t + 2000000, 0, 300, "a", 100, "a");
	sw(w, t + 3000000, 0, 100, "a", 300, "b");
	sw(w, t + 4000000, 0, 300, "b", 0, "swapper/0");
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	for (int k = 0; k < 2; k++) {
		const char *name = k ? "b" : "a";
		int tid = k ? 300 : 100, other = k ? 100 : 300;

		o = run_do(do_report, (char *[]){ "report", cap, "-f", "json",
						   "--comm", (char *)name, NULL });
		cr_assert_eq(o.code, 0, "%s", o.err);
		snprintf(want, sizeof(want), "\"tid\": %d,", tid);
		snprintf(not, sizeof(not), "\"tid\": %d,", other);
		cr_assert(strstr(o.out, want) && !strstr(o.out, not),
			  "report --comm %s: %s", name, o.out);
		o = run_do(do_timechart, (char *[]){ "timechart", cap, "-o", html,
						     "--force", "--comm",
						     (char *)name, NULL });
		cr_assert_eq(o.code, 0, "%s", o.err);
		page = read_text(html);
		cr_assert_eq(page_lanes(page), 1, "timechart --comm %s: %.900s",
			     name, page);
		cr_assert(page_has_tid(page, tid), "timechart --comm %s: %.900s",
			  name, page);
		free(page);
	}
}

/*
 * Issue 33: an idle kernel thread (I, as a kworker waiting for work) is
 * drawn as sleeping, not as "off CPU, other state" (whole lanes of idle
 * kworkers read as purple). Task 100 sleeps 1 ms in I, then 2 ms in S:
 * its lane has 3 ms asleep and nothing in another state.
 */
Test(view, timechart_draws_an_idle_kthread_as_sleeping)
{
	static char cap[4096], html[4096];
	static const uint32_t st[4] = { 0x80, 0, 1, 0 };
	uint64_t t = 1000000000ull;
	struct capw *w;
	struct out o;
	char *page, *ns;

	snprintf(cap, sizeof(cap), "%s", path("idlek.abicap"));
	snprintf(html, sizeof(html), "%s", path("idlek.html"));
	w = capw_open(cap, true, "{\"ncpus\":1,\"events\":[\"sched_switch\"]}",
		      err, sizeof(err));
	cr_assert(w, "%s", err);
	/* 100 out in I at 0, in at 1 ms, out in S at 2 ms, in at 4 ms */
	for (int i = 0; i < 4; i++) {
		union abicap_rec r;
		bool out = i % 2 == 0;

		memset(&r, 0, sizeof(r));
		r.sw.hdr = (struct abicap_hdr){ .ts_ns = t + (uint64_t)(i == 3 ?
			4 : i) * 1000000, .type = ABICAP_EV_SCHED_SWITCH,
			.size = sizeof(r.sw) };
		r.sw.prev_pid = r.sw.prev_tgid = out ? 100 : 0;
		r.sw.next_pid = r.sw.next_tgid = out ? 0 : 100;
		strcpy(r.sw.prev_comm, out ? "kworker/0:1" : "swapper/0");
		strcpy(r.sw.next_comm, out ? "swapper/0" : "kworker/0:1");
		r.sw.prev_state = st[i];
		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	o = run_do(do_timechart, (char *[]){ "timechart", cap, "-o", html,
					     "--force", NULL });
	cr_assert_eq(o.code, 0, "%s", o.err);
	page = read_text(html);
	ns = strstr(page, "{\"tid\":100,");
	cr_assert(ns && (ns = strstr(ns, "\"ns\":[")), "%.900s", page);
	cr_assert(!strncmp(ns, "\"ns\":[1000000,0,3000000,0,0,0]", 30),
		  "running 1 ms, asleep 3 ms (I and S), other 0: %.40s", ns);
	cr_assert(strstr(page, "sleeping (S, or I: an idle kernel thread)"),
		  "the legend says what sleeping is");
	free(page);
}
