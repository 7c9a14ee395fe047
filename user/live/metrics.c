// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "lib/array.h"
#include "abi/checker.h"
#include "event/events.h"
#include "abi/kernel.h"
#include "live/metrics.h"
#include "live/promtext.h"
#include "lib/util.h"

#define U(x) ((unsigned long long)(x))

struct cg_row {
	uint64_t id;
	struct abicap_cg_stats s; /* summed over CPUs (and incarnations) */
	const char *path; /* in the name cache; NULL: unknown */
	char idname[32]; /* "cgroup#ID" for an unknown one */
	const char *container, *pod, *qos; /* in the name cache */
	/* the runtime's names for the container ("" unknown), likewise */
	const char *ns, *pod_name, *ct_name;
	size_t at; /* its sample's index (sorted_rows()) */
};

static const char *row_name(const struct cg_row *r)
{
	return r->path ? r->path : r->idname;
}

static void cg_labels(FILE *f, const struct cg_row *r)
{
	prom_label_bounded(f, "cgroup", row_name(r), true, true);
	prom_label(f, "container", r->container, false, false);
	prom_label(f, "pod", r->pod, false, false);
	prom_label(f, "qos", r->qos, false, false);
	prom_label(f, "namespace", r->ns, false, false);
	prom_label(f, "pod_name", r->pod_name, false, false);
	prom_label(f, "container_name", r->ct_name, false, false);
}

static void help(FILE *f, const char *name, const char *type, const char *text)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, text, name, type);
}

static void add_stats(struct abicap_cg_stats *to, const struct abicap_cg_stats *s)
{
	to->rq_count += s->rq_count;
	to->rq_sum_ns += s->rq_sum_ns;
	for (int b = 0; b < ABICAP_LAT_BUCKETS; b++)
		to->rq_bucket[b] += s->rq_bucket[b];
	to->switches_voluntary += s->switches_voluntary;
	to->switches_involuntary += s->switches_involuntary;
	to->oncpu_ns += s->oncpu_ns;
	to->oncpu_unseen += s->oncpu_unseen;
}

static int cmp_rows(const void *a, const void *b)
{
	const struct cg_row *x = a, *y = b;
	int c = strcmp(row_name(x), row_name(y));

	return c ? c : (x->id > y->id) - (x->id < y->id);
}

/* Name a row: path, container, pod, QoS class. */
static void describe_row(struct metrics_ctx *m, struct cg_row *r)
{
	struct cgname c = { 0 };

	cgnames_get(m->names, r->id, &c);
	r->path = c.path;
	snprintf(r->idname, sizeof(r->idname), "cgroup#%" PRIu64, r->id);
	r->container = r->pod = r->qos = "";
	r->ns = r->pod_name = r->ct_name = "";
	if (c.ct) {
		r->container = c.label;
		r->pod = c.ct->pod_uid;
		r->qos = ct_qos_name(c.ct->qos);
	}
	if (c.names) {
		r->ns = c.names->ns;
		r->pod_name = c.names->pod;
		r->ct_name = c.names->name;
	}
}

static int cmp_named(const void *key, const void *e)
{
	return strcmp(key, ((const struct cg_named *)e)->name);
}

static struct cg_named *named_find(const struct cg_named_set *t,
				   const char *name)
{
	return t->n ? bsearch(name, t->v, t->n, sizeof(*t->v), cmp_named) :
		      NULL;
}

/* The entry for name, made (zeroed) if need be; NULL when out of memory. */
static struct cg_named *named_entry(struct cg_named_set *t, const char *name)
{
	struct cg_named *r = named_find(t, name), *nr;
	char *p;
	size_t at = 0;

	if (r)
		return r;
	p = strdup(name);
	if (!p || array_room(&t->v, t->n, &t->cap, sizeof(*t->v), 16)) {
		free(p);
		return NULL;
	}
	nr = t->v;
	while (at < t->n && strcmp(nr[at].name, name) < 0)
		at++;
	memmove(&nr[at + 1], &nr[at], (t->n - at) * sizeof(*nr));
	memset(&nr[at], 0, sizeof(nr[at]));
	nr[at].name = p;
	t->n++;
	return &nr[at];
}

static void named_drop(struct cg_named_set *t, const char *name)
{
	struct cg_named *r = named_find(t, name);
	size_t at;

	if (!r)
		return;
	at = r - t->v;
	free(r->name);
	memmove(r, r + 1, (t->n - at - 1) * sizeof(*r));
	t->n--;
}

static void named_free(struct cg_named_set *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].name);
	free(t->v);
	*t = (struct cg_named_set){ 0 };
}

void metrics_fini(struct metrics_ctx *m)
{
	cgslots_close(&m->slots);
	named_free(&m->retired);
	named_free(&m->shown);
	hashtab_free(&m->activity);
	hashtab_free(&m->active_ns);
	free(m->cpu_roots);
	m->cpu_roots = NULL;
}

