// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The N slowest run-queue waits and who held the CPU meanwhile. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_read.h"
#include "lib/array.h"
#include "lib/escape.h"
#include "lib/hashtab.h"
#include "lib/heap.h"
#include "lib/util.h"
#include "report/taskref.h"
#include "report/slowest.h"

int slowest_init(struct slowest *s, size_t max)
{
	memset(s, 0, sizeof(*s));
	s->v = calloc(max ? max : 1, sizeof(*s->v));
	s->max = max;
	return s->v ? 0 : -ENOMEM;
}

_Static_assert(sizeof(struct slow_wait) <= HEAP_ELEM_MAX, "the heap's room");

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

/* heap_before_fn: the heap's root is the least slow wait kept. */
static bool less_slow(const void *a, const void *b, const void *ctx)
{
	(void)ctx;
	return less(a, b);
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
		heap_down(s->v, s->n, sizeof(*s->v), 0, less_slow, NULL);
		return;
	}
	s->v[s->n] = e;
	heap_up(s->v, sizeof(*s->v), s->n++, less_slow, NULL);
}

static int slower_first(const void *a, const void *b)
{
	const struct slow_wait *x = a, *y = b;

	return less(y, x) ? -1 : less(x, y) ? 1 : 0;
}

void slowest_finish(struct slowest *s, const struct analysis *a)
{
	(void)a; /* the holders' runtimes: slowest_holders */
	qsort(s->v, s->n, sizeof(*s->v), slower_first);
}

/* by_cpu's order: CPU, then start */
static const struct slow_wait *sort_base;

static int by_cpu_start(const void *a, const void *b)
{
	const struct slow_wait *x = &sort_base[*(const size_t *)a],
			       *y = &sort_base[*(const size_t *)b];

	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int build_index(struct slowest *s)
{
	s->by_cpu = malloc((s->n ? s->n : 1) * sizeof(*s->by_cpu));
	if (!s->by_cpu)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		s->by_cpu[i] = i;
		if (len_of(&s->v[i]) > s->longest)
			s->longest = len_of(&s->v[i]);
	}
	sort_base = s->v;
	qsort(s->by_cpu, s->n, sizeof(*s->by_cpu), by_cpu_start);
	return 0;
}

/* The first position in by_cpu of a wait on cpu starting at or after t. */
static size_t first_at(const struct slowest *s, int32_t cpu, uint64_t t)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct slow_wait *w = &s->v[s->by_cpu[mid]];

		if (w->cpu < cpu || (w->cpu == cpu && w->start_ns < t))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The part of [st, en) on cpu inside each wait there, handed to add. */
static void each_overlap(struct slowest *s, int32_t cpu, uint64_t st,
			 uint64_t en, void (*add)(struct slowest *s,
			 struct slow_wait *w, uint64_t ns, const void *x),
			 const void *x)
{
	uint64_t from = st > s->longest ? st - s->longest : 0;

	for (size_t i = first_at(s, cpu, from); i < s->n; i++) {
		struct slow_wait *w = &s->v[s->by_cpu[i]];
		uint64_t a, b;

		if (w->cpu != cpu || w->start_ns >= en)
			return;
		a = st > w->start_ns ? st : w->start_ns;
		b = en < w->end_ns ? en : w->end_ns;
		if (b > a)
			add(s, w, b - a, x);
	}
}

static void add_ran(struct slowest *s, struct slow_wait *w, uint64_t ns,
		    const void *x)
{
	const struct task_span *t = x;
	struct slow_holder *h;
	size_t i;

	for (i = w->nholders; i-- > 0;)
		if (w->holders[i].id.tid == t->id.tid &&
		    w->holders[i].id.start_ns == t->id.start_ns)
			break;
	if (i == (size_t)-1) {
		if (array_room(&w->holders, w->nholders, &w->holders_cap,
			       sizeof(*w->holders), 8)) {
			s->oom = true;
			return;
		}
		i = w->nholders++;
		h = &w->holders[i];
		memset(h, 0, sizeof(*h));
		h->id = t->id;
	}
	h = &w->holders[i];
	/* the name it had while it held the CPU (the latest such) */
	snprintf(h->comm, sizeof(h->comm), "%s", t->comm ? t->comm : "");
	h->ran_ns += ns;
}

static void add_idle(struct slowest *s, struct slow_wait *w, uint64_t ns,
		     const void *x)
{
	(void)s;
	(void)x;
	w->idle_ns += ns;
}

static void add_unknown(struct slowest *s, struct slow_wait *w, uint64_t ns,
			const void *x)
{
	(void)s;
	(void)x;
	w->unknown_ns += ns;
}

static void on_task_span(void *ctx, const struct task_span *t)
{
	if (t->kind == SPAN_RUNNING && t->id.tid > 0)
		each_overlap(ctx, t->cpu, t->start_ns, t->end_ns, add_ran, t);
}

