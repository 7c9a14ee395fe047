// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A recording's header metadata and trailer, as compact JSON. */
#include <jansson.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <zlib.h>
#include "abi/checker.h"
#include "abi/kernel.h"
#include "event/events.h"
#include "lib/escape.h"
#include "lib/util.h"
#include "live/record_meta.h"

/* A crc32 of the running kernel's BTF: which kernel this was, exactly. */
static json_t *btf_identity(void)
{
	FILE *f = fopen("/sys/kernel/btf/vmlinux", "rb");
	unsigned long crc = 0, size = 0;
	unsigned char buf[65536];
	char hex[16];
	size_t n;

	if (!f)
		return json_null();
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
		crc = crc32(crc, buf, n);
		size += n;
	}
	fclose(f);
	snprintf(hex, sizeof(hex), "%08lx", crc);
	return json_pack("{s:I, s:s}", "size", (json_int_t)size, "crc32", hex);
}

bool capture_task_filtered(const struct capture_opts *c)
{
	return c->npids || c->ntids || c->comm[0] || c->cgroup_id;
}

static json_t *int_array(const int32_t *v, int n)
{
	json_t *a = json_array();

	for (int i = 0; i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/*
 * What the capture was filtered to, for report: task filters mean a
 * capture does not see every switch of a CPU, or every task's.
 */
static json_t *filter_json(const struct record_meta *o, pid_t child)
{
	json_t *cpus = json_null(), *cmd = json_null(), *cg = json_null();

	if (o->cap->cpus) {
		cpus = json_array();
		for (int i = 0; i < o->cap->ncpus; i++)
			if (o->cap->cpus[i])
				json_array_append_new(cpus, json_integer(i));
	}
	if (o->command) {
		cmd = json_array();
		for (char **a = o->command; *a; a++)
			json_array_append_new(cmd, json_escaped(*a, SIZE_MAX));
	}
	if (o->cap->cgroup_id)
		cg = json_pack("{s:I, s:o}", "id", (json_int_t)o->cap->cgroup_id,
			       "path", o->cgroup_path ?
			       json_escaped(o->cgroup_path, SIZE_MAX) : json_null());
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:I}",
		"tasks", capture_task_filtered(o->cap),
		"pids", int_array(o->cap->pids, child ? 0 : o->cap->npids),
		"tids", int_array(o->cap->tids, o->cap->ntids),
		"comm", o->cap->comm[0] ? json_escaped(o->cap->comm,
				ABICAP_COMM_LEN) : json_null(),
		"cgroup", cg, "cpus", cpus, "command", cmd,
		"command_pid", (json_int_t)child);
}

char *record_metadata(struct capture *c, const struct record_meta *o,
		      uint64_t t0, pid_t child)
{
	const struct check_result *res = capture_check(c);
	const struct kernel_plan *plan = capture_plan(c);
	json_t *variants = json_object(), *degraded = json_array(), *cmdline =
		json_array(), *events = json_array(), *m;
	struct timespec rt;
	struct utsname uts;
	char *s;

	clock_gettime(CLOCK_REALTIME, &rt);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		const char *v = capture_variant(c, ev);
		char buf[64];

		if (!(o->cap->events & (1u << ev)))
			continue;
		json_array_append_new(events, json_string(event_name(ev)));
		snprintf(buf, sizeof(buf), "%s%s", v ? v : "-",
			 ev == ABICAP_EV_SCHED_SWITCH ? (plan->switch_prev_state ?
			 " (4 args)" : " (3 args)") : "");
		json_object_set_new(variants, event_name(ev), json_string(buf));
	}
	for (int i = 0; i < res->n; i++)
		if (res->v[i].status != V_OK)
			json_array_append_new(degraded, json_pack("{s:s, s:s, s:s}",
				"scope", res->v[i].scope, "item", res->v[i].item,
				"verdict", vstatus_str(res->v[i].status)));
	for (int i = 0; i < o->argc; i++)
		json_array_append_new(cmdline, json_escaped(o->argv[i], SIZE_MAX));
	if (uname(&uts))
		memset(&uts, 0, sizeof(uts));
	/* the whole uname: exporters (Perfetto) pick layouts by the release */
	m = json_pack("{s:i, s:i, s:s, s:{s:s, s:s, s:s}, s:o, "
		      "s:{s:i, s:i, s:i, s:o}, s:o, s:s, "
		      "s:s, s:I, s:I, s:i, s:o, s:o, s:I}",
		      "capture_format", o->capture_format,
		      "record_format", ABICAP_RECORD_VERSION,
		      "kernel", kernel_release(), "uname", "sysname", uts.sysname,
		      "version", uts.version, "machine", uts.machine,
		      "btf", btf_identity(),
		      "contract", "ok", res->count[V_OK], "degraded",
		      res->count[V_DEGRADED], "broken", res->count[V_BROKEN],
		      "not_ok", degraded, "variants", variants,
		      "transport", capture_transport(c),
		      "clock", "CLOCK_MONOTONIC",
		      "start_ns", (json_int_t)t0,
		      /* realtime = monotonic + boot_offset */
		      "boot_offset_ns", (json_int_t)((uint64_t)rt.tv_sec * 1000000000ull +
						      rt.tv_nsec - mono_ns()),
		      "ncpus", capture_ncpus(c), "events", events,
		      "command_line", cmdline,
		      "pid_filter", (json_int_t)(o->cap->npids ? o->cap->pids[0] : 0));
	if (m)
		json_object_set_new(m, "filter", filter_json(o, child));
	s = json_dumps(m, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(m);
	return s;
}

