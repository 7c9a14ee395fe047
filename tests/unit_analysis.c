// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * report's analysis fed hand-built record sequences: each rule of the wait
 * state machine (README "report"), filtered captures, drop windows and
 * frequency residency, with exact figures.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "analysis/analysis.h"

TestSuite(analysis);

#define ALL (ABICAP_SWITCH_PREV_OK | ABICAP_SWITCH_NEXT_OK)
#define S 0x1 /* TASK_INTERRUPTIBLE as tracefs encodes it */

static void sw(struct analysis *a, uint64_t ts, int32_t prev, uint32_t state,
	       int32_t next, uint8_t flags)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.sw.hdr = (struct abicap_hdr){ .ts_ns = ts, .type =
		ABICAP_EV_SCHED_SWITCH, .size = sizeof(r.sw) };
	r.sw.prev_pid = r.sw.prev_tgid = prev;
	r.sw.next_pid = r.sw.next_tgid = next;
	snprintf(r.sw.prev_comm, sizeof(r.sw.prev_comm), "t%d", prev);
	snprintf(r.sw.next_comm, sizeof(r.sw.next_comm), "t%d", next);
	r.sw.prev_state = state;
	r.sw.flags = flags;
	analysis_add(a, &r);
}

static void wk(struct analysis *a, unsigned int type, uint64_t ts, int32_t pid,
	       int32_t waker)
{
	union abicap_rec r;

	memset(&r, 0, sizeof(r));
	r.wk.hdr = (struct abicap_hdr){ .ts_ns = ts, .type = type,
		.size = sizeof(r.wk) };
	r.wk.pid = r.wk.tgid = pid;
	r.wk.waker_pid = r.wk.waker_tgid = waker;
	snprintf(r.wk.comm, sizeof(r.wk.comm), "t%d", pid);
	analysis_add(a, &r);
}

#define WAKEUP ABICAP_EV_SCHED_WAKEUP
#define WAKING ABICAP_EV_SCHED_WAKING

static const struct task *T(const struct analysis *a, int32_t pid)
{
	const struct task *t = analysis_find(a, pid);

	cr_assert(t, "task %d never seen", pid);
	return t;
}

/* The samples of one task, in order. */
static void expect(const struct analysis *a, int32_t pid, size_t n,
		   const uint64_t *v)
{
	const struct task *t = T(a, pid);

	cr_assert_eq(t->rq.n, n, "task %d: %zu samples, want %zu", pid,
		     t->rq.n, n);
	for (size_t i = 0; i < n; i++)
		cr_assert_eq(t->rq.v[i], v[i], "task %d sample %zu: %llu ns, "
			     "want %llu", pid, i, (unsigned long long)t->rq.v[i],
			     (unsigned long long)v[i]);
}

/*
 * "report keeps a wakeup start across a later sleep": a sched_waking while
 * the task is still on its CPU starts nothing; the next real wait is 2 us.
 */
Test(analysis, wakeup_while_on_cpu_starts_nothing)
{
	struct analysis a;

	analysis_init(&a, 1);
	a.from_waking = true;
	sw(&a, 1000, 1, S, 100, ALL); /* 100 runs */
	wk(&a, WAKING, 2000, 100, 1); /* still running: stops a sleep */
	sw(&a, 3000, 100, S, 0, ALL);
	wk(&a, WAKING, 10000, 100, 1);
	sw(&a, 12000, 0, 0, 100, ALL);
	analysis_finish(&a);
	expect(&a, 100, 1, (uint64_t[]){ 2000 });
	cr_assert_eq(T(&a, 100)->wake.n, 1);
	analysis_free(&a);
}

/*
 * "an unfinished wait swallows the next wakeup": a wakeup whose switch-in
 * is not in the capture, a sleep, a new wakeup: the new one counts (1 us).
 */
Test(analysis, missed_switch_in_then_new_wakeup)
{
	struct analysis a;

	analysis_init(&a, 1);
	wk(&a, WAKEUP, 1000, 100, 1); /* its switch-in is never seen */
	sw(&a, 5000, 100, S, 0, ALL);
	wk(&a, WAKEUP, 8000, 100, 1);
	sw(&a, 9000, 0, 0, 100, ALL);
	analysis_finish(&a);
	expect(&a, 100, 1, (uint64_t[]){ 1000 });
	analysis_free(&a);
}

