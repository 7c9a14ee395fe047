// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap export --perfetto: a capture of known records, written as a
 * Perfetto trace and decoded by protoc against tests/perfetto's subset of
 * Perfetto's protos: every event, field and timestamp comes back.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "btf_fixture.h"
#include "capfile/capfile.h"
#include "harness.h"
#include "report/perfetto.h"
#include "lib/util.h"

#define path(n) scratch_path(n)

TestSuite(export, .init = scratch_init, .fini = scratch_fini, .timeout = 60);

/* one pass: a sanitizer's strstr measures the whole text at every call */
static int count(const char *s, const char *needle)
{
	size_t len = strlen(needle);
	int n = 0;

	for (; *s; s++)
		n += *s == *needle && !strncmp(s, needle, len);
	return n;
}

/*
 * abicap export CAP --perfetto PF --force, loaded or streamed in one pass
 * (ABICAP_EXPORT_STREAM_MB=0 makes any capture large): its exit status
 * checked; its stderr, to free.
 */
static char *export_as(const char *cap, const char *pf, bool streamed)
{
	struct child ch;
	char *e;

	if (streamed)
		setenv("ABICAP_EXPORT_STREAM_MB", "0", 1);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", (char *)cap,
			       "--perfetto", (char *)pf, "--force", NULL });
	unsetenv("ABICAP_EXPORT_STREAM_MB");
	free(read_all(ch.out_fd));
	e = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "%s", e);
	return e;
}

Test(export, every_event_and_field_round_trips)
{
	char err[ERRMSG_LEN], *cap = path("k.abicap"), *pf = path("k.pftrace"), *txt;
	struct capw *w = capw_open(cap, false, "{\"ncpus\":2}", err, sizeof(err));
	union abicap_rec r;
	struct child ch;

	cr_assert(w, "%s", err);
	memset(&r, 0, sizeof(r));
	r.sw = (struct abicap_switch){ .hdr = { 1000, ABICAP_EV_SCHED_SWITCH,
		sizeof(r.sw), 1 }, .prev_comm = "abc_ping", .next_comm = "abc_pong",
		.prev_pid = 11, .prev_tgid = 10, .prev_prio = 120, .next_pid = 12,
		.next_tgid = 10, .next_prio = 98, .prev_state = 1 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	r.wk = (struct abicap_wakeup){ .hdr = { 2000, ABICAP_EV_SCHED_WAKING,
		sizeof(r.wk), 0 }, .comm = "abc_pong", .pid = 12, .tgid = 10,
		.prio = 120, .target_cpu = 1, .waker_pid = 11, .waker_tgid = 10 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	r.wk.hdr = (struct abicap_hdr){ 2500, ABICAP_EV_SCHED_WAKEUP, sizeof(r.wk), 0 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	r.wk.hdr = (struct abicap_hdr){ 2600, ABICAP_EV_SCHED_WAKEUP_NEW, sizeof(r.wk), 0 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	r.pw = (struct abicap_power){ .hdr = { 3000, ABICAP_EV_CPU_IDLE,
		sizeof(r.pw), 1 }, .state = UINT32_MAX, .cpu_id = 1 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	r.pw = (struct abicap_power){ .hdr = { 4000, ABICAP_EV_CPU_FREQUENCY,
		sizeof(r.pw), 0 }, .state = 2400000, .cpu_id = 0 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);

	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", cap, "--perfetto",
			       pf, NULL });
	free(read_all(ch.out_fd));
	free(read_all(ch.err_fd));
	cr_assert_eq(wait_exit(&ch, 30), 0);
	txt = protoc_decode(pf);
	/* CPU 1's bundle: the switch, then idle exit */
	cr_assert(strstr(txt, "cpu: 1\n"), "%s", txt);
	cr_assert(strstr(txt, "timestamp: 1000\n      pid: 11\n      sched_switch {\n"
			 "        prev_comm: \"abc_ping\"\n        prev_pid: 11\n"
			 "        prev_prio: 120\n        prev_state: 1\n"
			 "        next_comm: \"abc_pong\"\n        next_pid: 12\n"
			 "        next_prio: 98\n"), "%s", txt);
	cr_assert(strstr(txt, "timestamp: 2000\n      pid: 11\n      sched_waking {\n"
			 "        comm: \"abc_pong\"\n        pid: 12\n        prio: 120\n"
			 "        success: 1\n        target_cpu: 1\n"), "%s", txt);
	cr_assert(strstr(txt, "timestamp: 2500\n      pid: 11\n      sched_wakeup {\n"), "%s", txt);
	cr_assert(strstr(txt, "timestamp: 2600\n      pid: 11\n      sched_wakeup_new {\n"), "%s", txt);
	cr_assert(strstr(txt, "timestamp: 3000\n      pid: 0\n      cpu_idle {\n"
			 "        state: 4294967295\n        cpu_id: 1\n"), "%s", txt);
	cr_assert(strstr(txt, "timestamp: 4000\n      pid: 0\n      cpu_frequency {\n"
			 "        state: 2400000\n        cpu_id: 0\n"), "%s", txt);
	/* thread names, with their process */
	cr_assert(strstr(txt, "threads {\n      tid: 11\n      name: \"abc_ping\"\n"
			 "      tgid: 10\n"), "%s", txt);
	cr_assert_eq(count(txt, "ftrace_events {"), 2);
	free(txt);

	/* streamed in one pass (as a capture over the size limit is): the same bytes */
	{
		char *pf2 = path("k2.pftrace"), *a, *b;
		size_t la, lb;

		free(export_as(cap, pf2, true));
		a = read_file(pf, &la);
		b = read_file(pf2, &lb);
		cr_assert_eq(la, lb);
		cr_assert_eq(memcmp(a, b, la), 0, "the streamed export differs");
		free(a);
		free(b);
	}
}

Test(export, bad_input)
{
	struct child ch;
	char *e;

	write_file(path("x"), "not a capture", 13);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", path("x"),
			       "--perfetto", path("o"), NULL });
	e = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 2);
	cr_assert(strstr(e, "is not an abicap capture file"), "%s", e);
	free(e);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", path("x"), NULL });
	e = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 10), 2);
	cr_assert(strstr(e, "needs a capture file and --perfetto OUT"), "%s", e);
	free(e);
}