/*
 * Program runs the kernel skipped, by the tracepoint of every attached
 * program (null if they cannot be read): events in no count.
 */
static json_t *misses_json(struct capture *c)
{
	struct capture_misses m;
	json_t *o;

	if (capture_misses(c, &m) || !m.known)
		return json_null();
	o = json_object();
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		if (m.on[ev])
			json_object_set_new(o, event_name(ev),
					    json_integer((json_int_t)m.ev[ev]));
	if (m.fork_on)
		json_object_set_new(o, "sched_process_fork",
				    json_integer((json_int_t)m.fork));
	if (m.free_on)
		json_object_set_new(o, "sched_process_free",
				    json_integer((json_int_t)m.free));
	return o;
}

char *record_trailer(struct capture *c, double secs, uint64_t records,
		     const struct loop_opts *lo)
{
	struct abicap_counter sum[ABICAP_EV_COUNT], per[ABICAP_EV_COUNT];
	uint64_t aux[ABICAP_AUX_COUNT];
	json_t *evs = json_object(), *cpus = json_array(), *t;
	char *s;

	capture_counters(c, -1, sum);
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		json_object_set_new(evs, event_name(ev), json_pack(
			"{s:I, s:I, s:I}", "seen", (json_int_t)sum[ev].seen,
			"received", (json_int_t)capture_received(c, ev),
			"dropped", (json_int_t)sum[ev].dropped));
	for (int cpu = 0; cpu < capture_ncpus(c); cpu++) {
		uint64_t seen = 0, drop = 0;

		capture_counters(c, cpu, per);
		for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
			seen += per[ev].seen;
			drop += per[ev].dropped;
		}
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:I}", "cpu",
			cpu, "seen", (json_int_t)seen, "dropped", (json_int_t)drop));
	}
	t = json_pack("{s:f, s:I, s:I, s:o, s:o}", "duration_s", secs,
		      "end_ns", (json_int_t)capture_end_ns(c),
		      "records", (json_int_t)records,
		      "events", evs, "cpus", cpus);
	if (!capture_aux(c, aux))
		json_object_set_new(t, "bookkeeping", json_pack(
			"{s:I, s:I, s:I, s:I, s:I, s:I}",
			"followed", (json_int_t)aux[ABICAP_AUX_FOLLOW_ADDED],
			"follow_failed", (json_int_t)aux[ABICAP_AUX_FOLLOW_FAILED],
			"followed_gone", (json_int_t)aux[ABICAP_AUX_FOLLOW_REMOVED],
			"wakers_lost", (json_int_t)aux[ABICAP_AUX_WAKER_LOST],
			"wakers_in_hash", (json_int_t)aux[ABICAP_AUX_WAKER_IN_HASH],
			"waker_context_unknown",
			(json_int_t)aux[ABICAP_AUX_IRQ_UNKNOWN]));
	json_object_set_new(t, "recursion_misses", misses_json(c));
	if (lo->child_exited)
		json_object_set_new(t, "command_status", json_integer(
			WIFEXITED(lo->child_status) ? WEXITSTATUS(lo->child_status) :
			128 + WTERMSIG(lo->child_status)));
	s = json_dumps(t, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(t);
	return s;
}
