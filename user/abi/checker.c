// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "lib/array.h"
#include "abi/btf_util.h"
#include "abi/checker.h"
#include "lib/strfit.h"
#include "event/events.h"
#include "abi/layout.h"
#include "lib/util.h"

const char *vstatus_str(enum vstatus s)
{
	return s == V_OK ? "ok" : s == V_DEGRADED ? "degraded" : "broken";
}

const char *vkind_str(enum vkind k)
{
	switch (k) {
	case VK_TRACEPOINT:
		return "tracepoint";
	case VK_ARG:
		return "arg";
	case VK_FIELD:
		return "field";
	case VK_RECORD:
		return "record";
	}
	return "?";
}

#define SCHED_EVENTS ((1u << ABICAP_EV_SCHED_SWITCH) |                          \
		      (1u << ABICAP_EV_SCHED_WAKEUP) |                          \
		      (1u << ABICAP_EV_SCHED_WAKEUP_NEW) |                      \
		      (1u << ABICAP_EV_SCHED_WAKING))
#define CGROUP_IDS "gates the cgroup ids (the fallback: 0)"
#define CGROUP_WALK "gates --cgroup's walk up the cgroup tree"
#define RQ_WALK "gates the waker's interrupt context on x86, and serve's " \
	"clocks (the kernel's run queue)"
#define KERNEL_AGG "chooses serve's statistics from the kernel's own " \
	"accounting (else sched_wakeup programs and the BPF clock)"
#define SWITCH_WAKING ((1u << ABICAP_EV_SCHED_SWITCH) |                        \
		       (1u << ABICAP_EV_SCHED_WAKEUP) |                         \
		       (1u << ABICAP_EV_SCHED_WAKING) | DEP_WAKELIST)
#define WAKELIST "chooses sched_wakeup's wakers from the wakelists (else " \
	"a sched_waking program keeps every waker)"

static const struct citem_def citems[CI_COUNT] = {
	[CI_SWITCH_PREV_STATE] = { VK_ARG, "sched_switch", "prev_state", 4,
				   1u << ABICAP_EV_SCHED_SWITCH,
				   "chooses the 4-argument sched_switch program "
				   "(the 3-argument one reads a racy prev_state)" },
	[CI_RINGBUF_LOCK] = { VK_FIELD, "bpf_ringbuf", "spinlock", 0,
			      EVENTS_ALL, "chooses the ring buffer, or the perf "
			      "buffers where its lock may sleep (PREEMPT_RT)" },
	[CI_CGROUPS] = { VK_FIELD, "task_struct", "cgroups", 0, SCHED_EVENTS,
			 CGROUP_IDS },
	[CI_CSS_DFL_CGRP] = { VK_FIELD, "css_set", "dfl_cgrp", 0, SCHED_EVENTS,
			      CGROUP_IDS },
	[CI_CGROUP_KN] = { VK_FIELD, "cgroup", "kn", 0, SCHED_EVENTS,
			   CGROUP_IDS },
	[CI_KERNFS_ID] = { VK_FIELD, "kernfs_node", "id", 0, SCHED_EVENTS,
			   CGROUP_IDS },
	[CI_CGROUP_LEVEL] = { VK_FIELD, "cgroup", "level", 0, SCHED_EVENTS,
			      CGROUP_WALK },
	[CI_CGROUP_SELF] = { VK_FIELD, "cgroup", "self", 0, SCHED_EVENTS,
			     CGROUP_WALK },
	[CI_CGROUP_PARENT] = { VK_FIELD, "cgroup", "self.parent", 0,
			       SCHED_EVENTS, CGROUP_WALK },
	[CI_SE_CFS_RQ] = { VK_FIELD, "task_struct", "se.cfs_rq", 0,
			   SWITCH_WAKING, RQ_WALK },
	[CI_CFS_RQ_RQ] = { VK_FIELD, "cfs_rq", "rq", 0, SWITCH_WAKING, RQ_WALK },
	[CI_RUN_DELAY] = { VK_FIELD, "task_struct", "sched_info.run_delay", 0,
			   1u << ABICAP_EV_SCHED_SWITCH, KERNEL_AGG },
	[CI_LAST_QUEUED] = { VK_FIELD, "task_struct", "sched_info.last_queued",
			     0, 1u << ABICAP_EV_SCHED_SWITCH, KERNEL_AGG },
	[CI_PCOUNT] = { VK_FIELD, "task_struct", "sched_info.pcount", 0,
			1u << ABICAP_EV_SCHED_SWITCH, KERNEL_AGG },
	[CI_RQ_CLOCK] = { VK_FIELD, "rq", "clock", 0,
			  1u << ABICAP_EV_SCHED_SWITCH, KERNEL_AGG },
	[CI_SUM_EXEC] = { VK_FIELD, "task_struct", "se.sum_exec_runtime", 0,
			  1u << ABICAP_EV_SCHED_SWITCH, KERNEL_AGG },
	[CI_TP_FORK] = { VK_TRACEPOINT, "sched_process_fork", "tracepoint", 0,
			 DEP_FORK, "follows a command's children" },
	[CI_TP_FREE] = { VK_TRACEPOINT, "sched_process_free", "tracepoint", 0,
			 DEP_FREE, "forgets freed processes in the -p filter" },
	[CI_TP_CSD_QUEUE] = { VK_TRACEPOINT, "csd_queue_cpu", "tracepoint", 0,
			      DEP_WAKELIST, WAKELIST },
	[CI_TP_CSD_ENTRY] = { VK_TRACEPOINT, "csd_function_entry", "tracepoint",
			      0, DEP_WAKELIST, WAKELIST },
	[CI_TP_CSD_EXIT] = { VK_TRACEPOINT, "csd_function_exit", "tracepoint",
			     0, DEP_WAKELIST, WAKELIST },
	[CI_WAKE_ENTRY] = { VK_FIELD, "task_struct", "wake_entry", 0,
			    DEP_WAKELIST, WAKELIST },
};

