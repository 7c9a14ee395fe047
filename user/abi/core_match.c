// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * CO-RE relocations held against a kernel's BTF the way libbpf resolves
 * them: candidates are the kernel types with the same kind and essential
 * name (the ___flavour suffix stripped); named members are matched by name,
 * looking through anonymous members; field types must be compatible (any
 * two structs/unions, any two pointers, integers of any size, enums and
 * forwards of the same name, arrays of compatible elements).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_util.h"
#include "abi/core_match.h"
#include "lib/strfit.h"

static size_t essential_len(const char *name)
{
	const char *s = strstr(name, "___");

	return s ? (size_t)(s - name) : strlen(name);
}

static bool same_essential(const char *a, const char *b)
{
	size_t la = essential_len(a), lb = essential_len(b);

	return la == lb && !strncmp(a, b, la);
}

static bool kinds_match(const struct btf_type *a, const struct btf_type *b)
{
	int ka = btf_kind(a), kb = btf_kind(b);

	if ((ka == BTF_KIND_ENUM || ka == BTF_KIND_ENUM64) &&
	    (kb == BTF_KIND_ENUM || kb == BTF_KIND_ENUM64))
		return true;
	return ka == kb;
}

/* libbpf's bpf_core_fields_are_compat(). */
static bool fields_compat(const struct btf *lb, __u32 lid, const struct btf *tb,
			  __u32 tid, int depth)
{
	const struct btf_type *l = btf__type_by_id(lb, btf_skip_mods(lb, lid));
	const struct btf_type *t = btf__type_by_id(tb, btf_skip_mods(tb, tid));

	if (!l || !t || depth > 16)
		return false;
	if (btf_is_composite(l) && btf_is_composite(t))
		return true;
	if (!kinds_match(l, t))
		return false;
	switch (btf_kind(l)) {
	case BTF_KIND_PTR:
	case BTF_KIND_FLOAT:
		return true;
	case BTF_KIND_FWD:
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		return same_essential(btf__name_by_offset(lb, l->name_off),
				      btf__name_by_offset(tb, t->name_off));
	case BTF_KIND_INT:
		return btf_int_offset(l) == 0 && btf_int_offset(t) == 0;
	case BTF_KIND_ARRAY:
		return fields_compat(lb, btf_array(l)->type, tb,
				     btf_array(t)->type, depth + 1);
	}
	return false;
}

/*
 * Walk the local access string from local type lid, and the same named
 * members in target type tid. Fills the byte offset and size reached on
 * each side; on a mismatch returns false with the member where it failed.
 */
struct walk {
	__u32 l_off, t_off; /* bits */
	__u32 l_id, t_id; /* final field types */
	char failed_at[128];
	bool incompatible;
};

static bool walk_spec(const struct btf *lb, __u32 lid, const char *access,
		      const struct btf *tb, __u32 tid, struct walk *w)
{
	const char *p = access;
	bool first = true;

	memset(w, 0, sizeof(*w));
	lid = btf_skip_mods(lb, lid);
	tid = btf_skip_mods(tb, tid);
	while (*p) {
		char *end;
		unsigned long idx = strtoul(p, &end, 10);
		const struct btf_type *lt = btf__type_by_id(lb, lid);
		const struct btf_type *tt = btf__type_by_id(tb, tid);

		if (end == p || !lt || !tt)
			return false;
		p = *end == ':' ? end + 1 : end;
		if (first) {
			/* ptr[idx]: whole root types */
			__s64 ls = btf__resolve_size(lb, lid), ts = btf__resolve_size(tb, tid);

			first = false;
			w->l_off += idx * (ls > 0 ? ls : 0) * 8;
			w->t_off += idx * (ts > 0 ? ts : 0) * 8;
			continue;
		}
		if (btf_is_composite(lt)) {
			const struct btf_member *m;
			const char *name;
			__u32 ntid = 0, boff = 0;

			if (idx >= btf_vlen(lt))
				return false;
			m = btf_members(lt) + idx;
			name = btf__name_by_offset(lb, m->name_off);
			w->l_off += btf_member_bit_offset(lt, idx);
			if (!name || !*name) {
				/* anonymous in the local type: transparent */
				lid = btf_skip_mods(lb, m->type);
				continue;
			}
			if (!btf_is_composite(tt) ||
			    !(ntid = btf_find_member_named(tb, tid, name, &boff))) {
				snprintf(w->failed_at, sizeof(w->failed_at), "%s", name);
				return false;
			}
			if (!fields_compat(lb, m->type, tb, ntid, 0)) {
				snprintf(w->failed_at, sizeof(w->failed_at), "%s", name);
				w->incompatible = true;
				return false;
			}
			w->t_off += boff;
			lid = btf_skip_mods(lb, m->type);
			tid = btf_skip_mods(tb, ntid);
		} else if (btf_is_array(lt) && btf_is_array(tt)) {
			__u32 le = btf_array(lt)->type, te = btf_array(tt)->type;
			__s64 ls = btf__resolve_size(lb, le), ts = btf__resolve_size(tb, te);

			if (btf_array(tt)->nelems && idx >= btf_array(tt)->nelems) {
				snprintf(w->failed_at, sizeof(w->failed_at), "[%lu]", idx);
				return false;
			}
			w->l_off += idx * (ls > 0 ? ls : 0) * 8;
			w->t_off += idx * (ts > 0 ? ts : 0) * 8;
			lid = btf_skip_mods(lb, le);
			tid = btf_skip_mods(tb, te);
		} else {
			return false;
		}
	}
	w->l_id = lid;
	w->t_id = tid;
	return true;
}

