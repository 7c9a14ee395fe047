// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "lib/array.h"
#include "abi/btf_util.h"

__u32 btf_skip_mods(const struct btf *btf, __u32 id)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	while (t && (btf_is_typedef(t) || btf_is_mod(t) ||
		     btf_kind(t) == BTF_KIND_TYPE_TAG)) {
		id = t->type;
		t = btf__type_by_id(btf, id);
	}
	return id;
}

static void type_str(const struct btf *btf, __u32 id, char *out, size_t len,
		     int depth, bool plain_char)
{
	const struct btf_type *t;
	const char *name;

	id = btf_skip_mods(btf, id);
	t = btf__type_by_id(btf, id);
	if (!id || !t) {
		snprintf(out, len, "void");
		return;
	}
	name = btf__name_by_offset(btf, t->name_off);
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		__u8 enc = btf_int_encoding(t);

		if (enc & BTF_INT_BOOL)
			snprintf(out, len, "bool");
		else if (plain_char && t->size == 1 && !strcmp(name, "char"))
			snprintf(out, len, "char");
		else
			snprintf(out, len, "%c%u", enc & BTF_INT_SIGNED ? 's' : 'u',
				 t->size * 8);
		return;
	}
	case BTF_KIND_PTR: {
		char inner[96];

		if (depth > 8) {
			snprintf(out, len, "void *");
			return;
		}
		type_str(btf, t->type, inner, sizeof(inner), depth + 1, plain_char);
		if (btf_is_func_proto(btf__type_by_id(btf, btf_skip_mods(btf, t->type))))
			snprintf(out, len, "function *");
		else
			snprintf(out, len, "%s%s*", inner,
				 inner[strlen(inner) - 1] == '*' ? "" : " ");
		return;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = btf_array(t);
		const struct btf_type *e =
			btf__type_by_id(btf, btf_skip_mods(btf, a->type));
		char inner[96];

		if (e && btf_is_int(e) && e->size == 1 &&
		    !(btf_int_encoding(e) & BTF_INT_BOOL)) {
			snprintf(out, len, "char[%u]", a->nelems);
			return;
		}
		type_str(btf, a->type, inner, sizeof(inner), depth + 1, plain_char);
		snprintf(out, len, "%s[%u]", inner, a->nelems);
		return;
	}
	case BTF_KIND_STRUCT:
		snprintf(out, len, "struct %s", *name ? name : "(anon)");
		return;
	case BTF_KIND_UNION:
		snprintf(out, len, "union %s", *name ? name : "(anon)");
		return;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		snprintf(out, len, "enum %s", *name ? name : "(anon)");
		return;
	case BTF_KIND_FWD:
		snprintf(out, len, "%s %s", btf_kflag(t) ? "union" : "struct", name);
		return;
	case BTF_KIND_FLOAT:
		snprintf(out, len, "f%u", t->size * 8);
		return;
	default:
		snprintf(out, len, "kind%u", btf_kind(t));
	}
}

void btf_type_str(const struct btf *btf, __u32 id, char *out, size_t len,
		  char *c_name, size_t c_len)
{
	const struct btf_type *t = btf__type_by_id(btf, id);

	type_str(btf, id, out, len, 0, false);
	if (!c_name)
		return;
	c_name[0] = 0;
	/* the outermost name, where it is not what the canonical form says */
	while (t && btf_is_mod(t))
		t = btf__type_by_id(btf, t->type);
	if (t && (btf_is_typedef(t) || btf_is_int(t))) {
		const char *n = btf__name_by_offset(btf, t->name_off);

		if (n && *n && strcmp(n, out))
			snprintf(c_name, c_len, "%s", n);
	}
}

void btf_type_shape(const struct btf *btf, __u32 id, char *out, size_t len)
{
	type_str(btf, id, out, len, 0, true);
}

__u32 btf_find_struct(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	if (id <= 0)
		id = btf__find_by_name_kind(btf, name, BTF_KIND_UNION);
	return id > 0 ? (__u32)id : 0;
}

/*
 * A lookup through anonymous members: the shallowest depth (+1) at which
 * each type was searched, so that a struct reached again (anonymous
 * members share types) is searched again only from higher up. Each type
 * is then searched at most ANON_DEPTH + 1 times however the members fan
 * out (issue 23: 4^16 paths from a 100-byte BTF).
 */
#define ANON_DEPTH 16

struct anon_walk {
	const struct btf *btf;
	unsigned char *seen; /* per type id; NULL until an anonymous member is met */
};

