// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The report as JSON: the same figures as the text, every row, unsorted. */
#include <errno.h>
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capwarn.h"
#include "report/report_json.h"
#include "lib/escape.h"

#define JESC_COMM(c) json_escaped((c), ABICAP_COMM_LEN)
#define JESC(s) json_escaped((s), SIZE_MAX)

/* Off-CPU time by the state left in, the states with any. */
static json_t *json_states(const uint64_t off_by_state[10])
{
	json_t *st = json_object();

	for (int k = 0; k < 10; k++)
		if (off_by_state[k])
			json_object_set_new(st, state_names[k],
					    json_integer(off_by_state[k]));
	return st;
}

/* A task's or group's run-queue latency and wakeup delays. */
static void json_lat_fields(json_t *o, const struct lat *rq,
			    const struct lat *wake)
{
	json_t *f = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		"rq_samples", (json_int_t)rq->n,
		"rq_total_ns", (json_int_t)rq->total,
		"rq_p50_ns", (json_int_t)lat_percentile(rq, 50),
		"rq_p99_ns", (json_int_t)lat_percentile(rq, 99),
		"rq_max_ns", (json_int_t)rq->max,
		"wakeup_delays", (json_int_t)wake->n,
		"wakeup_delay_total_ns", (json_int_t)wake->total,
		"wakeup_delay_max_ns", (json_int_t)wake->max);

	if (o && f)
		json_object_update(o, f);
	json_decref(f);
}

/* Its off-CPU time by state, switches and runtime. */
static void json_rest_fields(json_t *o, uint64_t off_total,
			     const uint64_t off_by_state[10],
			     uint64_t voluntary, uint64_t involuntary,
			     uint64_t runtime)
{
	json_t *f = json_pack("{s:I, s:o, s:I, s:I, s:I}",
		"off_cpu_ns", (json_int_t)off_total,
		"off_cpu_by_state_ns", json_states(off_by_state),
		"voluntary", (json_int_t)voluntary,
		"involuntary", (json_int_t)involuntary,
		"runtime_ns", (json_int_t)runtime);

	if (o && f)
		json_object_update(o, f);
	json_decref(f);
}

