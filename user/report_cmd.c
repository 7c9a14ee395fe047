// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap report FILE: what a capture says about scheduling latency. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis.h"
#include "capfile.h"
#include "cgnames.h"
#include "commands.h"
#include "report_group.h"
#include "util.h"

const char report_usage[] =
"Usage: abicap report FILE [--format text|json] [--pid PID] [--comm COMM] [--top N]\n"
"                         [--by task|cgroup|container]\n"
"Read a capture file (abicap record) and report, for the tasks kept by the\n"
"filters: run-queue latency (sched_wakeup, or being preempted, until\n"
"switched in) as a log2 histogram with p50/p90/p99/p99.9/max, overall and\n"
"per task; off-CPU time per task by the state it left in, and voluntary\n"
"and involuntary switches; per-CPU busy and idle time, idle-state and\n"
"frequency residency; wakeup chains, most frequent and slowest.\n"
"\n"
"  -f, --format FMT   text (default) or json\n"
"  -p, --pid PID      only tasks of this process (tgid)\n"
"      --comm COMM    only tasks with this name\n"
"  -n, --top N        rows per table (default 10)\n"
"      --by KEY       task (default), cgroup (the cgroup v2 path each task\n"
"                     was in) or container (Docker, containerd, CRI-O,\n"
"                     Podman, Kubernetes pods; tasks in none are \"(host)\"):\n"
"                     the latency, off-CPU and wakeup-chain tables by group\n"
"  -h, --help         show this help\n"
"\n"
"A file cut short (no trailer: the recorder was killed) is reported up to\n"
"its last complete chunk, and says so.\n"
"Exit: 0 ok, 2 bad usage or a file that is not a readable capture.\n";

static double us(uint64_t ns)
{
	return ns / 1e3;
}

static double ms(uint64_t ns)
{
	return ns / 1e6;
}