static __u32 find_one(struct anon_walk *w, __u32 sid, const char *name,
		      size_t nlen, __u32 *bit_off, int depth)
{
	const struct btf *btf = w->btf;
	const struct btf_type *t;
	const struct btf_member *m;

	sid = btf_skip_mods(btf, sid);
	t = btf__type_by_id(btf, sid);
	if (!t || !btf_is_composite(t) || depth > ANON_DEPTH)
		return 0;
	if (depth) {
		if (!w->seen)
			w->seen = calloc(btf__type_cnt(btf), 1);
		if (w->seen && w->seen[sid] && w->seen[sid] <= depth + 1)
			return 0; /* searched from as high up: not there */
		if (w->seen)
			w->seen[sid] = depth + 1;
	}
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);
		__u32 off = btf_member_bit_offset(t, i);

		if (mn && *mn) {
			if (strlen(mn) == nlen && !strncmp(mn, name, nlen)) {
				*bit_off += off;
				return m->type;
			}
		} else {
			__u32 sub = 0, r;

			r = find_one(w, m->type, name, nlen, &sub, depth + 1);
			if (r) {
				*bit_off += off + sub;
				return r;
			}
		}
	}
	return 0;
}

/* One member of sid named name[0..nlen), through anonymous members. */
static __u32 find_named(const struct btf *btf, __u32 sid, const char *name,
			size_t nlen, __u32 *bit_off)
{
	struct anon_walk w = { btf, NULL };
	__u32 id = find_one(&w, sid, name, nlen, bit_off, 0);

	free(w.seen);
	return id;
}

__u32 btf_find_member(const struct btf *btf, __u32 sid, const char *path,
		      __u32 *bit_off)
{
	__u32 id = sid, off = 0;

	while (*path) {
		size_t n = strcspn(path, ".");

		id = find_named(btf, id, path, n, &off);
		if (!id)
			return 0;
		path += n;
		if (*path == '.')
			path++;
	}
	if (bit_off)
		*bit_off = off;
	return id;
}

__u32 btf_find_member_named(const struct btf *btf, __u32 sid, const char *name,
			    __u32 *bit_off)
{
	__u32 off = 0, id = find_named(btf, sid, name, strlen(name), &off);

	if (id && bit_off)
		*bit_off += off;
	return id;
}

const struct btf_type *btf_trace_proto(const struct btf *btf, const char *tp)
{
	char tn[128];
	int id;

	snprintf(tn, sizeof(tn), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF);
	return id > 0 ? btf_trace_proto_of(btf, id) : NULL;
}

const struct btf_type *btf_trace_proto_of(const struct btf *btf, __u32 id)
{
	const struct btf_type *t;

	t = id ? btf__type_by_id(btf, id) : NULL;
	if (!t)
		return NULL;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t) ? t : NULL;
}

bool btf_has_trace_types(const struct btf *btf)
{
	__u32 n = btf__type_cnt(btf);

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (btf_is_typedef(t) &&
		    !strncmp(btf__name_by_offset(btf, t->name_off), "btf_trace_", 10))
			return true;
	}
	return false;
}

static int by_name_id(const void *pa, const void *pb)
{
	const struct btf_named *a = pa, *b = pb;
	int c = strcmp(a->name, b->name);

	return c ? c : (a->id > b->id) - (a->id < b->id);
}

struct btf_names *btf_names_new(const struct btf *btf, int kind,
				const char *prefix)
{
	struct btf_names *ix = calloc(1, sizeof(*ix));
	__u32 cnt = btf__type_cnt(btf);
	size_t plen = strlen(prefix), cap = 0, w = 0;

	if (!ix)
		return NULL;
	for (__u32 id = 1; id < cnt; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name = btf__name_by_offset(btf, t->name_off);

		if (btf_kind(t) != kind || !name || strncmp(name, prefix, plen))
			continue;
		if (array_room(&ix->v, ix->n, &cap, sizeof(*ix->v), 1024)) {
			btf_names_free(ix);
			return NULL;
		}
		ix->v[ix->n++] = (struct btf_named){ name + plen, id };
	}
	if (ix->n)
		qsort(ix->v, ix->n, sizeof(*ix->v), by_name_id);
	/* each name once, with its first id (what btf__find_by_name_kind() gives) */
	for (size_t i = 0; i < ix->n; i++)
		if (!w || strcmp(ix->v[w - 1].name, ix->v[i].name))
			ix->v[w++] = ix->v[i];
	ix->n = w;
	return ix;
}

__u32 btf_names_find(const struct btf_names *ix, const char *name)
{
	size_t lo = 0, hi = ix->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(ix->v[mid].name, name);

		if (!c)
			return ix->v[mid].id;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

void btf_names_free(struct btf_names *ix)
{
	if (ix)
		free(ix->v);
	free(ix);
}

/* A type id that must name a type of this BTF (0 is void). */
static bool id_ok(const struct btf *btf, __u32 id)
{
	return id < btf__type_cnt(btf);
}

static bool name_ok(const struct btf *btf, __u32 off)
{
	return btf__name_by_offset(btf, off) != NULL;
}

/* Does the chain of typedefs, modifiers, pointers and arrays from id end? */
static bool chain_ends(const struct btf *btf, __u32 id)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!id || !t)
			return true;
		if (btf_is_array(t))
			id = btf_array(t)->type;
		else if (btf_is_typedef(t) || btf_is_mod(t) || btf_is_ptr(t) ||
			 btf_kind(t) == BTF_KIND_TYPE_TAG)
			id = t->type;
		else
			return true;
	}
	return false;
}

