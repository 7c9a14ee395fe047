// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Issue 21 defect 1: a capture reports the same, byte for byte, whatever
 * order its records are written in, in text and JSON, in memory and
 * beyond the ordering budget (ABICAP_ORDER_BUDGET: the external merge).
 * Before: a 1 s / 512 Ki-record window sorted by time only, ties in the
 * order read, so a shuffled copy reported other figures (and impossible
 * ones: intervals ending before they start).
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capfile.h"
#include "capfile/capsort_ext.h"
#include "cmd/commands.h"
#include "harness.h"
#include "lib/util.h"

static char err[ERRMSG_LEN];

TestSuite(order, .init = scratch_init, .fini = scratch_fini);

#define META "{\"ncpus\":2,\"events\":[\"sched_switch\",\"sched_wakeup\"]}"

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/*
 * A plausible run of 40 tasks on two CPUs, times in coarse steps so that
 * records of both CPUs share timestamps (ties the order must settle).
 */
static union abicap_rec *workload(size_t n)
{
	union abicap_rec *v = calloc(n, sizeof(*v));
	int32_t cur[2] = { 1, 2 };
	uint64_t s = 4242, ts = 1000000;

	cr_assert(v);
	for (size_t i = 0; i < n; i++) {
		uint32_t cpu = rnd(&s) % 2;
		int32_t next = 1 + (int32_t)(rnd(&s) % 40);

		ts += (rnd(&s) % 3) * 1000;
		if (rnd(&s) % 3 == 0) {
			v[i].wk.hdr = (struct abicap_hdr){ ts, ABICAP_EV_SCHED_WAKEUP,
				sizeof(v[i].wk), cpu };
			v[i].wk.pid = v[i].wk.tgid = next;
			v[i].wk.waker_pid = v[i].wk.waker_tgid = cur[cpu];
			snprintf(v[i].wk.comm, sizeof(v[i].wk.comm), "t%d", next);
			continue;
		}
		v[i].sw.hdr = (struct abicap_hdr){ ts, ABICAP_EV_SCHED_SWITCH,
			sizeof(v[i].sw), cpu };
		v[i].sw.prev_pid = v[i].sw.prev_tgid = cur[cpu];
		v[i].sw.next_pid = v[i].sw.next_tgid = next;
		v[i].sw.prev_state = rnd(&s) % 2;
		v[i].sw.prev_prio = v[i].sw.next_prio = 120;
		snprintf(v[i].sw.prev_comm, sizeof(v[i].sw.prev_comm), "t%d",
			 cur[cpu]);
		snprintf(v[i].sw.next_comm, sizeof(v[i].sw.next_comm), "t%d", next);
		cur[cpu] = next;
	}
	return v;
}