/* Every id's row, named, sorted by name (then id); NULL when out of memory. */
static struct cg_row *sorted_rows(struct metrics_ctx *m,
				  const struct cg_sample *v, size_t n)
{
	struct cg_row *rows = calloc(n ? n : 1, sizeof(*rows));

	if (!rows)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		rows[i].id = v[i].id;
		rows[i].s = v[i].s;
		rows[i].at = i;
		describe_row(m, &rows[i]);
	}
	if (n)
		qsort(rows, n, sizeof(*rows), cmp_rows);
	return rows;
}

/*
 * One row per label set: the labels are a function of the name (the path,
 * or cgroup#ID), so the incarnations of a path, each with its own id, are
 * summed, with what pruned ones left. *n rows, malloc'd.
 */
static struct cg_row *merged_rows(struct metrics_ctx *m,
				  const struct cg_sample *v, size_t *n)
{
	struct cg_row *rows = sorted_rows(m, v, *n);
	size_t w = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		if (w && !strcmp(row_name(&rows[w - 1]), row_name(&rows[i]))) {
			add_stats(&rows[w - 1].s, &rows[i].s);
			continue;
		}
		rows[w++] = rows[i];
	}
	for (size_t i = 0; i < w; i++) {
		struct cg_named *r = named_find(&m->retired, row_name(&rows[i]));

		if (r)
			add_stats(&rows[i].s, &r->s);
	}
	*n = w;
	return rows;
}

/*
 * When id last switched or waited, as far as the reads of the map tell:
 * the order in which evict() chooses. Out of memory, an id's time is
 * not noted, and it goes among the first.
 */
static void note_activity(struct metrics_ctx *m, uint64_t id,
			  const struct abicap_cg_stats *s, uint64_t now)
{
	uint64_t f = s->rq_count + s->switches_voluntary +
		     s->switches_involuntary, *a = hashtab_get(&m->activity, id);

	if (a && *a == f)
		return;
	if (hashtab_put(&m->activity, id, f) >= 0)
		hashtab_put(&m->active_ns, id, now);
}

/* Every cgroup in the map, summed over CPUs; *n samples, malloc'd. */
static struct cg_sample *read_cgroups(struct metrics_ctx *m, int fd,
				      size_t *n, char *err, size_t errlen)
{
	int ncpus = capture_ncpus(m->cap);
	struct abicap_cg_stats *v = calloc(ncpus, sizeof(*v));
	const struct abicap_cg_stats *sv;
	struct cg_sample *out = NULL;
	size_t cap = 0;
	uint64_t key, *prev = NULL, now = mono_ns();

	*n = 0;
	if (!v)
		goto oom;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, v))
			continue; /* deleted meanwhile */
		if (array_room(&out, *n, &cap, sizeof(*out), 64))
			goto oom;
		memset(&out[*n], 0, sizeof(out[*n]));
		out[*n].id = key;
		for (int c = 0; c < ncpus; c++)
			add_stats(&out[*n].s, &v[c]);
		/* and its slot's, where it has one (given here if free) */
		cgslots_claim(&m->slots, key);
		switch (cgslots_values(&m->slots, key, &sv)) {
		case 1:
			for (int c = 0; c < m->slots.ncpus; c++)
				add_stats(&out[*n].s, &sv[c]);
			break;
		case -1:
			snprintf(err, errlen, "cannot read cgroup %llu's slot: "
				 "%s", (unsigned long long)key, strerror(errno));
			free(v);
			free(out);
			return NULL;
		}
		note_activity(m, key, &out[*n].s, now);
		(*n)++;
	}
	free(v);
	if (!out)
		out = calloc(1, sizeof(*out));
	if (out)
		return out;
oom:
	snprintf(err, errlen, "out of memory reading the cgroup map");
	free(v);
	free(out);
	return NULL;
}

