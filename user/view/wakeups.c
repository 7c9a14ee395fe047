// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Idle exits per CPU, attributed to the task woken and its waker. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/leaders.h"
#include "lib/array.h"
#include "report/taskref.h"
#include "view/wakeups.h"

int wk_init(struct wakeups *w, int ncpus, uint64_t from, uint64_t to)
{
	memset(w, 0, sizeof(*w));
	w->from = from;
	w->to = to;
	w->cpus = calloc((size_t)ncpus, sizeof(*w->cpus));
	w->ncpus = ncpus;
	return w->cpus ? 0 : -ENOMEM;
}

static bool same(const struct wk_cause *a, const struct wk_cause *b)
{
	return a->cpu == b->cpu && a->in_irq == b->in_irq && a->none == b->none &&
	       a->lost == b->lost &&
	       a->wakee.tid == b->wakee.tid &&
	       a->wakee.start_ns == b->wakee.start_ns &&
	       a->waker.tid == b->waker.tid &&
	       a->waker.start_ns == b->waker.start_ns;
}

static uint64_t hash_of(const struct wk_cause *c)
{
	uint64_t h = hash_u64((uint64_t)(uint32_t)c->cpu << 2 |
			      (uint64_t)c->in_irq << 1 | c->none) ^ c->lost;

	h = hash_u64(h ^ ((uint64_t)(uint32_t)c->wakee.tid << 32 |
			  (uint32_t)c->waker.tid));
	h = hash_u64(h ^ c->wakee.start_ns);
	return hash_u64(h ^ c->waker.start_ns);
}

struct cause_key {
	const struct wakeups *w;
	const struct wk_cause *c;
};

static bool same_cause(void *ctx, uint64_t i)
{
	const struct cause_key *k = ctx;

	return same(&k->w->causes[i], k->c);
}

/* Whether records were lost in (from, to]: the wakeup sought may be among them. */
static bool lost_in(const struct wakeups *w, uint64_t from, uint64_t to)
{
	for (size_t i = 0; i < w->ndrops; i++)
		if (w->drops[i].start_ns < to && w->drops[i].end_ns > from)
			return true;
	return false;
}

/* exits more of cause k: merged into its row, or a new one. */
static void add_cause(struct wakeups *w, const struct wk_cause *k,
		      uint64_t exits)
{
	struct cause_key key = { w, k };
	uint64_t h = hash_of(k), *i;

	i = hashtab_find(&w->index, h, same_cause, &key);
	if (i) {
		w->causes[*i].exits += exits;
		return;
	}
	if (array_room(&w->causes, w->ncauses, &w->cap, sizeof(*w->causes),
		       64) || hashtab_add(&w->index, h, w->ncauses)) {
		w->oom = true;
		return;
	}
	w->causes[w->ncauses] = *k;
	w->causes[w->ncauses++].exits = exits;
}

/*
 * One exit of c's CPU with its cause (or none) counted; end: when the
 * search for its wakeup ended (the next idle entry, or the capture's end).
 */
static void count_exit(struct wakeups *w, struct wk_cpu *c, int cpu,
		       uint64_t end)
{
	struct wk_cause k = c->has_cause ? c->cause : (struct wk_cause){ 0 };

	k.cpu = cpu;
	k.none = !c->has_cause;
	k.lost = k.none && lost_in(w, c->entry_ts, end);
	c->pending = c->has_cause = false;
	add_cause(w, &k, 1);
}

void wk_idle(void *ctx, const struct idle_ev *e)
{
	struct wakeups *w = ctx;
	uint64_t ts = e->ts;
	int cpu = e->cpu;
	struct wk_cpu *c;

	if (cpu < 0 || cpu >= w->ncpus)
		return; /* a capture of more CPUs than the analysis was given */
	c = &w->cpus[cpu];
	if (e->state >= 0) { /* entry */
		if (c->pending)
			count_exit(w, c, cpu, ts);
		c->in_idle = true;
		c->entry_ts = ts;
		c->has_cause = false;
		if (ts >= w->from && ts <= w->to) {
			if (e->state < WK_STATES)
				c->entries[e->state]++;
			else
				c->entries_deeper++;
		}
		return;
	}
	if (!c->in_idle)
		return; /* an exit without its entry: before the capture */
	c->in_idle = false;
	if (ts < w->from || ts > w->to) {
		c->has_cause = false;
		return;
	}
	c->exits++;
	c->pending = true;
}

