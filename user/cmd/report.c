// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap report FILE: what a capture says about scheduling latency. */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/analysis.h"
#include "capfile/capfile.h"
#include "capfile/capwarn.h"
#include "event/cgnames.h"
#include "cmd/commands.h"
#include "lib/escape.h"
#include "capfile/report_group.h"
#include "lib/util.h"

const char report_usage[] =
"Usage: abicap report FILE [--format text|json] [--pid PID] [--comm COMM] [--top N]\n"
"                         [--by task|cgroup|container] [--from-waking]\n"
"Read a capture file (abicap record) and report, for the tasks kept by the\n"
"filters: run-queue latency (a wakeup of a task not on a CPU, or being\n"
"preempted, until switched in) as a log2 histogram with p50/p90/p99/\n"
"p99.9/max, overall and per task; off-CPU time per task by the state it\n"
"left in, and voluntary and involuntary switches; per-CPU busy and idle\n"
"time, idle-state and frequency residency; wakeup chains, most frequent\n"
"and slowest.\n"
"\n"
"  -f, --format FMT   text (default) or json\n"
"  -p, --pid PID      only tasks of this process (tgid)\n"
"  -c, --comm COMM    only tasks with this name\n"
"  -n, --top N        rows per table (default 10)\n"
"      --by KEY       task (default), cgroup (the cgroup v2 path each task\n"
"                     was in) or container (Docker, containerd, CRI-O,\n"
"                     Podman, Kubernetes pods; tasks in none are \"(host)\"):\n"
"                     the latency, off-CPU and wakeup-chain tables by group\n"
"      --from-waking  a wait after a wakeup starts at sched_waking (when the\n"
"                     waker chose to wake it, as perf sched counts its \"sch\n"
"                     delay\"), not at sched_wakeup (when it was queued, as\n"
"                     runqlat counts); the capture must have sched_waking\n"
"  -h, --help         show this help\n"
"\n"
"A wait is measured only where both its ends are in the file; in a capture\n"
"filtered to some tasks, only for those that passed the filter; and not\n"
"where it spans a window in which records were lost (such waits are counted\n"
"as left out). A task-filtered capture shows no CPU table.\n"
"A file cut short (no trailer: the recorder was killed) is reported up to\n"
"its last complete chunk, and says so. A part of the file damaged, missing,\n"
"doubled or out of place is named (with its byte offset) and counted, the\n"
"rest reported; the records lost while recording are never shown lower\n"
"than the file says (\"at least N\" where it cannot say exactly).\n"
"Exit: 0 ok, 2 bad usage or a file that is not a readable capture (not a\n"
"regular file, not a capture, a newer format, a damaged header), 5 a\n"
"capture read with damaged, missing, doubled or out-of-place parts.\n";

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
#define JESC_COMM(c) json_escaped((c), ABICAP_COMM_LEN)
#define JESC(s) json_escaped((s), SIZE_MAX)

/* What the capture's metadata and blocks say about its filters and losses. */
struct capinfo {
	bool task_filtered; /* some tasks only: not every switch of a CPU */
	bool flags; /* switch records say which side passed (record version 3) */
	bool untrusted; /* filtered without the flags: waits may be invented */
	json_t *cpus; /* the CPUs captured (-C), NULL: all */
	/*
	 * -C: a task's switches on the other CPUs are not in the file, so a
	 * wait or off-CPU time may span runs that were not captured
	 */
	bool cpus_partial;
	struct drop_window *drops;
	size_t ndrops;
	uint64_t dropped_in_windows;
	bool drops_unplaced; /* lost records the file has no windows for */
	/* after the records: what the file says was lost, and how surely */
	uint64_t dropped;
	bool dropped_exact;
	const char *dropped_why; /* why not exact */
	bool damaged; /* parts damaged, missing, doubled or out of place */
	const struct capr_integrity *ig;
	unsigned int version;
};

/* An option of the recorder's command line that filters tasks (older files). */
static bool filter_option(const char *arg)
{
	static const char *const opts[] = { "-p", "--pid", "--tid", "--comm",
					    "--cgroup", "--" };

	for (size_t i = 0; i < sizeof(opts) / sizeof(*opts); i++) {
		size_t n = strlen(opts[i]);

		if (!strncmp(arg, opts[i], n) &&
		    (!arg[n] || arg[n] == '=' || (n == 2 && arg[1] == 'p')))
			return true;
	}
	return false;
}