json_t *report_json_groups(struct grouping *g)
{
	json_t *groups = json_array(), *chains = json_array();

	for (size_t i = 0; i < g->n; i++) {
		struct group *r = &g->g[i];
		json_t *row;

		if (!r->ntasks) /* named by a wakeup chain only */
			continue;
		row = json_pack("{s:o, s:I}", "group", JESC(r->name),
					"tasks", (json_int_t)r->ntasks);

		json_lat_fields(row, &r->rq, &r->wake);
		json_rest_fields(row, r->off_total, r->off_by_state, r->voluntary,
				 r->involuntary, r->runtime);
		if (r->thr)
			json_object_set_new(row, "throttled", r->thr->known ?
				json_pack("{s:s, s:I, s:I, s:I}", "source",
				r->thr->v1 ? CAPMETA_THROTTLE_V1 :
				CAPMETA_THROTTLE_V2, "nr_periods",
				(json_int_t)r->thr->nr_periods, "nr_throttled",
				(json_int_t)r->thr->nr_throttled, "throttled_ns",
				(json_int_t)r->thr->throttled_ns) : json_null());
		json_array_append_new(groups, row);
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

/*
 * "cgroup_id", "cgroup" (path or null), "container" (label or null), and
 * "container_names" ({"pod_name", "namespace", "container_name"}) if known
 */
static void json_cgroup_fields(json_t *o, struct cgnames *names, uint64_t id)
{
	struct cgname c = { 0 };

	if (!o)
		return;
	cgnames_get(names, id, &c);
	json_object_set_new(o, "cgroup_id", json_integer((json_int_t)id));
	json_object_set_new(o, "cgroup", c.path ? JESC(c.path) : json_null());
	json_object_set_new(o, "container", c.ct ? JESC(c.label) : json_null());
	/* the runtime's names, where record found them */
	if (c.names)
		json_object_set_new(o, "container_names", ct_names_json(c.names));
}

/* Every task report's filters keep with anything counted has a row. */
static bool task_shown(const struct analysis *a, const struct task *t)
{
	return analysis_wanted(a, t) && (task_res(t)->rq.n || t->off_total ||
		t->voluntary || t->involuntary || t->runtime || t->hidden);
}

/* One task's row; NULL: no memory. */
static json_t *json_task(const struct task *t, struct cgnames *names,
			 int32_t a_recorder)
{
	const struct task_res *r = task_res(t);
	json_t *row = json_pack("{s:i, s:i, s:I, s:o}", "tid", t->pid, "tgid",
				t->tgid, "start_ns", (json_int_t)t->start_ns,
				"comm", JESC_COMM(task_comm(t)));

	json_lat_fields(row, &r->rq, &r->wake);
	json_rest_fields(row, t->off_total, r->off_by_state, t->voluntary,
			 t->involuntary, t->runtime);
	/* the recording abicap's own task (issue 33) */
	json_object_set_new(row, "recorder", json_boolean(a_recorder &&
			    t->tgid == a_recorder));
	/* the kernel hid switches of it: runtime is a lower bound */
	json_object_set_new(row, "runtime_complete", json_boolean(!t->hidden));
	json_object_set_new(row, "hidden_switches", json_integer(t->hidden));
	json_object_set_new(row, "unknown_ns", json_integer((json_int_t)
			    t->unknown_ns));
	json_cgroup_fields(row, names, t->cgroup);
	return row;
}

/*
 * The document out, its "tasks" (an empty array in out) written one row
 * at a time: a row per task takes no memory beyond its own. 0, or -ENOMEM.
 */
int report_json_dump(FILE *f, json_t *out, const struct analysis *a,
		     struct cgnames *names)
{
	static const char key[] = "\n  \"tasks\": []";
	char *doc = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER), *at;
	bool first = true;
	int ret = 0;

	if (!doc)
		return -ENOMEM;
	/* top-level keys alone are indented by two: no string holds a newline */
	at = strstr(doc, key);
	if (!at) {
		fputs(doc, f);
		free(doc);
		return 0;
	}
	fwrite(doc, 1, (size_t)(at - doc) + sizeof(key) - 2, f);
	for (size_t i = 0; i < a->ntasks; i++) {
		json_t *row;
		char *s;

		if (!task_shown(a, &a->tasks[i]))
			continue;
		row = json_task(&a->tasks[i], names, a->recorder_tgid);
		s = row ? json_dumps(row, JSON_INDENT(2) | JSON_PRESERVE_ORDER) :
		    NULL;
		json_decref(row);
		if (!s) {
			ret = -ENOMEM;
			continue;
		}
		fputs(first ? "\n    " : ",\n    ", f);
		for (const char *c = s; *c; c++) {
			fputc(*c, f);
			if (*c == '\n')
				fputs("    ", f);
		}
		free(s);
		first = false;
	}
	fputs(first ? "]" : "\n  ]", f);
	fputs(at + sizeof(key) - 1, f);
	free(doc);
	return ret;
}

json_t *report_json(struct analysis *a, const char *path,
		    bool cut, const struct capinfo *ci)
{
	json_t *out;
	json_t *tasks = json_array(), *cpus = json_array(), *chains = json_array();
	struct lat *l = &a->rq;

	for (int c = 0; c < a->ncpus && !ci->task_filtered; c++) {
		json_t *res, *fr;

		if (!capinfo_cpu_captured(ci, c))
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
		json_array_append_new(cpus, json_pack(
			"{s:i, s:I, s:I, s:I, s:I, s:I, s:o, s:o}",
			"cpu", c, "busy_ns", (json_int_t)a->cpus[c].busy,
			"idle_ns", (json_int_t)a->cpus[c].idle_time,
			"lost_ns", (json_int_t)a->cpus[c].lost_time,
			"unknown_ns", (json_int_t)a->cpus[c].unknown_time,
			"hidden_gaps", (json_int_t)a->cpus[c].hidden_gaps,
			"idle_state_residency_ns", res, "frequency_residency_ns", fr));
	}
	for (size_t i = 0; i < a->nchains; i++)
		json_array_append_new(chains, json_pack(
			"{s:i, s:o, s:i, s:o, s:I, s:I, s:I}",
			"waker", a->chains[i].waker,
			"waker_comm", JESC_COMM(a->chains[i].waker_comm[0] ?
				a->chains[i].waker_comm : "(unknown)"),
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
			 "file", JESC(path), "capture", ci->meta->raw ?: json_null(),
			 "cut_short", cut,
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
	json_object_set_new(out, "filter", capmeta_filter_json(ci->meta));
	/* the report's own (--pid, --comm); "filter" is the recording's */
	json_object_set_new(out, "report_filter", json_pack("{s:o, s:o}",
		"pid", a->filter_tgid ? json_integer(a->filter_tgid) : json_null(),
		"comm", a->filter_comm[0] ? JESC_COMM(a->filter_comm) :
		json_null()));
	/* a part of a damaged file not read is records lost without a window */
	json_object_set_new(out, "figures_trustworthy", json_boolean(
		!ci->untrusted && !ci->cpus_partial && !ci->drops_unplaced &&
		analysis_trustworthy(a) && !ci->damaged && !a->bad_cpu));
	json_object_set_new(out, "analysis_errors", json_pack(
		"{s:I, s:I}", "records_out_of_order", (json_int_t)a->order_errors,
		"negative_intervals", (json_int_t)a->negative));
	json_object_set_new(out, "pid_reuses", json_integer(
		(json_int_t)a->pid_reuses));
	/* as export: records naming a CPU past the capture's count */
	json_object_set_new(out, "records_bad_cpu",
			    json_integer((json_int_t)a->bad_cpu));
	json_object_set_new(out, "integrity", capinfo_json_integrity(ci));
	json_object_set_new(out, "lost", json_pack("{s:I, s:I, s:I, s:I, s:b}",
		"drop_windows", (json_int_t)a->ndrops,
		"records_in_windows", (json_int_t)ci->dropped_in_windows,
		"waits_left_out", (json_int_t)a->waits_dropped,
		"off_cpu_intervals_left_out", (json_int_t)a->off_dropped,
		"outside_windows", ci->drops_unplaced));
	return out;
}
