// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A snapshot contract: each event's prototype and record layout and each
 * field's type as one kernel's BTF has them, all required.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_util.h"
#include "abi/contract_snapshot.h"
#include "abi/layout.h"
#include "event/events.h"
#include "lib/util.h"

static json_t *snap_args(const struct c_event *e, const struct btf *btf)
{
	struct lfield *k;
	int n = proto_layout(btf, e->name, &k);
	json_t *args = json_array();

	for (int i = 0; i < n; i++) {
		const struct c_arg *base = i < e->nargs ? &e->args[i] : NULL;
		bool same = base && !strcmp(base->type, k[i].type);
		char feeds[128];

		snprintf(feeds, sizeof(feeds), "argument %d", i + 1);
		json_array_append_new(args, json_pack(
			"{s:s, s:s, s:b, s:s}",
			"name", same ? base->name : k[i].name,
			"type", k[i].type, "required", 1,
			"feeds", same ? base->feeds : feeds));
	}
	free(k);
	return args;
}

static json_t *snap_record(const struct c_event *e, const struct btf *btf)
{
	struct lfield *k;
	int n = record_layout(btf, e->record.struct_name, &k);
	json_t *fields;

	if (n < 0)
		return NULL;
	fields = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(fields, json_pack("{s:s, s:s}", "name",
							k[i].name, "type",
							k[i].type));
	free(k);
	return json_pack("{s:s, s:b, s:s, s:o}", "struct", e->record.struct_name,
			 "required", 1, "feeds", e->record.feeds, "fields",
			 fields);
}

/* The field, or the first alternative, that this kernel has. */
static json_t *snap_field(const struct c_field *f, const struct btf *btf,
			  unsigned int mask)
{
	__u32 sid = btf_find_struct(btf, f->struct_name), tid = 0;
	const char *path = f->field;
	char type[TYPE_STR_MAX];
	json_t *events;

	if (sid)
		tid = btf_find_member(btf, sid, path, NULL);
	for (int i = 0; sid && !tid && i < f->nalts; i++) {
		path = f->alts[i].field;
		tid = btf_find_member(btf, sid, path, NULL);
	}
	if (!tid) {
		ab_warn("%s.%s (nor an alternative) is not in this kernel: left "
			"out of the snapshot", f->struct_name, f->field);
		return NULL;
	}
	events = json_array();
	for (int i = 0; i < f->nevent_names; i++) {
		int ev = event_by_name(f->event_names[i],
				       strlen(f->event_names[i]));

		if (ev >= 0 && (mask & (1u << ev)))
			json_array_append_new(events,
					      json_string(f->event_names[i]));
	}
	if (!json_array_size(events)) {
		json_decref(events);
		return NULL;
	}
	btf_type_str(btf, tid, type, sizeof(type), NULL, 0);
	return json_pack("{s:s, s:s, s:s, s:b, s:o, s:s}", "struct",
			 f->struct_name, "field", path, "type", type,
			 "required", 1, "events", events, "feeds", f->feeds);
}

json_t *contract_snapshot(const struct contract *c, const struct btf *btf,
			  unsigned int mask, const char *source)
{
	json_t *events = json_array(), *fields = json_array(), *snap;
	char name[320], desc[512];

	for (int i = 0; i < c->nevents; i++) {
		const struct c_event *e = &c->events[i];
		json_t *ev, *notes, *rec;

		if (e->ev < 0 || !(mask & (1u << e->ev)))
			continue;
		if (!btf_trace_proto(btf, e->name)) {
			ab_warn("tracepoint %s:%s is not in this kernel: left out "
				"of the snapshot", e->group, e->name);
			mask &= ~(1u << e->ev);
			continue;
		}
		ev = json_pack("{s:s, s:s, s:o}", "name", e->name, "group",
			       e->group, "args", snap_args(e, btf));
		rec = e->has_record ? snap_record(e, btf) : NULL;
		if (rec)
			json_object_set_new(ev, "record", rec);
		notes = json_array();
		for (int j = 0; j < e->nnotes; j++)
			json_array_append_new(notes, json_string(e->notes[j]));
		json_object_set_new(ev, "notes", notes);
		json_array_append_new(events, ev);
	}
	for (int i = 0; i < c->nfields; i++) {
		json_t *f = snap_field(&c->fields[i], btf, mask);

		if (f)
			json_array_append_new(fields, f);
	}
	snprintf(name, sizeof(name), "snapshot of %s", source);
	snprintf(desc, sizeof(desc), "Pinned to what %s has: every item "
		 "required. Check a later kernel with: abicap check --contract "
		 "THIS_FILE --btf NEW", source);
	snap = contract_json(name, desc, events, fields);

	snprintf(name, sizeof(name), "the kernel %s, as abicap's programs read "
		 "it (a snapshot)", source);
	if (snap)
		json_object_set_new(snap, "describes", json_string(name));
	return snap;
}