static int cmp_drop(const void *a, const void *b)
{
	const struct drop_window *x = a, *y = b;

	return (x->start_ns > y->start_ns) - (x->start_ns < y->start_ns);
}

static int capinfo_read(struct capinfo *ci, json_t *meta, struct capr *r)
{
	json_t *f = json_object_get(meta, "filter"), *v;
	const struct capfile_drop *d;
	size_t i, n;

	memset(ci, 0, sizeof(*ci));
	ci->flags = json_integer_value(json_object_get(meta, "record_format")) >= 3;
	if (json_is_object(f)) {
		ci->task_filtered = json_is_true(json_object_get(f, "tasks"));
		if (json_is_array(json_object_get(f, "cpus")))
			ci->cpus = json_object_get(f, "cpus");
	} else {
		ci->task_filtered = json_integer_value(json_object_get(meta,
							"pid_filter")) != 0;
		json_array_foreach(json_object_get(meta, "command_line"), i, v)
			if (json_is_string(v) && filter_option(json_string_value(v)))
				ci->task_filtered = true;
	}
	ci->untrusted = ci->task_filtered && !ci->flags;
	ci->cpus_partial = ci->cpus != NULL;
	d = capr_drops(r, &n);
	ci->drops = n ? malloc(n * sizeof(*ci->drops)) : NULL;
	if (n && !ci->drops)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		ci->drops[i] = (struct drop_window){ d[i].start_ns, d[i].end_ns,
						     d[i].count };
		ci->dropped_in_windows += d[i].count;
	}
	ci->ndrops = n;
	if (n)
		qsort(ci->drops, n, sizeof(*ci->drops), cmp_drop);
	return 0;
}

/* The trailer's count of lost records (0 without a trailer). */
static uint64_t trailer_dropped(json_t *trl)
{
	json_t *evs = json_object_get(trl, "events"), *v;
	const char *k;
	uint64_t drop = 0;

	json_object_foreach(evs, k, v)
		drop += json_integer_value(json_object_get(v, "dropped"));
	return drop;
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
			ESC(r->name), r->ntasks, r->rq.n, ms(r->rq.total),
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
			"{s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I}",
			"group", JESC(r->name), "tasks", (json_int_t)r->ntasks,
			"rq_samples", (json_int_t)r->rq.n,
			"rq_total_ns", (json_int_t)r->rq.total,
			"rq_p50_ns", (json_int_t)lat_percentile(&r->rq, 50),
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
		json_array_append_new(chains, json_pack("{s:o, s:o, s:I, s:I, s:I}",
			"waker", JESC(g->ch[i].waker), "wakee", JESC(g->ch[i].wakee),
			"count", (json_int_t)g->ch[i].count,
			"total_latency_ns", (json_int_t)g->ch[i].total_lat,
			"max_latency_ns", (json_int_t)g->ch[i].max_lat));
	return json_pack("{s:o, s:o}", "groups", groups, "group_wakeup_chains",
			 chains);
}

static void text_tasks(FILE *f, struct analysis *a, int top,
		       struct cgnames *names);
static void text_cpus_chains(FILE *f, struct analysis *a,
			     const struct capinfo *ci, int top, bool chains);

/* The capture's filter and events, as the metadata says, in one line each. */
static void text_filter(FILE *f, json_t *meta)
{
	json_t *flt = json_object_get(meta, "filter"), *evs;
	char *s;

	evs = json_object_get(meta, "events");
	if (json_is_array(evs) && (s = json_dumps(evs, JSON_COMPACT))) {
		fprintf(f, "events captured: %s\n", s);
		free(s);
	}
	if (json_is_object(flt) && (s = json_dumps(flt, JSON_COMPACT |
						     JSON_PRESERVE_ORDER))) {
		fprintf(f, "filter: %s\n", s);
		free(s);
	}
}