void wk_wakeup(void *ctx, const struct wake_ev *e)
{
	struct wakeups *w = ctx;
	struct wk_cpu *c;

	if (e->target_cpu < 0 || e->target_cpu >= w->ncpus)
		return;
	c = &w->cpus[e->target_cpu];
	if (!(c->in_idle || c->pending) || c->has_cause)
		return;
	c->has_cause = true;
	c->cause = (struct wk_cause){ .in_irq = e->in_irq, .wakee = e->wakee,
		.waker = e->waker };
	snprintf(c->cause.wakee_comm, ABICAP_COMM_LEN, "%s", e->wakee_comm ?
		 e->wakee_comm : "");
	snprintf(c->cause.waker_comm, ABICAP_COMM_LEN, "%s", e->waker_comm ?
		 e->waker_comm : "");
	if (c->pending)
		count_exit(w, c, e->target_cpu, e->ts);
}

static int by_exits(const void *a, const void *b)
{
	const struct wk_cause *x = a, *y = b;

	if (x->exits != y->exits)
		return x->exits < y->exits ? 1 : -1;
	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

void wk_finish(struct wakeups *w)
{
	for (int i = 0; i < w->ncpus; i++)
		if (w->cpus[i].pending)
			count_exit(w, &w->cpus[i], i, UINT64_MAX);
	if (w->ncauses) /* qsort takes no NULL, even for none */
		qsort(w->causes, w->ncauses, sizeof(*w->causes), by_exits);
	hashtab_free(&w->index); /* the positions moved */
}

/* A task's identity as its process's: the tgid, named by its leader. */
static void to_process(const struct leaders *l, struct task_id *id,
		       char comm[ABICAP_COMM_LEN])
{
	const struct task *t;

	if (id->tid < 0 || id->tgid <= 0)
		return;
	t = leaders_of(l, id->tgid);
	id->tid = id->tgid;
	id->start_ns = 0;
	if (t)
		snprintf(comm, ABICAP_COMM_LEN, "%s", task_comm(t));
}

int wk_by_process(struct wakeups *w, const struct analysis *a)
{
	struct wk_cause *old = w->causes;
	size_t n = w->ncauses;
	struct leaders l;

	if (leaders_find(&l, a)) {
		leaders_free(&l);
		return -ENOMEM;
	}
	w->causes = NULL;
	w->ncauses = w->cap = 0;
	hashtab_free(&w->index);
	for (size_t i = 0; i < n; i++) {
		struct wk_cause k = old[i];

		if (!k.none) {
			to_process(&l, &k.wakee, k.wakee_comm);
			if (!k.in_irq)
				to_process(&l, &k.waker, k.waker_comm);
		}
		add_cause(w, &k, old[i].exits);
	}
	free(old);
	leaders_free(&l);
	w->by_process = true;
	wk_finish(w);
	return w->oom ? -ENOMEM : 0;
}

static double secs(const struct wakeups *w)
{
	return w->to > w->from ? (double)(w->to - w->from) / 1e9 : 1e-9;
}

/* A task's name:tid, and "(recorder)" where it is the recording abicap's. */
static const char *task_text(char *buf, size_t len, const char *comm,
			     const struct task_id *id, int32_t recorder)
{
	size_t n;

	taskref_text(buf, len, comm, id->tid);
	n = strlen(buf);
	if (recorder && id->tgid == recorder && n < len)
		snprintf(buf + n, len - n, " (recorder)");
	return buf;
}

static const char *waker_of(char *buf, size_t len, const struct wk_cause *c,
			    int32_t recorder)
{
	if (c->in_irq)
		return "(interrupt)";
	if (c->waker.tid < 0)
		return "(unknown)";
	return task_text(buf, len, c->waker_comm, &c->waker, recorder);
}

void wk_text(FILE *f, const struct wakeups *w, const struct analysis *a,
	     size_t top)
{
	double s = secs(w);

	fprintf(f, "Idle exits (PowerTOP's wakeups) in %.3f s, per CPU, with "
		"its idle-state residency:\n", s);
	fprintf(f, "  %4s %9s %9s  %s\n", "CPU", "EXITS", "EXITS/s",
		"ENTRIES BY STATE (sysfs cpuidle usage) and RESIDENCY");
	for (int i = 0; i < w->ncpus; i++) {
		const struct wk_cpu *c = &w->cpus[i];

		fprintf(f, "  %4d %9llu %9.1f ", i, (unsigned long long)c->exits,
			(double)c->exits / s);
		for (int k = 0; k < WK_STATES; k++)
			if (c->entries[k] || (i < a->ncpus &&
					      a->cpus[i].residency[k]))
				fprintf(f, " state%d %llu, %.3f ms;", k,
					(unsigned long long)c->entries[k],
					i < a->ncpus ? (double)a->cpus[i].residency[k] / 1e6 : 0);
		if (c->entries_deeper)
			fprintf(f, " deeper than state%d %llu;", WK_STATES - 1,
				(unsigned long long)c->entries_deeper);
		if (i < a->ncpus)
			for (int k = 0; k < a->cpus[i].nfreqs; k++)
				fprintf(f, " %u MHz %.3f ms;",
					a->cpus[i].freqs[k] / 1000,
					(double)a->cpus[i].freq_time[k] / 1e6);
		fputc('\n', f);
	}
	fprintf(f, "\nWhat each exit let run (the first task woken onto the CPU "
		"from its idle entry to the next) and its waker (%zu of %zu):\n",
		w->ncauses < top ? w->ncauses : top, w->ncauses);
	fprintf(f, "  %9s %9s %4s  %-28s %s\n", "EXITS/s", "EXITS", "CPU",
		w->by_process ? "WOKEN PROCESS" : "WOKEN",
		w->by_process ? "WOKEN BY PROCESS" : "WOKEN BY");
	for (size_t i = 0; i < w->ncauses && i < top; i++) {
		const struct wk_cause *c = &w->causes[i];
		char b1[80], b2[80];

		fprintf(f, "  %9.1f %9llu %4d  %-28s %s\n", (double)c->exits / s,
			(unsigned long long)c->exits, c->cpu,
			c->lost ? "(unknown: records lost)" :
			c->none ? "(none: interrupt or timer in idle)" :
			task_text(b1, sizeof(b1), c->wakee_comm, &c->wakee,
				  a->recorder_tgid),
			c->none ? "" : waker_of(b2, sizeof(b2), c,
						a->recorder_tgid));
	}
}

json_t *wk_json(const struct wakeups *w, const struct analysis *a)
{
	json_t *o = json_object(), *cpus = json_array(), *causes = json_array();
	double s = secs(w);

	json_object_set_new(o, "window_ns", json_integer((json_int_t)(w->to - w->from)));
	/* by process: each task's tid is its process's id (tgid) */
	json_object_set_new(o, "by", json_string(w->by_process ? "process" : "task"));
	for (int i = 0; i < w->ncpus; i++) {
		const struct wk_cpu *c = &w->cpus[i];
		json_t *jc = json_object(), *ent = json_object(), *res = json_object();
		char k[16];

		json_object_set_new(jc, "cpu", json_integer(i));
		json_object_set_new(jc, "idle_exits", json_integer((json_int_t)c->exits));
		json_object_set_new(jc, "idle_exits_per_s", json_real((double)c->exits / s));
		for (int st = 0; st < WK_STATES; st++) {
			snprintf(k, sizeof(k), "%d", st);
			if (c->entries[st])
				json_object_set_new(ent, k, json_integer((json_int_t)c->entries[st]));
			if (i < a->ncpus && a->cpus[i].residency[st])
				json_object_set_new(res, k, json_integer((json_int_t)
						    a->cpus[i].residency[st]));
		}
		json_object_set_new(jc, "idle_entries_by_state", ent);
		json_object_set_new(jc, "idle_entries_deeper",
				    json_integer((json_int_t)c->entries_deeper));
		json_object_set_new(jc, "idle_state_residency_ns", res);
		json_array_append_new(cpus, jc);
	}
	for (size_t i = 0; i < w->ncauses; i++) {
		const struct wk_cause *c = &w->causes[i];
		json_t *jc = json_object();

		json_object_set_new(jc, "cpu", json_integer(c->cpu));
		json_object_set_new(jc, "idle_exits", json_integer((json_int_t)c->exits));
		json_object_set_new(jc, "per_s", json_real((double)c->exits / s));
		json_object_set_new(jc, "woken", c->none ? json_null() :
				    taskref_json(&c->wakee, c->wakee_comm));
		json_object_set_new(jc, "waker", c->none || c->in_irq ||
				    c->waker.tid < 0 ? json_null() :
				    taskref_json(&c->waker, c->waker_comm));
		json_object_set_new(jc, "waker_interrupt", json_boolean(c->in_irq));
		/* no wakeup seen, but one may have been among records lost */
		json_object_set_new(jc, "records_lost", json_boolean(c->lost));
		/* the recording abicap's own tasks (issue 33) */
		json_object_set_new(jc, "woken_is_recorder", json_boolean(
			!c->none && a->recorder_tgid &&
			c->wakee.tgid == a->recorder_tgid));
		json_object_set_new(jc, "waker_is_recorder", json_boolean(
			!c->none && !c->in_irq && a->recorder_tgid &&
			c->waker.tgid == a->recorder_tgid));
		json_array_append_new(causes, jc);
	}
	json_object_set_new(o, "cpus", cpus);
	json_object_set_new(o, "causes", causes);
	return o;
}

void wk_free(struct wakeups *w)
{
	free(w->cpus);
	free(w->causes);
	hashtab_free(&w->index);
	memset(w, 0, sizeof(*w));
}