const struct citem_def *citem_def(enum citem id)
{
	return id >= 0 && id < CI_COUNT ? &citems[id] : NULL;
}

/* The typed id of an item of this kind, scope and name (at pos), or CI_NONE. */
static int citem_of(enum vkind kind, const char *scope, const char *name,
		    int pos)
{
	for (int i = 0; i < CI_COUNT; i++)
		if (citems[i].kind == kind && !strcmp(citems[i].scope, scope) &&
		    !strcmp(citems[i].name, name) &&
		    (kind != VK_ARG || citems[i].pos == pos))
			return i;
	return CI_NONE;
}

static struct verdict *add(struct check_result *r, enum vkind kind,
			   const char *scope, unsigned int events,
			   const char *event_names)
{
	struct verdict *v;

	if (array_room(&r->v, (size_t)r->n, &r->cap, sizeof(*r->v), 64))
		return NULL;
	v = &r->v[r->n++];
	memset(v, 0, sizeof(*v));
	v->kind = kind;
	v->id = CI_NONE;
	v->ev = -1;
	v->events = events;
	snprintf(v->scope, sizeof(v->scope), "%s", scope);
	snprintf(v->event_names, sizeof(v->event_names), "%s", event_names);
	return v;
}

static void set(struct check_result *r, struct verdict *v, enum vstatus s,
		const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static void set(struct check_result *r, struct verdict *v, enum vstatus s,
		const char *fmt, ...)
{
	va_list ap;

	v->status = s;
	r->count[s]++;
	va_start(ap, fmt);
	vstrfit(v->detail, sizeof(v->detail), fmt, ap);
	va_end(ap);
}

static unsigned int ev_bit(const struct c_event *e)
{
	return e->ev >= 0 ? 1u << e->ev : 0;
}

static void actual_str(const struct btf *btf, __u32 id, char *out, size_t len)
{
	char canon[TYPE_STR_MAX], cname[64];

	btf_type_str(btf, id, canon, sizeof(canon), cname, sizeof(cname));
	if (cname[0])
		strfit(out, len, "%s (%s)", canon, cname);
	else
		strfit(out, len, "%s", canon);
}

/*
 * The kernel's structs, unions and btf_trace_* typedefs by name, for the
 * check under way: a contract's items are looked up by binary search (a
 * scan of every type per item made a large contract quadratic).
 */
static struct {
	const struct btf *btf;
	struct btf_names *structs, *unions, *traces;
} names;

static void names_free(void)
{
	btf_names_free(names.structs);
	btf_names_free(names.unions);
	btf_names_free(names.traces);
	memset(&names, 0, sizeof(names));
}

static int names_init(const struct btf *btf)
{
	names.btf = btf;
	names.structs = btf_names_new(btf, BTF_KIND_STRUCT, "");
	names.unions = btf_names_new(btf, BTF_KIND_UNION, "");
	names.traces = btf_names_new(btf, BTF_KIND_TYPEDEF, "btf_trace_");
	if (names.structs && names.unions && names.traces)
		return 0;
	names_free();
	return -ENOMEM;
}

/* btf_find_struct() through the index */
static __u32 find_struct(const struct btf *btf, const char *name)
{
	__u32 id;

	if (names.btf != btf)
		return btf_find_struct(btf, name);
	id = btf_names_find(names.structs, name);
	return id ? id : btf_names_find(names.unions, name);
}

static int check_args(const struct c_event *e, const struct btf *btf,
		      struct check_result *r)
{
	const struct btf_type *proto = names.btf == btf ?
		btf_trace_proto_of(btf, btf_names_find(names.traces, e->name)) :
		btf_trace_proto(btf, e->name);
	struct verdict *v;
	int nparams;

	v = add(r, VK_TRACEPOINT, e->name, ev_bit(e), e->name);
	if (!v)
		return -ENOMEM;
	snprintf(v->item, sizeof(v->item), "tracepoint");
	snprintf(v->expected, sizeof(v->expected), "present");
	v->id = citem_of(VK_TRACEPOINT, e->name, "tracepoint", 0);
	v->ev = e->ev;
	if (v->id != CI_NONE)
		r->at[v->id] = r->n - 1;
	if (e->ev >= 0 && r->tp[e->ev] < 0)
		r->tp[e->ev] = r->n - 1;
	if (!proto && !r->has_trace_types) {
		snprintf(v->actual, sizeof(v->actual), "no btf_trace_* types");
		set(r, v, V_DEGRADED, "this kernel's BTF predates btf_trace_* "
		    "types (Linux 5.5): prototype not checkable; raw_tp "
		    "programs, 3-argument sched_switch");
		return 0;
	}
	if (!proto) {
		snprintf(v->actual, sizeof(v->actual), "missing");
		if (!e->required)
			set(r, v, V_DEGRADED, "optional%s%s tracepoint %s:%s "
			    "missing; fallback: %s", e->since ? ", since " : "",
			    e->since ? e->since : "", e->group, e->name,
			    e->fallback);
		else
			set(r, v, V_BROKEN, "this kernel has no tracepoint "
			    "%s:%s: nothing of it can be captured", e->group,
			    e->name);
		return 0;
	}
	nparams = btf_vlen(proto) - 1;
	snprintf(v->actual, sizeof(v->actual), "%d argument%s", nparams,
		 nparams == 1 ? "" : "s");
	set(r, v, V_OK, "%s", "");
	for (int i = 0; i < e->nargs; i++) {
		const struct c_arg *a = &e->args[i];

		v = add(r, VK_ARG, e->name, ev_bit(e), e->name);
		if (!v)
			return -ENOMEM;
		snprintf(v->item, sizeof(v->item), "arg %d %s", i + 1, a->name);
		snprintf(v->expected, sizeof(v->expected), "%s", a->type);
		v->id = citem_of(VK_ARG, e->name, a->name, i + 1);
		v->ev = e->ev;
		if (v->id != CI_NONE && r->at[v->id] < 0)
			r->at[v->id] = r->n - 1;
		if (i >= nparams) {
			snprintf(v->actual, sizeof(v->actual), "missing (%d "
				 "argument%s)", nparams, nparams == 1 ? "" : "s");
			if (a->required)
				set(r, v, V_BROKEN, "required argument missing; "
				    "lost: %s", a->feeds);
			else
				set(r, v, V_DEGRADED, "optional%s%s argument "
				    "missing; %s%s", a->since ? ", " : "",
				    a->since ? a->since : "",
				    a->fallback ? "fallback: " : "lost: ",
				    a->fallback ? a->fallback : a->feeds);
			continue;
		}
		actual_str(btf, btf_params(proto)[i + 1].type, v->actual,
			   sizeof(v->actual));
		{
			char canon[TYPE_STR_MAX];

			btf_type_str(btf, btf_params(proto)[i + 1].type, canon,
				     sizeof(canon), NULL, 0);
			if (!strcmp(canon, a->type)) {
				set(r, v, V_OK, "%s", "");
			} else if (a->required) {
				set(r, v, V_BROKEN, "argument %d has another "
				    "type: moved or retyped; lost: %s", i + 1,
				    a->feeds);
			} else {
				set(r, v, V_DEGRADED, "argument %d has another "
				    "type: not read; %s%s", i + 1,
				    a->fallback ? "fallback: " : "lost: ",
				    a->fallback ? a->fallback : a->feeds);
			}
		}
	}
	for (int i = e->nargs; i < nparams; i++) {
		v = add(r, VK_ARG, e->name, ev_bit(e), e->name);
		if (!v)
			return -ENOMEM;
		snprintf(v->item, sizeof(v->item), "arg %d (extra)", i + 1);
		v->ev = e->ev;
		snprintf(v->expected, sizeof(v->expected), "-");
		actual_str(btf, btf_params(proto)[i + 1].type, v->actual,
			   sizeof(v->actual));
		set(r, v, V_OK, "appended after the contract's arguments: "
		    "compatible");
	}
	return 0;
}

/*
 * An optional event whose prototype changed is not used (its fallback is):
 * degraded, not broken, the fallback named.
 */
static void optional_event(const struct c_event *e, struct check_result *r,
			   int first)
{
	for (int i = first; i < r->n; i++) {
		struct verdict *v = &r->v[i];
		char was[sizeof(v->detail)];

		if (v->status != V_BROKEN)
			continue;
		r->count[V_BROKEN]--;
		snprintf(was, sizeof(was), "%s", v->detail);
		set(r, v, V_DEGRADED, "%s; the optional tracepoint %s is not "
		    "used, fallback: %s", was, e->name, e->fallback);
	}
}

struct rec_ctx {
	struct check_result *r;
	const struct c_event *e;
	const char *event_names;
	unsigned int events;
	int err;
};

static void on_record_finding(void *ctx, const struct lfinding *f)
{
	struct rec_ctx *c = ctx;
	const struct c_record *rec = &c->e->record;
	struct verdict *v;

	v = add(c->r, VK_RECORD, c->e->name, c->events, c->event_names);
	if (!v) {
		c->err = -ENOMEM;
		return;
	}
	snprintf(v->item, sizeof(v->item), "record.%s", f->name);
	if (f->old_type)
		snprintf(v->expected, sizeof(v->expected), "%s at %d",
			 f->old_type, f->old_idx);
	else
		snprintf(v->expected, sizeof(v->expected), "-");
	if (f->new_type)
		snprintf(v->actual, sizeof(v->actual), "%s at %d", f->new_type,
			 f->new_idx);
	else
		snprintf(v->actual, sizeof(v->actual), "missing");
	if (!lchange_breaks(f->kind)) {
		set(c->r, v, V_OK, "%s", f->kind == LC_APPENDED ?
		    "appended at the end: compatible" : "");
		return;
	}
	set(c->r, v, rec->required ? V_BROKEN : V_DEGRADED,
	    "%s.%s %s: breaks the append-only rule; affects: %s",
	    rec->struct_name, f->name, lchange_str(f->kind), rec->feeds);
}

/* Events sharing this record struct (and field list) get one set of verdicts. */
static bool same_record(const struct c_record *a, const struct c_record *b)
{
	if (strcmp(a->struct_name, b->struct_name) || a->nfields != b->nfields ||
	    a->required != b->required)
		return false;
	for (int i = 0; i < a->nfields; i++)
		if (strcmp(a->fields[i].name, b->fields[i].name) ||
		    strcmp(a->fields[i].type, b->fields[i].type))
			return false;
	return true;
}

static int check_record(const struct contract *c, int ei,
			const struct btf *btf, struct check_result *r)
{
	const struct c_event *e = &c->events[ei];
	const struct c_record *rec = &e->record;
	struct rec_ctx ctx = { .r = r, .e = e };
	struct lfield *kf, *cf;
	char names[160] = "";
	int n;

	for (int i = 0; i < ei; i++)
		if (c->events[i].has_record &&
		    same_record(&c->events[i].record, rec))
			return 0; /* checked with events[i] */
	for (int i = ei; i < c->nevents; i++) {
		if (!c->events[i].has_record ||
		    !same_record(&c->events[i].record, rec))
			continue;
		ctx.events |= ev_bit(&c->events[i]);
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", names[0] ? "," : "", c->events[i].name);
	}
	ctx.event_names = names;
	n = record_layout_of(btf, find_struct(btf, rec->struct_name), &kf);
	if (n < 0) {
		struct verdict *v = add(r, VK_RECORD, e->name, ctx.events, names);

		if (!v)
			return -ENOMEM;
		snprintf(v->item, sizeof(v->item), "record");
		snprintf(v->expected, sizeof(v->expected), "%d fields",
			 rec->nfields);
		snprintf(v->actual, sizeof(v->actual), "missing");
		set(r, v, rec->required ? V_BROKEN : V_DEGRADED,
		    "no struct %s in this kernel's BTF; affects: %s",
		    rec->struct_name, rec->feeds);
		return 0;
	}
	cf = calloc(rec->nfields + 1, sizeof(*cf));
	if (!cf) {
		free(kf);
		return -ENOMEM;
	}
	for (int i = 0; i < rec->nfields; i++) {
		snprintf(cf[i].name, sizeof(cf[i].name), "%s", rec->fields[i].name);
		snprintf(cf[i].type, sizeof(cf[i].type), "%s", rec->fields[i].type);
	}
	layout_compare(cf, rec->nfields, kf, n, on_record_finding, &ctx);
	free(cf);
	free(kf);
	return ctx.err;
}

/* "s32" and "u32": integers of one size, of the other signedness. */
static bool other_sign(const char *a, const char *b)
{
	return (a[0] == 's' || a[0] == 'u') && (b[0] == 's' || b[0] == 'u') &&
	       a[0] != b[0] && strchr("123468", a[1]) && !strcmp(a + 1, b + 1) &&
	       strspn(a + 1, "0123456789") == strlen(a + 1);
}

#define FOUND_OTHER_SIGN 2

/*
 * Found and of the declared type: 1; an integer of its size and the other
 * signedness: FOUND_OTHER_SIGN; found with another type: 0; missing: -1.
 */
static int probe_field(const struct btf *btf, __u32 sid, const char *path,
		       const char *type, char *actual, size_t alen)
{
	__u32 tid = btf_find_member(btf, sid, path, NULL);
	char canon[TYPE_STR_MAX];

	if (!tid)
		return -1;
	btf_type_str(btf, tid, canon, sizeof(canon), NULL, 0);
	actual_str(btf, tid, actual, alen);
	if (!strcmp(canon, type))
		return 1;
	return other_sign(canon, type) ? FOUND_OTHER_SIGN : 0;
}

/*
 * libbpf's field relocation ignores integer signedness (relo_core.c,
 * bpf_core_fields_are_compat) and keeps the load's size when the sizes
 * agree: the program reads the same bytes, as the type it declares.
 */
static void other_sign_note(char *out, size_t len, const char *field,
			    const char *type, const char *actual)
{
	strfit(out, len, "%s is %s here, an integer of the same size and the "
	       "other signedness: libbpf relocates the CO-RE read and the "
	       "programs read it as %s; only a value with the top bit set "
	       "would read differently", field, actual, type);
}

/* "struct.member.path" exists in this BTF. */
static bool requirement_met(const struct btf *btf, const char *req)
{
	char sname[128];
	size_t n = strcspn(req, ".");
	__u32 sid;

	snprintf(sname, sizeof(sname), "%.*s", (int)n, req);
	sid = find_struct(btf, sname);
	return sid && btf_find_member(btf, sid, req + n + 1, NULL);
}

static int check_field(const struct c_field *f, const struct btf *btf,
		       struct check_result *r)
{
	char names[160] = "", alt_actual[160], note[256];
	const struct c_alt *unmet = NULL;
	struct verdict *v;
	__u32 sid;
	int found;

	for (int i = 0; i < f->nevent_names; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names),
			 "%s%s", i ? "," : "", f->event_names[i]);
	v = add(r, VK_FIELD, f->struct_name, f->events, names);
	if (!v)
		return -ENOMEM;
	snprintf(v->item, sizeof(v->item), "%s", f->field);
	snprintf(v->expected, sizeof(v->expected), "%s", f->type);
	v->id = citem_of(VK_FIELD, f->struct_name, f->field, 0);
	if (v->id != CI_NONE && r->at[v->id] < 0)
		r->at[v->id] = r->n - 1;
	sid = find_struct(btf, f->struct_name);
	if (!sid) {
		snprintf(v->actual, sizeof(v->actual), "no struct %s",
			 f->struct_name);
		set(r, v, f->required ? V_BROKEN : V_DEGRADED,
		    "struct %s is not in this kernel's BTF; lost: %s",
		    f->struct_name, f->feeds);
		return 0;
	}
	found = probe_field(btf, sid, f->field, f->type, v->actual,
			    sizeof(v->actual));
	if (found == 1) {
		set(r, v, V_OK, "%s", "");
		return 0;
	}
	if (found == FOUND_OTHER_SIGN && f->core) {
		other_sign_note(note, sizeof(note), f->field, f->type, v->actual);
		set(r, v, V_OK, "%s", note);
		return 0;
	}
	for (int i = 0; i < f->nalts; i++) {
		const struct c_alt *a = &f->alts[i];
		int got = probe_field(btf, sid, a->field, a->type, alt_actual,
				      sizeof(alt_actual));

		note[0] = '\0';
		if (got == FOUND_OTHER_SIGN && f->core)
			other_sign_note(note, sizeof(note), a->field, a->type,
					alt_actual);
		else if (got != 1)
			continue;
		if (a->requires && !requirement_met(btf, a->requires)) {
			/* there, but not the kind it may stand in for */
			strfit(v->actual, sizeof(v->actual), "%s: %s", a->field,
			       alt_actual);
			unmet = a;
			continue;
		}
		strfit(v->actual, sizeof(v->actual), "%s: %s", a->field,
		       alt_actual);
		if (a->equivalent) {
			set(r, v, V_OK, "%s.%s (%s) serves as well here%s%s%s%s",
			    f->struct_name, a->field, a->type,
			    a->requires ? ": this kernel has " : "",
			    a->requires ? a->requires : "",
			    note[0] ? "; " : "", note);
			return 0;
		}
		set(r, v, V_DEGRADED, "not found; this kernel has %s.%s (%s)%s%s"
		    ": the programs read that instead%s%s", f->struct_name,
		    a->field, a->type, a->until ? ", until " : "",
		    a->until ? a->until : "", note[0] ? "; " : "", note);
		return 0;
	}
	if (!unmet && found != 0)
		snprintf(v->actual, sizeof(v->actual), "missing");
	if (unmet)
		set(r, v, f->required ? V_BROKEN : V_DEGRADED,
		    "%s.%s is %s, but this kernel lacks %s, which makes it "
		    "safe%s%s", f->struct_name, unmet->field, unmet->type,
		    unmet->requires, f->fallback ? "; fallback: " : "; lost: ",
		    f->fallback ? f->fallback : f->feeds);
	else if (found == 0 || found == FOUND_OTHER_SIGN)
		set(r, v, f->required ? V_BROKEN : V_DEGRADED,
		    "%s.%s has another type; %s%s", f->struct_name, f->field,
		    f->fallback ? "fallback: " : "lost: ",
		    f->fallback ? f->fallback : f->feeds);
	else
		set(r, v, f->required ? V_BROKEN : V_DEGRADED,
		    "%s.%s not found%s; %s%s", f->struct_name, f->field,
		    f->nalts ? " (nor any alternative)" : "",
		    f->fallback ? "fallback: " : "lost: ",
		    f->fallback ? f->fallback : f->feeds);
	return 0;
}