/* g: the per-task tables per group instead (--by), named key */
static void text_report(FILE *f, struct analysis *a, const char *path,
			json_t *meta, bool cut, int top,
			struct grouping *g, const char *key, struct cgnames *names,
			const struct capinfo *ci)
{
	struct lat *l = &a->rq;

	fprintf(f, "abicap report %s: kernel %s, %.3f s, %llu records%s\n",
		ESC(path), ESC(json_string_value(json_object_get(meta, "kernel")) ?:
			       "unknown"),
		(a->last_ts - a->first_ts) / 1e9, (unsigned long long)a->records,
		cut ? "; CUT SHORT: no trailer, read up to the last complete chunk" :
		"");
	text_filter(f, meta);
	if (ci->dropped_exact)
		fprintf(f, "dropped while recording: %llu\n",
			(unsigned long long)ci->dropped);
	else
		fprintf(f, "dropped while recording: at least %llu (%s)\n",
			(unsigned long long)ci->dropped, ci->dropped_why);
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
	if (ci->ndrops || a->waits_dropped || a->off_dropped)
		fprintf(f, "lost: %llu records in %zu windows; left out as they "
			"span one: %llu waits, %llu off-CPU intervals\n",
			(unsigned long long)ci->dropped_in_windows, a->ndrops,
			(unsigned long long)a->waits_dropped,
			(unsigned long long)a->off_dropped);
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
	text_cpus_chains(f, a, ci, top, !g);
}

/* The task's cgroup for a table: container label, else path, else "-". */
static const char *task_cgroup(struct cgnames *names, const struct task *t)
{
	return names && t->cgroup ? ESC(cgnames_label(names, t->cgroup)) : "-";
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
			"%9.1f  %s\n", t->pid, ESC_COMM(t->comm), t->rq.n,
			ms(t->rq.total),
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
			"%8llu %8llu\n", t->pid, ESC_COMM(t->comm), ms(t->off_total),
			ms(t->off_by_state[1]), ms(t->off_by_state[2]),
			ms(t->off_by_state[0]), ms(t->off_by_state[9]),
			ms(t->off_total - t->off_by_state[0] - t->off_by_state[1] -
			   t->off_by_state[2] - t->off_by_state[9]),
			(unsigned long long)t->voluntary,
			(unsigned long long)t->involuntary);
		shown++;
	}
}

/* Whether CPU c was captured (-C). */
static bool cpu_captured(const struct capinfo *ci, int c)
{
	json_t *v;
	size_t i;

	if (!ci->cpus)
		return true;
	json_array_foreach(ci->cpus, i, v)
		if (json_integer_value(v) == c)
			return true;
	return false;
}

#define CPUS_NOT_KNOWN "the capture was filtered to some tasks (-p, --tid, " \
	"--comm, --cgroup or a command) and does not see every switch on a " \
	"CPU; record without them for CPU time"

