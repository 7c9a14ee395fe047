// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The analysis's observers (user/analysis/observe.h): the spans, wakeups
 * and waits of hand-built record sequences, the window, the runtime.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "analysis/analysis.h"
#include "recfix.h"

TestSuite(observe);

#define ALL (ABICAP_SWITCH_PREV_OK | ABICAP_SWITCH_NEXT_OK)
#define S 0x1

static void sw(struct analysis *a, uint64_t ts, uint32_t cpu, int32_t prev,
	       uint32_t state, int32_t next)
{
	union abicap_rec r = recfix_switch(ts, cpu, prev, NULL, state, next,
					   NULL, ALL);

	analysis_add(a, &r);
}

static void wk(struct analysis *a, uint64_t ts, int32_t pid, int32_t waker)
{
	union abicap_rec r = recfix_wakeup(ABICAP_EV_SCHED_WAKEUP, ts, pid, NULL,
					   waker);

	analysis_add(a, &r);
}

struct seen {
	char log[4096];
	size_t len;
};

static void put(struct seen *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void put(struct seen *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	s->len += vsnprintf(s->log + s->len, sizeof(s->log) - s->len, fmt, ap);
	va_end(ap);
}

static void on_task(void *ctx, const struct task_span *sp)
{
	cr_assert_leq(sp->start_ns, sp->end_ns);
	put(ctx, "T %d %s k%d c%d %llu-%llu\n", sp->id.tid, sp->comm, sp->kind,
	    sp->cpu, (unsigned long long)sp->start_ns,
	    (unsigned long long)sp->end_ns);
}

static void on_cpu(void *ctx, const struct cpu_span *sp)
{
	cr_assert_leq(sp->start_ns, sp->end_ns);
	put(ctx, "C %d k%d %llu-%llu\n", sp->cpu, sp->kind,
	    (unsigned long long)sp->start_ns, (unsigned long long)sp->end_ns);
}

static void on_wake(void *ctx, const struct wake_ev *w)
{
	put(ctx, "W %d(%s) -> %d(%s) at %llu\n", w->waker.tid, w->waker_comm,
	    w->wakee.tid, w->wakee_comm, (unsigned long long)w->ts);
}

static void on_wait(void *ctx, const struct wait_ev *w)
{
	put(ctx, "Q %d %llu-%llu cpu%d holder %d(%s) ", w->id.tid,
	    (unsigned long long)w->start_ns, (unsigned long long)w->end_ns,
	    w->cpu, w->holder.tid, w->holder_comm);
	if (w->holder_run_known)
		put(ctx, "%llu\n", (unsigned long long)w->holder_run_ns);
	else
		put(ctx, "?\n");
}

static const char *run(struct seen *s, uint64_t since, uint64_t until)
{
	struct analysis a;
	struct analysis_observer o = { .ctx = s, .task_span = on_task,
		.cpu_span = on_cpu, .wakeup = on_wake, .wait = on_wait };

	memset(s, 0, sizeof(*s));
	analysis_init(&a, 1);
	analysis_observe(&a, &o);
	analysis_set_window(&a, since, until);
	sw(&a, 1000, 0, 0, 0, 100); /* 100 runs from 1000 */
	wk(&a, 1500, 200, 100); /* 200 (never seen) is woken by 100 */
	sw(&a, 2000, 0, 100, 0, 200); /* 100 preempted by 200 */
	sw(&a, 2600, 0, 200, S, 100); /* 200 sleeps, 100 back */
	sw(&a, 3000, 0, 100, S, 0);
	wk(&a, 3500, 100, -2); /* an interrupt wakes 100 */
	sw(&a, 4000, 0, 0, 0, 100);
	analysis_finish(&a);
	cr_assert_eq(analysis_find(&a, 100)->runtime,
		     until == UINT64_MAX ? 1000 + 400 : 400 - 200,
		     "runtime %llu",
		     (unsigned long long)analysis_find(&a, 100)->runtime);
	analysis_free(&a);
	return s->log;
}

Test(observe, spans_wakeups_and_waits)
{
	struct seen s;

	cr_assert_str_eq(run(&s, 0, UINT64_MAX),
		"W 100(t100) -> 200(t200) at 1500\n"
		"C 0 k0 1000-2000\n"
		"T 100 t100 k0 c0 1000-2000\n"
		"Q 200 1500-2000 cpu0 holder 100(t100) 500\n"
		"T 200 t200 k1 c0 1500-2000\n"
		"C 0 k0 2000-2600\n"
		"T 200 t200 k0 c0 2000-2600\n"
		"Q 100 2000-2600 cpu0 holder 200(t200) 600\n"
		"T 100 t100 k1 c0 2000-2600\n"
		"C 0 k0 2600-3000\n"
		"T 100 t100 k0 c0 2600-3000\n"
		"W -1((interrupt)) -> 100(t100) at 3500\n"
		"T 100 t100 k2 c-1 3000-3500\n"
		"C 0 k1 3000-4000\n"
		"Q 100 3500-4000 cpu0 holder -1((idle)) 0\n"
		"T 100 t100 k1 c0 3500-4000\n"
		"T 200 t200 k2 c-1 2600-4000\n", "%s", s.log);
}

/* The window clips spans and runtime; waits count where they end. */
Test(observe, window_clips)
{
	struct seen s;

	cr_assert_str_eq(run(&s, 2400, 2800),
		"C 0 k0 2400-2600\n"
		"T 200 t200 k0 c0 2400-2600\n"
		"Q 100 2000-2600 cpu0 holder 200(t200) 600\n"
		"T 100 t100 k1 c0 2400-2600\n"
		"C 0 k0 2600-2800\n"
		"T 100 t100 k0 c0 2600-2800\n"
		"T 200 t200 k2 c-1 2600-2800\n", "%s", s.log);
}

static void named(struct analysis *a, uint64_t ts, int32_t prev,
		  const char *pc, uint32_t state, int32_t next, const char *nc)
{
	union abicap_rec r = recfix_switch(ts, 0, prev, pc, state, next, nc,
					   ALL);

	analysis_add(a, &r);
}

static void wkn(struct analysis *a, uint64_t ts, int32_t pid,
		const char *comm, int32_t waker)
{
	union abicap_rec r = recfix_wakeup(ABICAP_EV_SCHED_WAKEUP, ts, pid, comm,
					   waker);

	analysis_add(a, &r);
}

/*
 * issue 25 item 5: a task that execs has its new name from the record that
 * shows it on; a wakeup names the tasks as they were then; a waker never
 * seen by name is "(unknown)", never "".
 */
Test(observe, names_as_they_were_then)
{
	struct seen s;
	struct analysis a;
	struct analysis_observer o = { .ctx = &s, .task_span = on_task,
		.wakeup = on_wake, .wait = on_wait };

	memset(&s, 0, sizeof(s));
	analysis_init(&a, 1);
	analysis_observe(&a, &o);
	named(&a, 1000, 0, "swapper/0", 0, 100, "sh");
	wk(&a, 1500, 200, 100); /* sh wakes 200 */
	named(&a, 2000, 100, "make", S, 200, "t200"); /* 100 exec'd make */
	wkn(&a, 2500, 100, "make", 200);
	wkn(&a, 2600, 200, "t200", 300); /* a waker with no name seen */
	named(&a, 3000, 200, "t200", S, 100, "make");
	analysis_finish(&a);
	cr_assert_str_eq(s.log,
		"W 100(sh) -> 200(t200) at 1500\n"
		"T 100 sh k0 c0 1000-2000\n"
		"Q 200 1500-2000 cpu0 holder 100(make) 500\n"
		"T 200 t200 k1 c0 1500-2000\n"
		"W 200(t200) -> 100(make) at 2500\n"
		"T 100 make k2 c-1 2000-2500\n"
		"W 300((unknown)) -> 200(t200) at 2600\n"
		"T 200 t200 k0 c0 2000-3000\n"
		"Q 100 2500-3000 cpu0 holder 200(t200) 500\n"
		"T 100 make k1 c0 2500-3000\n", "%s", s.log);
	cr_assert_str_eq(a.chains[0].waker_comm, "sh");
	cr_assert_str_eq(task_comm(analysis_find(&a, 300)), "(unknown)");
	analysis_free(&a);
}

/*
 * CI's Firecracker guest: a hidden task cut into the holder (the switch
 * back to it was not shown), so the holder's time inside the wait is not
 * known; it was printed as 0. Unknown, never a guessed figure; a holder
 * seen switching in keeps its time, even if it ran before the wait began.
 */
Test(observe, holder_switched_in_unseen_has_no_time)
{
	struct seen s;
	struct analysis a;
	struct analysis_observer o = { .ctx = &s, .wait = on_wait };

	memset(&s, 0, sizeof(s));
	analysis_init(&a, 1);
	analysis_observe(&a, &o);
	sw(&a, 1000, 0, 0, 0, 100); /* 100 on */
	wk(&a, 1200, 200, -2); /* 200 waits from 1200 */
	sw(&a, 1500, 0, 100, 0, 300); /* 300 (hidden) preempts 100 ... */
	/* ... and 300 -> 100 at 1700 is not shown */
	sw(&a, 2000, 0, 100, S, 200); /* 100 sleeps: 200 ends its wait */
	wk(&a, 2100, 100, -2);
	sw(&a, 2500, 0, 200, 0, 100); /* 200 preempted by 100 */
	sw(&a, 2600, 0, 100, S, 200); /* 100 seen from 2500 */
	sw(&a, 2700, 0, 200, S, 0); /* 200 from the start of its wait */
	analysis_finish(&a);
	cr_assert_str_eq(s.log,
		"Q 200 1200-2000 cpu0 holder 100(t100) ?\n"
		"Q 100 2100-2500 cpu0 holder 200(t200) 400\n"
		"Q 200 2500-2600 cpu0 holder 100(t100) 100\n", "%s", s.log);
	cr_assert_eq(a.cpus[0].hidden_gaps, 1);
	analysis_free(&a);
}