static void put(const char *p, const union abicap_rec *v, size_t n)
{
	struct capw *w = capw_open(p, true, META, err, sizeof(err));

	cr_assert(w, "%s", err);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(capw_add(w, &v[i], v[i].hdr.size), 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
}

static char *report(const char *cap, bool json, size_t *len)
{
	char *argv[] = { "report", "--format", json ? "json" : "text",
			 (char *)cap, NULL };

	cr_assert(freopen(scratch_path("out"), "w", stdout));
	cr_assert_eq(do_report(4, argv), 0);
	cr_assert_eq(fflush(stdout), 0);
	return read_file(scratch_path("out"), len);
}

/* Both reports of cap (text, JSON) are want's, byte for byte. */
static void expect_reports(const char *cap, char *const want[2],
			   const size_t wlen[2], const char *what)
{
	size_t glen;
	char *got;

	for (int j = 0; j < 2; j++) {
		got = report(cap, j, &glen);
		cr_assert(glen == wlen[j] && !memcmp(got, want[j], glen),
			  "%s, %s: the report differs:\n%.*s\n---- as it should "
			  "be ----\n%.*s", what, j ? "JSON" : "text",
			  (int)(glen < 3000 ? glen : 3000), got,
			  (int)(wlen[j] < 3000 ? wlen[j] : 3000), want[j]);
		free(got);
	}
}

static void same_report_any_order(size_t n, const char *budget)
{
	union abicap_rec *v = workload(n);
	char cap[512], *want[2], what[64];
	size_t wlen[2];
	uint64_t s = 99;

	if (budget)
		setenv("ABICAP_ORDER_BUDGET", budget, 1);
	snprintf(cap, sizeof(cap), "%s", scratch_path("c.abicap"));
	put(cap, v, n); /* as recorded: in time order */
	for (int j = 0; j < 2; j++)
		want[j] = report(cap, j, &wlen[j]);
	for (int k = 0; k < 3; k++) {
		/* a shuffle, the reverse (of that), another shuffle */
		for (size_t i = n - 1; i > 0; i--) {
			size_t m = k == 1 ? n - 1 - i : rnd(&s) % (i + 1);
			union abicap_rec t = v[i];

			if (k == 1 && m >= i)
				break;
			v[i] = v[m];
			v[m] = t;
		}
		put(cap, v, n);
		snprintf(what, sizeof(what), "permutation %d", k);
		expect_reports(cap, want, wlen, what);
	}
	for (int j = 0; j < 2; j++)
		free(want[j]);
	free(v);
	unsetenv("ABICAP_ORDER_BUDGET");
}

Test(order, a_shuffled_copy_reports_byte_identical)
{
	same_report_any_order(20000, NULL);
}

/* Beyond the budget: 20000 records in runs of 1000, merged at once. */
Test(order, beyond_the_budget_still_identical)
{
	same_report_any_order(20000, "1000");
}

/* 79 runs of 256: a merge pass through the temporary file first. */
Test(order, beyond_the_budget_with_a_merge_pass)
{
	same_report_any_order(20000, "256");
}

/*
 * Captures nearly in order, as recorded (per-CPU rings merged: in order;
 * the shared ring: neighbours swapped; a late record), through a window of
 * 1000: the window keeps them in a sorted ring while they come in order,
 * inserts the few out of place, and becomes a heap past 64 places. Each
 * reports byte-identical to the capture in order.
 */
Test(order, nearly_in_order_copies_report_byte_identical)
{
	const size_t n = 20000;
	union abicap_rec *v = workload(n), *w = malloc(n * sizeof(*v));
	static const size_t late[] = { 0, 1, 40, 300, 900, 5000 };
	char cap[512], *want[2], what[64];
	size_t wlen[2];

	cr_assert(w);
	setenv("ABICAP_ORDER_BUDGET", "1000", 1);
	snprintf(cap, sizeof(cap), "%s", scratch_path("c.abicap"));
	put(cap, v, n);
	for (int j = 0; j < 2; j++)
		want[j] = report(cap, j, &wlen[j]);
	for (size_t k = 0; k < sizeof(late) / sizeof(late[0]); k++) {
		memcpy(w, v, n * sizeof(*v));
		if (late[k] == 1) {
			/* neighbours swapped every 50 records */
			for (size_t i = 1; i < n; i += 50) {
				union abicap_rec t = w[i];

				w[i] = w[i - 1];
				w[i - 1] = t;
			}
		} else if (late[k]) {
			/* record 7000 comes late[k] records after its place */
			union abicap_rec t = w[7000];

			memmove(&w[7000], &w[7001], late[k] * sizeof(*w));
			w[7000 + late[k]] = t;
		}
		put(cap, w, n);
		snprintf(what, sizeof(what), "late %zu", late[k]);
		expect_reports(cap, want, wlen, what);
	}
	for (int j = 0; j < 2; j++)
		free(want[j]);
	free(v);
	free(w);
	unsetenv("ABICAP_ORDER_BUDGET");
}

/*
 * Out of order past the budget (a shuffled capture: the window cannot mend
 * it) with an unusable TMPDIR: an error naming it and the fix, exit 4.
 */
Test(order, an_unusable_tmpdir_is_named)
{
	union abicap_rec *v = workload(3000), t;
	char cap[512];
	struct run r;
	uint64_t s = 7;

	for (size_t i = 2999; i > 0; i--) {
		size_t m = rnd(&s) % (i + 1);

		t = v[i];
		v[i] = v[m];
		v[m] = t;
	}
	snprintf(cap, sizeof(cap), "%s", scratch_path("t.abicap"));
	put(cap, v, 3000);
	setenv("ABICAP_ORDER_BUDGET", "1000", 1);
	setenv("TMPDIR", "/nonexistent-abicap-dir", 1);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, NULL });
	unsetenv("TMPDIR");
	unsetenv("ABICAP_ORDER_BUDGET");
	cr_assert_eq(r.code, 4, "exit %d: %s", r.code, r.err);
	cr_assert(strstr(r.err, "/nonexistent-abicap-dir") &&
		  strstr(r.err, "set TMPDIR"), "%s", r.err);
	free(r.out);
	free(r.err);
	free(v);
}