static void write_rows(FILE *f, const struct cg_row *rows, size_t n)
{
	help(f, "abicap_runqueue_latency_seconds", "histogram",
	     "Time from wakeup or preemption to running on a CPU, by cgroup.");
	for (size_t i = 0; i < n; i++) {
		uint64_t cum = 0;

		for (int b = 0; b < ABICAP_LAT_BUCKETS; b++) {
			cum += rows[i].s.rq_bucket[b];
			fputs("abicap_runqueue_latency_seconds_bucket{", f);
			cg_labels(f, &rows[i]);
			fprintf(f, ",le=\"%.9g\"} %llu\n",
				(double)(ABICAP_LAT_BUCKET0_NS << b) / 1e9, U(cum));
		}
		fputs("abicap_runqueue_latency_seconds_bucket{", f);
		cg_labels(f, &rows[i]);
		fprintf(f, ",le=\"+Inf\"} %llu\n", U(rows[i].s.rq_count));
		fputs("abicap_runqueue_latency_seconds_sum{", f);
		cg_labels(f, &rows[i]);
		fprintf(f, "} %.9f\n", (double)rows[i].s.rq_sum_ns / 1e9);
		fputs("abicap_runqueue_latency_seconds_count{", f);
		cg_labels(f, &rows[i]);
		fprintf(f, "} %llu\n", U(rows[i].s.rq_count));
	}
	help(f, "abicap_context_switches_total", "counter",
	     "Tasks of the cgroup switched out: voluntary (blocked) or "
	     "involuntary (still runnable, preempted).");
	for (size_t i = 0; i < n; i++) {
		fputs("abicap_context_switches_total{", f);
		cg_labels(f, &rows[i]);
		fprintf(f, ",kind=\"voluntary\"} %llu\n",
			U(rows[i].s.switches_voluntary));
		fputs("abicap_context_switches_total{", f);
		cg_labels(f, &rows[i]);
		fprintf(f, ",kind=\"involuntary\"} %llu\n",
			U(rows[i].s.switches_involuntary));
	}
	help(f, "abicap_cpu_seconds_total", "counter",
	     "Time the cgroup's tasks ran on a CPU (from sched_switch).");
	for (size_t i = 0; i < n; i++) {
		fputs("abicap_cpu_seconds_total{", f);
		cg_labels(f, &rows[i]);
		fprintf(f, "} %.9f\n", (double)rows[i].s.oncpu_ns / 1e9);
	}
	help(f, "abicap_cpu_runs_unseen_total", "counter",
	     "Runs of the cgroup's tasks whose switch-in no sched_switch "
	     "tracepoint showed (a task the kernel hides from tracing was "
	     "current before; accounting events only): their time is in no "
	     "abicap_cpu_seconds_total.");
	for (size_t i = 0; i < n; i++) {
		fputs("abicap_cpu_runs_unseen_total{", f);
		cg_labels(f, &rows[i]);
		fprintf(f, "} %llu\n", U(rows[i].s.oncpu_unseen));
	}
}

/*
 * Each named cgroup's CPU quota throttling, read from its cpu.stat now
 * (the kernel's own counters since the cgroup was made): series only for
 * cgroups whose cpu.stat has them (the cpu controller on).
 */
static void write_throttling(FILE *f, struct metrics_ctx *m,
			     const struct cg_row *rows, size_t n)
{
	static const char *const name[] = {
		"abicap_cgroup_throttled_seconds_total",
		"abicap_cgroup_throttled_periods_total",
		"abicap_cgroup_periods_total",
	};
	static const char *const text[] = {
		"Time the cgroup's CPU quota held its tasks off the CPU (the "
		"kernel's cpu.stat at scrape: throttled_usec, or a v1 cpu "
		"cgroup's throttled_time): run-queue waits that are the quota, "
		"not contention.",
		"Enforcement periods in which the cgroup was throttled (cpu.stat "
		"nr_throttled at scrape).",
		"Enforcement periods elapsed with the cgroup runnable (cpu.stat "
		"nr_periods at scrape).",
	};
	struct cg_cpu_stat *st = calloc(n ? n : 1, sizeof(*st));
	bool *ok = calloc(n ? n : 1, sizeof(*ok));

	if (!m->cpu_roots && m->cgroup_root &&
	    (m->cpu_roots = malloc(sizeof(*m->cpu_roots))))
		cg_cpu_roots_find(m->cpu_roots, m->cgroup_root);
	for (size_t i = 0; st && ok && m->cpu_roots && i < n; i++)
		ok[i] = rows[i].path && rows[i].path[0] == '/' &&
			!cg_cpu_stat_read(m->cpu_roots, rows[i].path, &st[i]);
	for (int k = 0; st && ok && k < 3; k++) {
		help(f, name[k], "counter", text[k]);
		for (size_t i = 0; i < n; i++) {
			if (!ok[i])
				continue;
			fprintf(f, "%s{", name[k]);
			cg_labels(f, &rows[i]);
			if (k == 0)
				fprintf(f, "} %.9f\n", st[i].throttled_ns / 1e9);
			else
				fprintf(f, "} %llu\n", U(k == 1 ? st[i].nr_throttled :
							  st[i].nr_periods));
		}
	}
	free(st);
	free(ok);
}