/* no records: a trace with an empty process tree (found by fuzz_perfetto) */
Test(export, no_records)
{
	FILE *f = fopen(path("e.pftrace"), "wb");
	char *txt;

	cr_assert(f);
	cr_assert_eq(perfetto_write(f, NULL, 0, 2, NULL), 0);
	cr_assert_eq(fclose(f), 0);
	txt = protoc_decode(path("e.pftrace"));
	cr_assert(strstr(txt, "process_tree {\n"), "%s", txt);
	cr_assert_eq(count(txt, "ftrace_events {"), 0, "%s", txt);
	free(txt);
}

/* A capture of one switch on CPU 0 with this metadata, exported; its text. */
static char *export_with_meta(const char *meta, char **stderr_out)
{
	char err[ERRMSG_LEN], *cap = path("m.abicap"), *pf = path("m.pftrace");
	struct capw *w;
	union abicap_rec r;
	struct child ch;

	unlink(cap);
	unlink(pf);
	w = capw_open(cap, false, meta, err, sizeof(err));
	cr_assert(w, "%s", err);
	memset(&r, 0, sizeof(r));
	r.sw = (struct abicap_switch){ .hdr = { 1000, ABICAP_EV_SCHED_SWITCH,
		sizeof(r.sw), 0 }, .prev_comm = "abc_ping", .next_comm = "abc_pong",
		.prev_pid = 11, .prev_tgid = 10, .next_pid = 12, .next_tgid = 10,
		.prev_state = 0x100 };
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", cap, "--perfetto",
			       pf, NULL });
	free(read_all(ch.out_fd));
	*stderr_out = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "%s", *stderr_out);
	return protoc_decode(pf);
}