/* The struct or union a member's type holds by value (through typedefs, modifiers, arrays), or 0. */
static __u32 held(const struct btf *btf, __u32 id)
{
	for (int depth = 0; depth < 32; depth++) {
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (!id || !t)
			return 0;
		if (btf_is_composite(t))
			return id;
		if (btf_is_array(t))
			id = btf_array(t)->type;
		else if (btf_is_typedef(t) || btf_is_mod(t) ||
			 btf_kind(t) == BTF_KIND_TYPE_TAG)
			id = t->type;
		else
			return 0;
	}
	return 0;
}

/*
 * A struct or union that holds itself by value, through its members (an
 * infinite type, which C cannot declare): its id, or 0. Depth first
 * without recursion, each type once: linear in the members. -1 (as
 * __u32) when out of memory.
 */
static __u32 holds_itself(const struct btf *btf)
{
	__u32 n = btf__type_cnt(btf), found = 0;
	unsigned char *state = calloc(n, 1); /* 0 new, 1 on the path, 2 done */
	struct frame { __u32 id; int next; } *stack = malloc(n * sizeof(*stack));

	if (!state || !stack) {
		free(state);
		free(stack);
		return (__u32)-1;
	}
	for (__u32 root = 1; root < n && !found; root++) {
		int sp = 0;

		if (state[root] || !btf_is_composite(btf__type_by_id(btf, root)))
			continue;
		stack[sp++] = (struct frame){ root, 0 };
		state[root] = 1;
		while (sp && !found) {
			struct frame *f = &stack[sp - 1];
			const struct btf_type *t = btf__type_by_id(btf, f->id);
			__u32 c;

			if (f->next == btf_vlen(t)) {
				state[f->id] = 2;
				sp--;
				continue;
			}
			c = held(btf, btf_members(t)[f->next++].type);
			if (!c || state[c] == 2)
				continue;
			if (state[c] == 1)
				found = c;
			else {
				state[c] = 1;
				stack[sp++] = (struct frame){ c, 0 };
			}
		}
	}
	free(state);
	free(stack);
	return found;
}

bool btf_well_formed(const struct btf *btf, char *why, size_t len)
{
	__u32 n = btf__type_cnt(btf), self;
	char ts[96];

	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		bool ok = name_ok(btf, t->name_off);

		switch (btf_kind(t)) {
		case BTF_KIND_PTR: case BTF_KIND_TYPEDEF: case BTF_KIND_VOLATILE:
		case BTF_KIND_CONST: case BTF_KIND_RESTRICT: case BTF_KIND_FUNC:
		case BTF_KIND_VAR: case BTF_KIND_TYPE_TAG: case BTF_KIND_DECL_TAG:
		case BTF_KIND_FUNC_PROTO:
			ok = ok && id_ok(btf, t->type);
			break;
		case BTF_KIND_ARRAY:
			ok = ok && id_ok(btf, btf_array(t)->type) &&
			     id_ok(btf, btf_array(t)->index_type);
			break;
		}
		if (btf_is_composite(t))
			for (int i = 0; ok && i < btf_vlen(t); i++)
				ok = name_ok(btf, btf_members(t)[i].name_off) &&
				     id_ok(btf, btf_members(t)[i].type);
		if (btf_is_func_proto(t))
			for (int i = 0; ok && i < btf_vlen(t); i++)
				ok = name_ok(btf, btf_params(t)[i].name_off) &&
				     id_ok(btf, btf_params(t)[i].type);
		if (btf_is_enum(t))
			for (int i = 0; ok && i < btf_vlen(t); i++)
				ok = name_ok(btf, btf_enum(t)[i].name_off);
		if (btf_is_enum64(t))
			for (int i = 0; ok && i < btf_vlen(t); i++)
				ok = name_ok(btf, btf_enum64(t)[i].name_off);
		if (btf_is_datasec(t))
			for (int i = 0; ok && i < btf_vlen(t); i++)
				ok = id_ok(btf, btf_var_secinfos(t)[i].type);
		if (!ok) {
			snprintf(why, len, "type [%u] names a string or type "
				 "that is not there", id);
			return false;
		}
		if (!chain_ends(btf, id)) {
			snprintf(why, len, "type [%u] starts a loop of "
				 "typedefs, modifiers, pointers or arrays", id);
			return false;
		}
	}
	self = holds_itself(btf);
	if (self == (__u32)-1) {
		snprintf(why, len, "out of memory checking it");
		return false;
	}
	if (self) {
		type_str(btf, self, ts, sizeof(ts), 0, false);
		snprintf(why, len, "type [%u] (%s) holds itself by value",
			 self, ts);
		return false;
	}
	return true;
}