int contract_check(const struct contract *c, const struct btf *btf,
		   struct check_result *res)
{
	int err = 0;

	memset(res, 0, sizeof(*res));
	for (int i = 0; i < CI_COUNT; i++)
		res->at[i] = -1;
	for (int i = 0; i < ABICAP_EV_COUNT; i++)
		res->tp[i] = -1;
	if (names_init(btf))
		return -ENOMEM;
	res->has_trace_types = btf_has_trace_types(btf);
	for (int i = 0; i < c->nevents && !err; i++) {
		int first = res->n;

		err = check_args(&c->events[i], btf, res);
		if (!err && !c->events[i].required)
			optional_event(&c->events[i], res, first);
		if (!err && c->events[i].has_record)
			err = check_record(c, i, btf, res);
	}
	for (int i = 0; i < c->nfields && !err; i++)
		err = check_field(&c->fields[i], btf, res);
	names_free();
	return err;
}

void check_result_free(struct check_result *res)
{
	free(res->v);
	memset(res, 0, sizeof(*res));
	for (int i = 0; i < CI_COUNT; i++)
		res->at[i] = -1;
	for (int i = 0; i < ABICAP_EV_COUNT; i++)
		res->tp[i] = -1;
}

enum vstatus check_worst(const struct check_result *res, unsigned int mask)
{
	enum vstatus w = V_OK;

