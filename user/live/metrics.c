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
#include "abi/checker.h"
#include "event/events.h"
#include "abi/kernel.h"
#include "live/metrics.h"
#include "live/promtext.h"

#define U(x) ((unsigned long long)(x))

struct cg_row {
	uint64_t id;
	struct abicap_cg_stats s; /* summed over CPUs (and incarnations) */
	const char *path; /* in the name cache; NULL: unknown */
	char idname[32]; /* "cgroup#ID" for an unknown one */
	const char *container, *pod, *qos; /* in the name cache */
};

static const char *row_name(const struct cg_row *r)
{
	return r->path ? r->path : r->idname;
}

static void cg_labels(FILE *f, const struct cg_row *r)
{
	prom_label(f, "cgroup", row_name(r), true, true);
	prom_label(f, "container", r->container, false, false);
	prom_label(f, "pod", r->pod, false, false);
	prom_label(f, "qos", r->qos, false, false);
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
	if (c.ct) {
		r->container = c.label;
		r->pod = c.ct->pod_uid;
		r->qos = ct_qos_name(c.ct->qos);
	}
}

static int cmp_retired(const void *key, const void *e)
{
	return strcmp(key, ((const struct cg_retired *)e)->path);
}

static struct cg_retired *find_retired(struct metrics_ctx *m, const char *path)
{
	return m->nretired ? bsearch(path, m->retired, m->nretired,
				     sizeof(*m->retired), cmp_retired) : NULL;
}

/*
 * The entry keeping the counts of path's pruned incarnations, made (empty)
 * if need be before anything is deleted; NULL when out of memory.
 */
static struct cg_retired *retired_entry(struct metrics_ctx *m, const char *path)
{
	struct cg_retired *r = find_retired(m, path), *nr;
	char *p;
	size_t at = 0;

	if (r)
		return r;
	p = strdup(path);
	nr = p ? realloc(m->retired, (m->nretired + 1) * sizeof(*nr)) : NULL;
	if (!nr) {
		free(p);
		return NULL;
	}
	m->retired = nr;
	while (at < m->nretired && strcmp(nr[at].path, path) < 0)
		at++;
	memmove(&nr[at + 1], &nr[at], (m->nretired - at) * sizeof(*nr));
	memset(&nr[at], 0, sizeof(nr[at]));
	nr[at].path = p;
	m->nretired++;
	return &nr[at];
}

/* No incarnation of path is left in the map: its series ends. */
static void unretire(struct metrics_ctx *m, const char *path)
{
	struct cg_retired *r = find_retired(m, path);
	size_t at;

	if (!r)
		return;
	at = r - m->retired;
	free(r->path);
	memmove(r, r + 1, (m->nretired - at - 1) * sizeof(*r));
	m->nretired--;
}

void metrics_fini(struct metrics_ctx *m)
{
	for (size_t i = 0; i < m->nretired; i++)
		free(m->retired[i].path);
	free(m->retired);
	m->retired = NULL;
	m->nretired = 0;
}

/*
 * One row per label set: the labels are a function of the name (the path,
 * or cgroup#ID), so the incarnations of a path, each with its own id, are
 * summed, with what pruned ones left. *n rows, malloc'd.
 */
static struct cg_row *merged_rows(struct metrics_ctx *m,
				  const struct cg_sample *v, size_t *n)
{
	struct cg_row *rows = calloc(*n ? *n : 1, sizeof(*rows));
	size_t w = 0;

	if (!rows)
		return NULL;
	for (size_t i = 0; i < *n; i++) {
		rows[i].id = v[i].id;
		rows[i].s = v[i].s;
		describe_row(m, &rows[i]);
	}
	if (*n)
		qsort(rows, *n, sizeof(*rows), cmp_rows);
	for (size_t i = 0; i < *n; i++) {
		if (w && !strcmp(row_name(&rows[w - 1]), row_name(&rows[i]))) {
			add_stats(&rows[w - 1].s, &rows[i].s);
			continue;
		}
		rows[w++] = rows[i];
	}
	for (size_t i = 0; i < w; i++) {
		struct cg_retired *r = rows[i].path ?
				       find_retired(m, rows[i].path) : NULL;

		if (r)
			add_stats(&rows[i].s, &r->s);
	}
	*n = w;
	return rows;
}

