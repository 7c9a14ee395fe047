// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * What the kernel side lost beyond seen and dropped, as a user reads it:
 * program runs the kernel skipped (bpf_prog_info.recursion_misses) in the
 * metrics, the capture's report and the summary's warning, and the reasons
 * statistics updates were lost. The values are made up; the kernel tests
 * (tests/kernel_losses.c) read real ones through the same paths.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "cmd/commands.h"
#include "live/metrics.h"
#include "live/runloop.h"
#include "harness.h"
#include "lib/util.h"
#include "promcheck.h"

#define path(n) scratch_path(n)

TestSuite(losscount, .init = scratch_init, .fini = scratch_fini);

/* A whole file as a string. */
static char *read_text(const char *p)
{
	size_t len;
	char *b = read_file(p, &len), *s = realloc(b, len + 1);

	cr_assert(s);
	s[len] = 0;
	return s;
}

static char *render_losses(const struct capture_misses *ms, const uint64_t *aux)
{
	char *buf = NULL, why[256];
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	metrics_write_losses(f, ms, aux);
	cr_assert_eq(fclose(f), 0);
	cr_assert_eq(prom_check(buf, len, NULL, NULL, why, sizeof(why)), 0,
		     "%s\n%s", why, buf);
	return buf;
}

Test(losscount, metrics_show_recursion_misses_and_every_loss_reason)
{
	struct capture_misses ms = { .total = 7 };
	uint64_t aux[ABICAP_AUX_COUNT] = { 0 };
	char *t;

	ms.on[ABICAP_EV_SCHED_SWITCH] = ms.on[ABICAP_EV_CPU_IDLE] = true;
	ms.ev[ABICAP_EV_SCHED_SWITCH] = 7;
	aux[ABICAP_AUX_CG_MAP_FULL] = 11;
	aux[ABICAP_AUX_QUEUE_LOST] = 12;
	aux[ABICAP_AUX_IDLE_STATE_BIG] = 13;
	aux[ABICAP_AUX_CPU_ID_BIG] = 14;
	aux[ABICAP_AUX_SUMS_BACK] = 15;
	t = render_losses(&ms, aux);
	cr_assert(strstr(t, "# TYPE abicap_bpf_recursion_misses_total counter\n"));
	cr_assert(strstr(t, "\nabicap_bpf_recursion_misses_total{event=\"sched_switch\"} 7\n"), "%s", t);
	cr_assert(strstr(t, "\nabicap_bpf_recursion_misses_total{event=\"cpu_idle\"} 0\n"), "%s", t);
	/* a program not attached has no series */
	cr_assert_null(strstr(t, "{event=\"sched_waking\"}"), "%s", t);
	cr_assert(strstr(t, "\nabicap_updates_lost_total{reason=\"cgroup_map_full\"} 11\n"), "%s", t);
	cr_assert(strstr(t, "\nabicap_updates_lost_total{reason=\"runqueue_wait_not_kept\"} 12\n"), "%s", t);
	cr_assert(strstr(t, "\nabicap_updates_lost_total{reason=\"idle_state_out_of_range\"} 13\n"), "%s", t);
	cr_assert(strstr(t, "\nabicap_updates_lost_total{reason=\"cpu_out_of_range\"} 14\n"), "%s", t);
	cr_assert(strstr(t, "\nabicap_updates_lost_total{reason=\"kernel_sums_went_back\"} 15\n"), "%s", t);
	free(t);
	/* not readable: the families, no made-up zero */
	t = render_losses(NULL, NULL);
	cr_assert(strstr(t, "# TYPE abicap_updates_lost_total counter\n"));
	cr_assert_null(strstr(t, "abicap_updates_lost_total{"), "%s", t);
	cr_assert_null(strstr(t, "abicap_bpf_recursion_misses_total{"), "%s", t);
	free(t);
}