	for (int i = 0; i < res->n; i++)
		if ((res->v[i].events & mask) && res->v[i].status > w)
			w = res->v[i].status;
	return w;
}

const struct verdict *check_item(const struct check_result *res,
				 enum citem id)
{
	if (id < 0 || id >= CI_COUNT || res->at[id] < 0)
		return NULL;
	return &res->v[res->at[id]];
}

/* Declared and ok. */
static bool item_ok(const struct check_result *res, enum citem id)
{
	const struct verdict *v = check_item(res, id);

	return v && v->status == V_OK;
}

/*
 * The tracepoint is declared and every item of its event (itself among
 * them) is at worst `worst`.
 */
static bool tracepoint_holds(const struct check_result *res, enum citem id,
			     enum vstatus worst)
{
	const struct verdict *tp = check_item(res, id);

	if (!tp)
		return false;
	for (int i = 0; i < res->n; i++)
		if (!strcmp(res->v[i].scope, tp->scope) &&
		    res->v[i].status > worst)
			return false;
	return true;
}

int plan_from_check(const struct check_result *res, unsigned int mask,
		    enum attach_mode mode, struct kernel_plan *plan, char *err,
		    size_t errlen)
{
	const struct verdict *v;

	memset(plan, 0, sizeof(*plan));
	if (mode == ATTACH_TP_BTF && !res->has_trace_types) {
		snprintf(err, errlen, "--attach tp_btf: this kernel's BTF has no "
			 "btf_trace_* types (Linux 5.5+ needed); use --attach raw_tp");
		return EXIT_USAGE;
	}
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		if (!(mask & (1u << ev)))
			continue;
		v = res->tp[ev] >= 0 ? &res->v[res->tp[ev]] : NULL;
		plan->tp_btf[ev] = mode != ATTACH_RAW_TP && v && v->status == V_OK;
	}
	/* following children: every sched_process_fork item must hold */
	plan->fork_ok = tracepoint_holds(res, CI_TP_FORK, V_DEGRADED);
	plan->fork_tp_btf = mode != ATTACH_RAW_TP && item_ok(res, CI_TP_FORK);
	plan->free_ok = tracepoint_holds(res, CI_TP_FREE, V_DEGRADED);
	plan->free_tp_btf = mode != ATTACH_RAW_TP && item_ok(res, CI_TP_FREE);
	/* cgroup attribution, and the --cgroup filter's walk up the tree */
	plan->cgroup_ok = item_ok(res, CI_CGROUPS) &&
			  item_ok(res, CI_CSS_DFL_CGRP) &&
			  item_ok(res, CI_CGROUP_KN) && item_ok(res, CI_KERNFS_ID);
	plan->cgroup_filter_ok = plan->cgroup_ok &&
				 item_ok(res, CI_CGROUP_LEVEL) &&
				 item_ok(res, CI_CGROUP_SELF) &&
				 item_ok(res, CI_CGROUP_PARENT);
	plan->rq_ok = item_ok(res, CI_SE_CFS_RQ) && item_ok(res, CI_CFS_RQ_RQ);
	plan->kernel_agg_ok = plan->rq_ok && item_ok(res, CI_RUN_DELAY) &&
			      item_ok(res, CI_LAST_QUEUED) &&
			      item_ok(res, CI_PCOUNT) &&
			      item_ok(res, CI_RQ_CLOCK) &&
			      item_ok(res, CI_SUM_EXEC);
	/* a ring buffer whose lock is not known to be safe: perf buffers */
	plan->perfbuf = !item_ok(res, CI_RINGBUF_LOCK);
	plan->wakelist_ok = mode != ATTACH_RAW_TP &&
			    tracepoint_holds(res, CI_TP_CSD_QUEUE, V_OK) &&
			    tracepoint_holds(res, CI_TP_CSD_ENTRY, V_OK) &&
			    tracepoint_holds(res, CI_TP_CSD_EXIT, V_OK) &&
			    item_ok(res, CI_WAKE_ENTRY) &&
			    plan->tp_btf[ABICAP_EV_SCHED_WAKEUP];
	/* the 4-argument program where arg 4 is prev_state, and ok */
	plan->switch_prev_state = item_ok(res, CI_SWITCH_PREV_STATE);
	return EXIT_OK;
}