/* log2 histogram of microseconds, like runqlat's */
static void histogram(FILE *f, const struct lat *l)
{
	uint64_t buckets[40] = { 0 }, max = 0;
	int top = 0;

	for (size_t i = 0; i < l->n; i++) {
		uint64_t u = l->v[i] / 1000;
		int b = 0;

		while (u >> b && b < 39)
			b++;
		buckets[b]++;
		if (b > top)
			top = b;
	}
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
	const struct task *x = a, *y = b;

	return x->rq.total < y->rq.total ? 1 : x->rq.total > y->rq.total ? -1 : 0;
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

/* The per-task tables of the text report, per group instead. */
static void text_groups(FILE *f, struct grouping *g, const char *key, int top)
{
	sort_some(g->g, g->n, sizeof(*g->g), groups_by_rq_total);
	fprintf(f, "\nPer %s, by total run-queue latency (top %d):\n", key, top);
	fprintf(f, "  %-40s %6s %9s %11s %9s %9s %9s | %9s %11s\n", "GROUP",
		"TASKS", "SAMPLES", "TOTAL(ms)", "AVG(us)", "P99(us)", "MAX(us)",
		"WAKEUPS", "DELAY(ms)");
	for (size_t i = 0; i < g->n && i < (size_t)top; i++) {
		struct group *r = &g->g[i];

		fprintf(f, "  %-40s %6zu %9zu %11.3f %9.1f %9.1f %9.1f | %9zu %11.3f\n",
			r->name, r->ntasks, r->rq.n, ms(r->rq.total),
			r->rq.n ? us(r->rq.total / r->rq.n) : 0,
			us(lat_percentile(&r->rq, 99)), us(r->rq.max), r->wake.n,
			ms(r->wake.total));
	}
	sort_some(g->g, g->n, sizeof(*g->g), groups_by_off_total);
	fprintf(f, "\nOff-CPU time per %s, by the state left in (top %d):\n", key,
		top);
	fprintf(f, "  %-40s %11s %10s %10s %10s %10s %8s %8s\n", "GROUP",
		"OFF(ms)", "S(ms)", "D(ms)", "R(ms)", "R+(ms)", "VOL", "INVOL");
	for (size_t i = 0; i < g->n && i < (size_t)top; i++) {
		struct group *r = &g->g[i];

		fprintf(f, "  %-40s %11.3f %10.3f %10.3f %10.3f %10.3f %8llu %8llu\n",
			r->name, ms(r->off_total), ms(r->off_by_state[1]),
			ms(r->off_by_state[2]), ms(r->off_by_state[0]),
			ms(r->off_by_state[9]), (unsigned long long)r->voluntary,
			(unsigned long long)r->involuntary);
	}
	sort_some(g->ch, g->nch, sizeof(*g->ch), gchains_by_count);
	fprintf(f, "\nWakeup chains by %s, most frequent (top %d):\n", key, top);
	for (size_t i = 0; i < g->nch && i < (size_t)top; i++)
		fprintf(f, "  %s -> %s  %llu wakeups, avg %.1f us, max %.1f us\n",
			g->ch[i].waker, g->ch[i].wakee,
			(unsigned long long)g->ch[i].count,
			g->ch[i].count ? us(g->ch[i].total_lat / g->ch[i].count) : 0,
			us(g->ch[i].max_lat));
}

static json_t *json_groups(struct grouping *g)
{
	json_t *groups = json_array(), *chains = json_array();

	for (size_t i = 0; i < g->n; i++) {
		struct group *r = &g->g[i];
		json_t *st = json_object();

		for (int k = 0; k < 10; k++)
			if (r->off_by_state[k])
				json_object_set_new(st, state_names[k],
					json_integer(r->off_by_state[k]));
		json_array_append_new(groups, json_pack(
			"{s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I}",
			"group", r->name, "tasks", (json_int_t)r->ntasks,
			"rq_samples", (json_int_t)r->rq.n,
			"rq_total_ns", (json_int_t)r->rq.total,
			"rq_p99_ns", (json_int_t)lat_percentile(&r->rq, 99),
			"rq_max_ns", (json_int_t)r->rq.max,
			"wakeup_delays", (json_int_t)r->wake.n,
			"wakeup_delay_total_ns", (json_int_t)r->wake.total,
			"off_cpu_ns", (json_int_t)r->off_total,
			"off_cpu_by_state_ns", st,
			"voluntary", (json_int_t)r->voluntary,
			"involuntary", (json_int_t)r->involuntary));
	}
	for (size_t i = 0; i < g->nch; i++)
		json_array_append_new(chains, json_pack("{s:s, s:s, s:I, s:I, s:I}",
			"waker", g->ch[i].waker, "wakee", g->ch[i].wakee,
			"count", (json_int_t)g->ch[i].count,
			"total_latency_ns", (json_int_t)g->ch[i].total_lat,
			"max_latency_ns", (json_int_t)g->ch[i].max_lat));
	return json_pack("{s:o, s:o}", "groups", groups, "group_wakeup_chains",
			 chains);
}

static void text_tasks(FILE *f, struct analysis *a, int top,
		       struct cgnames *names);
static void text_cpus_chains(FILE *f, struct analysis *a, json_t *meta,
			     int top, bool chains);

/* g: the per-task tables per group instead (--by), named key */
static void text_report(FILE *f, struct analysis *a, const char *path,
			json_t *meta, json_t *trl, bool cut, int top,
			struct grouping *g, const char *key, struct cgnames *names)
{
	struct lat *l = &a->rq;

	fprintf(f, "abicap report %s: kernel %s, %.3f s, %llu records%s\n", path,
		json_string_value(json_object_get(meta, "kernel")) ?: "unknown",
		(a->last_ts - a->first_ts) / 1e9, (unsigned long long)a->records,
		cut ? "; CUT SHORT: no trailer, read up to the last complete chunk" :
		"");
	if (trl) {
		json_t *evs = json_object_get(trl, "events"), *v;
		const char *k;
		json_int_t drop = 0;

		json_object_foreach(evs, k, v)
			drop += json_integer_value(json_object_get(v, "dropped"));
		fprintf(f, "dropped while recording: %lld\n", (long long)drop);
	}
	fprintf(f, "\nRun-queue latency (wakeup or preemption -> running): %zu samples\n",
		l->n);
	if (l->n) {
		histogram(f, l);
		fprintf(f, "  p50 %.1f us  p90 %.1f us  p99 %.1f us  p99.9 %.1f us  "
			"max %.1f us\n", us(lat_percentile(l, 50)),
			us(lat_percentile(l, 90)), us(lat_percentile(l, 99)),
			us(lat_percentile(l, 99.9)), us(l->max));
	}
	if (g)
		text_groups(f, g, key, top);
	else
		text_tasks(f, a, top, names);
	text_cpus_chains(f, a, meta, top, !g);
}

/* The task's cgroup for a table: container label, else path, else "-". */
static const char *task_cgroup(struct cgnames *names, const struct task *t)
{
	return names && t->cgroup ? cgnames_label(names, t->cgroup) : "-";
}

static void text_tasks(FILE *f, struct analysis *a, int top,
		       struct cgnames *names)
{
	sort_some(a->tasks, a->ntasks, sizeof(*a->tasks), by_rq_total);
	fprintf(f, "\nPer task, by total run-queue latency (top %d):\n", top);
	fprintf(f, "  %-8s %-16s %9s %11s %9s %9s %9s | %9s %11s %9s  %s\n", "TID",
		"COMM", "SAMPLES", "TOTAL(ms)", "AVG(us)", "P99(us)", "MAX(us)",
		"WAKEUPS", "DELAY(ms)", "MAX(us)", "CGROUP");
	for (size_t i = 0, shown = 0; i < a->ntasks && shown < (size_t)top; i++) {
		struct task *t = &a->tasks[i];

		if (!t->rq.n)
			continue;
		fprintf(f, "  %-8d %-16s %9zu %11.3f %9.1f %9.1f %9.1f | %9zu %11.3f "
			"%9.1f  %s\n", t->pid, t->comm, t->rq.n, ms(t->rq.total),
			us(t->rq.total / t->rq.n), us(lat_percentile(&t->rq, 99)),
			us(t->rq.max), t->wake.n, ms(t->wake.total), us(t->wake.max),
			task_cgroup(names, t));
		shown++;
	}
	fprintf(f, "  (right: only the waits that began with a wakeup, from %s, as "
		"perf sched counts its delay)\n", a->from_waking ? "sched_waking" :
		"sched_wakeup");
	sort_some(a->tasks, a->ntasks, sizeof(*a->tasks), by_off_total);
	fprintf(f, "\nOff-CPU time per task, by the state it left in (top %d):\n",
		top);
	fprintf(f, "  %-8s %-16s %11s %10s %10s %10s %10s %10s %8s %8s\n", "TID",
		"COMM", "OFF(ms)", "S(ms)", "D(ms)", "R(ms)", "R+(ms)", "OTHER(ms)",
		"VOL", "INVOL");
	for (size_t i = 0, shown = 0; i < a->ntasks && shown < (size_t)top; i++) {
		struct task *t = &a->tasks[i];

		if (!t->off_total)
			continue;
		fprintf(f, "  %-8d %-16s %11.3f %10.3f %10.3f %10.3f %10.3f %10.3f "
			"%8llu %8llu\n", t->pid, t->comm, ms(t->off_total),
			ms(t->off_by_state[1]), ms(t->off_by_state[2]),
			ms(t->off_by_state[0]), ms(t->off_by_state[9]),
			ms(t->off_total - t->off_by_state[0] - t->off_by_state[1] -
			   t->off_by_state[2] - t->off_by_state[9]),
			(unsigned long long)t->voluntary,
			(unsigned long long)t->involuntary);
		shown++;
	}
}

static void text_cpus_chains(FILE *f, struct analysis *a, json_t *meta,
			     int top, bool chains)
{
	fprintf(f, "\nCPUs:\n");
	if (json_integer_value(json_object_get(meta, "pid_filter")))
		fprintf(f, "  not known: the capture was filtered to some "
			"processes (record without -p or a command for CPU time)\n");
	else
		fprintf(f, "  %-4s %11s %11s  %s\n", "CPU", "BUSY(ms)", "IDLE(ms)",
			"IDLE-STATE AND FREQUENCY RESIDENCY");
	for (int c = 0; c < a->ncpus &&
	     !json_integer_value(json_object_get(meta, "pid_filter")); c++) {
		struct cpu_stat *s = &a->cpus[c];

		fprintf(f, "  %-4d %11.3f %11.3f ", c, ms(s->busy), ms(s->idle_time));
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
		char w[48], e[48];

		snprintf(w, sizeof(w), "%s:%d", c->waker_comm, c->waker);
		snprintf(e, sizeof(e), "%s:%d", c->wakee_comm, c->wakee);
		fprintf(f, "  %-24s -> %-24s %9llu %10.1f %10.1f\n", w, e,
			(unsigned long long)c->count,
			c->count ? us(c->total_lat / c->count) : 0, us(c->max_lat));
	}
	sort_some(a->chains, a->nchains, sizeof(*a->chains), by_max);
	fprintf(f, "\nWakeup chains, slowest (top %d):\n", top);
	for (size_t i = 0; i < a->nchains && i < (size_t)top; i++) {
		struct chain *c = &a->chains[i];

		fprintf(f, "  %s:%d -> %s:%d  max %.1f us over %llu wakeups\n",
			c->waker_comm, c->waker, c->wakee_comm, c->wakee,
			us(c->max_lat), (unsigned long long)c->count);
	}
}

/* "cgroup_id", "cgroup" (path or null), "container" (label or null) */
static void json_cgroup_fields(json_t *o, struct cgnames *names, uint64_t id)
{
	struct cgname c = { 0 };

	if (!o)
		return;
	cgnames_get(names, id, &c);
	json_object_set_new(o, "cgroup_id", json_integer((json_int_t)id));
	json_object_set_new(o, "cgroup", c.path ? json_string(c.path) :
						  json_null());
	json_object_set_new(o, "container", c.ct ? json_string(c.label) :
						   json_null());
}

static json_t *json_report(struct analysis *a, const char *path, json_t *meta,
			   bool cut, struct cgnames *names)
{
	json_t *tasks = json_array(), *cpus = json_array(), *chains = json_array();
	struct lat *l = &a->rq;

	for (size_t i = 0; i < a->ntasks; i++) {
		struct task *t = &a->tasks[i];
		json_t *st;

		if (!t->rq.n && !t->off_total)
			continue;
		st = json_object();
		for (int k = 0; k < 10; k++)
			if (t->off_by_state[k])
				json_object_set_new(st, state_names[k],
					json_integer(t->off_by_state[k]));
		json_array_append_new(tasks, json_pack(
			"{s:i, s:i, s:s, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I}",
			"tid", t->pid, "tgid", t->tgid, "comm", t->comm,
			"rq_samples", (json_int_t)t->rq.n,
			"rq_total_ns", (json_int_t)t->rq.total,
			"rq_p99_ns", (json_int_t)lat_percentile(&t->rq, 99),
			"rq_max_ns", (json_int_t)t->rq.max,
			"wakeup_delays", (json_int_t)t->wake.n,
			"wakeup_delay_total_ns", (json_int_t)t->wake.total,
			"wakeup_delay_max_ns", (json_int_t)t->wake.max,
			"off_cpu_ns", (json_int_t)t->off_total, "off_cpu_by_state_ns", st,
			"voluntary", (json_int_t)t->voluntary,
			"involuntary", (json_int_t)t->involuntary));
		json_cgroup_fields(json_array_get(tasks, json_array_size(tasks) - 1),
				   names, t->cgroup);
	}
	for (int c = 0; c < a->ncpus; c++) {
		json_t *res = json_object(), *fr = json_object();

		for (int k = 0; k < MAX_IDLE_STATES; k++)
			if (a->cpus[c].residency[k]) {
				char key[16];

				snprintf(key, sizeof(key), "%d", k);
				json_object_set_new(res, key,
					json_integer(a->cpus[c].residency[k]));
			}
		for (int k = 0; k < a->cpus[c].nfreqs; k++) {
			char key[16];

			snprintf(key, sizeof(key), "%u", a->cpus[c].freqs[k]);
			json_object_set_new(fr, key, json_integer(a->cpus[c].freq_time[k]));
		}
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:I, s:o, s:o}",
			"cpu", c, "busy_ns", (json_int_t)a->cpus[c].busy,
			"idle_ns", (json_int_t)a->cpus[c].idle_time,
			"idle_state_residency_ns", res, "frequency_residency_ns", fr));
	}
	for (size_t i = 0; i < a->nchains; i++)
		json_array_append_new(chains, json_pack(
			"{s:i, s:s, s:i, s:s, s:I, s:I, s:I}",
			"waker", a->chains[i].waker, "waker_comm", a->chains[i].waker_comm,
			"wakee", a->chains[i].wakee, "wakee_comm", a->chains[i].wakee_comm,
			"count", (json_int_t)a->chains[i].count,
			"total_latency_ns", (json_int_t)a->chains[i].total_lat,
			"max_latency_ns", (json_int_t)a->chains[i].max_lat));
	return json_pack("{s:s, s:O, s:b, s:s, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I}, "
			 "s:o, s:o, s:o}",
			 "file", path, "capture", meta, "cut_short", cut,
			 "wakeup_from", a->from_waking ? "sched_waking" : "sched_wakeup",
			 "records", (json_int_t)a->records,
			 "duration_ns", (json_int_t)(a->last_ts - a->first_ts),
			 "runqueue_latency", "samples", (json_int_t)l->n,
			 "p50_ns", (json_int_t)lat_percentile(l, 50),
			 "p90_ns", (json_int_t)lat_percentile(l, 90),
			 "p99_ns", (json_int_t)lat_percentile(l, 99),
			 "p999_ns", (json_int_t)lat_percentile(l, 99.9),
			 "max_ns", (json_int_t)l->max,
			 "tasks", tasks, "cpus", cpus, "wakeup_chains", chains);
}