static void write_cpus(FILE *f, struct metrics_ctx *m)
{
	struct bpf_object *obj = capture_object(m->cap);
	int idle = bpf_map__fd(bpf_object__find_map_by_name(obj, "idle_stats"));
	int freq = bpf_map__fd(bpf_object__find_map_by_name(obj, "cpu_freq"));
	int ncpus = capture_ncpus(m->cap);
	struct abicap_idle_stat *v = calloc(ncpus, sizeof(*v));
	struct abicap_idle_stat (*all)[ABICAP_IDLE_STATES] =
		calloc(ncpus, sizeof(*all));

	if (v && all)
		for (__u32 s = 0; s < ABICAP_IDLE_STATES; s++)
			if (!bpf_map_lookup_elem(idle, &s, v))
				for (int c = 0; c < ncpus; c++)
					all[c][s] = v[c];
	help(f, "abicap_cpu_idle_seconds_total", "counter",
	     "Time each CPU spent in each idle state (cpu_idle).");
	for (int c = 0; all && c < ncpus; c++)
		for (int s = 0; s < ABICAP_IDLE_STATES; s++)
			if (all[c][s].count)
				fprintf(f, "abicap_cpu_idle_seconds_total{cpu=\"%d\","
					"state=\"%d\"} %.9f\n", c, s,
					(double)all[c][s].ns / 1e9);
	help(f, "abicap_cpu_idle_entries_total", "counter",
	     "Idle periods completed, by CPU and idle state.");
	for (int c = 0; all && c < ncpus; c++)
		for (int s = 0; s < ABICAP_IDLE_STATES; s++)
			if (all[c][s].count)
				fprintf(f, "abicap_cpu_idle_entries_total{cpu=\"%d\","
					"state=\"%d\"} %llu\n", c, s,
					U(all[c][s].count));
	help(f, "abicap_cpu_frequency_hertz", "gauge",
	     "Each CPU's frequency at its last cpu_frequency event (CPUs "
	     "without one since serve started are absent).");
	for (__u32 c = 0; (int)c < ncpus && c < ABICAP_MAX_CPUS; c++) {
		__u32 khz;

		if (!bpf_map_lookup_elem(freq, &c, &khz) && khz)
			fprintf(f, "abicap_cpu_frequency_hertz{cpu=\"%u\"} %llu"
				"\n", c, U(khz) * 1000);
	}
	free(v);
	free(all);
}

void metrics_write_losses(FILE *f, const struct capture_misses *ms,
			  const uint64_t *aux)
{
	static const struct {
		enum abicap_aux i;
		const char *reason;
	} why[] = {
		{ ABICAP_AUX_CG_MAP_FULL, "cgroup_map_full" },
		{ ABICAP_AUX_QUEUE_LOST, "runqueue_wait_not_kept" },
		{ ABICAP_AUX_IDLE_STATE_BIG, "idle_state_out_of_range" },
		{ ABICAP_AUX_CPU_ID_BIG, "cpu_out_of_range" },
		{ ABICAP_AUX_SUMS_BACK, "kernel_sums_went_back" },
	};

	help(f, "abicap_bpf_recursion_misses_total", "counter",
	     "Runs of the event's BPF program the kernel skipped, the program "
	     "already running on that CPU: events in no other count.");
	for (int e = 0; ms && e < ABICAP_EV_COUNT; e++)
		if (ms->on[e])
			fprintf(f, "abicap_bpf_recursion_misses_total{event=\"%s\"}"
				" %llu\n", event_name(e), U(ms->ev[e]));
	help(f, "abicap_updates_lost_total", "counter",
	     "Statistics updates the BPF programs could not make, by reason "
	     "(an event with several counts once in abicap_events_lost_total).");
	for (size_t i = 0; aux && i < sizeof(why) / sizeof(why[0]); i++)
		fprintf(f, "abicap_updates_lost_total{reason=\"%s\"} %llu\n",
			why[i].reason, U(aux[why[i].i]));
	help(f, "abicap_runqueue_waits_merged_total", "counter",
	     "Run-queue waits the scheduler counted at switch-ins that no "
	     "sched_switch tracepoint showed (accounting kernel): each one's "
	     "time is in the task's next wait, counted once in "
	     "abicap_runqueue_latency_seconds; not a loss.");
	if (aux)
		fprintf(f, "abicap_runqueue_waits_merged_total %llu\n",
			U(aux[ABICAP_AUX_WAITS_MERGED]));
}

/* The kernel side's losses beyond seen and lost (absent if unreadable). */
static void write_losses(FILE *f, struct capture *c)
{
	struct capture_misses ms;
	uint64_t aux[ABICAP_AUX_COUNT];

	metrics_write_losses(f, capture_misses(c, &ms) || !ms.known ? NULL : &ms,
			     capture_aux(c, aux) ? NULL : aux);
}

