// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture's metadata, typed: one writer and one checked reader (capmeta.h). */
#include <errno.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "capfile/capmeta.h"
#include "event/events.h"
#include "lib/escape.h"
#include "lib/hashtab.h"

/*
 * The trailer's recursion_misses keys: the events', then the other
 * programs' tracepoints (enum other_tp), as struct captrailer keeps them
 */
#define MISS_SLOTS (ABICAP_EV_COUNT + OTHER_TP_COUNT)

static const char *miss_name(unsigned int k)
{
	return k < ABICAP_EV_COUNT ? event_name(k) :
				     other_tp_name(k - ABICAP_EV_COUNT);
}

/* -1 if unknown */
static int miss_by_name(const char *name)
{
	for (unsigned int k = 0; k < MISS_SLOTS; k++)
		if (!strcmp(miss_name(k), name))
			return (int)k;
	return -1;
}

/* ---- writing ---- */

/* A string as the JSON holds it; JSON null for NULL. */
static json_t *jstr(const char *s)
{
	return s ? json_escaped(s, SIZE_MAX) : json_null();
}

static json_t *jstrs(char *const *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, jstr(v[i]));
	return a;
}

static json_t *jint32s(const int32_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, json_integer(v[i]));
	return a;
}

/* json_pack's "I" for an integer member that may be absent: "o" of this. */
static json_t *jint(int64_t v)
{
	return v == CAPMETA_ABSENT ? json_null() : json_integer(v);
}

static char *dump(json_t *o)
{
	char *s = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	json_decref(o);
	return s;
}

static json_t *filter_json(const struct capmeta_filter *f)
{
	json_t *cpus = json_null(), *cg = json_null();

	if (f->cpus_given) {
		cpus = json_array();
		for (size_t i = 0; cpus && i < f->ncpus; i++)
			json_array_append_new(cpus, json_integer(f->cpus[i]));
	}
	if (f->cgroup)
		cg = json_pack("{s:I, s:o}", "id", (json_int_t)f->cgroup_id,
			       "path", jstr(f->cgroup_path));
	return json_pack("{s:b, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		"tasks", f->tasks, "pids", jint32s(f->pids, f->npids),
		"tids", jint32s(f->tids, f->ntids), "comm", jstr(f->comm),
		"cgroup", cg, "cpus", cpus,
		"command", f->command ? jstrs(f->command, f->ncommand) : json_null(),
		"command_pid", jint(f->command_pid));
}

json_t *capmeta_filter_json(const struct capmeta *m)
{
	return m->filter.present ? filter_json(&m->filter) : json_null();
}

json_t *capmeta_events_json(const struct capmeta *m)
{
	json_t *a;

	if (!m->events_given)
		return json_null();
	a = json_array();
	for (unsigned int ev = 0; a && ev < ABICAP_EV_COUNT; ev++)
		if (m->events & (1u << ev))
			json_array_append_new(a, json_string(event_name(ev)));
	return a;
}