/* --pid, --comm */
static void set_filters(struct analysis *a, int32_t pid, const char *comm)
{
	a->filter_tgid = pid;
	if (comm)
		snprintf(a->filter_comm, sizeof(a->filter_comm), "%s", comm);
}

static int add_record(void *ctx, const union abicap_rec *rec)
{
	analysis_add(ctx, rec);
	return 0;
}

/* Whether the metadata lists the events; *waking: sched_waking among them. */
static bool meta_lists_events(json_t *meta, bool *waking)
{
	json_t *evs = json_object_get(meta, "events"), *e;
	size_t i;

	if (!json_is_array(evs))
		return false;
	*waking = false;
	json_array_foreach(evs, i, e)
		if (json_is_string(e) &&
		    !strcmp(json_string_value(e), "sched_waking"))
			*waking = true;
	return true;
}

/* Records loaded at most (96 MiB); a capture with more streams. */
#define REPORT_LOAD_MAX ((size_t)1 << 20)

static int stream_records(struct capr *r, struct analysis *a, size_t *n)
{
	uint64_t late = 0;
	int c = capr_each(r, CAPR_WINDOW_NS, add_record, a, &late);

	*n = a->records;
	if (late)
		ab_warn("%llu records arrived over a second late (or past the "
			"%u-record window) and were taken out of time order",
			(unsigned long long)late, CAPR_WINDOW_MAX);
	return c;
}