static void write_health(FILE *f, struct metrics_ctx *m, size_t ncg)
{
	const struct check_result *res = capture_check(m->cap);
	struct abicap_counter cnt[ABICAP_EV_COUNT];
	bool have = !capture_counters(m->cap, -1, cnt);

	help(f, "abicap_abi_contract_status", "gauge",
	     "The ABI contract on this kernel, item by item: 0 satisfied, 1 "
	     "degraded, 2 broken (event: the event, or the struct of a field).");
	for (int i = 0; i < res->n; i++) {
		fputs("abicap_abi_contract_status{", f);
		prom_label(f, "event", res->v[i].scope, true, false);
		prom_label(f, "item", res->v[i].item, false, false);
		fprintf(f, "} %d\n", res->v[i].status == V_OK ? 0 :
			res->v[i].status == V_DEGRADED ? 1 : 2);
	}
	help(f, "abicap_events_total", "counter",
	     "Events the BPF programs handled, by event.");
	for (int e = 0; have && e < ABICAP_EV_COUNT; e++)
		if (capture_variant(m->cap, e))
			fprintf(f, "abicap_events_total{event=\"%s\"} %llu\n",
				event_name(e), U(cnt[e].seen));
	help(f, "abicap_events_lost_total", "counter",
	     "Events not counted in full, by event, each once (at most "
	     "abicap_events_total): reasons in abicap_updates_lost_total.");
	for (int e = 0; have && e < ABICAP_EV_COUNT; e++)
		if (capture_variant(m->cap, e))
			fprintf(f, "abicap_events_lost_total{event=\"%s\"} "
				"%llu\n", event_name(e), U(cnt[e].dropped));
	help(f, "abicap_accounting_info", "gauge",
	     "What the waits and on-CPU time are measured from: kernel (the "
	     "scheduler's sched_info and run queue clocks) or events "
	     "(sched_wakeup programs and the BPF clock).");
	fprintf(f, "abicap_accounting_info{source=\"%s\"} 1\n",
		capture_kernel_accounting(m->cap) ? "kernel" : "events");
	write_losses(f, m->cap);
	help(f, "abicap_cgroups", "gauge", "Cgroups with statistics in the map.");
	fprintf(f, "abicap_cgroups %zu\n", ncg);
	help(f, "abicap_cgroups_max", "gauge",
	     "Room in the map (serve --max-cgroups).");
	fprintf(f, "abicap_cgroups_max %u\n", m->max_cgroups);
	help(f, "abicap_cgroups_pruned_total", "counter",
	     "Entries of removed cgroups deleted from the map (their counts "
	     "stay: in their path's series, else in cgroup=\"(removed)\").");
	fprintf(f, "abicap_cgroups_pruned_total %llu\n", U(m->pruned));
	help(f, "abicap_cgroups_evicted_total", "counter",
	     "Entries of live cgroups evicted from a map nine tenths full, "
	     "idle longest first (their counts: in cgroup=\"(evicted)\"; "
	     "raise --max-cgroups if this grows steadily).");
	fprintf(f, "abicap_cgroups_evicted_total %llu\n", U(m->evictions));
	help(f, "abicap_http_connections_closed_total", "counter",
	     "Connections serve closed to keep scrapes flowing: evicted by a "
	     "newer one over the limits, or past the request deadline.");
	fprintf(f, "abicap_http_connections_closed_total{reason=\"evicted\"} "
		"%llu\n", U(m->http_evicted));
	fprintf(f, "abicap_http_connections_closed_total{reason=\"deadline\"} "
		"%llu\n", U(m->http_expired));
	help(f, "abicap_build_info", "gauge", "abicap's version and the kernel.");
	fputs("abicap_build_info{", f);
	prom_label(f, "version", ABICAP_VERSION, true, false);
	prom_label(f, "kernel", kernel_release(), false, false);
	fputs("} 1\n", f);
}

int metrics_write_cgroups(FILE *f, struct metrics_ctx *m,
			  const struct cg_sample *v, size_t n)
{
	struct cg_row *rows = merged_rows(m, v, &n);

	if (!rows)
		return -ENOMEM;
	write_rows(f, rows, n);
	write_throttling(f, m, rows, n);
	free(rows);
	return 0;
}

enum cg_state { CG_LIVE, CG_GONE, CG_UNSURE };

/*
 * Whether a named cgroup still is: its path holds the same directory (an
 * id is the directory's inode number and is not reused), or no longer
 * exists or holds a newer incarnation. Anything else (a directory serve may
 * not search, no name) cannot tell.
 */
static enum cg_state stat_state(const struct metrics_ctx *m, uint64_t id,
				const char *path)
{
	char dir[8192];
	struct stat st;

	if (!path || !m->cgroup_root)
		return CG_UNSURE;
	snprintf(dir, sizeof(dir), "%s%s", m->cgroup_root, path);
	if (stat(dir, &st))
		return errno == ENOENT || errno == ENOTDIR ? CG_GONE : CG_UNSURE;
	return (uint64_t)st.st_ino == id ? CG_LIVE : CG_GONE;
}