/*
 * issue 17: without the kernel's release Perfetto decodes prev_state with
 * the 4.4 layout (R+ shown as W). The release is the capturing kernel's,
 * from the capture's metadata, not the exporting machine's; it comes first.
 */
Test(export, system_info_names_the_capturing_kernel)
{
	char *err_out, *txt = export_with_meta("{\"ncpus\":1,\"kernel\":"
		"\"5.10.0-99-capturer\",\"uname\":{\"sysname\":\"Linux\","
		"\"version\":\"#1 SMP Debian 5.10.999-1\",\"machine\":\"aarch64\"}}",
		&err_out);
	const char *si = strstr(txt, "system_info {\n    utsname {\n"
		"      sysname: \"Linux\"\n      version: \"#1 SMP Debian 5.10.999-1\"\n"
		"      release: \"5.10.0-99-capturer\"\n      machine: \"aarch64\"\n");

	cr_assert(si, "%s", txt);
	cr_assert_lt(si, strstr(txt, "process_tree {"), "%s", txt);
	cr_assert_lt(si, strstr(txt, "ftrace_events {"), "%s", txt);
	cr_assert_eq(count(txt, "system_info {"), 1);
	free(txt);
	free(err_out);
}

/* a capture from before the uname block: the release alone */
Test(export, system_info_from_the_release_alone)
{
	char *err_out, *txt = export_with_meta("{\"ncpus\":1,\"kernel\":"
		"\"6.1.0-7-amd64\"}", &err_out);

	cr_assert(strstr(txt, "system_info {\n    utsname {\n"
			 "      release: \"6.1.0-7-amd64\"\n    }\n"), "%s", txt);
	free(txt);
	free(err_out);
}

/* no release at all: no guess, and the user is told what Perfetto will do */
Test(export, no_release_is_said)
{
	char *err_out, *txt = export_with_meta("{\"ncpus\":1}", &err_out);

	cr_assert_not(strstr(txt, "system_info"), "%s", txt);
	cr_assert(strstr(err_out, "no kernel release"), "%s", err_out);
	free(txt);
	free(err_out);
}

/*
 * issue 17: the thread table was searched linearly per record (a capture of
 * 300 k switches between new threads took 63 s). Many threads, tids with a
 * common stride (the worst case for a weak hash): each once in the tree,
 * with its last name, in the order first seen.
 */
Test(export, many_threads_each_once_with_its_last_name)
{
	enum { N = 20000 };
	char err[ERRMSG_LEN], *cap = path("t.abicap"), *pf = path("t.pftrace");
	char *txt, *out, want[128];
	struct capw *w = capw_open(cap, false, "{\"ncpus\":1,\"kernel\":\"6.1.0\"}",
				   err, sizeof(err));
	union abicap_rec r;
	struct child ch;
	const char *a, *b;

	cr_assert(w, "%s", err);
	for (int i = 0; i < N; i++) {
		memset(&r, 0, sizeof(r));
		r.sw = (struct abicap_switch){ .hdr = { 1000 + i,
			ABICAP_EV_SCHED_SWITCH, sizeof(r.sw), 0 },
			.prev_pid = 1024 * (i + 1), .prev_tgid = 1024 * (i + 1),
			.next_pid = 1024 * (i + 2), .next_tgid = 1024 * (i + 2) };
		snprintf(r.sw.prev_comm, sizeof(r.sw.prev_comm), "t%d", i);
		snprintf(r.sw.next_comm, sizeof(r.sw.next_comm), "n%d", i + 1);
		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", cap, "--perfetto",
			       pf, NULL });
	free(read_all(ch.out_fd));
	out = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "%s", out);
	txt = protoc_decode(pf);
	cr_assert_eq(count(txt, "threads {"), N + 1);
	cr_assert_eq(count(txt, "processes {"), N + 1);
	/* 1024 * 5: seen as next "n4", then as prev "t4": the last name */
	snprintf(want, sizeof(want), "threads {\n      tid: %d\n      name: \"t4\"\n",
		 1024 * 5);
	cr_assert(strstr(txt, want), "no %s", want);
	/* first seen order: 1024 before 2048 before 3072 */
	a = strstr(txt, "tid: 1024\n");
	b = strstr(txt, "tid: 2048\n");
	cr_assert(a && b && a < b && b < strstr(txt, "tid: 3072\n"));
	free(txt);
	free(out);
}

