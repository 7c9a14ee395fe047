// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Two kernels' events compared under the append-only rule: per tracepoint
 * the prototype's arguments, per trace_event_raw_* record its fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_diff.h"
#include "lib/util.h"

static struct change *add_change(struct diff *d, const char *scope,
				 const char *kind, bool breaking)
{
	struct change *c;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->v = realloc(d->v, d->cap * sizeof(*d->v));
		if (!d->v) {
			ab_error("out of memory");
			exit(EXIT_RUNTIME);
		}
	}
	c = &d->v[d->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->scope, sizeof(c->scope), "%s", scope);
	c->kind = kind;
	c->breaking = breaking;
	c->old_idx = c->new_idx = -1;
	if (breaking)
		d->breaking++;
	else
		d->compatible++;
	return c;
}

struct find_ctx {
	struct diff *d;
	const char *scope; /* the tracepoint, or the record struct */
	bool args; /* arguments: 1-based, named by position; fields: 0-based */
};

static void on_finding(void *ctx, const struct lfinding *f)
{
	struct find_ctx *x = ctx;
	int base = x->args ? 1 : 0;
	struct change *c;

	if (f->kind == LC_SAME)
		return;
	c = add_change(x->d, x->scope, x->args && f->kind == LC_DELETED ?
		       "removed" : lchange_str(f->kind), lchange_breaks(f->kind));
	/* an argument is named by where it was, or, if new, where it is */
	if (x->args)
		snprintf(c->what, sizeof(c->what), "arg %d",
			 (f->old_idx >= 0 ? f->old_idx : f->new_idx) + 1);
	else
		snprintf(c->what, sizeof(c->what), "record %s.%s", x->scope,
			 f->name);
	/* types as written, plain char named: "char *", not "s8 *" */
	if (f->old_shape)
		snprintf(c->old_type, sizeof(c->old_type), "%s", f->old_shape);
	if (f->new_shape)
		snprintf(c->new_type, sizeof(c->new_type), "%s", f->new_shape);
	if (f->kind == LC_CHAR_SIGN) {
		/* the canonical types differ only in the char's s8 / u8 */
		size_t k = 0;

		while (f->old_type[k] == f->new_type[k])
			k++;
		c->old_char = f->old_type[k] == 's' ? "signed" : "unsigned";
		c->new_char = f->new_type[k] == 's' ? "signed" : "unsigned";
	}
	c->old_idx = f->old_idx >= 0 ? f->old_idx + base : -1;
	c->new_idx = f->new_idx >= 0 ? f->new_idx + base : -1;
}

static void diff_proto(struct diff *d, const char *tp, const struct btf *ob,
		       const struct btf *nb)
{
	struct lfield *o, *n;
	int no = proto_layout(ob, tp, &o), nn = proto_layout(nb, tp, &n);
	struct find_ctx ctx = { d, tp, true };
	struct change *c;

	if (no >= 0 && nn >= 0) {
		proto_compare(o, no, n, nn, on_finding, &ctx);
	} else if (no >= 0 || nn >= 0) {
		c = add_change(d, tp, nn < 0 ? "removed" : "added", nn < 0);
		snprintf(c->what, sizeof(c->what), "tracepoint");
	}
	free(o);
	free(n);
}

static void diff_record(struct diff *d, const char *sname, const struct btf *ob,
			const struct btf *nb)
{
	struct lfield *o, *n;
	int no = record_layout(ob, sname, &o), nn = record_layout(nb, sname, &n);
	struct find_ctx ctx = { d, sname, false };

	if (no >= 0 && nn >= 0) {
		layout_compare(o, no, n, nn, on_finding, &ctx);
	} else if (no >= 0 || nn >= 0) {
		struct change *c = add_change(d, sname, nn < 0 ? "removed" :
					      "added", nn < 0);

		snprintf(c->what, sizeof(c->what), "record %s", sname);
	}
	free(o);
	free(n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every name of a kind with a prefix, in either BTF, sorted and unique. */
static int collect_names(const struct btf *a, const struct btf *b, int kind,
			 const char *prefix, char ***out)
{
	const struct btf *both[2] = { a, b };
	char **names = NULL;
	int n = 0, cap = 0, w = 0;

	for (int k = 0; k < 2; k++) {
		__u32 cnt = btf__type_cnt(both[k]);

		for (__u32 id = 1; id < cnt; id++) {
			const struct btf_type *t = btf__type_by_id(both[k], id);
			const char *name = btf__name_by_offset(both[k], t->name_off);

			if (btf_kind(t) != kind || strncmp(name, prefix, strlen(prefix)))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				names = realloc(names, cap * sizeof(*names));
				if (!names)
					return -1;
			}
			names[n++] = (char *)name + strlen(prefix);
		}
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++)
		if (!w || strcmp(names[w - 1], names[i]))
			names[w++] = names[i];
	*out = names;
	return w;
}

int diff_all(struct diff *d, const struct btf *ob, const struct btf *nb)
{
	char **names, full[256];
	int n, total = 0;

	n = collect_names(ob, nb, BTF_KIND_TYPEDEF, "btf_trace_", &names);
	for (int i = 0; i < n; i++)
		diff_proto(d, names[i], ob, nb);
	free(names);
	total += n > 0 ? n : 0;
	n = collect_names(ob, nb, BTF_KIND_STRUCT, "trace_event_raw_", &names);
	for (int i = 0; i < n; i++) {
		snprintf(full, sizeof(full), "trace_event_raw_%s", names[i]);
		diff_record(d, full, ob, nb);
	}
	free(names);
	return total + (n > 0 ? n : 0);
}

int diff_events(struct diff *d, const struct contract *c, unsigned int mask,
		const struct btf *ob, const struct btf *nb)
{
	int scopes = 0;

	/* records shared by several events are compared once */
	for (int i = 0; i < c->nevents; i++) {
		const struct c_event *e = &c->events[i];
		bool seen = false;

		if (e->ev < 0 || !(mask & (1u << e->ev)))
			continue;
		diff_proto(d, e->name, ob, nb);
		scopes++;
		for (int j = 0; j < i && e->has_record; j++)
			seen |= c->events[j].has_record &&
				(mask & (1u << c->events[j].ev)) &&
				!strcmp(c->events[j].record.struct_name,
					e->record.struct_name);
		if (e->has_record && !seen) {
			diff_record(d, e->record.struct_name, ob, nb);
			scopes++;
		}
	}
	return scopes;
}