/* A CPU's busy time is its tasks' (on_task_span); idle, unknown and lost here. */
static void on_cpu_span(void *ctx, const struct cpu_span *c)
{
	if (c->kind == CPUSPAN_IDLE)
		each_overlap(ctx, c->cpu, c->start_ns, c->end_ns, add_idle, c);
	else if (c->kind != CPUSPAN_BUSY)
		each_overlap(ctx, c->cpu, c->start_ns, c->end_ns, add_unknown, c);
}

static int most_first(const void *a, const void *b)
{
	const struct slow_holder *x = a, *y = b;

	if (x->ran_ns != y->ran_ns)
		return x->ran_ns < y->ran_ns ? 1 : -1;
	return (x->id.tid > y->id.tid) - (x->id.tid < y->id.tid);
}

struct task_key {
	const struct analysis *a;
	struct task_id id;
};

static bool same_task(void *ctx, uint64_t i)
{
	const struct task_key *k = ctx;

	return k->a->tasks[i].pid == k->id.tid &&
	       k->a->tasks[i].start_ns == k->id.start_ns;
}

static uint64_t task_hash(struct task_id id)
{
	return hash_u64((uint64_t)(uint32_t)id.tid ^ hash_u64(id.start_ns));
}

/* The report's runtime of task id (false: not one of its tasks). */
static bool runtime_of(const struct hashtab *h, const struct analysis *a,
		       struct task_id id, uint64_t *rt)
{
	struct task_key k = { a, id };
	uint64_t *i = id.tid > 0 ? hashtab_find(h, task_hash(id), same_task,
						 &k) : NULL;

	if (i)
		*rt = a->tasks[*i].runtime;
	return i != NULL;
}

/*
 * Each wait's holders most first, with their runtimes; the time no span
 * covered (before the first record, outside the window) is unknown; the
 * holder switched out at the end takes its time from them.
 */
static int settle(struct slowest *s, const struct analysis *a)
{
	struct hashtab h = HASHTAB_INIT;

	for (size_t k = 0; k < a->ntasks; k++)
		if (hashtab_add(&h, task_hash((struct task_id){ a->tasks[k].pid,
				0, a->tasks[k].start_ns }), k)) {
			hashtab_free(&h);
			return -ENOMEM;
		}
	for (size_t i = 0; i < s->n; i++) {
		struct slow_wait *w = &s->v[i];
		uint64_t acc = w->idle_ns + w->unknown_ns;

		qsort(w->holders, w->nholders, sizeof(*w->holders), most_first);
		w->holder_run_known = false;
		for (size_t k = 0; k < w->nholders; k++) {
			struct slow_holder *o = &w->holders[k];

			acc += o->ran_ns;
			o->runtime_known = runtime_of(&h, a, o->id, &o->runtime);
			if (o->id.tid == w->holder.tid &&
			    o->id.start_ns == w->holder.start_ns) {
				w->holder_run_ns = o->ran_ns;
				w->holder_run_known = true;
			}
		}
		if (acc < len_of(w))
			w->unknown_ns += len_of(w) - acc;
		w->holder_known = runtime_of(&h, a, w->holder,
					     &w->holder_runtime);
		w->holders_read = true;
	}
	hashtab_free(&h);
	return 0;
}

int slowest_holders(struct slowest *s, const char *path,
		    const struct capinfo *ci, const struct timewin *win,
		    const struct analysis *a)
{
	struct analysis_observer obs = { .ctx = s, .task_span = on_task_span,
					 .cpu_span = on_cpu_span };
	struct report_read_opts ro = { .ci = ci, .win = *win, .obs = &obs };
	char err[ERRMSG_LEN];
	struct analysis pass;
	struct capr *r;
	size_t n = 0;
	int c;

	if (!s->n)
		return 0;
	if (build_index(s)) {
		ab_error("out of memory finding who held the slowest waits' CPUs");
		return EXIT_RUNTIME;
	}
	r = capr_open(path, err, sizeof(err));
	if (!r) {
		ab_error("%s", err);
		return EXIT_RUNTIME;
	}
	c = report_read_records(&r, path, &pass, &n, &ro);
	if (c != -ENOMEM && c != -EIO && c != -E2BIG)
		analysis_finish(&pass);
	analysis_free(&pass);
	capr_close(r);
	if (c == -EIO || c == -E2BIG)
		return c == -E2BIG ? EXIT_USAGE : EXIT_RUNTIME;
	if (c == -ENOMEM || s->oom || settle(s, a)) {
		ab_error("out of memory finding who held the slowest waits' CPUs");
		return EXIT_RUNTIME;
	}
	return 0;
}

static double ms_of(uint64_t ns)
{
	return (double)ns / 1e6;
}

#define HOLDERS_SHOWN 5 /* text: the rest summed on one line */