static void text_cpus_chains(FILE *f, struct analysis *a,
			     const struct capinfo *ci, int top, bool chains)
{
	fprintf(f, "\nCPUs:\n");
	if (ci->task_filtered)
		fprintf(f, "  not shown: %s\n", CPUS_NOT_KNOWN);
	else
		fprintf(f, "  %-4s %11s %11s %11s  %s\n", "CPU", "BUSY(ms)",
			"IDLE(ms)", "LOST(ms)", "IDLE-STATE AND FREQUENCY RESIDENCY");
	for (int c = 0; c < a->ncpus && !ci->task_filtered; c++) {
		struct cpu_stat *s = &a->cpus[c];

		if (!cpu_captured(ci, c))
			continue;
		fprintf(f, "  %-4d %11.3f %11.3f %11.3f ", c, ms(s->busy),
			ms(s->idle_time), ms(s->lost_time));
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

/* "cgroup_id", "cgroup" (path or null), "container" (label or null) */
static void json_cgroup_fields(json_t *o, struct cgnames *names, uint64_t id)
{
	struct cgname c = { 0 };

	if (!o)
		return;
	cgnames_get(names, id, &c);
	json_object_set_new(o, "cgroup_id", json_integer((json_int_t)id));
	json_object_set_new(o, "cgroup", c.path ? JESC(c.path) : json_null());
	json_object_set_new(o, "container", c.ct ? JESC(c.label) : json_null());
}

/* What the reader found wrong with the file: see README "Capture integrity". */
static json_t *json_integrity(const struct capinfo *ci)
{
	const struct capr_integrity *ig = ci->ig;
	json_t *probs = json_array();
	bool known = ig->verified || ig->records_exact;
	uint64_t exp = ig->records_expected, rd = ig->records_read;

	for (uint64_t i = 0; i < ig->nproblems && i < CAPR_PROBLEMS_KEPT; i++)
		json_array_append_new(probs, json_pack("{s:I, s:s}", "offset",
			(json_int_t)ig->problem[i].offset, "problem",
			ig->problem[i].what));
	return json_pack("{s:i, s:b, s:b, s:s, s:I, s:I, s:I, s:I, s:I, s:I, "
			 "s:o, s:b, s:o, s:I, s:b, s:o, s:I}",
		"format_version", (int)ci->version,
		"verified", ig->verified, "damaged", ci->damaged,
		"trailer", capwarn_trailer_name(ig->trailer),
		"parts", (json_int_t)ig->parts,
		"damaged_parts", (json_int_t)ig->damaged,
		"duplicated_parts", (json_int_t)ig->duplicated,
		"reordered_parts", (json_int_t)ig->reordered,
		"missing_parts", (json_int_t)ig->missing,
		"bytes_skipped", (json_int_t)ig->skipped_bytes,
		"records_expected", known ? json_integer((json_int_t)exp) :
		json_null(), "records_exact", ig->records_exact,
		"records_missing", known ? json_integer((json_int_t)(exp > rd ?
		exp - rd : 0)) : json_null(),
		"dropped", (json_int_t)ci->dropped,
		"dropped_exact", ci->dropped_exact,
		"problems", probs,
		"problems_not_listed", (json_int_t)(ig->nproblems >
			CAPR_PROBLEMS_KEPT ? ig->nproblems - CAPR_PROBLEMS_KEPT : 0));
}

static json_t *json_report(struct analysis *a, const char *path, json_t *meta,
			   bool cut, struct cgnames *names,
			   const struct capinfo *ci)
{
	json_t *out;
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
			"{s:i, s:i, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o, s:I, s:I}",
			"tid", t->pid, "tgid", t->tgid, "comm", JESC_COMM(t->comm),
			"rq_samples", (json_int_t)t->rq.n,
			"rq_total_ns", (json_int_t)t->rq.total,
			"rq_p50_ns", (json_int_t)lat_percentile(&t->rq, 50),
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
	for (int c = 0; c < a->ncpus && !ci->task_filtered; c++) {
		json_t *res, *fr;

		if (!cpu_captured(ci, c))
			continue;
		res = json_object();
		fr = json_object();

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
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:I, s:I, s:o, s:o}",
			"cpu", c, "busy_ns", (json_int_t)a->cpus[c].busy,
			"idle_ns", (json_int_t)a->cpus[c].idle_time,
			"lost_ns", (json_int_t)a->cpus[c].lost_time,
			"idle_state_residency_ns", res, "frequency_residency_ns", fr));
	}
	for (size_t i = 0; i < a->nchains; i++)
		json_array_append_new(chains, json_pack(
			"{s:i, s:o, s:i, s:o, s:I, s:I, s:I}",
			"waker", a->chains[i].waker,
			"waker_comm", JESC_COMM(a->chains[i].waker_comm),
			"wakee", a->chains[i].wakee,
			"wakee_comm", JESC_COMM(a->chains[i].wakee_comm),
			"count", (json_int_t)a->chains[i].count,
			"total_latency_ns", (json_int_t)a->chains[i].total_lat,
			"max_latency_ns", (json_int_t)a->chains[i].max_lat));
	for (size_t i = 0; i < a->nchains; i++)
		json_object_set_new(json_array_get(chains, i), "measured",
				    json_integer((json_int_t)a->chains[i].measured));
	out = json_pack("{s:o, s:O, s:b, s:s, s:I, s:I, s:{s:I, s:I, s:I, s:I, s:I, s:I}, "
			 "s:o, s:o, s:o}",
			 "file", JESC(path), "capture", meta, "cut_short", cut,
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
	if (!out)
		return NULL;
	if (ci->task_filtered) {
		json_object_set_new(out, "cpus", json_null());
		json_object_set_new(out, "cpus_not_shown", json_string(CPUS_NOT_KNOWN));
	}
	json_object_set(out, "filter", json_object_get(meta, "filter") ?:
			json_null());
	/* a part of a damaged file not read is records lost without a window */
	json_object_set_new(out, "figures_trustworthy", json_boolean(
		!ci->untrusted && !ci->cpus_partial && !ci->drops_unplaced &&
		!a->oom && !ci->damaged));
	json_object_set_new(out, "integrity", json_integrity(ci));
	json_object_set_new(out, "lost", json_pack("{s:I, s:I, s:I, s:I, s:b}",
		"drop_windows", (json_int_t)a->ndrops,
		"records_in_windows", (json_int_t)ci->dropped_in_windows,
		"waits_left_out", (json_int_t)a->waits_dropped,
		"off_cpu_intervals_left_out", (json_int_t)a->off_dropped,
		"outside_windows", ci->drops_unplaced));
	return out;
}