/* name without leading underscores */
static const char *bare(const char *s)
{
	while (*s == '_')
		s++;
	return s;
}

/*
 * Members of the target struct that may be what `name` became: the same
 * name but for leading underscores (state -> __state), or one that starts
 * or ends with it. Three at most.
 */
static void similar_members(const struct btf *tb, __u32 tid, const char *name,
			    const char *root, char *out, size_t len)
{
	const struct btf_type *t = btf__type_by_id(tb, btf_skip_mods(tb, tid));
	size_t nl = strlen(bare(name));
	int found = 0;

	out[0] = 0;
	if (!t || !btf_is_composite(t) || nl < 2)
		return;
	/* the same bare name first; names that merely contain it only without one */
	for (int pass = 0; pass < 2 && !(pass == 1 && found); pass++) {
		const struct btf_member *m = btf_members(t);

		for (int i = 0; i < btf_vlen(t) && found < 3; i++, m++) {
			const char *mn = btf__name_by_offset(tb, m->name_off);
			const char *b = mn ? bare(mn) : "";
			size_t bl = strlen(b);
			bool exact = !strcmp(b, bare(name)) && strcmp(mn, name);
			bool near = bl > nl && (!strncmp(b, bare(name), nl) ||
						!strcmp(b + bl - nl, bare(name)));
			char type[96];

			if (pass == 0 ? !exact : (exact || !near))
				continue;
			btf_type_str(tb, m->type, type, sizeof(type), NULL, 0);
			snprintf(out + strlen(out), len - strlen(out), "%s%s.%s (%s)",
				 found++ ? ", " : "; this kernel has ", root, mn, type);
		}
	}
}

/*
 * The target's named types sorted by kind (enum and enum64 as one),
 * essential name, id: the candidates of a local type are one range, found
 * by binary search (scanning every type for each relocation made a large
 * object's check quadratic).
 */
struct core_ent {
	const char *name;
	__u32 id;
	__u16 len; /* essential length */
	__u8 cls;
};

struct core_index {
	struct core_ent *e;
	size_t n;
};

static __u8 kind_class(const struct btf_type *t)
{
	return btf_kind(t) == BTF_KIND_ENUM64 ? BTF_KIND_ENUM : btf_kind(t);
}

static int ent_cmp(const void *pa, const void *pb)
{
	const struct core_ent *a = pa, *b = pb;
	int c;

	if (a->cls != b->cls)
		return a->cls < b->cls ? -1 : 1;
	c = memcmp(a->name, b->name, a->len < b->len ? a->len : b->len);
	if (c)
		return c;
	if (a->len != b->len)
		return a->len < b->len ? -1 : 1;
	return a->id < b->id ? -1 : a->id > b->id;
}

struct core_index *core_index_new(const struct btf *tb)
{
	struct core_index *ix = calloc(1, sizeof(*ix));
	__u32 n = btf__type_cnt(tb);

	if (!ix || !(ix->e = malloc(n * sizeof(*ix->e)))) {
		free(ix);
		return NULL;
	}
	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(tb, id);
		const char *name = btf__name_by_offset(tb, t->name_off);
		size_t len = name ? essential_len(name) : 0;

		if (!len || len > 0xffff)
			continue;
		ix->e[ix->n++] = (struct core_ent){ name, id, len, kind_class(t) };
	}
	qsort(ix->e, ix->n, sizeof(*ix->e), ent_cmp);
	return ix;
}

