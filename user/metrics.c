// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "checker.h"
#include "events.h"
#include "kernel.h"
#include "metrics.h"

#define U(x) ((unsigned long long)(x))

struct cg_row {
	uint64_t id;
	struct abicap_cg_stats s; /* summed over CPUs */
	const char *path; /* in the name cache; NULL: unknown */
	char idname[32]; /* "cgroup#ID" for an unknown one */
	char container[128];
	char pod[40];
	const char *qos;
};

/* A Prometheus label value: backslash, quote and newline escaped. */
static void put_label(FILE *f, const char *name, const char *v, bool first)
{
	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fprintf(f, "\\%c", *v);
		else if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
	fputc('"', f);
}

static const char *row_name(const struct cg_row *r)
{
	return r->path ? r->path : r->idname;
}

static void cg_labels(FILE *f, const struct cg_row *r)
{
	put_label(f, "cgroup", row_name(r), true);
	put_label(f, "container", r->container, false);
	put_label(f, "pod", r->pod, false);
	put_label(f, "qos", r->qos, false);
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
	r->container[0] = r->pod[0] = 0;
	r->qos = "";
	if (c.ct) {
		snprintf(r->container, sizeof(r->container), "%s", c.label);
		snprintf(r->pod, sizeof(r->pod), "%s", c.ct->pod_uid);
		r->qos = ct_qos_name(c.ct->qos);
	}
}

/* The row's cgroup is no longer in the hierarchy (only asked when pruning). */
static bool row_gone(const struct metrics_ctx *m, const struct cg_row *r)
{
	char dir[4096];

	if (!r->path || !m->cgroup_root)
		return !r->path;
	snprintf(dir, sizeof(dir), "%s%s", m->cgroup_root, r->path);
	return access(dir, F_OK) && errno == ENOENT;
}

/* Every cgroup in the map, summed over CPUs; *n rows, malloc'd. */
static struct cg_row *read_cgroups(struct metrics_ctx *m, int fd, size_t *n)
{
	int ncpus = capture_ncpus(m->cap);
	struct abicap_cg_stats *v = calloc(ncpus, sizeof(*v));
	struct cg_row *rows = NULL;
	size_t cap = 0;
	uint64_t key, *prev = NULL;

	*n = 0;
	if (!v)
		return NULL;
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, v))
			continue; /* deleted meanwhile */
		if (*n == cap) {
			struct cg_row *nr;

			cap = cap ? cap * 2 : 64;
			nr = realloc(rows, cap * sizeof(*rows));
			if (!nr)
				break;
			rows = nr;
		}
		memset(&rows[*n], 0, sizeof(rows[*n]));
		rows[*n].id = key;
		for (int c = 0; c < ncpus; c++)
			add_stats(&rows[*n].s, &v[c]);
		(*n)++;
	}
	free(v);
	for (size_t i = 0; i < *n; i++)
		describe_row(m, &rows[i]);
	if (*n)
		qsort(rows, *n, sizeof(*rows), cmp_rows);
	return rows;
}

static void write_cgroups(FILE *f, const struct cg_row *rows, size_t n)
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
		put_label(f, "event", res->v[i].scope, true);
		put_label(f, "item", res->v[i].item, false);
		fprintf(f, "} %d\n", res->v[i].status == V_OK ? 0 :
			res->v[i].status == V_DEGRADED ? 1 : 2);
	}
	help(f, "abicap_events_total", "counter",
	     "Events the BPF programs handled, by event.");
	for (int e = 0; have && e < ABICAP_EV_COUNT; e++)
		fprintf(f, "abicap_events_total{event=\"%s\"} %llu\n",
			event_name(e), U(cnt[e].seen));
	help(f, "abicap_events_lost_total", "counter",
	     "Events not counted in full because a map was full, by event.");
	for (int e = 0; have && e < ABICAP_EV_COUNT; e++)
		fprintf(f, "abicap_events_lost_total{event=\"%s\"} %llu\n",
			event_name(e), U(cnt[e].dropped));
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
	put_label(f, "version", ABICAP_VERSION, true);
	put_label(f, "kernel", kernel_release(), false);
	fputs("} 1\n", f);
}

char *metrics_render(struct metrics_ctx *m, size_t *len, char *err,
		     size_t errlen)
{
	int fd = bpf_map__fd(bpf_object__find_map_by_name(
		capture_object(m->cap), "cg_stats"));
	struct cg_row *rows;
	char *buf = NULL;
	size_t n;
	FILE *f;

	rows = read_cgroups(m, fd, &n);
	f = open_memstream(&buf, len);
	if (!f || (n && !rows)) {
		snprintf(err, errlen, "out of memory");
		if (f)
			fclose(f);
		free(buf);
		free(rows);
		return NULL;
	}
	write_cgroups(f, rows, n);
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
		for (size_t i = 0; i < n; i++)
			if (row_gone(m, &rows[i]) &&
			    !bpf_map_delete_elem(fd, &rows[i].id))
				m->pruned++;
	free(rows);
	return buf;
}