/*
 * The records lost while recording, never lower than the file says: the
 * trailer's count where it is intact, else the drop blocks' (and chunks')
 * running count, "at least" unless the reader can tell nothing is missing.
 */
static void capinfo_dropped(struct capinfo *ci, const struct capr *r,
			    json_t *trl)
{
	const struct capr_integrity *ig = capr_integrity(r);

	ci->ig = ig;
	ci->version = capr_version(r);
	if (ig->verified) {
		ci->dropped = ig->dropped;
		ci->dropped_exact = ig->dropped_exact;
	} else if (trl) {
		ci->dropped = trailer_dropped(trl);
		ci->dropped_exact = true;
	} else {
		ci->dropped_exact = false;
	}
	if (trl && trailer_dropped(trl) > ci->dropped)
		ci->dropped = trailer_dropped(trl);
	if (ci->dropped_in_windows > ci->dropped)
		ci->dropped = ci->dropped_in_windows;
	ci->dropped_why = ig->trailer == CAPR_TRAILER_MISSING ?
		"cut short: losses after its last drop block are not known" :
		"the trailer is damaged or missing: what it counted is not known";
}

/* --pid, --comm, and what the capture says (capinfo) */
/* How report reads a capture: its own filters and the capture's facts. */
struct read_opts {
	int32_t pid; /* -p: one process only (0: all) */
	const char *comm; /* --comm, NULL: all */
	const struct capinfo *ci;
	bool from_waking;
};

static int set_filters(struct analysis *a, const struct read_opts *o)
{
	a->filter_tgid = o->pid;
	if (o->comm)
		snprintf(a->filter_comm, sizeof(a->filter_comm), "%s", o->comm);
	a->switch_flags = o->ci->flags;
	return analysis_set_drops(a, o->ci->drops, o->ci->ndrops);
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
			    struct analysis *a, size_t *n,
			    const struct read_opts *o)
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
	if (o->from_waking && !waking)
		return -ENOENT;
	capr_close(*r);
	*r = capr_open(path, err, sizeof(err));
	if (!*r)
		return -ENOMEM;
	analysis_free(a);
	analysis_init(a, max ? (int)max : 1);
	a->from_waking = o->from_waking;
	if (set_filters(a, o))
		return -ENOMEM;
	return stream_records(*r, a, n);
}

/*
 * Every record of the capture into the analysis a (initialised here, the
 * filters set after), in time order. Where the metadata says how many CPUs
 * and which events, the records stream through the reordering window
 * (memory: one window, whatever the file's size); otherwise they are
 * loaded to find those out, up to REPORT_LOAD_MAX records, past which they
 * are read twice instead (*r is then another reader of path). *n: records
 * read. As capr_load() returns; -ENOENT: --from-waking without sched_waking.
 */