void core_index_free(struct core_index *ix)
{
	if (ix)
		free(ix->e);
	free(ix);
}

/* The candidate types: same kind, same essential name, in id order. */
static int candidates(const struct btf *lb, __u32 lid,
		      const struct core_index *ix, __u32 *out, int max)
{
	const struct btf_type *l = btf__type_by_id(lb, btf_skip_mods(lb, lid));
	const char *ln = l ? btf__name_by_offset(lb, l->name_off) : NULL;
	struct core_ent key;
	size_t lo = 0, hi = ix->n;
	int k = 0;

	if (!ln || !*ln || essential_len(ln) > 0xffff)
		return 0;
	key = (struct core_ent){ ln, 0, essential_len(ln), kind_class(l) };
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (ent_cmp(&ix->e[mid], &key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < ix->n && k < max; lo++) {
		key.id = ix->e[lo].id;
		if (ent_cmp(&ix->e[lo], &key))
			break;
		out[k++] = key.id;
	}
	return k;
}

static void match_field(const struct btf *lb, const struct core_access *a,
			const struct btf *tb, const struct core_index *ix,
			struct core_result *r)
{
	__u32 cands[16];
	int n = candidates(lb, a->type_id, ix, cands, 16);
	struct walk w;

	for (int i = 0; i < n; i++) {
		__s64 ls, ts;

		if (!walk_spec(lb, a->type_id, a->access, tb, cands[i], &w))
			continue;
		ls = btf__resolve_size(lb, w.l_id);
		ts = btf__resolve_size(tb, w.t_id);
		r->local = a->kind == CORE_FIELD_BYTE_SIZE ? (__u64)ls : w.l_off / 8;
		r->target = a->kind == CORE_FIELD_BYTE_SIZE ? (__u64)ts : w.t_off / 8;
		if (a->kind == CORE_FIELD_EXISTS) {
			r->outcome = CORE_RESOLVED;
			snprintf(r->detail, sizeof(r->detail), "exists");
		} else if (w.l_off != w.t_off || ls != ts) {
			r->outcome = CORE_RESOLVED_DIFFERENT;
			snprintf(r->detail, sizeof(r->detail), "offset %u -> %u, "
				 "size %lld -> %lld (relocated by CO-RE)",
				 w.l_off / 8, w.t_off / 8, (long long)ls,
				 (long long)ts);
		} else {
			r->outcome = CORE_RESOLVED;
			snprintf(r->detail, sizeof(r->detail), "offset %u, size %lld",
				 w.t_off / 8, (long long)ts);
		}
		return;
	}
	if (a->kind == CORE_FIELD_EXISTS) {
		r->outcome = CORE_ABSENT;
		strfit(r->detail, sizeof(r->detail), "%s.%s does not exist "
		       "here (the guard is false)", a->root, a->path);
		return;
	}
	r->outcome = CORE_FAILED;
	if (!n) {
		snprintf(r->detail, sizeof(r->detail), "struct %s not found",
			 a->root);
		return;
	}
	{
		char similar[256];

		walk_spec(lb, a->type_id, a->access, tb, cands[0], &w);
		similar_members(tb, cands[0], w.failed_at, a->root, similar,
				sizeof(similar));
		strfit(r->detail, sizeof(r->detail), "%s.%s: %s%s", a->root,
		       a->path, w.incompatible ? "has an incompatible type" :
		       "not found", similar);
	}
}

static void match_type(const struct btf *lb, const struct core_access *a,
		       const struct btf *tb, const struct core_index *ix,
		       struct core_result *r)
{
	__u32 cands[16];
	int n;

	if (a->kind == CORE_TYPE_ID_LOCAL) {
		r->outcome = CORE_RESOLVED;
		snprintf(r->detail, sizeof(r->detail), "local type id");
		return;
	}
	n = candidates(lb, a->type_id, ix, cands, 16);
	if (n) {
		__s64 sz = btf__resolve_size(tb, cands[0]);

		r->outcome = CORE_RESOLVED;
		r->target = a->kind == CORE_TYPE_SIZE ? (__u64)sz : cands[0];
		snprintf(r->detail, sizeof(r->detail), "type id %u, size %lld",
			 cands[0], (long long)sz);
	} else if (a->kind == CORE_TYPE_EXISTS) {
		r->outcome = CORE_ABSENT;
		snprintf(r->detail, sizeof(r->detail), "%s does not exist here "
			 "(the guard is false)", a->root);
	} else {
		r->outcome = CORE_FAILED;
		snprintf(r->detail, sizeof(r->detail), "type %s not found",
			 a->root);
	}
}

/* Enumerator `access` (its index) of the local enum, looked up by name. */
static void match_enum(const struct btf *lb, const struct core_access *a,
		       const struct btf *tb, const struct core_index *ix,
		       struct core_result *r)
{
	const struct btf_type *l = btf__type_by_id(lb, btf_skip_mods(lb, a->type_id));
	unsigned long idx = strtoul(a->access, NULL, 10);
	const char *name = NULL;
	__u32 cands[16];
	int n;

	if (l && btf_is_enum(l) && idx < btf_vlen(l))
		name = btf__name_by_offset(lb, btf_enum(l)[idx].name_off);
	else if (l && btf_is_enum64(l) && idx < btf_vlen(l))
		name = btf__name_by_offset(lb, btf_enum64(l)[idx].name_off);
	if (!name) {
		r->outcome = CORE_FAILED;
		snprintf(r->detail, sizeof(r->detail), "bad enum relocation");
		return;
	}
	snprintf(r->what, sizeof(r->what), "enum %s::%s", a->root, name);
	n = candidates(lb, a->type_id, ix, cands, 16);
	for (int i = 0; i < n; i++) {
		const struct btf_type *t = btf__type_by_id(tb, cands[i]);

		for (int j = 0; j < btf_vlen(t); j++) {
			const char *tn = btf__name_by_offset(tb, btf_is_enum(t) ?
					btf_enum(t)[j].name_off :
					btf_enum64(t)[j].name_off);

			if (!same_essential(tn, name))
				continue;
			r->outcome = CORE_RESOLVED;
			r->target = btf_is_enum(t) ? (__u64)btf_enum(t)[j].val :
				    btf_enum64_value(btf_enum64(t) + j);
			snprintf(r->detail, sizeof(r->detail), "= %llu",
				 (unsigned long long)r->target);
			return;
		}
	}
	r->outcome = a->kind == CORE_ENUMVAL_EXISTS ? CORE_ABSENT : CORE_FAILED;
	snprintf(r->detail, sizeof(r->detail), "%s not in enum %s here%s", name,
		 a->root, a->kind == CORE_ENUMVAL_EXISTS ?
		 " (the guard is false)" : "");
}

void core_match(const struct btf *local, const struct core_access *a,
		const struct btf *target, const struct core_index *ix,
		struct core_result *r)
{
	memset(r, 0, sizeof(*r));
	if (core_kind_is_field(a->kind))
		strfit(r->what, sizeof(r->what), "%s.%s", a->flavour, a->path);
	else
		strfit(r->what, sizeof(r->what), "%s", a->flavour);
	if (core_kind_is_field(a->kind))
		match_field(local, a, target, ix, r);
	else if (a->kind == CORE_ENUMVAL_EXISTS || a->kind == CORE_ENUMVAL_VALUE)
		match_enum(local, a, target, ix, r);
	else
		match_type(local, a, target, ix, r);
}

/* The value libbpf writes into a relocated instruction, where it is known here. */
bool core_relo_value(const struct core_access *a, const struct core_result *r,
		     __u64 *v)
{
	switch (a->kind) {
	case CORE_FIELD_EXISTS:
	case CORE_TYPE_EXISTS:
	case CORE_ENUMVAL_EXISTS:
		*v = r->outcome != CORE_ABSENT;
		return r->outcome != CORE_FAILED;
	case CORE_FIELD_BYTE_OFFSET:
	case CORE_FIELD_BYTE_SIZE:
	case CORE_TYPE_SIZE:
	case CORE_ENUMVAL_VALUE:
		*v = r->target;
		return r->outcome == CORE_RESOLVED ||
		       r->outcome == CORE_RESOLVED_DIFFERENT;
	case CORE_TYPE_ID_LOCAL:
		*v = a->type_id;
		return true;
	}
	return false; /* signedness, shifts, target type ids, type matches */
}

bool core_kind_is_guard(__u32 kind)
{
	return kind == CORE_FIELD_EXISTS || kind == CORE_TYPE_EXISTS ||
	       kind == CORE_ENUMVAL_EXISTS;
}

const char *core_outcome_str(enum core_outcome o)
{
	switch (o) {
	case CORE_RESOLVED:
		return "resolves";
	case CORE_RESOLVED_DIFFERENT:
		return "resolves (moved)";
	case CORE_ABSENT:
		return "absent";
	case CORE_FAILED:
		return "FAILS";
	}
	return "?";
}