/*
 * Each id in the map: live, gone, or (only if a walk fails) unsure. What
 * the cached names do not settle, one walk of the hierarchy does: it begins
 * after the map was read, where each id was a cgroup in use, so an id it
 * does not find was removed since (or is where serve cannot look: below a
 * directory it may not read, which only that directory's owner can do, to
 * its own cgroups). Without privilege, open_by_handle_at() is no help.
 */
static void classify(struct metrics_ctx *m, const struct cg_sample *v,
		     size_t n, enum cg_state *st)
{
	bool unsure = false;

	for (size_t i = 0; i < n; i++) {
		st[i] = stat_state(m, v[i].id, cgnames_cached(m->names, v[i].id));
		unsure = unsure || st[i] == CG_UNSURE;
	}
	if (!unsure || !m->cgroup_root || cgnames_rescan(m->names))
		return;
	for (size_t i = 0; i < n; i++)
		if (st[i] == CG_UNSURE)
			st[i] = cgnames_walked(m->names, v[i].id) ? CG_LIVE :
								      CG_GONE;
}

/* to += a - b, field by field (never below 0) */
static void add_delta(struct abicap_cg_stats *to, const struct abicap_cg_stats *a,
		      const struct abicap_cg_stats *b)
{
#define D(f) (a->f > b->f ? a->f - b->f : 0)
	to->rq_count += D(rq_count);
	to->rq_sum_ns += D(rq_sum_ns);
	for (int k = 0; k < ABICAP_LAT_BUCKETS; k++)
		to->rq_bucket[k] += D(rq_bucket[k]);
	to->switches_voluntary += D(switches_voluntary);
	to->switches_involuntary += D(switches_involuntary);
	to->oncpu_ns += D(oncpu_ns);
	to->oncpu_unseen += D(oncpu_unseen);
#undef D
}

/* Where the counts of a series that ends go: (removed) or (evicted). */
static void retire(struct metrics_ctx *m, const char *name,
		   struct abicap_cg_stats *out, bool evicting)
{
	struct cg_named *r = named_find(&m->retired, name), *seen;

	if (r)
		add_stats(out, &r->s);
	seen = named_find(&m->shown, name);
	if (evicting)
		add_stats(&m->evicted, out); /* all of it: the sums stay */
	else
		add_delta(&m->removed, out, seen ? &seen->s :
			  &(struct abicap_cg_stats){ 0 });
	named_drop(&m->retired, name);
	named_drop(&m->shown, name);
}

/*
 * Delete the ids of v[i] with del[i] from the map, their counts kept: in
 * their series (by name: the path, or cgroup#ID) while another id of that
 * name stays, else the series ends; what no scrape showed of a removed
 * cgroup goes to cgroup="(removed)", all an evicted one counted to
 * cgroup="(evicted)". So no counter goes down and nothing is counted
 * twice. del[i] ends true for the ids deleted, whose names are forgotten.
 */
static void drop(struct metrics_ctx *m, int fd, const struct cg_sample *v,
		 size_t n, bool *del, bool evicting)
{
	struct cg_row *rows;
	size_t want = 0;

	for (size_t i = 0; i < n; i++)
		want += del[i];
	if (!want)
		return;
	rows = sorted_rows(m, v, n);
	if (!rows) {
		memset(del, 0, n * sizeof(*del)); /* tried again later */
		return;
	}
	for (size_t a = 0, b; a < n; a = b) {
		const char *name = row_name(&rows[a]);
		struct abicap_cg_stats out = { 0 };
		bool stays = false, any = false;
		struct cg_named *r = NULL;

		for (b = a; b < n && !strcmp(row_name(&rows[b]), name); b++) {
			stays = stays || !del[rows[b].at];
			any = any || del[rows[b].at];
		}
		if (!any)
			continue;
		any = false;
		/* where the series goes on, room for the counts comes first */
		if (stays && !(r = named_entry(&m->retired, name)))
			for (size_t k = a; k < b; k++)
				del[rows[k].at] = false;
		for (size_t k = a; k < b; k++) {
			if (!del[rows[k].at])
				continue;
			if (bpf_map_delete_elem(fd, &rows[k].id)) {
				del[rows[k].at] = false;
				stays = true;
				continue;
			}
			cgslots_release(&m->slots, rows[k].id, mono_ns());
			hashtab_del(&m->activity, rows[k].id);
			hashtab_del(&m->active_ns, rows[k].id);
			add_stats(&out, &rows[k].s);
			if (evicting)
				m->evictions++;
			else
				m->pruned++;
			any = true;
		}
		if (!any)
			continue;
		if (stays && (r || (r = named_entry(&m->retired, name)))) {
			add_stats(&r->s, &out); /* the series goes on */
			continue;
		}
		retire(m, name, &out, evicting);
	}
	free(rows);
	for (size_t i = 0; i < n; i++)
		if (del[i])
			cgnames_forget(m->names, v[i].id);
}