/*
 * Without the metadata's CPU count and events: one pass to find them out,
 * then the records stream from a second reader, which replaces *r.
 */
static int scan_then_stream(struct capr **r, const char *path,
			    struct analysis *a, size_t *n, int32_t pid,
			    const char *comm)
{
	char err[ERRMSG_LEN];
	union abicap_rec rec;
	struct capr *scan = capr_open(path, err, sizeof(err));
	uint32_t max = 0;
	bool waking = false;

	analysis_init(a, 1); /* freed by the caller on failure */
	if (!scan)
		return -ENOMEM;
	while (capr_next(scan, &rec) == 1) {
		if (rec.hdr.cpu >= max && rec.hdr.cpu < CAPTURE_MAX_CPUS)
			max = rec.hdr.cpu + 1;
		waking |= rec.hdr.type == ABICAP_EV_SCHED_WAKING;
	}
	capr_close(scan);
	capr_close(*r);
	*r = capr_open(path, err, sizeof(err));
	if (!*r)
		return -ENOMEM;
	analysis_free(a);
	analysis_init(a, max ? (int)max : 1);
	a->from_waking = waking;
	set_filters(a, pid, comm);
	return stream_records(*r, a, n);
}

/*
 * Every record of the capture into the analysis a (initialised here, the
 * filters set after), in time order. Where the metadata says how many CPUs
 * and which events, the records stream through the reordering window
 * (memory: one window, whatever the file's size); otherwise they are
 * loaded to find those out, up to REPORT_LOAD_MAX records, past which they
 * are read twice instead (*r is then another reader of path). *n: records
 * read. As capr_load() returns.
 */
