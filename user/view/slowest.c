// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The N slowest run-queue waits and who held the CPU meanwhile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "lib/escape.h"
#include "view/taskref.h"
#include "view/slowest.h"

int slowest_init(struct slowest *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->v = calloc(max ? max : 1, sizeof(*s->v));
	s->max = max;
	return s->v ? 0 : -ENOMEM;
}

static uint64_t len_of(const struct slow_wait *w)
{
	return w->end_ns - w->start_ns;
}

/* a is less slow than b (ties: the later one is less) */
static bool less(const struct slow_wait *a, const struct slow_wait *b)
{
	if (len_of(a) != len_of(b))
		return len_of(a) < len_of(b);
	return a->start_ns > b->start_ns;
}

static void sift_down(struct slowest *s, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct slow_wait t;

		if (l < s->n && less(&s->v[l], &s->v[m]))
			m = l;
		if (r < s->n && less(&s->v[r], &s->v[m]))
			m = r;
		if (m == i)
			return;
		t = s->v[i];
		s->v[i] = s->v[m];
		s->v[m] = t;
		i = m;
	}
}

void slowest_wait(void *ctx, const struct wait_ev *w)
{
	struct slowest *s = ctx;
	struct slow_wait e = {
		.id = w->id, .holder = w->holder, .cpu = w->cpu,
		.after_wakeup = w->after_wakeup, .start_ns = w->start_ns,
		.end_ns = w->end_ns, .holder_run_ns = w->holder_run_ns,
		.holder_run_known = w->holder_run_known,
	};
	size_t i;

	s->seen++;
	snprintf(e.comm, sizeof(e.comm), "%s", w->comm ? w->comm : "");
	snprintf(e.holder_comm, sizeof(e.holder_comm), "%s",
		 w->holder_comm ? w->holder_comm : "");
	if (!s->max)
		return;
	if (s->n == s->max) {
		if (!less(&s->v[0], &e))
			return;
		s->v[0] = e;
		sift_down(s, 0);
		return;
	}
	/* sift up */
	for (i = s->n++; i && less(&e, &s->v[(i - 1) / 2]); i = (i - 1) / 2)
		s->v[i] = s->v[(i - 1) / 2];
	s->v[i] = e;
}

static int slower_first(const void *a, const void *b)
{
	const struct slow_wait *x = a, *y = b;

	return less(y, x) ? -1 : less(x, y) ? 1 : 0;
}

void slowest_finish(struct slowest *s, const struct analysis *a)
{
	qsort(s->v, s->n, sizeof(*s->v), slower_first);
	for (size_t i = 0; i < s->n; i++) {
		struct slow_wait *w = &s->v[i];

		for (size_t k = 0; w->holder.tid > 0 && k < a->ntasks; k++) {
			const struct task *t = &a->tasks[k];

			if (t->pid == w->holder.tid &&
			    t->start_ns == w->holder.start_ns) {
				w->holder_runtime = t->runtime;
				w->holder_known = true;
				break;
			}
		}
	}
}

static double ms_of(uint64_t ns)
{
	return (double)ns / 1e6;
}

void slowest_text(FILE *f, const struct slowest *s, uint64_t t0)
{
	fprintf(f, "\nSlowest run-queue waits (%zu of %llu), each with the task "
		"that held its CPU (switched out when it ran):\n", s->n,
		(unsigned long long)s->seen);
	if (!s->n) {
		fputs("  (none measured)\n", f);
		return;
	}
	fprintf(f, "  %10s %12s %4s %-24s %-9s %-24s %10s %12s\n", "WAIT(ms)",
		"AT(ms)", "CPU", "TASK", "AFTER", "HELD BY", "HELD(ms)",
		"RUNTIME(ms)");
	for (size_t i = 0; i < s->n; i++) {
		const struct slow_wait *w = &s->v[i];
		char task[64], holder[64];

		taskref_text(task, sizeof(task), w->comm, w->id.tid);
		if (w->holder.tid > 0)
			taskref_text(holder, sizeof(holder), w->holder_comm,
				     w->holder.tid);
		else
			snprintf(holder, sizeof(holder), "%s", w->holder_comm[0] ?
				 text_escaped(w->holder_comm,
					      sizeof(w->holder_comm)) :
				 "(unknown)");
		fprintf(f, "  %10.3f %12.3f %4d %-24s %-9s %-24s ",
			ms_of(len_of(w)),
			ms_of(w->start_ns >= t0 ? w->start_ns - t0 : 0), w->cpu,
			task, w->after_wakeup ? "wakeup" : "preempt", holder);
		if (w->holder_run_known)
			fprintf(f, "%10.3f ", ms_of(w->holder_run_ns));
		else
			fprintf(f, "%10s ", "-");
		if (w->holder_known)
			fprintf(f, "%12.3f\n", ms_of(w->holder_runtime));
		else
			fprintf(f, "%12s\n", "-");
	}
}

json_t *slowest_json(const struct slowest *s, uint64_t t0)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < s->n; i++) {
		const struct slow_wait *w = &s->v[i];
		json_t *o = json_object(), *h;


		json_object_set_new(o, "wait_ns", json_integer((json_int_t)len_of(w)));
		json_object_set_new(o, "start_ns",
				    json_integer((json_int_t)w->start_ns));
		json_object_set_new(o, "at_ns", json_integer((json_int_t)
				    (w->start_ns >= t0 ? w->start_ns - t0 : 0)));
		json_object_set_new(o, "cpu", json_integer(w->cpu));
		json_object_set_new(o, "after", json_string(w->after_wakeup ?
					"wakeup" : "preempt"));
		json_object_set_new(o, "task", taskref_json(&w->id, w->comm));
		h = taskref_json(&w->holder, w->holder_comm);
		json_object_set_new(o, "holder", h);
		json_object_set_new(o, "holder_ran_ns", w->holder_run_known ?
				    json_integer((json_int_t)w->holder_run_ns) :
				    json_null());
		json_object_set_new(o, "holder_runtime_ns", w->holder_known ?
				    json_integer((json_int_t)w->holder_runtime) :
				    json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

void slowest_free(struct slowest *s)
{
	free(s->v);
	s->v = NULL;
}