/* What this scrape showed of each series: the base of drop()'s (removed). */
static void remember_shown(struct metrics_ctx *m, const struct cg_row *rows,
			   size_t n)
{
	struct cg_named_set t = { .v = calloc(n ? n : 1, sizeof(*t.v)),
				  .cap = n ? n : 1 };

	if (!t.v)
		return; /* the old one stays: (removed) may count less */
	for (size_t i = 0; i < n; i++) {
		t.v[t.n].name = strdup(row_name(&rows[i]));
		if (!t.v[t.n].name)
			break;
		t.v[t.n++].s = rows[i].s;
	}
	named_free(&m->shown);
	m->shown = t;
}

static int map_fd(struct metrics_ctx *m, const char *name)
{
	return bpf_map__fd(bpf_object__find_map_by_name(capture_object(m->cap),
							name));
}

static int cg_map_fd(struct metrics_ctx *m)
{
	return map_fd(m, "cg_stats");
}

int metrics_open_slots(struct metrics_ctx *m, char *err, size_t errlen)
{
	struct bpf_map *owner = bpf_object__find_map_by_name(
		capture_object(m->cap), "cg_owner");

	/* none on this kernel (see capture.c): cg_stats alone */
	if (!owner || !(bpf_map__map_flags(owner) & BPF_F_MMAPABLE))
		return 0;
	if (!cgslots_open(&m->slots, map_fd(m, "cg_owner"),
			  map_fd(m, "cg_slots"), cg_slots_for(m->max_cgroups),
			  capture_ncpus(m->cap)))
		return 0;
	snprintf(err, errlen, "the cgroup slots cannot be mapped (%s): "
		 "statistics go to the cgroup map alone", strerror(errno));
	return -1;
}

/*
 * Slots for the entries the programs made since the last look, once a
 * second at most: under a burst of cgroups a walk of the map every tick
 * would be spent beside the sweeps that keep it from filling.
 */
static void claim_new(struct metrics_ctx *m, int fd, const uint64_t *aux,
		      uint64_t now)
{
	uint64_t key, *prev = NULL;

	if (!m->slots.n || aux[ABICAP_AUX_CG_CREATED] == m->created_claimed ||
	    now < m->next_claim_ns)
		return;
	m->created_claimed = aux[ABICAP_AUX_CG_CREATED];
	m->next_claim_ns = now + METRICS_CLAIM_NS;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		cgslots_claim(&m->slots, key);
	}
}

/* rows with one more, named name, counting s (rows freed if out of memory). */
static struct cg_row *extra_row(struct cg_row *rows, size_t *n,
				const char *name, const struct abicap_cg_stats *s)
{
	struct cg_row *nr = realloc(rows, (*n + 1) * sizeof(*rows));

	if (!nr) {
		free(rows);
		return NULL;
	}
	memset(&nr[*n], 0, sizeof(nr[*n]));
	nr[*n].path = name;
	nr[*n].container = nr[*n].pod = nr[*n].qos = "";
	nr[*n].ns = nr[*n].pod_name = nr[*n].ct_name = "";
	nr[(*n)++].s = *s;
	return nr;
}

/*
 * The per-cgroup families: named series, then cgroup="(removed)" (serve)
 * for cgroups pruned before a scrape showed them.
 */
static int write_cgroups(FILE *f, struct metrics_ctx *m,
			 const struct cg_sample *v, size_t n)
{
	struct cg_row *rows = merged_rows(m, v, &n);

	if (!rows)
		return -ENOMEM;
	remember_shown(m, rows, n);
	if ((m->removed_series &&
	     !(rows = extra_row(rows, &n, CG_REMOVED_NAME, &m->removed))) ||
	    (m->removed_series && m->evictions &&
	     !(rows = extra_row(rows, &n, CG_EVICTED_NAME, &m->evicted))))
		return -ENOMEM;
	write_rows(f, rows, n);
	write_throttling(f, m, rows, n);
	free(rows);
	return 0;
}