static int read_records(struct capr **r, const char *path, json_t *meta,
			struct analysis *a, size_t *n, int32_t pid,
			const char *comm)
{
	int ncpus = meta_ncpus_given(meta);
	union abicap_rec *recs = NULL;
	bool waking;
	int c;

	if (ncpus && meta_lists_events(meta, &waking)) {
		analysis_init(a, ncpus);
		a->from_waking = waking;
		set_filters(a, pid, comm);
		return stream_records(*r, a, n);
	}
	c = capr_load_max(*r, &recs, n, REPORT_LOAD_MAX);
	if (c == -E2BIG)
		return scan_then_stream(r, path, a, n, pid, comm);
	analysis_init(a, meta_ncpus(meta, recs, *n));
	for (size_t i = 0; i < *n && !a->from_waking; i++)
		a->from_waking = recs[i].hdr.type == ABICAP_EV_SCHED_WAKING;
	set_filters(a, pid, comm);
	for (size_t i = 0; i < *n; i++)
		analysis_add(a, &recs[i]);
	free(recs);
	return c;
}

/* The capture's own cgroup names (read with its records); NULL: no memory. */
static struct cgnames *capture_names(struct capr *r, bool grouping)
{
	struct cgnames *names = cgnames_table();
	const struct capfile_cgroup *cg;
	size_t n;