/* Every cgroup in the map, summed over CPUs; *n samples, malloc'd. */
static struct cg_sample *read_cgroups(struct metrics_ctx *m, int fd,
				      size_t *n, char *err, size_t errlen)
{
	int ncpus = capture_ncpus(m->cap);
	struct abicap_cg_stats *v = calloc(ncpus, sizeof(*v));
	struct cg_sample *out = NULL;
	size_t cap = 0;
	uint64_t key, *prev = NULL;

	*n = 0;
	if (!v)
		goto oom;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, v))
			continue; /* deleted meanwhile */
		if (*n == cap) {
			struct cg_sample *nv;

			cap = cap ? cap * 2 : 64;
			nv = realloc(out, cap * sizeof(*out));
			if (!nv)
				goto oom;
			out = nv;
		}
		memset(&out[*n], 0, sizeof(out[*n]));
		out[*n].id = key;
		for (int c = 0; c < ncpus; c++)
			add_stats(&out[*n].s, &v[c]);
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
		fprintf(f, "abicap_events_total{event=\"%s\"} %llu\n",
			event_name(e), U(cnt[e].seen));
	help(f, "abicap_events_lost_total", "counter",
	     "Events not counted in full, by event, each once (at most "
	     "abicap_events_total): reasons in abicap_updates_lost_total.");
	for (int e = 0; have && e < ABICAP_EV_COUNT; e++)
		fprintf(f, "abicap_events_lost_total{event=\"%s\"} %llu\n",
			event_name(e), U(cnt[e].dropped));
	write_losses(f, m->cap);
	help(f, "abicap_cgroups", "gauge", "Cgroups with statistics in the map.");
	fprintf(f, "abicap_cgroups %zu\n", ncg);
	help(f, "abicap_cgroups_max", "gauge",
	     "Room in the map (serve --max-cgroups).");
	fprintf(f, "abicap_cgroups_max %u\n", m->max_cgroups);
	help(f, "abicap_cgroups_pruned_total", "counter",
	     "Removed cgroups whose statistics were deleted to make room.");
	fprintf(f, "abicap_cgroups_pruned_total %llu\n", U(m->pruned));
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
	free(rows);
	return 0;
}

/*
 * The id is no longer a cgroup: its path is gone, or holds a newer
 * incarnation (a cgroup id is its directory's inode number, not reused),
 * or it has no path and is known to be removed. An id not named yet (the
 * walk that would name it is rate-limited) is kept.
 */
static bool sample_gone(const struct metrics_ctx *m, uint64_t id,
			const char *path)
{
	char dir[8192];
	struct stat st;

	if (!path)
		return cgnames_removed(m->names, id);
	if (!m->cgroup_root)
		return false;
	snprintf(dir, sizeof(dir), "%s%s", m->cgroup_root, path);
	if (stat(dir, &st))
		return errno == ENOENT;
	return (uint64_t)st.st_ino != id;
}

static bool same_path(struct metrics_ctx *m, uint64_t id, const char *path)
{
	const char *p = cgnames_path(m->names, id);

	return p && path && !strcmp(p, path);
}

/*
 * Make room: forget removed cgroups after a scrape showed their last
 * values. A path's series stays monotonic while any incarnation of it is
 * in the map (the pruned ones' counts are kept), and ends with the last.
 */
static void prune(struct metrics_ctx *m, int fd, const struct cg_sample *v,
		  size_t n)
{
	bool *gone = calloc(n ? n : 1, sizeof(*gone));

	if (!gone)
		return; /* tried again at the next scrape */
	for (size_t i = 0; i < n; i++) {
		const char *path = cgnames_path(m->names, v[i].id);

		/*
		 * Not named yet: it may be a new incarnation of a path whose
		 * old one would be pruned with nothing to keep its counts.
		 * Pruning waits for the next scrape, by when a walk named it.
		 */
		if (!path && !cgnames_removed(m->names, v[i].id)) {
			free(gone);
			return;
		}
		gone[i] = sample_gone(m, v[i].id, path);
	}
	for (size_t i = 0; i < n; i++) {
		const char *path = cgnames_path(m->names, v[i].id);
		struct cg_retired *r;
		bool live = false;

		if (!gone[i])
			continue;
		for (size_t j = 0; j < n && !live; j++)
			live = !gone[j] && same_path(m, v[j].id, path);
		/* the counts must not vanish from a series that goes on */
		r = live ? retired_entry(m, path) : NULL;
		if ((live && !r) || bpf_map_delete_elem(fd, &v[i].id))
			continue; /* tried again at the next scrape */
		m->pruned++;
		if (r)
			add_stats(&r->s, &v[i].s);
		else if (path)
			unretire(m, path);
	}
	free(gone);
}

char *metrics_render(struct metrics_ctx *m, size_t *len, char *err,
		     size_t errlen)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(
		capture_object(m->cap), "cg_stats"));
	struct cg_sample *v;
	char *buf = NULL;
	size_t n;
	FILE *f;

	v = read_cgroups(m, fd, &n, err, errlen);
	if (!v)
		return NULL;
	f = open_memstream(&buf, len);
	if (!f || metrics_write_cgroups(f, m, v, n)) {
		snprintf(err, errlen, "out of memory");
		if (f)
			fclose(f);
		free(buf);
		free(v);
		return NULL;
	}
	write_cpus(f, m);
	write_health(f, m, n);
	if (fclose(f)) {
		snprintf(err, errlen, "cannot build the metrics: %s",
			 strerror(errno));
		free(buf);
		buf = NULL;
	}
	/* shown one last time: make room by forgetting removed cgroups */
	if (buf && n * 4 >= (size_t)m->max_cgroups * 3)
		prune(m, fd, v, n);
	free(v);
	return buf;
}