/* One line of a wait's CPU time: who (or what), how long, its runtime. */
static void time_line(FILE *f, bool first, const char *who, uint64_t ns,
		      bool rt_known, uint64_t rt)
{
	if (!first)
		fprintf(f, "  %10s %12s %4s %-24s %-9s ", "", "", "", "", "");
	fprintf(f, "%-24s %10.3f ", who, ms_of(ns));
	if (rt_known)
		fprintf(f, "%12.3f\n", ms_of(rt));
	else
		fprintf(f, "%12s\n", "-");
}

/* Who ran on the wait's CPU during it, most first, then idle and unknown. */
static void holders_text(FILE *f, const struct slow_wait *w)
{
	uint64_t rest = 0;
	bool first = true;
	char who[64];

	for (size_t k = 0; k < w->nholders; k++) {
		const struct slow_holder *h = &w->holders[k];

		if (k >= HOLDERS_SHOWN) {
			rest += h->ran_ns;
			continue;
		}
		taskref_text(who, sizeof(who), h->comm, h->id.tid);
		time_line(f, first, who, h->ran_ns, h->runtime_known, h->runtime);
		first = false;
	}
	if (w->nholders > HOLDERS_SHOWN) {
		snprintf(who, sizeof(who), "(%zu more tasks)",
			 w->nholders - HOLDERS_SHOWN);
		time_line(f, first, who, rest, false, 0);
		first = false;
	}
	if (w->idle_ns || first) {
		time_line(f, first, "(idle)", w->idle_ns, false, 0);
		first = false;
	}
	if (w->unknown_ns)
		time_line(f, first, "(unknown)", w->unknown_ns, false, 0);
}

void slowest_text(FILE *f, const struct slowest *s, uint64_t t0)
{
	fprintf(f, "\nSlowest run-queue waits (%zu of %llu), each with the tasks "
		"that ran on its CPU meanwhile (most first; the rest, idle and "
		"unknown time after them: together the wait):\n", s->n,
		(unsigned long long)s->seen);
	if (!s->n) {
		fputs("  (none measured)\n", f);
		return;
	}
	fprintf(f, "  %10s %12s %4s %-24s %-9s %-24s %10s %12s\n", "WAIT(ms)",
		"AT(ms)", "CPU", "TASK", "AFTER", "RAN ON ITS CPU", "RAN(ms)",
		"RUNTIME(ms)");
	for (size_t i = 0; i < s->n; i++) {
		const struct slow_wait *w = &s->v[i];
		char task[64];

		taskref_text(task, sizeof(task), w->comm, w->id.tid);
		fprintf(f, "  %10.3f %12.3f %4d %-24s %-9s ", ms_of(len_of(w)),
			ms_of(w->start_ns >= t0 ? w->start_ns - t0 : 0), w->cpu,
			task, w->after_wakeup ? "wakeup" : "preempt");
		holders_text(f, w);
	}
}

static json_t *holders_json(const struct slow_wait *w)
{
	json_t *arr = json_array();

	for (size_t k = 0; arr && k < w->nholders; k++) {
		const struct slow_holder *h = &w->holders[k];
		json_t *o = taskref_json(&h->id, h->comm);

		json_object_set_new(o, "ran_ns", json_integer((json_int_t)
				    h->ran_ns));
		json_object_set_new(o, "runtime_ns", h->runtime_known ?
				    json_integer((json_int_t)h->runtime) :
				    json_null());
		json_array_append_new(arr, o);
	}
	return arr;
}

json_t *slowest_json(const struct slowest *s, uint64_t t0)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < s->n; i++) {
		const struct slow_wait *w = &s->v[i];
		json_t *o = json_object();

		json_object_set_new(o, "wait_ns", json_integer((json_int_t)len_of(w)));
		json_object_set_new(o, "start_ns",
				    json_integer((json_int_t)w->start_ns));
		json_object_set_new(o, "at_ns", json_integer((json_int_t)
				    (w->start_ns >= t0 ? w->start_ns - t0 : 0)));
		json_object_set_new(o, "cpu", json_integer(w->cpu));
		json_object_set_new(o, "after", json_string(w->after_wakeup ?
					"wakeup" : "preempt"));
		json_object_set_new(o, "task", taskref_json(&w->id, w->comm));
		json_object_set_new(o, "holders", holders_json(w));
		json_object_set_new(o, "idle_ns", json_integer((json_int_t)
				    w->idle_ns));
		json_object_set_new(o, "unknown_ns", json_integer((json_int_t)
				    w->unknown_ns));
		/* the task switched out when the waiter switched in */
		json_object_set_new(o, "holder", taskref_json(&w->holder,
				    w->holder_comm));
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
	for (size_t i = 0; s->v && i < s->n; i++)
		free(s->v[i].holders);
	free(s->v);
	free(s->by_cpu);
	s->v = NULL;
	s->by_cpu = NULL;
}
