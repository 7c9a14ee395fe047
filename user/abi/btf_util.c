// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
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

/* One path component, looked up through anonymous members. */
static __u32 find_one(const struct btf *btf, __u32 sid, const char *name,
		      size_t nlen, __u32 *bit_off, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, btf_skip_mods(btf, sid));
	const struct btf_member *m;

	if (!t || !btf_is_composite(t) || depth > 16)
		return 0;
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

			r = find_one(btf, m->type, name, nlen, &sub, depth + 1);
			if (r) {
				*bit_off += off + sub;
				return r;
			}
		}
	}
	return 0;
}

__u32 btf_find_member(const struct btf *btf, __u32 sid, const char *path,
		      __u32 *bit_off)
{
	__u32 id = sid, off = 0;

	while (*path) {
		size_t n = strcspn(path, ".");

		id = find_one(btf, id, path, n, &off, 0);
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

const struct btf_type *btf_trace_proto(const struct btf *btf, const char *tp)
{
	char tn[128];
	const struct btf_type *t;
	int id;

	snprintf(tn, sizeof(tn), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(btf, tn, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return NULL;
	t = btf__type_by_id(btf, id);
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

bool btf_well_formed(const struct btf *btf, char *why, size_t len)
{
	__u32 n = btf__type_cnt(btf);

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
	return true;
}
