// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Two kernels' events compared under the append-only rule: per tracepoint
 * the prototype's arguments, per trace_event_raw_* record its fields.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "lib/array.h"
#include "abi/btf_diff.h"
#include "abi/btf_util.h"
#include "abi/layout.h"
#include "lib/util.h"

static struct change *add_change(struct diff *d, const char *scope,
				 const char *kind, bool breaking)
{
	struct change *c;

	if (array_room(&d->v, (size_t)d->n, &d->cap, sizeof(*d->v), 64)) {
		ab_error("out of memory");
		exit(EXIT_RUNTIME);
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

/* Compare layouts o[no] and n[nn] (-1: absent) of scope; frees both. */
static void diff_layouts(struct diff *d, const char *scope, bool args,
			 struct lfield *o, int no, struct lfield *n, int nn)
{
	struct find_ctx ctx = { d, scope, args };
	struct change *c;

	if (no >= 0 && nn >= 0) {
		if (args)
			proto_compare(o, no, n, nn, on_finding, &ctx);
		else
			layout_compare(o, no, n, nn, on_finding, &ctx);
	} else if (no >= 0 || nn >= 0) {
		c = add_change(d, scope, nn < 0 ? "removed" : "added", nn < 0);
		if (args)
			snprintf(c->what, sizeof(c->what), "tracepoint");
		else
			snprintf(c->what, sizeof(c->what), "record %s", scope);
	}
	free(o);
	free(n);
}

static void diff_proto(struct diff *d, const char *tp, const struct btf *ob,
		       const struct btf *nb)
{
	struct lfield *o, *n;
	int no = proto_layout(ob, tp, &o), nn = proto_layout(nb, tp, &n);

	diff_layouts(d, tp, true, o, no, n, nn);
}

static void diff_record(struct diff *d, const char *sname, const struct btf *ob,
			const struct btf *nb)
{
	struct lfield *o, *n;
	int no = record_layout(ob, sname, &o), nn = record_layout(nb, sname, &n);

	diff_layouts(d, sname, false, o, no, n, nn);
}

/* Both kernels' types of a kind and prefix, merged by name: each compared once. */
static int diff_kind(struct diff *d, const struct btf *ob, const struct btf *nb,
		     int kind, const char *prefix)
{
	struct btf_names *io = btf_names_new(ob, kind, prefix);
	struct btf_names *in = btf_names_new(nb, kind, prefix);
	bool args = kind == BTF_KIND_TYPEDEF;
	size_t i = 0, j = 0, no, nn;
	struct btf_named *o, *n;
	int total = 0;

	if (!io || !in) {
		ab_error("out of memory");
		exit(EXIT_RUNTIME);
	}
	o = io->v;
	n = in->v;
	no = io->n;
	nn = in->n;
	while (i < no || j < nn) {
		int c = i == no ? 1 : j == nn ? -1 : strcmp(o[i].name, n[j].name);
		__u32 oid = c <= 0 ? o[i].id : 0, nid = c >= 0 ? n[j].id : 0;
		const char *name = c <= 0 ? o[i].name : n[j].name;
		struct lfield *lo, *ln;
		int lno, lnn;
		char full[256];

		if (args) {
			lno = oid ? proto_layout_of(ob, btf_trace_proto_of(ob, oid),
						    &lo) : (lo = NULL, -1);
			lnn = nid ? proto_layout_of(nb, btf_trace_proto_of(nb, nid),
						    &ln) : (ln = NULL, -1);
			diff_layouts(d, name, true, lo, lno, ln, lnn);
		} else {
			snprintf(full, sizeof(full), "%s%s", prefix, name);
			lno = oid ? record_layout_of(ob, oid, &lo) : (lo = NULL, -1);
			lnn = nid ? record_layout_of(nb, nid, &ln) : (ln = NULL, -1);
			diff_layouts(d, full, false, lo, lno, ln, lnn);
		}
		i += c <= 0;
		j += c >= 0;
		total++;
	}
	btf_names_free(io);
	btf_names_free(in);
	return total;
}

int diff_all(struct diff *d, const struct btf *ob, const struct btf *nb)
{
	return diff_kind(d, ob, nb, BTF_KIND_TYPEDEF, "btf_trace_") +
	       diff_kind(d, ob, nb, BTF_KIND_STRUCT, "trace_event_raw_");
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