char *capmeta_write(const struct capmeta *m)
{
	json_t *variants = json_object(), *notok = json_array(),
	       *events = capmeta_events_json(m), *o;

	if (!variants || !notok || !events)
		goto oom;
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		if (m->variant[ev])
			json_object_set_new(variants, event_name(ev),
					    jstr(m->variant[ev]));
	}
	for (size_t i = 0; i < m->nnot_ok; i++)
		json_array_append_new(notok, json_pack("{s:o, s:o, s:o}",
			"scope", jstr(m->not_ok[i].scope), "item",
			jstr(m->not_ok[i].item), "verdict",
			jstr(m->not_ok[i].verdict)));
	o = json_pack("{s:o, s:o, s:o, s:{s:o, s:o, s:o}, s:o, "
		      "s:{s:o, s:o, s:o, s:o}, s:o, s:o, "
		      "s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
		      "capture_format", jint(m->capture_format),
		      "record_format", jint(m->record_format),
		      "kernel", jstr(m->kernel), "uname", "sysname",
		      jstr(m->sysname), "version", jstr(m->version), "machine",
		      jstr(m->machine),
		      "btf", m->btf ? json_pack("{s:I, s:o}", "size",
				(json_int_t)m->btf_size, "crc32",
				jstr(m->btf_crc32)) : json_null(),
		      "contract", "ok", jint(m->contract_ok), "degraded",
		      jint(m->contract_degraded), "broken",
		      jint(m->contract_broken), "not_ok", notok,
		      "variants", variants, "transport", jstr(m->transport),
		      "clock", jstr(m->clock), "start_ns", jint(m->start_ns),
		      "boot_offset_ns", jint(m->boot_offset_ns),
		      "ncpus", jint(m->ncpus),
		      "events", events,
		      "command_line", jstrs(m->command_line, m->ncommand_line),
		      "pid_filter", jint(m->pid_filter));
	if (o && m->byte_order)
		json_object_set_new(o, "byte_order", jstr(m->byte_order));
	if (o && m->recorder_pid != CAPMETA_ABSENT)
		json_object_set_new(o, "recorder_pid", jint(m->recorder_pid));
	if (o && m->filter.present)
		json_object_set_new(o, "filter", filter_json(&m->filter));
	return dump(o);
oom:
	json_decref(variants);
	json_decref(notok);
	json_decref(events);
	return NULL;
}

static json_t *cgroups_json(const struct captrailer *t)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < t->ncg; i++) {
		const struct captrailer_cgroup *c = &t->cg[i];

		json_array_append_new(a, c->known ?
			json_pack("{s:I, s:o, s:s, s:I, s:I, s:I}", "id",
				  (json_int_t)c->id, "path", jstr(c->path),
				  "source", c->v1 ? CAPMETA_THROTTLE_V1 :
				  CAPMETA_THROTTLE_V2,
				  "nr_periods", (json_int_t)c->nr_periods,
				  "nr_throttled", (json_int_t)c->nr_throttled,
				  "throttled_ns", (json_int_t)c->throttled_ns) :
			json_pack("{s:I, s:o, s:n}", "id", (json_int_t)c->id,
				  "path", jstr(c->path), "throttled_ns"));
	}
	return a;
}

char *captrailer_write(const struct captrailer *t)
{
	json_t *evs = json_object(), *cpus = json_array(), *o;

	if (!evs || !cpus) {
		json_decref(evs);
		json_decref(cpus);
		return NULL;
	}
	for (unsigned int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		if (t->event[ev])
			json_object_set_new(evs, event_name(ev), json_pack(
				"{s:I, s:I, s:I}", "seen", (json_int_t)t->seen[ev],
				"received", (json_int_t)t->received[ev],
				"dropped", (json_int_t)t->dropped[ev]));
	for (size_t i = 0; i < t->ncpus; i++)
		json_array_append_new(cpus, json_pack("{s:i, s:I, s:I}", "cpu",
			t->cpus[i].cpu, "seen", (json_int_t)t->cpus[i].seen,
			"dropped", (json_int_t)t->cpus[i].dropped));
	o = json_pack("{s:f, s:o, s:o, s:o, s:o}", "duration_s", t->duration_s,
		      "end_ns", jint(t->end_ns), "records", jint(t->records),
		      "events", evs, "cpus", cpus);
	if (o && t->bookkeeping)
		json_object_set_new(o, "bookkeeping", json_pack(
			"{s:I, s:I, s:I, s:I, s:I, s:I}",
			"followed", (json_int_t)t->followed,
			"follow_failed", (json_int_t)t->follow_failed,
			"followed_gone", (json_int_t)t->followed_gone,
			"wakers_lost", (json_int_t)t->wakers_lost,
			"wakers_in_hash", (json_int_t)t->wakers_in_hash,
			"waker_context_unknown",
			(json_int_t)t->waker_context_unknown));
	if (o) {
		json_t *mi = json_null();

		if (t->misses_known) {
			mi = json_object();
			for (unsigned int k = 0; mi && k < MISS_SLOTS; k++)
				if (t->miss_on[k])
					json_object_set_new(mi, miss_name(k),
						json_integer((json_int_t)t->miss[k]));
		}
		json_object_set_new(o, "recursion_misses", mi);
	}
	if (o && t->span_given)
		json_object_set_new(o, "span", json_pack("{s:I, s:I, s:I}",
			"first_ns", (json_int_t)t->first_ns,
			"last_ns", (json_int_t)t->last_ns,
			"cpus", (json_int_t)t->record_cpus));
	if (o && t->command_exited)
		json_object_set_new(o, "command_status",
				    json_integer(t->command_status));
	if (o && t->throttle_given)
		json_object_set_new(o, "cgroup_throttling", cgroups_json(t));
	if (o && t->nct) {
		json_t *c = json_object();

		for (size_t i = 0; c && i < t->nct; i++)
			json_object_set_new(c, t->ct[i].id,
					    ct_names_json(&t->ct[i].names));
		json_object_set_new(o, "containers", c);
	}
	if (o && t->ct_not_listed)
		json_object_set_new(o, "containers_not_listed",
				    json_integer((json_int_t)t->ct_not_listed));
	return dump(o);
}

/* ---- reading: every member's type checked ---- */

struct rd {
	char *err;
	size_t errlen;
	int bad; /* a member of the wrong type seen */
	bool oom;
};

/* The first problem of a read, into err (the rest counted). */
__attribute__((format(printf, 2, 3)))
static void noted(struct rd *r, const char *fmt, ...)
{
	va_list ap;

	if (r->bad++)
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, r->errlen, fmt, ap);
	va_end(ap);
}

