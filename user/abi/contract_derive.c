// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * contract from-object: a tracepoint per tp_btf/raw_tp/tp program, a field
 * per CO-RE field relocation (optional where guarded, a guarded ___flavour
 * its alternative), notes for what the contract format cannot express.
 */
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_util.h"
#include "abi/contract.h"
#include "abi/contract_derive.h"
#include "abi/layout.h"

/* The final member's type at the end of a relocation's access string. */
static void local_field_type(const struct core_object *o,
			     const struct core_access *a, char *out, size_t len)
{
	__u32 id = btf_skip_mods(o->btf, a->type_id);
	const char *p = a->access;
	bool first = true;

	while (*p) {
		char *end;
		unsigned long idx = strtoul(p, &end, 10);
		const struct btf_type *t = btf__type_by_id(o->btf, id);

		if (end == p || !t)
			break;
		p = *end == ':' ? end + 1 : end;
		if (first) {
			first = false;
		} else if (btf_is_composite(t) && idx < btf_vlen(t)) {
			id = btf_members(t)[idx].type;
		} else if (btf_is_array(t)) {
			id = btf_array(t)->type;
		}
		id = btf_skip_mods(o->btf, id);
	}
	btf_type_str(o->btf, id, out, len, NULL, 0);
}

/* C identifiers joined by single dots: what a contract's "field" holds. */
static bool member_path(const char *s)
{
	bool start = true;

	for (; *s; s++) {
		if (*s == '.' && !start) {
			start = true;
			continue;
		}
		if (!(isalnum((unsigned char)*s) || *s == '_') ||
		    (start && isdigit((unsigned char)*s)))
			return false;
		start = false;
	}
	return !start;
}

/*
 * A field relocation the contract format can hold: a path of named
 * members (not the root itself, an anonymous member or an array element)
 * and a type it knows. Any other is a note (check --object checks it).
 */
static bool expressible(const struct core_object *o, const struct core_access *a)
{
	char type[TYPE_STR_MAX], canon[TYPE_STR_MAX];

	if (!core_kind_is_field(a->kind) || !member_path(a->path) ||
	    !member_path(a->root))
		return false;
	local_field_type(o, a, type, sizeof(type));
	return type_canonical(type, canon, sizeof(canon));
}

/* expressible() of every relocation (malloc'd), NULL when out of memory. */
static bool *expressible_all(const struct core_object *o)
{
	bool *ok = calloc(o->nrelos + 1, sizeof(*ok));

	for (int i = 0; ok && i < o->nrelos; i++)
		ok[i] = expressible(o, &o->relos[i]);
	return ok;
}

/*
 * Notes for what the contract format cannot check itself: every program's
 * attach point and argument count, every type and enum relocation.
 */
static json_t *derived_notes(const struct core_object *o,
			     const struct obj_result *guards)
{
	json_t *notes = json_array();
	bool *ok = expressible_all(o);
	char note[320];

	if (!ok)
		return notes;

	for (int i = 0; i < o->nprogs; i++) {
		const struct core_prog *p = &o->progs[i];

		if (p->ctx_args >= 0)
			snprintf(note, sizeof(note), "program %s (%s) reads %d "
				 "argument%s of %s", p->name, p->section,
				 p->ctx_args, p->ctx_args == 1 ? "" : "s",
				 p->target);
		else
			snprintf(note, sizeof(note), "program %s attaches to %s",
				 p->name, p->section);
		json_array_append_new(notes, json_string(note));
	}
	for (int i = 0; i < o->nrelos; i++) {
		const struct core_access *a = &o->relos[i];

		if (ok[i])
			continue;
		snprintf(note, sizeof(note), "program %s: %s of %s (%s)%s",
			 a->program, core_kind_str(a->kind),
			 guards->relos[i].r.what,
			 guards->relos[i].guarded ? "guarded" : "unguarded",
			 core_kind_is_field(a->kind) ? ", not a member path "
			 "of a type a contract holds" : "");
		json_array_append_new(notes, json_string(note));
	}
	json_array_append_new(notes, json_string("argument counts, attach points, "
		"type and enum relocations are checked by abicap check --object"));
	free(ok);
	return notes;
}

json_t *contract_derived_events(const struct core_object *o,
				const struct obj_result *guards)
{
	json_t *events = json_array();

	for (int i = 0; i < o->nprogs; i++) {
		const struct core_prog *p = &o->progs[i];
		bool dup = false;

		if (strcmp(p->attach, "tp_btf") && strcmp(p->attach, "raw_tp") &&
		    strcmp(p->attach, "tp"))
			continue;
		/* no tracepoint is named otherwise (its note says what it is) */
		if (!member_path(p->target) || strchr(p->target, '.'))
			continue;
		for (int k = 0; k < i; k++)
			dup |= !strcmp(o->progs[k].target, p->target) &&
			       (!strcmp(o->progs[k].attach, "tp_btf") ||
				!strcmp(o->progs[k].attach, "raw_tp") ||
				!strcmp(o->progs[k].attach, "tp"));
		if (dup)
			continue;
		json_array_append_new(events, json_pack(
			"{s:s, s:s, s:[], s:o}", "name", p->target, "group",
			p->attach, "args", "notes", json_array_size(events) ?
			json_array() : derived_notes(o, guards)));
	}
	return events;
}

