// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The report as text tables: histogram, per task (or group), CPUs, chains. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capwarn.h"
#include "report/report_text.h"
#include "lib/escape.h"

static double us(uint64_t ns)
{
	return ns / 1e3;
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

#define ESC_COMM(c) text_escaped((c), ABICAP_COMM_LEN)
#define ESC(s) text_escaped((s), ESCAPE_MAX)

/* log2 histogram of microseconds, like runqlat's (exact counts) */
static void histogram(FILE *f, const uint64_t buckets[40])
{
	uint64_t max = 0;
	int top = 0;

	for (int b = 0; b < 40; b++)
		if (buckets[b])
			top = b;
	for (int b = 0; b <= top; b++)
		if (buckets[b] > max)
			max = buckets[b];
	fprintf(f, "     %-19s : %-10s distribution\n", "usecs", "count");
	for (int b = 0; b <= top; b++) {
		unsigned long long lo = b ? 1ull << (b - 1) : 0, hi = (1ull << b) - 1;
		int stars = max ? (int)(buckets[b] * 40 / max) : 0;

		fprintf(f, "     %8llu -> %-8llu : %-10llu |%-40.*s|\n", lo, hi,
			(unsigned long long)buckets[b], stars,
			"****************************************");
	}
}

static int by_rq_total(const void *a, const void *b)
{
	uint64_t x = task_res(a)->rq.total, y = task_res(b)->rq.total;

	return x < y ? 1 : x > y ? -1 : 0;
}

static int by_off_total(const void *a, const void *b)
{
	const struct task *x = a, *y = b;

	return x->off_total < y->off_total ? 1 : x->off_total > y->off_total ? -1 : 0;
}

static int by_count(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;

	return x->count < y->count ? 1 : x->count > y->count ? -1 : 0;
}

static int by_max(const void *a, const void *b)
{
	const struct chain *x = a, *y = b;

	return x->max_lat < y->max_lat ? 1 : x->max_lat > y->max_lat ? -1 : 0;
}

/* qsort, but not on an empty (maybe NULL) array: undefined behaviour */
static void sort_some(void *base, size_t n, size_t size,
		      int (*cmp)(const void *, const void *))
{
	if (n)
		qsort(base, n, size, cmp);
}

static int groups_by_rq_total(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return (y->rq.total > x->rq.total) - (y->rq.total < x->rq.total);
}

static int groups_by_off_total(const void *a, const void *b)
{
	const struct group *x = a, *y = b;

	return (y->off_total > x->off_total) - (y->off_total < x->off_total);
}

static int gchains_by_count(const void *a, const void *b)
{
	const struct group_chain *x = a, *y = b;

	return (y->count > x->count) - (y->count < x->count);
}

static int thr_by_time(const void *a, const void *b)
{
	const struct captrailer_cgroup *x = *(const struct captrailer_cgroup *const *)a,
				       *y = *(const struct captrailer_cgroup *const *)b;

	return (y->throttled_ns > x->throttled_ns) -
	       (y->throttled_ns < x->throttled_ns);
}

/*
 * The cgroups the kernel throttled for their CPU quota over the capture
 * (cpu.stat, read by record at its start and end), most first: run-queue
 * waits of their tasks that are the quota, not a CPU shortage.
 */
static void text_throttling(FILE *f, const struct captrailer *t, int top)
{
	const struct captrailer_cgroup **v;
	size_t n = 0;

	if (!t || !t->throttle_given)
		return;
	v = calloc(t->ncg + 1, sizeof(*v));
	for (size_t i = 0; v && i < t->ncg; i++)
		if (t->cg[i].known && t->cg[i].nr_throttled)
			v[n++] = &t->cg[i];
	if (!v)
		return;
	sort_some(v, n, sizeof(*v), thr_by_time);
	fprintf(f, "CPU quota throttling (the kernel's cpu.stat over the "
		"capture): %zu cgroup%s throttled\n", n, n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < (size_t)top; i++)
		fprintf(f, "  %-40s %11.3f ms throttled, %llu of %llu periods\n",
			ESC(v[i]->path ? v[i]->path : "?"), ms(v[i]->throttled_ns),
			(unsigned long long)v[i]->nr_throttled,
			(unsigned long long)v[i]->nr_periods);
	free(v);
}

/* The per-task tables of the text report, per group instead. */
static void text_groups(FILE *f, struct grouping *g, const char *key, int top,
			bool thr)
{
	sort_some(g->g, g->n, sizeof(*g->g), groups_by_rq_total);
	fprintf(f, "\nPer %s, by total run-queue latency (top %d):\n", key, top);
	fprintf(f, "  %-40s %6s %9s %11s %9s %9s %9s | %9s %11s%s\n", "GROUP",
		"TASKS", "SAMPLES", "TOTAL(ms)", "AVG(us)", "P99(us)", "MAX(us)",
		"WAKEUPS", "DELAY(ms)", thr ? " | THROTTLED(ms)  PERIODS" : "");
	if (thr)
		fprintf(f, "  (THROTTLED: the kernel's own cpu.stat over the "
			"capture, time the cgroup's CPU quota held it off the "
			"CPU -- not contention; PERIODS: throttled/elapsed)\n");
	for (size_t i = 0; i < g->n && i < (size_t)top; i++) {
		struct group *r = &g->g[i];
		char t[64] = "";

		if (!r->ntasks) /* named by a wakeup chain only */
			continue;
		if (thr && r->thr && r->thr->known)
			snprintf(t, sizeof(t), " | %14.3f  %llu/%llu",
				 ms(r->thr->throttled_ns),
				 (unsigned long long)r->thr->nr_throttled,
				 (unsigned long long)r->thr->nr_periods);
		else if (thr)
			snprintf(t, sizeof(t), " | %14s", "-");
		fprintf(f, "  %-40s %6zu %9zu %11.3f %9.1f %9.1f %9.1f | %9zu %11.3f%s\n",
			ESC(r->name), r->ntasks, r->rq.n, ms(r->rq.total),
			r->rq.n ? us(r->rq.total / r->rq.n) : 0,
			us(lat_percentile(&r->rq, 99)), us(r->rq.max), r->wake.n,
			ms(r->wake.total), t);
	}
	sort_some(g->g, g->n, sizeof(*g->g), groups_by_off_total);
	fprintf(f, "\nOff-CPU time per %s, by the state left in (top %d):\n", key,
		top);
	fprintf(f, "  %-40s %11s %10s %10s %10s %10s %8s %8s\n", "GROUP",
		"OFF(ms)", "S(ms)", "D(ms)", "R(ms)", "R+(ms)", "VOL", "INVOL");
	for (size_t i = 0; i < g->n && i < (size_t)top; i++) {
		struct group *r = &g->g[i];

		if (!r->ntasks) /* named by a wakeup chain only */
			continue;
		fprintf(f, "  %-40s %11.3f %10.3f %10.3f %10.3f %10.3f %8llu %8llu\n",
			ESC(r->name), ms(r->off_total), ms(r->off_by_state[1]),
			ms(r->off_by_state[2]), ms(r->off_by_state[0]),
			ms(r->off_by_state[9]), (unsigned long long)r->voluntary,
			(unsigned long long)r->involuntary);
	}
	sort_some(g->ch, g->nch, sizeof(*g->ch), gchains_by_count);
	fprintf(f, "\nWakeup chains by %s, most frequent (top %d):\n", key, top);
	for (size_t i = 0; i < g->nch && i < (size_t)top; i++)
		fprintf(f, "  %s -> %s  %llu wakeups, avg %.1f us, max %.1f us\n",
			ESC(g->ch[i].waker), ESC(g->ch[i].wakee),
			(unsigned long long)g->ch[i].count,
			g->ch[i].measured ?
			us(g->ch[i].total_lat / g->ch[i].measured) : 0,
			us(g->ch[i].max_lat));
}

/* The recording abicap's own tasks are in its capture: say which they are. */
static void recorder_note(FILE *f, const struct analysis *a)
{
	for (size_t i = 0; a->recorder_tgid && i < a->ntasks; i++)
		if (a->tasks[i].tgid == a->recorder_tgid) {
			fprintf(f, "  (process %d is the recorder, abicap itself: "
				"its tasks drained and wrote this capture; JSON: "
				"recorder true)\n", a->recorder_tgid);
			return;
		}
}

static void text_tasks(FILE *f, struct analysis *a, int top,
		       struct cgnames *names);
static void text_cpus_chains(FILE *f, struct analysis *a,
			     const struct capinfo *ci, int top, bool chains);

/*
 * The capture's events and filter, as the metadata says, and the report's
 * own filter (--pid, --comm), in one line each, each labelled.
 */
static void text_filter(FILE *f, const struct capmeta *m,
			const struct analysis *a)
{
	json_t *flt = capmeta_filter_json(m), *evs = capmeta_events_json(m);
	char *s;

	if (json_is_array(evs) && (s = json_dumps(evs, JSON_COMPACT))) {
		fprintf(f, "events captured: %s\n", s);
		free(s);
	}
	if (json_is_object(flt) && (s = json_dumps(flt, JSON_COMPACT |
						     JSON_PRESERVE_ORDER))) {
		fprintf(f, "recording's filter: %s\n", s);
		free(s);
	}
	fprintf(f, "report's filter:");
	if (a->filter_tgid)
		fprintf(f, " --pid %d", (int)a->filter_tgid);
	if (a->filter_comm[0])
		fprintf(f, " --comm %s", ESC_COMM(a->filter_comm));
	fprintf(f, "%s\n", a->filter_tgid || a->filter_comm[0] ? "" : " none");
	json_decref(flt);
	json_decref(evs);
}

void report_text(FILE *f, struct analysis *a, const char *path, bool cut,
		 int top, struct grouping *g, const char *key,
		 struct cgnames *names, const struct capinfo *ci)
{
	const char *order = ci->meta->byte_order;
	char from[ESCAPE_MAX * 2 + 40] = "";
	struct lat *l = &a->rq;

	/* a capture from a machine of the other byte order says where from */
	if (order && strcmp(order, HOST_BYTE_ORDER))
		snprintf(from, sizeof(from), " (recorded on %s, %s)",
			 ESC(ci->meta->machine ?: "unknown"), ESC(order));
	fprintf(f, "abicap report %s: kernel %s%s, %.3f s, %llu records%s\n",
		ESC(path), ESC(ci->meta->kernel ?: "unknown"), from,
		(a->last_ts - a->first_ts) / 1e9, (unsigned long long)a->records,
		cut ? "; CUT SHORT: no trailer, read up to the last complete chunk" :
		"");
	text_filter(f, ci->meta, a);
	if (ci->dropped_exact)
		fprintf(f, "dropped while recording: %llu\n",
			(unsigned long long)ci->dropped);
	else
		fprintf(f, "dropped while recording: at least %llu (%s)\n",
			(unsigned long long)ci->dropped, ci->dropped_why);
	if (ci->misses_known)
		fprintf(f, "missed while recording (program runs the kernel "
			"skipped): %llu\n", (unsigned long long)ci->misses);
	if (ci->damaged)
		fprintf(f, "DAMAGED FILE: %llu parts damaged, %llu duplicated "
			"(skipped), %llu out of order, %llu missing; trailer %s; "
			"figures are from the %llu records that read intact\n",
			(unsigned long long)ci->ig->damaged,
			(unsigned long long)ci->ig->duplicated,
			(unsigned long long)ci->ig->reordered,
			(unsigned long long)ci->ig->missing,
			capwarn_trailer_name(ci->ig->trailer),
			(unsigned long long)ci->ig->records_read);
	else if (!ci->ig->verified)
		fprintf(f, "integrity: not checked (capture format %u has no "
			"sequence numbers or trailer checksum)\n", ci->version);
	if (ci->ndrops)
		fprintf(f, "lost: %llu records in %zu window%s\n",
			(unsigned long long)ci->dropped_in_windows, a->ndrops,
			a->ndrops == 1 ? "" : "s");
	/* not only drops: a task the kernel hides, a record out of order */
	if (a->waits_dropped || a->off_dropped)
		fprintf(f, "left out, as part of them was not seen (records "
			"lost, a task the kernel hides from tracing, records out "
			"of order): at least %llu waits, %llu off-CPU intervals "
			"(docs/analysis.md)\n",
			(unsigned long long)a->waits_dropped,
			(unsigned long long)a->off_dropped);
	if (a->bad_cpu)
		fprintf(f, "WARNING: %llu record%s name a CPU past the capture's "
			"%d and %s left out: figures of the tasks and CPUs they "
			"name are not trustworthy\n",
			(unsigned long long)a->bad_cpu, a->bad_cpu == 1 ? "" : "s",
			a->ncpus, a->bad_cpu == 1 ? "was" : "were");
	if (a->order_errors || a->negative)
		fprintf(f, "ERROR: %llu records out of time order were left out "
			"(the tasks and CPUs they name are unknown until seen "
			"again) and %llu intervals ending before they start: "
			"figures are not trustworthy\n",
			(unsigned long long)a->order_errors,
			(unsigned long long)a->negative);
	if (ci->drops_unplaced)
		fprintf(f, "WARNING: records were lost outside any drop window: "
			"waits spanning them may be too long\n");
	if (ci->untrusted)
		fprintf(f, "WARNING: filtered capture without filter flags (an "
			"older abicap): latency and off-CPU figures not "
			"trustworthy\n");
	if (ci->cpus_partial)
		fprintf(f, "WARNING: some CPUs only (-C): a task's runs on the "
			"other CPUs are not seen, latency and off-CPU figures "
			"of tasks that ran there are not trustworthy\n");
	fprintf(f, "\nRun-queue latency (wakeup or preemption -> running): %zu samples\n",
		l->n);
	if (l->n) {
		histogram(f, a->rq_log2us);
		fprintf(f, "  p50 %.1f us  p90 %.1f us  p99 %.1f us  p99.9 %.1f us  "
			"max %.1f us\n", us(lat_percentile(l, 50)),
			us(lat_percentile(l, 90)), us(lat_percentile(l, 99)),
			us(lat_percentile(l, 99.9)), us(l->max));
	}
	text_throttling(f, ci->trailer, top);
	if (g)
		text_groups(f, g, key, top, ci->trailer &&
			    ci->trailer->throttle_given && !strcmp(key, "cgroup"));
	else
		text_tasks(f, a, top, names);
	if (names && cgnames_unknown_shown(names))
		fprintf(f, "  (%s)\n", CGNAMES_UNKNOWN_NOTE);
	text_cpus_chains(f, a, ci, top, !g);
}

/* The task's cgroup for a table: container label, else full path, else "-". */
static const char *task_cgroup(struct cgnames *names, const struct task *t)
{
	return names && t->cgroup ? ESC(cgnames_label(names, t->cgroup)) : "-";
}

static void text_tasks(FILE *f, struct analysis *a, int top,
		       struct cgnames *names)
{
	size_t hidden = 0;

	sort_some(a->tasks, a->ntasks, sizeof(*a->tasks), by_rq_total);
	fprintf(f, "\nPer task, by total run-queue latency (top %d):\n", top);
	fprintf(f, "  %-8s %-16s %9s %11s %9s %9s %9s | %9s %11s %9s  %s\n", "TID",
		"COMM", "SAMPLES", "TOTAL(ms)", "AVG(us)", "P99(us)", "MAX(us)",
		"WAKEUPS", "DELAY(ms)", "MAX(us)", "CGROUP");
	for (size_t i = 0, shown = 0; i < a->ntasks && shown < (size_t)top; i++) {
		struct task *t = &a->tasks[i];
		const struct task_res *r = task_res(t);

		if (!r->rq.n)
			continue;
		fprintf(f, "  %-8d %-16s %9zu %11.3f %9.1f %9.1f %9.1f | %9zu %11.3f "
			"%9.1f  %s\n", t->pid, ESC_COMM(task_comm(t)), r->rq.n,
			ms(r->rq.total),
			us(r->rq.total / r->rq.n), us(lat_percentile(&r->rq, 99)),
			us(r->rq.max), r->wake.n, ms(r->wake.total), us(r->wake.max),
			task_cgroup(names, t));
		shown++;
	}
	fprintf(f, "  (right: only the waits that began with a wakeup, %s)\n",
		a->from_waking ? "from sched_waking (when the waker chose to "
		"wake it, as perf sched counts its delay)" : "from sched_wakeup "
		"(when queued, as runqlat counts; --from-waking: from "
		"sched_waking, as perf sched counts its delay)");
	sort_some(a->tasks, a->ntasks, sizeof(*a->tasks), by_off_total);
	fprintf(f, "\nOff-CPU time per task, by the state it left in (top %d):\n",
		top);
	fprintf(f, "  %-8s %-16s %11s %10s %10s %10s %10s %10s %8s %8s %11s\n",
		"TID", "COMM", "OFF(ms)", "S(ms)", "D(ms)", "R(ms)", "R+(ms)",
		"OTHER(ms)", "VOL", "INVOL", "RUN(ms)");
	for (size_t i = 0, shown = 0; i < a->ntasks && shown < (size_t)top; i++) {
		struct task *t = &a->tasks[i];

		if (!analysis_wanted(a, t) ||
		    (!t->off_total && !t->runtime && !t->hidden))
			continue;
		hidden += t->hidden != 0;
		fprintf(f, "  %-8d %-16s %11.3f %10.3f %10.3f %10.3f %10.3f %10.3f "
			"%8llu %8llu %10.3f%s\n", t->pid, ESC_COMM(task_comm(t)),
			ms(t->off_total),
			ms(task_res(t)->off_by_state[1]),
			ms(task_res(t)->off_by_state[2]),
			ms(task_res(t)->off_by_state[0]),
			ms(task_res(t)->off_by_state[9]),
			ms(t->off_total - task_res(t)->off_by_state[0] -
			   task_res(t)->off_by_state[1] -
			   task_res(t)->off_by_state[2] -
			   task_res(t)->off_by_state[9]),
			(unsigned long long)t->voluntary,
			(unsigned long long)t->involuntary, ms(t->runtime),
			t->hidden ? "+" : " ");
		shown++;
	}
	if (hidden)
		fprintf(f, "  (+: at least: the kernel hid some of that task's "
			"switches, and its state after each was not known until "
			"seen again; JSON: runtime_complete false, hidden_switches, "
			"unknown_ns)\n");
	recorder_note(f, a);
}

static void text_cpus_chains(FILE *f, struct analysis *a,
			     const struct capinfo *ci, int top, bool chains)
{
	fprintf(f, "\nCPUs:\n");
	if (ci->task_filtered)
		fprintf(f, "  not shown: %s\n", CPUS_NOT_KNOWN);
	else
		fprintf(f, "  %-4s %11s %11s %11s %11s %6s  %s\n", "CPU",
			"BUSY(ms)", "IDLE(ms)", "LOST(ms)", "UNKNOWN(ms)", "GAPS",
			"IDLE-STATE AND FREQUENCY RESIDENCY");
	for (int c = 0; c < a->ncpus && !ci->task_filtered; c++) {
		struct cpu_stat *s = &a->cpus[c];

		if (!capinfo_cpu_captured(ci, c))
			continue;
		fprintf(f, "  %-4d %11.3f %11.3f %11.3f %11.3f %6llu ", c,
			ms(s->busy), ms(s->idle_time), ms(s->lost_time),
			ms(s->unknown_time), (unsigned long long)s->hidden_gaps);
		for (int k = 0; k < MAX_IDLE_STATES; k++)
			if (s->residency[k])
				fprintf(f, " state%d %.3f ms", k, ms(s->residency[k]));
		for (int k = 0; k < s->nfreqs; k++)
			fprintf(f, " %u kHz %.3f ms", s->freqs[k], ms(s->freq_time[k]));
		fputc('\n', f);
	}
	if (!chains)
		return;
	sort_some(a->chains, a->nchains, sizeof(*a->chains), by_count);
	fprintf(f, "\nWakeup chains, most frequent (top %d):\n", top);
	fprintf(f, "  %-24s    %-24s %9s %10s %10s\n", "WAKER", "WAKEE", "COUNT",
		"AVG(us)", "MAX(us)");
	for (size_t i = 0; i < a->nchains && i < (size_t)top; i++) {
		struct chain *c = &a->chains[i];
		char w[4 * ABICAP_COMM_LEN + 16], e[4 * ABICAP_COMM_LEN + 16];

		snprintf(w, sizeof(w), "%s:%d", ESC_COMM(c->waker_comm), c->waker);
		snprintf(e, sizeof(e), "%s:%d", ESC_COMM(c->wakee_comm), c->wakee);
		if (!c->measured) /* none of its waits was seen to the end */
			fprintf(f, "  %-24s -> %-24s %9llu %10s %10s\n", w, e,
				(unsigned long long)c->count, "-", "-");
		else
			fprintf(f, "  %-24s -> %-24s %9llu %10.1f %10.1f\n", w, e,
				(unsigned long long)c->count,
				us(c->total_lat / c->measured), us(c->max_lat));
	}
	sort_some(a->chains, a->nchains, sizeof(*a->chains), by_max);
	fprintf(f, "\nWakeup chains, slowest (top %d):\n", top);
	for (size_t i = 0; i < a->nchains && i < (size_t)top; i++) {
		struct chain *c = &a->chains[i];

		fprintf(f, "  %s:%d -> %s:%d  max %.1f us over %llu wakeups\n",
			ESC_COMM(c->waker_comm), c->waker,
			ESC_COMM(c->wakee_comm), c->wakee, us(c->max_lat),
			(unsigned long long)c->count);
	}
}