/* The member, NULL if absent (or null); wrong-typed ones are noted and NULL. */
static json_t *member(struct rd *r, json_t *o, const char *where,
		      const char *key, json_type type)
{
	static const char *const tname[] = { "an object", "an array", "a string",
		"an integer", "a number", "true", "false", "null" };
	json_t *v = json_object_get(o, key);

	if (!v || json_is_null(v))
		return NULL;
	if (json_typeof(v) == type || (type == JSON_TRUE && json_is_boolean(v)) ||
	    (type == JSON_REAL && json_is_number(v)))
		return v;
	noted(r, "the capture's %s member \"%s\" is not %s: it is read as "
	      "absent (the file was altered or written by another program)",
	      where, key, type == JSON_TRUE ? "a boolean" : tname[type]);
	return NULL;
}

static int64_t rd_int(struct rd *r, json_t *o, const char *where,
		      const char *key)
{
	json_t *v = member(r, o, where, key, JSON_INTEGER);

	return v ? (int64_t)json_integer_value(v) : CAPMETA_ABSENT;
}

static uint64_t rd_u64(struct rd *r, json_t *o, const char *where,
		       const char *key)
{
	int64_t v = rd_int(r, o, where, key);

	return v < 0 ? 0 : (uint64_t)v;
}

static char *rd_str(struct rd *r, json_t *o, const char *where,
		    const char *key)
{
	json_t *v = member(r, o, where, key, JSON_STRING);
	char *s = v ? strdup(json_string_value(v)) : NULL;

	if (v && !s)
		r->oom = true;
	return s;
}

static bool rd_bool(struct rd *r, json_t *o, const char *where,
		    const char *key)
{
	return json_is_true(member(r, o, where, key, JSON_TRUE));
}

/*
 * An array member's elements: strings (strdup'd into a char *[]) or
 * integers (into an int32_t[]); elements of another type are noted and
 * skipped. NULL when absent.
 */
