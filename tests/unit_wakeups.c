// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap wakeups' counting (user/view/wakeups.c) on hand-built records:
 * each idle exit is one CPU's, attributed to the first wakeup placed on
 * that CPU from its idle entry on, or to none; entries are counted per
 * state inside the window; the causes' exits add up to the CPUs'.
 */
#include <criterion/criterion.h>
#include <string.h>
#include "analysis/analysis.h"
#include "recfix.h"
#include "view/wakeups.h"

/* Two CPUs counted over [0, 1000], w observing a as capview sets it up. */
static void start(struct analysis *a, struct wakeups *w)
{
	struct analysis_observer o = { .ctx = w, .wakeup = wk_wakeup,
				       .idle = wk_idle };

	cr_assert_eq(wk_init(w, 2, 0, 1000), 0);
	analysis_init(a, 2);
	analysis_observe(a, &o);
}

static void feed(struct analysis *a, union abicap_rec r)
{
	analysis_add(a, &r);
}

static union abicap_rec wake(uint64_t ts, int32_t pid, const char *comm,
			     int32_t waker, uint32_t on, int32_t target)
{
	union abicap_rec r = recfix_wakeup(ABICAP_EV_SCHED_WAKEUP, ts, pid, comm,
					   waker);

	r.wk.hdr.cpu = on;
	r.wk.target_cpu = target;
	return r;
}

static json_t *cause_of(json_t *causes, int cpu, json_int_t woken)
{
	json_t *c;
	size_t i;

	json_array_foreach(causes, i, c) {
		json_t *t = json_object_get(c, "woken");

		if (json_integer_value(json_object_get(c, "cpu")) == cpu &&
		    (woken < 0 ? json_is_null(t) :
		     json_integer_value(json_object_get(t, "tid")) == woken))
			return c;
	}
	return NULL;
}

static json_int_t jint(json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

Test(wakeups, exits_are_attributed_to_the_first_wakeup_since_the_entry)
{
	struct analysis a;
	struct wakeups w;
	json_t *j, *cpus, *causes, *c;
	json_int_t sum = 0;
	size_t i;

	start(&a, &w);
	feed(&a, recfix_idle(50, 1, UINT32_MAX)); /* its entry unseen */
	feed(&a, recfix_idle(100, 0, 1));
	feed(&a, recfix_idle(100, 1, 0));
	feed(&a, wake(120, 11, "irqd", ABICAP_PID_INTERRUPT, 1, 1));
	feed(&a, recfix_idle(130, 1, UINT32_MAX));
	feed(&a, wake(150, 10, "abc", 20, 1, 0));
	feed(&a, wake(155, 12, "second", 20, 1, 0)); /* not the first */
	feed(&a, recfix_idle(160, 0, UINT32_MAX));
	feed(&a, recfix_idle(200, 0, 2));
	feed(&a, recfix_idle(300, 0, UINT32_MAX)); /* no task woken */
	feed(&a, recfix_idle(400, 0, 1));
	feed(&a, recfix_idle(500, 0, UINT32_MAX));
	feed(&a, wake(510, 10, "abc", 20, 1, 0)); /* after the exit */
	feed(&a, recfix_idle(1100, 1, 3)); /* past the window */
	analysis_finish(&a);
	wk_finish(&w);
	j = wk_json(&w, &a);
	cpus = json_object_get(j, "cpus");
	causes = json_object_get(j, "causes");
	cr_assert_eq(json_array_size(cpus), 2);
	c = json_array_get(cpus, 0);
	cr_assert_eq(jint(c, "idle_exits"), 3);
	cr_assert_eq(jint(json_object_get(c, "idle_entries_by_state"), "1"), 2);
	cr_assert_eq(jint(json_object_get(c, "idle_entries_by_state"), "2"), 1);
	c = json_array_get(cpus, 1);
	cr_assert_eq(jint(c, "idle_exits"), 1, "the exit without its entry "
		     "is not one");
	cr_assert_eq(jint(json_object_get(c, "idle_entries_by_state"), "0"), 1);
	cr_assert_eq(json_object_size(json_object_get(c,
			"idle_entries_by_state")), 1, "an entry past the window");
	c = cause_of(causes, 0, 10);
	cr_assert(c, "abc woke CPU 0");
	cr_assert_eq(jint(c, "idle_exits"), 2);
	cr_assert_eq(jint(json_object_get(c, "waker"), "tid"), 20);
	cr_assert_null(cause_of(causes, 0, 12), "only the first wakeup counts");
	c = cause_of(causes, 0, -1);
	cr_assert(c, "the exit with no task to run");
	cr_assert_eq(jint(c, "idle_exits"), 1);
	c = cause_of(causes, 1, 11);
	cr_assert(c, "the interrupt's wakeup of CPU 1");
	cr_assert(json_is_true(json_object_get(c, "waker_interrupt")));
	cr_assert(json_is_null(json_object_get(c, "waker")));
	/* most exits first, and every exit is some cause's */
	cr_assert_eq(jint(json_array_get(causes, 0), "idle_exits"), 2);
	json_array_foreach(causes, i, c)
		sum += jint(c, "idle_exits");
	cr_assert_eq(sum, 4);
	json_decref(j);
	wk_free(&w);
	analysis_free(&a);
}

/*
 * wakeups counts the idle states the analysis takes, not records of its
 * own: a cpu_idle exit older than a record already fed is out of order,
 * left out by the analysis (and counted there), so no exit of CPU 0.
 */
Test(wakeups, an_idle_exit_out_of_order_is_not_counted)
{
	struct analysis a;
	struct wakeups w;
	json_t *j;

	start(&a, &w);
	feed(&a, recfix_idle(100, 0, 1));
	feed(&a, recfix_idle(200, 1, 0));
	feed(&a, recfix_idle(150, 0, UINT32_MAX)); /* before 200 */
	feed(&a, recfix_idle(300, 1, UINT32_MAX));
	analysis_finish(&a);
	wk_finish(&w);
	j = wk_json(&w, &a);
	cr_assert_eq(a.order_errors, 1);
	cr_assert_eq(jint(json_array_get(json_object_get(j, "cpus"), 0),
			  "idle_exits"), 0);
	cr_assert_eq(jint(json_array_get(json_object_get(j, "cpus"), 1),
			  "idle_exits"), 1);
	json_decref(j);
	wk_free(&w);
	analysis_free(&a);
}