Test(losscount, summary_warns_of_program_runs_the_kernel_skipped)
{
	struct capture_misses ms = { .total = 10 };
	char *err;

	ms.on[ABICAP_EV_SCHED_WAKING] = true;
	ms.ev[ABICAP_EV_SCHED_WAKING] = 7;
	ms.other_on[OTHER_TP_FORK] = ms.other_on[OTHER_TP_CSD_ENTRY] = true;
	ms.other[OTHER_TP_FORK] = 2;
	ms.other[OTHER_TP_CSD_ENTRY] = 1;
	cr_assert(freopen(path("err"), "w", stderr));
	warn_misses(&ms);
	ms = (struct capture_misses){ 0 };
	warn_misses(&ms); /* none: nothing said */
	cr_assert_eq(fflush(stderr), 0);
	err = read_text(path("err"));
	cr_assert_str_eq(err, "abicap: warning: 10 program runs skipped by the "
			 "kernel, the program already running on that CPU "
			 "(sched_waking 7, sched_process_fork 2, "
			 "csd_function_entry 1): those events are in no count, "
			 "and a wakeup whose wakelist program was skipped may "
			 "name no waker or a wrong one\n");
	free(err);
}

/* A kernel without the count (before 5.12): unknown, never 0. */
Test(losscount, summary_says_unknown_where_the_kernel_counts_none)
{
	struct capture_misses ms = { .known = true, .total = 3 };
	char t[64];

	misses_text(&ms, t, sizeof(t));
	cr_assert_str_eq(t, "3");
	ms.known = false;
	misses_text(&ms, t, sizeof(t));
	cr_assert_str_eq(t, "unknown (the kernel counts none before 5.12)");
}

/* A one-switch capture whose trailer is trl; the report's text and JSON. */
static void report_of(const char *trl, char **text, json_t **j)
{
	char e[ERRMSG_LEN];
	struct capw *w = capw_open(path("c.abicap"), true, "{\"ncpus\":1,"
				   "\"record_format\":3,\"events\":[\"sched_switch\"]}",
				   e, sizeof(e));
	union abicap_rec r;
	size_t len;
	char *out;

	cr_assert(w, "%s", e);
	memset(&r, 0, sizeof(r));
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = 1000, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw) };
	r.sw.prev_pid = r.sw.next_pid = 5;
	r.sw.flags = 3;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	cr_assert_eq(capw_close(w, trl, e, sizeof(e)), 0, "%s", e);
	cr_assert(freopen(path("out"), "w", stdout));
	cr_assert_eq(do_report(2, (char *[]){ "report", path("c.abicap"), NULL }), 0);
	cr_assert_eq(fflush(stdout), 0);
	*text = read_text(path("out"));
	cr_assert(freopen(path("out.json"), "w", stdout));
	cr_assert_eq(do_report(4, (char *[]){ "report", "--format", "json",
					      path("c.abicap"), NULL }), 0);
	cr_assert_eq(fflush(stdout), 0);
	out = read_file(path("out.json"), &len);
	*j = json_loadb(out, len, 0, NULL);
	cr_assert(*j, "%s", out);
	free(out);
}

Test(losscount, report_shows_the_runs_the_kernel_skipped_while_recording)
{
	json_t *j, *m;
	char *t;

	report_of("{\"events\":{\"sched_switch\":{\"seen\":1,\"received\":1,"
		  "\"dropped\":0}},\"recursion_misses\":{\"sched_switch\":5,"
		  "\"sched_process_fork\":2}}", &t, &j);
	cr_assert(strstr(t, "\ndropped while recording: 0\nmissed while "
			 "recording (program runs the kernel skipped): 7\n"),
		  "%s", t);
	m = json_object_get(json_object_get(j, "integrity"), "recursion_misses");
	cr_assert_eq(json_integer_value(m), 7);
	free(t);
	json_decref(j);
	/* a capture of an older abicap: not known, not 0 */
	report_of("{\"events\":{\"sched_switch\":{\"seen\":1,\"received\":1,"
		  "\"dropped\":0}}}", &t, &j);
	cr_assert_null(strstr(t, "missed while recording"), "%s", t);
	m = json_object_get(json_object_get(j, "integrity"), "recursion_misses");
	cr_assert(m && json_is_null(m));
	free(t);
	json_decref(j);
}