char *metrics_render(struct metrics_ctx *m, size_t *len, char *err,
		     size_t errlen)
{
	int fd = cg_map_fd(m);
	enum cg_state *st = NULL;
	struct cg_sample *v;
	bool *del = NULL;
	char *buf = NULL;
	size_t n, w = 0;
	FILE *f;

	v = read_cgroups(m, fd, &n, err, errlen);
	if (!v)
		return NULL;
	st = calloc(n ? n : 1, sizeof(*st));
	del = calloc(n ? n : 1, sizeof(*del));
	if (!st || !del)
		goto oom;
	classify(m, v, n, st);
	/* removed before anything named them: no series to show them in */
	for (size_t i = 0; i < n; i++)
		del[i] = st[i] == CG_GONE && !cgnames_cached(m->names, v[i].id);
	drop(m, fd, v, n, del, false);
	for (size_t i = 0; i < n; i++)
		if (!del[i]) {
			v[w] = v[i];
			st[w++] = st[i];
		}
	n = w;
	f = open_memstream(&buf, len);
	if (!f || write_cgroups(f, m, v, n)) {
		if (f)
			fclose(f);
		free(buf);
		goto oom;
	}
	write_cpus(f, m);
	write_health(f, m, n);
	if (fclose(f)) {
		snprintf(err, errlen, "cannot build the metrics: %s",
			 strerror(errno));
		free(buf);
		buf = NULL;
	}
	/* shown one last time: the removed ones go */
	if (buf) {
		for (size_t i = 0; i < n; i++)
			del[i] = st[i] == CG_GONE;
		drop(m, fd, v, n, del, false);
	}
	free(st);
	free(del);
	free(v);
	return buf;
oom:
	snprintf(err, errlen, "out of memory");
	free(st);
	free(del);
	free(v);
	return NULL;
}

struct idle_ent {
	uint64_t since;
	size_t i;
};

static int cmp_idle(const void *a, const void *b)
{
	const struct idle_ent *x = a, *y = b;

	return x->since < y->since ? -1 : x->since > y->since ? 1 :
	       x->i < y->i ? -1 : x->i > y->i;
}

/*
 * A map nine tenths full (n entries, del[] those already gone): the live
 * cgroups idle longest (least recently seen switching or waiting) leave
 * it until it is three quarters full. Their series end and what they
 * counted goes to cgroup="(evicted)"; one that runs again starts a new
 * entry (its series starts again from 0). The entries evicted.
 */
static size_t evict(struct metrics_ctx *m, int fd, const struct cg_sample *v,
		    size_t n, bool *del)
{
	size_t live = 0, want, k = 0;
	struct idle_ent *order;

	for (size_t i = 0; i < n; i++)
		live += !del[i];
	if (live * 10 < (size_t)m->max_cgroups * 9)
		return 0;
	want = live - (size_t)m->max_cgroups * 3 / 4;
	order = calloc(live, sizeof(*order));
	if (!order)
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t *t = hashtab_get(&m->active_ns, v[i].id);

		if (!del[i])
			order[k++] = (struct idle_ent){ t ? *t : 0, i };
	}
	qsort(order, k, sizeof(*order), cmp_idle);
	memset(del, 0, n * sizeof(*del));
	for (size_t j = 0; j < want; j++)
		del[order[j].i] = true;
	free(order);
	drop(m, fd, v, n, del, true);
	k = 0;
	for (size_t i = 0; i < n; i++)
		k += del[i];
	return k;
}

void metrics_maintain(struct metrics_ctx *m)
{
	struct abicap_counter cnt[ABICAP_EV_COUNT];
	uint64_t now = mono_ns(), lost = 0, aux[ABICAP_AUX_COUNT], took;
	int fd = cg_map_fd(m);
	size_t n = 0, freed = 0;
	struct cg_sample *v;
	enum cg_state *st;
	char err[128];
	bool *del, losing, have_aux;

	if (!capture_counters(m->cap, -1, cnt))
		for (int e = 0; e < ABICAP_EV_COUNT; e++)
			lost += cnt[e].dropped;
	losing = lost != m->lost_seen;
	m->lost_seen = lost;
	have_aux = !capture_aux(m->cap, aux);
	/* new cgroups get their slots within a second, not at the next scrape */
	if (have_aux)
		claim_new(m, fd, aux, now);
	cgslots_maintain(&m->slots, now);
	if (now < m->next_sweep_ns)
		return;
	/* entries made by the programs, less those deleted here: the fill */
	if (!losing && have_aux &&
	    (aux[ABICAP_AUX_CG_CREATED] - m->pruned - m->evictions) * 4 <
	    (uint64_t)m->max_cgroups * 3)
		return;
	v = read_cgroups(m, fd, &n, err, sizeof(err));
	st = v ? calloc(n ? n : 1, sizeof(*st)) : NULL;
	del = st ? calloc(n ? n : 1, sizeof(*del)) : NULL;
	if (del) {
		classify(m, v, n, st);
		for (size_t i = 0; i < n; i++)
			del[i] = st[i] == CG_GONE;
		drop(m, fd, v, n, del, false);
		for (size_t i = 0; i < n; i++)
			freed += del[i];
		freed += evict(m, fd, v, n, del);
	}
	free(v);
	free(st);
	free(del);
	/* at most a tenth of the time, and once a second when nothing went */
	took = mono_ns() - now;
	m->next_sweep_ns = mono_ns() + (!freed ? METRICS_IDLE_NS :
					10 * took > METRICS_SWEEP_NS ? 10 * took :
					METRICS_SWEEP_NS);
}