static int read_records(struct capr **r, const char *path, json_t *meta,
			struct analysis *a, size_t *n,
			const struct read_opts *o)
{
	int ncpus = meta_ncpus_given(meta);
	union abicap_rec *recs = NULL;
	bool waking;
	int c;

	if (ncpus && meta_lists_events(meta, &waking)) {
		analysis_init(a, ncpus);
		if (o->from_waking && !waking)
			return -ENOENT;
		a->from_waking = o->from_waking;
		if (set_filters(a, o))
			return -ENOMEM;
		return stream_records(*r, a, n);
	}
	c = capr_load_max(*r, &recs, n, REPORT_LOAD_MAX);
	if (c == -E2BIG)
		return scan_then_stream(r, path, a, n, o);
	analysis_init(a, meta_ncpus(meta, recs, *n));
	waking = false;
	for (size_t i = 0; i < *n && !waking; i++)
		waking = recs[i].hdr.type == ABICAP_EV_SCHED_WAKING;
	if (o->from_waking && !waking) {
		free(recs);
		return -ENOENT;
	}
	a->from_waking = o->from_waking;
	if (set_filters(a, o)) {
		free(recs);
		return -ENOMEM;
	}
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
		{ "from-waking", no_argument, NULL, 'w' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	char err[ERRMSG_LEN];
	bool json = false, cut, from_waking = false;
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
	struct capinfo ci;
	struct read_opts ro;
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
		case 'w':
			from_waking = true;
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
	if (capinfo_read(&ci, meta, r)) {
		ab_error("out of memory reading '%s'", argv[optind]);
		capr_close(r);
		json_decref(meta);
		return EXIT_RUNTIME;
	}
	ro = (struct read_opts){ (int32_t)pid, comm, &ci, from_waking };
	c = read_records(&r, argv[optind], meta, &a, &n, &ro);
	if (c == -ENOENT) {
		ab_error("'%s' has no sched_waking events for --from-waking: "
			 "record with -e including sched_waking, or leave "
			 "--from-waking out", argv[optind]);
		free(ci.drops);
		analysis_free(&a);
		capr_close(r);
		json_decref(meta);
		return EXIT_USAGE;
	}
	if (c == -ENOMEM) {
		free(ci.drops);
		ab_error("out of memory reading '%s'", argv[optind]);
		analysis_free(&a);
		capr_close(r);
		json_decref(meta);
		return EXIT_RUNTIME;
	}
	cut = capr_cut_short(r);
	if (cut)
		ab_warn("'%s' was cut short (no trailer): reporting the %zu records "
			"of its complete chunks", argv[optind], n);
	trl = capr_trailer(r) ? json_loads(capr_trailer(r), 0, NULL) : NULL;
	ci.damaged = capwarn_integrity(r, argv[optind]);
	if (capr_trailer(r) && !trl) {
		ab_warn("'%s': the trailer is damaged (not JSON): its counts are "
			"not used", argv[optind]);
		ci.damaged = true;
	}
	capinfo_dropped(&ci, r, trl);
	analysis_finish(&a);
	/* a file's windows are all found at open: any more lost are unplaced */
	ci.drops_unplaced = ci.dropped > ci.dropped_in_windows;
	if (ci.drops_unplaced)
		ab_warn("'%s' lost %llu records %s: waits and off-CPU times "
			"spanning them cannot be left out and may be too long "
			"(record it again with this abicap)", argv[optind],
			(unsigned long long)(ci.dropped - ci.dropped_in_windows),
			capr_version(r) < 3 ? "and its format (version 2 or "
			"older) has no drop windows" : "outside any drop window");
	if (ci.untrusted)
		ab_warn("'%s' was filtered to some tasks by an abicap whose "
			"records do not say which side of a switch passed the "
			"filter: its run-queue latency and off-CPU figures are "
			"not trustworthy (record it again with this abicap)",
			argv[optind]);
	if (ci.cpus_partial)
		ab_warn("'%s' was captured on some CPUs only (-C): waits and "
			"off-CPU times of tasks that also ran on other CPUs may "
			"span runs that were not captured", argv[optind]);
	if (a.oom)
		ab_warn("out of memory: some samples are not in the "
			"percentiles and tables");
	names = capture_names(r, by != GROUP_TASK);
	if (!names || (by != GROUP_TASK && group_analysis(&a, names, by, &g))) {
		ab_error("out of memory grouping '%s'", argv[optind]);
		free(ci.drops);
		cgnames_free(names);
		analysis_free(&a);
		json_decref(meta);
		json_decref(trl);
		capr_close(r);
		return EXIT_RUNTIME;
	}
	if (json) {
		json_t *out = json_report(&a, argv[optind], meta, cut, names,
					  &ci);

		if (!out) {
			ab_error("out of memory writing the report of '%s'",
				 argv[optind]);
			out = json_object();
		}

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
		text_report(stdout, &a, argv[optind], meta, cut, (int)top,
			    by != GROUP_TASK ? &g : NULL, key, names, &ci);
	}
	grouping_free(&g);
	cgnames_free(names);
	analysis_free(&a);
	free(ci.drops);
	json_decref(meta);
	json_decref(trl);
	capr_close(r);
	return ci.damaged ? EXIT_DAMAGED : EXIT_OK;
}