/* a record on a CPU past the capture's count is left out, and said */
Test(export, record_on_a_cpu_past_the_count_is_counted)
{
	char err[ERRMSG_LEN], *cap = path("c.abicap"), *pf = path("c.pftrace");
	struct capw *w = capw_open(cap, false, "{\"ncpus\":2,\"kernel\":\"6.1.0\"}",
				   err, sizeof(err));
	union abicap_rec r;
	struct child ch;
	char *out, *txt;

	cr_assert(w, "%s", err);
	for (int cpu = 0; cpu < 4; cpu++) {
		memset(&r, 0, sizeof(r));
		r.pw = (struct abicap_power){ .hdr = { 1000 + cpu, ABICAP_EV_CPU_IDLE,
			sizeof(r.pw), cpu }, .state = 1, .cpu_id = cpu };
		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	spawn(&ch, (char *[]){ (char *)abicap_bin(), "export", cap, "--perfetto",
			       pf, NULL });
	free(read_all(ch.out_fd));
	out = read_all(ch.err_fd);
	cr_assert_eq(wait_exit(&ch, 30), 0, "%s", out);
	cr_assert(strstr(out, "2 records name a CPU past the capture's 2 and "
			 "were left out"), "%s", out);
	cr_assert(strstr(out, "wrote 2 events"), "%s", out);
	txt = protoc_decode(pf);
	cr_assert_eq(count(txt, "cpu_idle {"), 2);
	free(txt);
	free(out);
}

/* The files in the scratch directory. */
static int scratch_files(void)
{
	char *dir = strdup(path("x")), *slash = strrchr(dir, '/');
	struct dirent *d;
	DIR *dp;
	int n = 0;

	*slash = 0;
	dp = opendir(dir);
	cr_assert(dp);
	while ((d = readdir(dp)))
		n += d->d_name[0] != '.';
	closedir(dp);
	free(dir);
	return n;
}

/*
 * A large capture streams in one pass (ABICAP_EXPORT_STREAM_MB=0 makes any
 * capture large): its trace is the loaded export's, byte for byte, even
 * where the file's order is not the time order (the process tree lists
 * threads as first seen in time, as the loaded export does), with bundles
 * full on both CPUs and names that change; nothing is left beside it.
 */
Test(export, streamed_export_is_the_loaded_one)
{
	enum { N = 5000 };
	char err[ERRMSG_LEN], *cap = path("s.abicap"), *pl = path("l.pftrace");
	char *ps = path("s.pftrace"), *a, *b, *txt;
	struct capw *w = capw_open(cap, false, "{\"ncpus\":2,\"kernel\":\"6.1.0\"}",
				   err, sizeof(err));
	union abicap_rec r;
	size_t la, lb;
	int files;

	cr_assert(w, "%s", err);
	for (int i = 0; i < N; i++) {
		/* pairs written newer first: thread 100 + i + 1 is seen first in the file */
		int k = i ^ 1;

		memset(&r, 0, sizeof(r));
		r.sw = (struct abicap_switch){ .hdr = { 1000000 + 1000 * k,
			ABICAP_EV_SCHED_SWITCH, sizeof(r.sw), k & 1 },
			.prev_pid = 100 + k, .prev_tgid = 100, .next_pid = 101 + k,
			.next_tgid = 100, .prev_state = 1 };
		snprintf(r.sw.prev_comm, sizeof(r.sw.prev_comm), "p%d", k % 7);
		snprintf(r.sw.next_comm, sizeof(r.sw.next_comm), "n%d", k % 5);
		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	free(export_as(cap, pl, false));
	files = scratch_files();
	free(export_as(cap, ps, true));
	cr_assert_eq(scratch_files(), files + 1, "a file was left beside the trace");
	a = read_file(pl, &la);
	b = read_file(ps, &lb);
	cr_assert_eq(la, lb, "loaded %zu bytes, streamed %zu", la, lb);
	cr_assert_eq(memcmp(a, b, la), 0, "the streamed export differs");
	free(a);
	free(b);
	txt = protoc_decode(ps);
	/* the tree first, then two full bundles and a partial one per CPU */
	cr_assert(strstr(txt, "process_tree {") < strstr(txt, "ftrace_events {"));
	cr_assert_eq(count(txt, "ftrace_events {"), 6);
	cr_assert_eq(count(txt, "threads {"), N + 1);
	free(txt);
}

/*
 * issue 21 defect 9: a capture that lost records showed the gap as
 * ordinary running. Every drop window is a slice named with its count on
 * a track "abicap losses" (overlapping windows merged), loaded or streamed,
 * and export says so.
 */
Test(export, every_loss_window_is_marked)
{
	char err[ERRMSG_LEN], *cap = path("d.abicap"), *pf = path("d.pftrace");
	char *txt, *e, *p;
	struct capw *w = capw_open(cap, false, "{\"ncpus\":1,\"kernel\":\"6.1.0\"}",
				   err, sizeof(err));
	union abicap_rec r;

	cr_assert(w, "%s", err);
	memset(&r, 0, sizeof(r));
	for (int i = 0; i < 4; i++) {
		r.sw = (struct abicap_switch){ .hdr = { 1000000000ull * (i + 1),
			ABICAP_EV_SCHED_SWITCH, sizeof(r.sw), 0 },
			.prev_comm = "abc_a", .next_comm = "abc_b", .prev_pid = 11,
			.prev_tgid = 11, .next_pid = 12, .next_tgid = 12 };
		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	cr_assert_eq(capw_add_drop(w, 1500000000ull, 2090000000ull, 154109,
				   -1), 0);
	cr_assert_eq(capw_add_drop(w, 3100000000ull, 3200000000ull, 1,
				   -1), 0);
	/* overlaps the one before: one slice of both */
	cr_assert_eq(capw_add_drop(w, 3150000000ull, 3300000000ull, 9,
				   -1), 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);

	for (int streamed = 0; streamed < 2; streamed++) {
		e = export_as(cap, pf, streamed);
		cr_assert(strstr(e, "154119 records lost in 3 windows: marked in"),
			  "%s", e);
		free(e);
		txt = protoc_decode(pf);
		cr_assert(strstr(txt, "track_descriptor {\n    uuid: 188139583853824\n"
				 "    name: \"abicap losses\"\n"), "%s", txt);
		for (int i = 0; i < 2; i++) {
			/* each window: its slice, begun and ended on the track */
			static const struct {
				const char *from, *to;
			} sl[] = {
				{ "1500000000\n  trusted_packet_sequence_id: 2\n"
				  "  track_event {\n    type: TYPE_SLICE_BEGIN\n"
				  "    track_uuid: 188139583853824\n"
				  "    name: \"154109 records lost\"\n",
				  "2090000000\n" },
				{ "3100000000\n  trusted_packet_sequence_id: 2\n"
				  "  track_event {\n    type: TYPE_SLICE_BEGIN\n"
				  "    track_uuid: 188139583853824\n"
				  "    name: \"10 records lost\"\n", "3300000000\n" },
			};
			char end[256];

			p = strstr(txt, sl[i].from);
			cr_assert(p, "no slice from %s in %s", sl[i].from, txt);
			snprintf(end, sizeof(end), "timestamp: %s  trusted_packet_"
				 "sequence_id: 2\n  track_event {\n    type: "
				 "TYPE_SLICE_END\n    track_uuid: 188139583853824\n",
				 sl[i].to);
			cr_assert(strstr(p, end), "no end %s in %s", end, txt);
		}
		cr_assert_eq(count(txt, "TYPE_SLICE_BEGIN"), 2, "%s", txt);
		cr_assert_eq(count(txt, "TYPE_SLICE_END"), 2, "%s", txt);
		/* the switches are all there still */
		cr_assert_eq(count(txt, "sched_switch {"), 4, "%s", txt);
		free(txt);
	}
}