	if (!names)
		return NULL;
	cg = capr_cgroups(r, &n);
	if (!n && grouping)
		ab_warn("the capture names no cgroups (recorded by an abicap "
			"before cgroup attribution, or on a kernel without it): "
			"every task is in \"(unknown)\"");
	for (size_t i = 0; i < n; i++)
		if (cgnames_set(names, cg[i].id, cg[i].path)) {
			cgnames_free(names);
			return NULL;
		}
	return names;
}

int do_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "pid", required_argument, NULL, 'p' },
		{ "comm", required_argument, NULL, 'c' },
		{ "top", required_argument, NULL, 'n' },
		{ "by", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char err[ERRMSG_LEN];
	bool json = false, cut;
	long top = 10, pid = 0;
	const char *comm = NULL;
	size_t n = 0;
	struct analysis a;
	json_t *meta, *trl;
	struct capr *r;
	enum group_by by = GROUP_TASK;
	struct grouping g = { 0 };
	struct cgnames *names = NULL;
	const char *key = NULL;
	int ch, c;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":f:p:c:n:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			if (group_by_parse(optarg, &by)) {
				ab_error("--by '%s': use task, cgroup or container",
					 optarg);
				return EXIT_USAGE;
			}
			key = optarg;
			break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				ab_error("--format '%s': use text or json", optarg);
				return EXIT_USAGE;
			}
			json = !strcmp(optarg, "json");
			break;
		case 'p':
			if (!parse_long(optarg, 1, 0x7fffffff, &pid)) {
				ab_error("--pid '%s' is not a process id", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'c':
			comm = optarg;
			break;
		case 'n':
			if (!parse_long(optarg, 1, 100000, &top)) {
				ab_error("--top '%s': give a number from 1 to 100000",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 'h':
			fputs(report_usage, stdout);
			return EXIT_OK;
		default:
			return usage_error(argc, argv, ch, "report");
		}
	}
	if (argc - optind != 1) {
		ab_error("report needs one capture file (see abicap report --help)");
		return EXIT_USAGE;
	}
	r = capr_open(argv[optind], err, sizeof(err));
	if (!r) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	meta = json_loads(capr_meta(r), 0, NULL);
	if (!meta) {
		ab_error("'%s': the header's metadata is not JSON: the file is "
			 "damaged", argv[optind]);
		capr_close(r);
		return EXIT_USAGE;
	}
	c = read_records(&r, argv[optind], meta, &a, &n, (int32_t)pid, comm);
	if (c == -ENOMEM) {
		ab_error("out of memory reading '%s'", argv[optind]);
		analysis_free(&a);
		capr_close(r);
		json_decref(meta);
		return EXIT_RUNTIME;
	}
	if (c < 0)
		ab_warn("'%s': %s; reporting the %zu records before it",
			argv[optind], capr_error(r), n);
	cut = capr_cut_short(r);
	if (cut)
		ab_warn("'%s' was cut short (no trailer): reporting the %zu records "
			"of its complete chunks", argv[optind], n);
	trl = capr_trailer(r) ? json_loads(capr_trailer(r), 0, NULL) : NULL;
	analysis_finish(&a);
	names = capture_names(r, by != GROUP_TASK);
	if (!names || (by != GROUP_TASK && group_analysis(&a, names, by, &g))) {
		ab_error("out of memory grouping '%s'", argv[optind]);
		cgnames_free(names);
		analysis_free(&a);
		json_decref(meta);
		json_decref(trl);
		capr_close(r);
		return EXIT_RUNTIME;
	}
	if (json) {
		json_t *out = json_report(&a, argv[optind], meta, cut, names);

		if (trl)
			json_object_set(out, "trailer", trl);
		if (by != GROUP_TASK) {
			json_t *jg = json_groups(&g);

			json_object_set_new(out, "by", json_string(key));
			json_object_update(out, jg);
			json_decref(jg);
		}
		json_dumpf(out, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(out);
	} else {
		text_report(stdout, &a, argv[optind], meta, trl, cut, (int)top,
			    by != GROUP_TASK ? &g : NULL, key, names);
	}
	grouping_free(&g);
	cgnames_free(names);
	analysis_free(&a);
	json_decref(meta);
	json_decref(trl);
	capr_close(r);
	return EXIT_OK;
}