/* A wakeup after the task's last switch-out starts a new wait: the latest wins. */
Test(analysis, latest_wakeup_wins)
{
	struct analysis a;

	analysis_init(&a, 1);
	sw(&a, 1000, 100, 0, 0, ALL); /* still runnable: waits from 1000 */
	wk(&a, WAKEUP, 3000, 100, 1);
	wk(&a, WAKEUP, 3500, 100, 1);
	sw(&a, 4000, 0, 0, 100, ALL);
	analysis_finish(&a);
	expect(&a, 100, 1, (uint64_t[]){ 500 });
	cr_assert_eq(T(&a, 100)->wake.n, 1);
	cr_assert_eq(T(&a, 100)->involuntary, 1);
	analysis_free(&a);
}

/* Preempted (R+): a wait from the switch-out, not a wakeup delay. */
Test(analysis, preempted_waits_from_the_switch_out)
{
	struct analysis a;

	analysis_init(&a, 1);
	sw(&a, 1000, 100, ABICAP_STATE_PREEMPTED, 200, ALL);
	sw(&a, 1500, 200, S, 100, ALL);
	analysis_finish(&a);
	expect(&a, 100, 1, (uint64_t[]){ 500 });
	cr_assert_eq(T(&a, 100)->wake.n, 0);
	cr_assert_eq(T(&a, 100)->off_by_state[9], 500);
	cr_assert_eq(T(&a, 200)->voluntary, 1);
	analysis_free(&a);
}

/* A switch-out asleep ends a pending wait with no sample; off-CPU is S. */
Test(analysis, sleeping_switch_out_ends_a_pending_wait)
{
	struct analysis a;

	analysis_init(&a, 1);
	wk(&a, WAKEUP, 1000, 100, 1);
	sw(&a, 2000, 100, S, 0, ALL);
	sw(&a, 5000, 0, 0, 100, ALL);
	analysis_finish(&a);
	cr_assert_eq(T(&a, 100)->rq.n, 0);
	cr_assert_eq(T(&a, 100)->off_by_state[1], 3000);
	analysis_free(&a);
}

/* sched_waking with from_waking; sched_wakeup_new always starts a wait. */
Test(analysis, waking_or_wakeup_and_wakeup_new)
{
	struct analysis a;

	analysis_init(&a, 1);
	a.from_waking = true;
	sw(&a, 100, 100, S, 0, ALL);
	wk(&a, WAKING, 1000, 100, 1);
	wk(&a, WAKEUP, 1200, 100, 1); /* not the start with from_waking */
	sw(&a, 2000, 0, 0, 100, ALL);
	wk(&a, ABICAP_EV_SCHED_WAKEUP_NEW, 3000, 101, 100);
	sw(&a, 3300, 100, S, 101, ALL);
	analysis_finish(&a);
	expect(&a, 100, 1, (uint64_t[]){ 1000 });
	expect(&a, 101, 1, (uint64_t[]){ 300 });
	analysis_free(&a);
}

/*
 * A filtered capture (record -- CMD): 100 is followed, 200 is not. 200's
 * wakeup is in the file (its waker is followed), its switch-in only once,
 * as the other side of a followed task's switch: nothing is measured for
 * it; 100's own waits are.
 */
Test(analysis, filtered_capture_measures_followed_tasks_only)
{
	struct analysis a;

	analysis_init(&a, 1);
	a.switch_flags = true;
	sw(&a, 1000, 0, 0, 100, ABICAP_SWITCH_NEXT_OK);
	wk(&a, WAKEUP, 1500, 200, 100); /* 200 is woken by 100 */
	sw(&a, 2000, 100, S, 0, ABICAP_SWITCH_PREV_OK);
	/* 200's switch-in and out elsewhere are not in the capture */
	wk(&a, WAKEUP, 3000000, 100, 200);
	sw(&a, 3000400, 200, S, 100, ABICAP_SWITCH_NEXT_OK);
	wk(&a, WAKEUP, 3500000, 200, 100);
	sw(&a, 4000000, 100, S, 200, ABICAP_SWITCH_PREV_OK);
	analysis_finish(&a);
	expect(&a, 100, 1, (uint64_t[]){ 400 });
	cr_assert_eq(T(&a, 100)->off_total, 3000400 - 2000);
	cr_assert_eq(T(&a, 100)->voluntary, 2);
	cr_assert_eq(T(&a, 200)->rq.n, 0);
	cr_assert_eq(T(&a, 200)->off_total, 0);
	cr_assert_eq(T(&a, 200)->voluntary, 0);
	cr_assert_eq(a.rq.n, 1);
	cr_assert_eq(a.rq.max, 400);
	analysis_free(&a);
}

/* Without the flags (record version 2 or an unfiltered capture): all count. */
Test(analysis, unflagged_switches_count_both_sides)
{
	struct analysis a;

	analysis_init(&a, 1);
	wk(&a, WAKEUP, 1000, 200, 100);
	sw(&a, 1700, 100, S, 200, 0);
	analysis_finish(&a);
	expect(&a, 200, 1, (uint64_t[]){ 700 });
	analysis_free(&a);
}

