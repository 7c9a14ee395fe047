// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A contract that omits a dependency of abicap's programs is refused. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "abi/checker.h"
#include "abi/contract_deps.h"
#include "event/events.h"

#define FIX ": add it as the built-in contract declares it (abicap contract show)"

/* The dependency bit of a program attached to this tracepoint; 0: none. */
static unsigned int dep_bit(const char *tracepoint)
{
	int ev = event_by_name(tracepoint, strlen(tracepoint));

	if (ev >= 0)
		return 1u << ev;
	if (!strcmp(tracepoint, "sched_process_fork"))
		return DEP_FORK;
	if (!strcmp(tracepoint, "sched_process_free"))
		return DEP_FREE;
	if (!strcmp(tracepoint, "csd_queue_cpu") ||
	    !strcmp(tracepoint, "csd_function_entry") ||
	    !strcmp(tracepoint, "csd_function_exit"))
		return DEP_WAKELIST;
	return 0;
}

unsigned int contract_deps_declared(const struct contract *c)
{
	unsigned int m = 0;

	for (int i = 0; i < c->nevents; i++)
		m |= dep_bit(c->events[i].name);
	return m;
}

static bool lists_event(const struct c_field *f, const char *event)
{
	for (int i = 0; i < f->nevent_names; i++)
		if (!strcmp(f->event_names[i], event))
			return true;
	return false;
}

/* A field of the struct at path, or one with path as an alternative. */
static const struct c_field *declared_field(const struct contract *c,
					    const char *sname, const char *path)
{
	for (int i = 0; i < c->nfields; i++) {
		const struct c_field *f = &c->fields[i];

		if (strcmp(f->struct_name, sname))
			continue;
		if (!strcmp(f->field, path))
			return f;
		for (int k = 0; k < f->nalts; k++)
			if (!strcmp(f->alts[k].field, path))
				return f;
	}
	return NULL;
}

/* The first event of mask, by name (for the message). */
static const char *first_event(unsigned int mask)
{
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++)
		if (mask & (1u << ev))
			return event_name(ev);
	if (mask & DEP_WAKELIST)
		return "csd_queue_cpu";
	return mask & DEP_FORK ? "sched_process_fork" : "sched_process_free";
}

static int check_citems(const struct contract *c, unsigned int needs,
			char *err, size_t errlen)
{
	for (int id = 0; id < CI_COUNT; id++) {
		const struct citem_def *d = citem_def(id);
		const struct c_event *e;
		const struct c_field *f;
		bool ok = false;

		if (!(d->needs & needs))
			continue;
		switch (d->kind) {
		case VK_TRACEPOINT:
			ok = contract_event(c, d->scope) != NULL;
			break;
		case VK_ARG:
			e = contract_event(c, d->scope);
			ok = !e || (e->nargs >= d->pos &&
				    !strcmp(e->args[d->pos - 1].name, d->name));
			if (!ok) {
				snprintf(err, errlen, "contract '%s' does not "
					 "declare %s arg %d %s, which %s" FIX,
					 c->name, d->scope, d->pos, d->name,
					 d->decides);
				return -1;
			}
			break;
		case VK_FIELD:
			f = declared_field(c, d->scope, d->name);
			ok = f && !strcmp(f->field, d->name);
			break;
		case VK_RECORD:
			ok = true;
			break;
		}
		if (!ok) {
			snprintf(err, errlen, "contract '%s' omits %s%s%s, which "
				 "%s for %s" FIX, c->name, d->scope,
				 d->kind == VK_TRACEPOINT ? " " : ".",
				 d->name, d->decides, first_event(d->needs & needs));
			return -1;
		}
	}
	return 0;
}

int contract_deps_check(const struct contract *c, const struct core_object *o,
			unsigned int needs, char *err, size_t errlen)
{
	if (check_citems(c, needs, err, errlen))
		return -1;
	for (int i = 0; i < o->nprogs; i++) {
		const struct core_prog *p = &o->progs[i];
		const struct c_event *e;

		if (!(dep_bit(p->target) & needs))
			continue;
		e = contract_event(c, p->target);
		if (!e) {
			snprintf(err, errlen, "contract '%s' omits the tracepoint "
				 "%s, which abicap's program %s attaches to" FIX,
				 c->name, p->target, p->name);
			return -1;
		}
		if (e->nargs < p->ctx_args) {
			snprintf(err, errlen, "contract '%s' declares %d argument%s "
				 "of %s; abicap's program %s reads %d: declare "
				 "arg %d as the built-in contract does (abicap "
				 "contract show)", c->name, e->nargs,
				 e->nargs == 1 ? "" : "s", e->name, p->name,
				 p->ctx_args, e->nargs + 1);
			return -1;
		}
	}
	for (int i = 0; i < o->nrelos; i++) {
		const struct core_access *a = &o->relos[i];
		const struct core_prog *p = a->prog >= 0 ? &o->progs[a->prog] : NULL;
		const struct c_field *f;

		if (!core_kind_is_field(a->kind))
			continue;
		if (!p) {
			/* a subprogram's: any of the programs may call it */
			if (declared_field(c, a->root, a->path))
				continue;
			snprintf(err, errlen, "contract '%s' omits %s.%s, which "
				 "abicap's %s reads" FIX, c->name, a->root,
				 a->path, a->program);
			return -1;
		}
		if (!(dep_bit(p->target) & needs))
			continue;
		f = declared_field(c, a->root, a->path);
		if (!f) {
			snprintf(err, errlen, "contract '%s' omits %s.%s, which "
				 "abicap's program %s reads" FIX, c->name, a->root,
				 a->path, p->name);
			return -1;
		}
		if (!lists_event(f, p->target)) {
			snprintf(err, errlen, "contract '%s': %s.%s does not list "
				 "the event %s, whose program %s reads it: add "
				 "\"%s\" to its \"events\" as the built-in contract "
				 "does (abicap contract show)", c->name, a->root,
				 a->path, p->target, p->name, p->target);
			return -1;
		}
	}
	return 0;
}