static const char *prog_target(const struct core_object *o, const char *prog)
{
	for (int i = 0; i < o->nprogs; i++)
		if (!strcmp(o->progs[i].name, prog) &&
		    member_path(o->progs[i].target) &&
		    !strchr(o->progs[i].target, '.') &&
		    (!strcmp(o->progs[i].attach, "tp_btf") ||
		     !strcmp(o->progs[i].attach, "raw_tp") ||
		     !strcmp(o->progs[i].attach, "tp")))
			return o->progs[i].target;
	return NULL;
}

/*
 * A guarded access through a ___flavour, in a program that also reads the
 * type directly behind a guard: the other branch, an alternative.
 */
static bool is_alternative(const struct core_object *o, const bool *ok,
			   const struct obj_result *guards, int i)
{
	const struct core_access *a = &o->relos[i];

	if (!strcmp(a->root, a->flavour) || !guards->relos[i].guarded)
		return false;
	for (int k = 0; k < o->nrelos; k++)
		if (!strcmp(o->relos[k].program, a->program) &&
		    !strcmp(o->relos[k].root, a->root) &&
		    !strcmp(o->relos[k].flavour, o->relos[k].root) && ok[k])
			return true;
	return false;
}

/*
 * One field per (root, path) read: required unless every read is guarded;
 * accesses through a ___flavour of a type the program also reads directly
 * become alternatives of those fields.
 */
static json_t *derived_fields(const struct core_object *o,
			      const struct obj_result *guards, json_t *events)
{
	json_t *fields = json_array();
	bool *ok = expressible_all(o);

	for (int i = 0; ok && i < o->nrelos; i++) {
		const struct core_access *a = &o->relos[i];
		bool dup = false, required = false;
		char type[TYPE_STR_MAX], feeds[256];
		json_t *evs, *f, *alts;
		const char *t;

		if (!ok[i] || is_alternative(o, ok, guards, i))
			continue;
		for (int k = 0; k < i && !dup; k++)
			dup = ok[k] &&
			      !strcmp(o->relos[k].flavour, a->flavour) &&
			      !strcmp(o->relos[k].path, a->path);
		if (dup)
			continue;
		evs = json_array();
		alts = json_array();
		for (int k = 0; k < o->nrelos; k++) {
			const struct core_access *b = &o->relos[k];

			if (!ok[k] || strcmp(b->root, a->root))
				continue;
			if (!strcmp(b->flavour, a->flavour) && !strcmp(b->path, a->path)) {
				required |= !guards->relos[k].guarded;
				t = prog_target(o, b->program);
				if (t && !json_array_size(evs))
					json_array_append_new(evs, json_string(t));
			} else if (strcmp(b->flavour, b->root) &&
				   !strcmp(b->program, a->program) &&
				   guards->relos[k].guarded && !json_array_size(alts)) {
				local_field_type(o, b, type, sizeof(type));
				json_array_append_new(alts, json_pack(
					"{s:s, s:s}", "field", b->path, "type", type));
			}
		}
		if (!json_array_size(evs)) {
			json_decref(evs);
			json_decref(alts);
			continue; /* a program with no tracepoint to tie it to */
		}
		local_field_type(o, a, type, sizeof(type));
		snprintf(feeds, sizeof(feeds), "read by %s (%s)", a->program,
			 a->section);
		f = json_pack("{s:s, s:s, s:s, s:b, s:o, s:s}", "struct", a->root,
			      "field", a->path, "type", type, "required", required,
			      "events", evs, "feeds", feeds);
		if (json_array_size(alts))
			json_object_set_new(f, "alternatives", alts);
		else
			json_decref(alts);
		json_array_append_new(fields, f);
	}
	(void)events;
	free(ok);
	return fields;
}

json_t *contract_derived(const struct core_object *o,
			 const struct obj_result *guards, json_t *events,
			 const char *obj)
{
	char desc[512], name[320];
	json_t *c;

	snprintf(name, sizeof(name), "derived from %s", obj);
	snprintf(desc, sizeof(desc), "What %s relies on, as its CO-RE relocations "
		 "and section names show. Field types are pinned as compiled "
		 "(libbpf itself accepts integers of another size).", obj);
	c = contract_json(name, desc, events, derived_fields(o, guards, events));

	snprintf(name, sizeof(name), "the BPF object %s", obj);
	if (c)
		json_object_set_new(c, "describes", json_string(name));
	return c;
}