/* Waits and off-CPU intervals overlapping a drop window are left out, counted. */
Test(analysis, drop_window_leaves_out_what_spans_it)
{
	struct drop_window d[] = { { 2000, 3000, 5 }, { 2500, 3500, 1 },
				   { 20000, 21000, 2 } };
	struct analysis a;

	analysis_init(&a, 1);
	cr_assert_eq(analysis_set_drops(&a, d, 3), 0);
	cr_assert_eq(a.ndrops, 2, "overlapping windows merge");
	sw(&a, 500, 100, S, 0, ALL);
	wk(&a, WAKEUP, 1000, 100, 1);
	sw(&a, 5000, 0, 0, 100, ALL); /* 1000..5000 spans (2000, 3500] */
	sw(&a, 6000, 100, S, 0, ALL);
	wk(&a, WAKEUP, 6500, 100, 1);
	sw(&a, 7000, 0, 0, 100, ALL); /* measured: 500 */
	sw(&a, 8000, 100, S, 0, ALL);
	wk(&a, WAKEUP, 21000, 100, 1); /* at the window's end: inside it */
	sw(&a, 21500, 0, 0, 100, ALL);
	analysis_finish(&a);
	expect(&a, 100, 1, (uint64_t[]){ 500 });
	cr_assert_eq(a.waits_dropped, 2);
	/* off-CPU: 500..5000 and 8000..21500 out, 6000..6500..7000 in */
	cr_assert_eq(T(&a, 100)->off_total, 1000);
	cr_assert_eq(a.off_dropped, 2);
	analysis_free(&a);
}

/* Frequency residency has no limit on distinct values (was 32, silently). */
Test(analysis, frequency_residency_of_many_values)
{
	struct analysis a;

	analysis_init(&a, 2);
	for (int i = 0; i < 40; i++) {
		union abicap_rec r;

		memset(&r, 0, sizeof(r));
		r.pw.hdr = (struct abicap_hdr){ .ts_ns = 1000 * (i + 1), .type =
			ABICAP_EV_CPU_FREQUENCY, .size = sizeof(r.pw) };
		r.pw.cpu_id = 1;
		r.pw.state = 800000 + 1000 * i;
		analysis_add(&a, &r);
	}
	wk(&a, WAKEUP, 41000, 5, 1);
	analysis_finish(&a);
	cr_assert_eq(a.cpus[1].nfreqs, 40);
	for (int i = 0; i < 40; i++) {
		cr_assert_eq(a.cpus[1].freqs[i], 800000u + 1000 * i);
		cr_assert_eq(a.cpus[1].freq_time[i], 1000, "%u kHz: %llu ns",
			     a.cpus[1].freqs[i],
			     (unsigned long long)a.cpus[1].freq_time[i]);
	}
	analysis_free(&a);
}

/*
 * Per-record work is O(1): 300,000 distinct wakeup chains (a linear scan per
 * wakeup took minutes for this) well inside the timeout; counts exact.
 */
Test(analysis, many_wakeup_chains, .timeout = 30)
{
	struct analysis a;
	uint64_t ts = 1;

	analysis_init(&a, 1);
	for (int i = 0; i < 300000; i++) {
		wk(&a, WAKEUP, ts++, 1000 + i % 50000, 10 + i / 50000);
		sw(&a, ts++, 0, 0, 1000 + i % 50000, ALL);
		sw(&a, ts++, 1000 + i % 50000, S, 0, ALL);
	}
	analysis_finish(&a);
	cr_assert_eq(a.nchains, 300000);
	cr_assert_eq(a.rq.n, 300000);
	for (size_t i = 0; i < a.nchains; i++)
		cr_assert_eq(a.chains[i].count, 1);
	analysis_free(&a);
}

/* A CPU's time across a drop window is neither busy nor idle: lost. */
Test(analysis, cpu_time_across_a_drop_window_is_lost)
{
	struct drop_window d[] = { { 2500, 2600, 1 } };
	struct analysis a;

	analysis_init(&a, 1);
	cr_assert_eq(analysis_set_drops(&a, d, 1), 0);
	sw(&a, 1000, 0, 0, 100, ALL);
	sw(&a, 2000, 100, S, 0, ALL); /* busy 1000 */
	sw(&a, 3000, 0, 0, 100, ALL); /* idle 1000, but spans the window */
	sw(&a, 3500, 100, S, 0, ALL); /* busy 500 */
	analysis_finish(&a);
	cr_assert_eq(a.cpus[0].busy, 1500);
	cr_assert_eq(a.cpus[0].idle_time, 0);
	cr_assert_eq(a.cpus[0].lost_time, 1000);
	analysis_free(&a);
}