static void *rd_elems(struct rd *r, json_t *o, const char *where,
		      const char *key, json_type type, size_t *n)
{
	json_t *a = member(r, o, where, key, JSON_ARRAY), *v;
	size_t i, size = type == JSON_STRING ? sizeof(char *) : sizeof(int32_t);
	char **str;
	int32_t *num;
	void *out;

	*n = 0;
	if (!a)
		return NULL;
	out = calloc(json_array_size(a) + 1, size);
	if (!out) {
		r->oom = true;
		return NULL;
	}
	str = out;
	num = out;
	json_array_foreach(a, i, v) {
		if (json_typeof(v) != type) {
			noted(r, "the capture's %s member \"%s\" holds a "
			      "non-%s: it is read without it", where, key,
			      type == JSON_STRING ? "string" : "integer");
			continue;
		}
		if (type == JSON_INTEGER)
			num[(*n)++] = (int32_t)json_integer_value(v);
		else if (!(str[(*n)++] = strdup(json_string_value(v))))
			r->oom = true;
	}
	return out;
}

static char **rd_strs(struct rd *r, json_t *o, const char *where,
		      const char *key, size_t *n)
{
	return rd_elems(r, o, where, key, JSON_STRING, n);
}

static int32_t *rd_int32s(struct rd *r, json_t *o, const char *where,
			  const char *key, size_t *n)
{
	return rd_elems(r, o, where, key, JSON_INTEGER, n);
}

static void free_strs(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static void read_filter(struct rd *r, json_t *f, struct capmeta_filter *o)
{
	json_t *cg;
	size_t n;

	o->present = true;
	o->tasks = rd_bool(r, f, "filter", "tasks");
	o->pids = rd_int32s(r, f, "filter", "pids", &o->npids);
	o->tids = rd_int32s(r, f, "filter", "tids", &o->ntids);
	o->comm = rd_str(r, f, "filter", "comm");
	if ((cg = member(r, f, "filter", "cgroup", JSON_OBJECT))) {
		o->cgroup = true;
		o->cgroup_id = rd_u64(r, cg, "filter.cgroup", "id");
		o->cgroup_path = rd_str(r, cg, "filter.cgroup", "path");
	}
	if (member(r, f, "filter", "cpus", JSON_ARRAY)) {
		int32_t *c = rd_int32s(r, f, "filter", "cpus", &n);

		o->cpus_given = true;
		o->cpus = c;
		o->ncpus = n;
	}
	o->command = rd_strs(r, f, "filter", "command", &o->ncommand);
	o->command_pid = rd_int(r, f, "filter", "command_pid");
}

void capmeta_init(struct capmeta *m)
{
	memset(m, 0, sizeof(*m));
	m->capture_format = m->record_format = m->contract_ok =
		m->contract_degraded = m->contract_broken = m->start_ns =
		m->boot_offset_ns = m->ncpus = m->pid_filter =
		m->recorder_pid = CAPMETA_ABSENT;
	m->filter.command_pid = CAPMETA_ABSENT;
}

static json_t *parse(const char *json, char *err, size_t errlen)
{
	json_t *o = json ? json_loads(json, 0, NULL) : NULL;

	if (!json_is_object(o)) {
		json_decref(o);
		snprintf(err, errlen, "the capture's metadata is not a JSON "
			 "object: the file is damaged");
		return NULL;
	}
	return o;
}

int capmeta_read(struct capmeta *m, const char *json, char *err, size_t errlen)
{
	struct rd r = { err, errlen, 0, false };
	json_t *o, *v, *e;
	const char *k;
	size_t i;

	capmeta_init(m);
	if (!(o = parse(json, err, errlen)))
		return -1;
	m->capture_format = rd_int(&r, o, "metadata", "capture_format");
	m->record_format = rd_int(&r, o, "metadata", "record_format");
	m->kernel = rd_str(&r, o, "metadata", "kernel");
	if ((v = member(&r, o, "metadata", "uname", JSON_OBJECT))) {
		m->sysname = rd_str(&r, v, "uname", "sysname");
		m->version = rd_str(&r, v, "uname", "version");
		m->machine = rd_str(&r, v, "uname", "machine");
	}
	if (json_object_get(o, "byte_order"))
		m->byte_order = rd_str(&r, o, "metadata", "byte_order");
	if ((v = member(&r, o, "metadata", "btf", JSON_OBJECT))) {
		m->btf = true;
		m->btf_size = rd_u64(&r, v, "btf", "size");
		m->btf_crc32 = rd_str(&r, v, "btf", "crc32");
	}
	if ((v = member(&r, o, "metadata", "contract", JSON_OBJECT))) {
		json_t *a = member(&r, v, "contract", "not_ok", JSON_ARRAY);

		m->contract = true;
		m->contract_ok = rd_int(&r, v, "contract", "ok");
		m->contract_degraded = rd_int(&r, v, "contract", "degraded");
		m->contract_broken = rd_int(&r, v, "contract", "broken");
		m->not_ok = a ? calloc(json_array_size(a) + 1, sizeof(*m->not_ok)) : NULL;
		json_array_foreach(a, i, e) {
			if (!m->not_ok || !json_is_object(e))
				continue;
			m->not_ok[m->nnot_ok].scope = rd_str(&r, e, "not_ok", "scope");
			m->not_ok[m->nnot_ok].item = rd_str(&r, e, "not_ok", "item");
			m->not_ok[m->nnot_ok++].verdict = rd_str(&r, e, "not_ok", "verdict");
		}
	}
	if ((v = member(&r, o, "metadata", "variants", JSON_OBJECT)))
		json_object_foreach(v, k, e) {
			int ev = event_by_name(k, strlen(k));

			if (ev >= 0 && ev < ABICAP_EV_COUNT && !m->variant[ev])
				m->variant[ev] = rd_str(&r, v, "variants", k);
		}
	m->transport = rd_str(&r, o, "metadata", "transport");
	m->clock = rd_str(&r, o, "metadata", "clock");
	m->start_ns = rd_int(&r, o, "metadata", "start_ns");
	m->boot_offset_ns = rd_int(&r, o, "metadata", "boot_offset_ns");
	m->ncpus = rd_int(&r, o, "metadata", "ncpus");
	if ((v = member(&r, o, "metadata", "events", JSON_ARRAY))) {
		m->events_given = true;
		json_array_foreach(v, i, e) {
			const char *s = json_string_value(e);
			int ev = s ? event_by_name(s, strlen(s)) : -1;

			if (ev >= 0 && ev < ABICAP_EV_COUNT)
				m->events |= 1u << ev;
		}
	}
	m->command_line = rd_strs(&r, o, "metadata", "command_line",
				  &m->ncommand_line);
	m->pid_filter = rd_int(&r, o, "metadata", "pid_filter");
	if (json_object_get(o, "recorder_pid"))
		m->recorder_pid = rd_int(&r, o, "metadata", "recorder_pid");
	if ((v = member(&r, o, "metadata", "filter", JSON_OBJECT)))
		read_filter(&r, v, &m->filter);
	m->raw = o;
	if (r.oom)
		return -ENOMEM;
	return r.bad ? -1 : 0;
}

void capmeta_free(struct capmeta *m)
{
	free(m->kernel);
	free(m->sysname);
	free(m->version);
	free(m->machine);
	free(m->byte_order);
	free(m->btf_crc32);
	for (size_t i = 0; i < m->nnot_ok; i++) {
		free(m->not_ok[i].scope);
		free(m->not_ok[i].item);
		free(m->not_ok[i].verdict);
	}
	free(m->not_ok);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		free(m->variant[ev]);
	free(m->transport);
	free(m->clock);
	free_strs(m->command_line, m->ncommand_line);
	free(m->filter.pids);
	free(m->filter.tids);
	free(m->filter.comm);
	free(m->filter.cgroup_path);
	free(m->filter.cpus);
	free_strs(m->filter.command, m->filter.ncommand);
	json_decref(m->raw);
	capmeta_init(m);
}

void captrailer_init(struct captrailer *t)
{
	memset(t, 0, sizeof(*t));
	t->end_ns = t->records = CAPMETA_ABSENT;
}

/*
 * "containers": {ID: {"pod_name", "namespace", "container_name"}}; an entry
 * that is not one is noted (and left out: that container named by id).
 */
static void read_containers(struct rd *r, json_t *o, struct captrailer *t)
{
	json_t *v = member(r, o, "trailer", "containers", JSON_OBJECT), *e;
	const char *id;

	t->ct_not_listed = rd_u64(r, o, "trailer", "containers_not_listed");
	if (!v || !json_object_size(v))
		return;
	t->ct = calloc(json_object_size(v) < CAPTRAILER_CT_MAX ?
		       json_object_size(v) : CAPTRAILER_CT_MAX, sizeof(*t->ct));
	if (!t->ct) {
		r->oom = true;
		return;
	}
	json_object_foreach(v, id, e) {
		struct captrailer_ct *c = &t->ct[t->nct];

		if (t->nct == CAPTRAILER_CT_MAX) {
			/* past what record writes: the file was altered */
			t->ct_not_listed++;
			noted(r, "the capture's trailer names over %d "
			      "containers, more than abicap record keeps: the "
			      "rest are named by id (the file was altered or "
			      "written by another program)", CAPTRAILER_CT_MAX);
			continue;
		}
		if (strlen(id) >= sizeof(c->id) ||
		    !ct_names_from_json(e, &c->names)) {
			noted(r, "the capture's trailer.containers member "
			      "\"%s\" is not a container's names: that "
			      "container is named by id (the file was altered "
			      "or written by another program)", id);
			continue;
		}
		memcpy(c->id, id, strlen(id) + 1);
		t->nct++;
	}
}

int captrailer_read(struct captrailer *t, const char *json, char *err,
		    size_t errlen)
{
	struct rd r = { err, errlen, 0, false };
	json_t *o, *v, *e;
	const char *k;
	size_t i;

	captrailer_init(t);
	if (!(o = parse(json, err, errlen)))
		return -1;
	if ((v = member(&r, o, "trailer", "duration_s", JSON_REAL)))
		t->duration_s = json_number_value(v);
	t->end_ns = rd_int(&r, o, "trailer", "end_ns");
	t->records = rd_int(&r, o, "trailer", "records");
	if ((v = member(&r, o, "trailer", "span", JSON_OBJECT))) {
		int64_t a = rd_int(&r, v, "trailer.span", "first_ns"),
			b = rd_int(&r, v, "trailer.span", "last_ns"),
			n = rd_int(&r, v, "trailer.span", "cpus");

		/* a span that cannot be is no span: the records tell */
		t->span_given = a >= 0 && b >= a && n >= 1 &&
				n <= CAPTURE_MAX_CPUS;
		t->first_ns = t->span_given ? (uint64_t)a : 0;
		t->last_ns = t->span_given ? (uint64_t)b : 0;
		t->record_cpus = t->span_given ? (uint32_t)n : 0;
	}
	if ((v = member(&r, o, "trailer", "events", JSON_OBJECT)))
		json_object_foreach(v, k, e) {
			int ev = event_by_name(k, strlen(k));

			if (ev < 0 || ev >= ABICAP_EV_COUNT || !json_is_object(e))
				continue;
			t->event[ev] = true;
			t->seen[ev] = rd_u64(&r, e, "trailer.events", "seen");
			t->received[ev] = rd_u64(&r, e, "trailer.events", "received");
			t->dropped[ev] = rd_u64(&r, e, "trailer.events", "dropped");
		}
	if ((v = member(&r, o, "trailer", "cpus", JSON_ARRAY))) {
		t->cpus = calloc(json_array_size(v) + 1, sizeof(*t->cpus));
		json_array_foreach(v, i, e)
			if (t->cpus && json_is_object(e))
				t->cpus[t->ncpus++] = (struct captrailer_cpu){
					(int)rd_int(&r, e, "trailer.cpus", "cpu"),
					rd_u64(&r, e, "trailer.cpus", "seen"),
					rd_u64(&r, e, "trailer.cpus", "dropped") };
	}
	if ((v = member(&r, o, "trailer", "bookkeeping", JSON_OBJECT))) {
		t->bookkeeping = true;
		t->followed = rd_u64(&r, v, "bookkeeping", "followed");
		t->follow_failed = rd_u64(&r, v, "bookkeeping", "follow_failed");
		t->followed_gone = rd_u64(&r, v, "bookkeeping", "followed_gone");
		t->wakers_lost = rd_u64(&r, v, "bookkeeping", "wakers_lost");
		t->wakers_in_hash = rd_u64(&r, v, "bookkeeping", "wakers_in_hash");
		t->waker_context_unknown = rd_u64(&r, v, "bookkeeping",
						  "waker_context_unknown");
	}
	if ((v = member(&r, o, "trailer", "recursion_misses", JSON_OBJECT))) {
		bool ok = true;

		/* counts that are not counts: not known */
		json_object_foreach(v, k, e)
			ok &= json_is_integer(e) && json_integer_value(e) >= 0;
		t->misses_known = ok;
		json_object_foreach(v, k, e) {
			int ev = miss_by_name(k);

			if (ok && ev >= 0) {
				t->miss_on[ev] = true;
				t->miss[ev] = (uint64_t)json_integer_value(e);
			}
		}
	}
	if ((v = member(&r, o, "trailer", "command_status", JSON_INTEGER))) {
		t->command_exited = true;
		t->command_status = (int)json_integer_value(v);
	}
	if ((v = member(&r, o, "trailer", "cgroup_throttling", JSON_ARRAY))) {
		t->throttle_given = true;
		t->cg = calloc(json_array_size(v) + 1, sizeof(*t->cg));
		json_array_foreach(v, i, e) {
			struct captrailer_cgroup *c;

			if (!t->cg || !json_is_object(e))
				continue;
			c = &t->cg[t->ncg++];
			c->id = rd_u64(&r, e, "cgroup_throttling", "id");
			c->path = rd_str(&r, e, "cgroup_throttling", "path");
			c->known = member(&r, e, "cgroup_throttling",
					  "throttled_ns", JSON_INTEGER) != NULL;
			c->v1 = json_is_string(json_object_get(e, "source")) &&
				!strcmp(json_string_value(json_object_get(e,
					"source")), CAPMETA_THROTTLE_V1);
			c->nr_periods = rd_u64(&r, e, "cgroup_throttling",
					       "nr_periods");
			c->nr_throttled = rd_u64(&r, e, "cgroup_throttling",
						 "nr_throttled");
			c->throttled_ns = rd_u64(&r, e, "cgroup_throttling",
						 "throttled_ns");
		}
	}
	read_containers(&r, o, t);
	if ((json_array_size(json_object_get(o, "cpus")) && !t->cpus) ||
	    (t->throttle_given && !t->cg))
		r.oom = true;
	t->raw = o;
	for (size_t k = 0; !r.oom && k < t->ncg; k++)
		if (hashtab_put(&t->by_id, t->cg[k].id, k) < 0)
			r.oom = true;
	if (r.oom)
		return -ENOMEM;
	return r.bad ? -1 : 0;
}

void captrailer_free(struct captrailer *t)
{
	free(t->cpus);
	for (size_t i = 0; i < t->ncg; i++)
		free(t->cg[i].path);
	free(t->cg);
	free(t->ct);
	hashtab_free(&t->by_id);
	json_decref(t->raw);
	captrailer_init(t);
}

const struct captrailer_cgroup *captrailer_cgroup(const struct captrailer *t,
						 uint64_t id)
{
	uint64_t *i = hashtab_get(&t->by_id, id);

	return i ? &t->cg[*i] : NULL;
}

int capmeta_ncpus(const struct capmeta *m)
{
	return m->ncpus >= 1 && m->ncpus <= CAPTURE_MAX_CPUS ? (int)m->ncpus : 0;
}

int capmeta_ncpus_of(const struct capmeta *m, const union abicap_rec *recs,
		     size_t n)
{
	int v = capmeta_ncpus(m);
	uint32_t max = 0;

	if (v)
		return v;
	for (size_t i = 0; i < n; i++)
		if (recs[i].hdr.cpu >= max && recs[i].hdr.cpu < CAPTURE_MAX_CPUS)
			max = recs[i].hdr.cpu + 1;
	return max ? (int)max : 1;
}
