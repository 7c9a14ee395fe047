/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* BTF helpers shared by the checker, diff and snapshot: types as contract strings, member lookup. */
#ifndef ABICAP_BTF_UTIL_H
#define ABICAP_BTF_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct btf;
struct btf_type;

/* Skip typedefs and const/volatile/restrict/type tags. */
__u32 btf_skip_mods(const struct btf *btf, __u32 id);

/*
 * The type as a contract type string (bool, s32, char[16], struct X *, ...).
 * `c_name` (may be NULL) gets the C spelling when it says more ("pid_t").
 */
void btf_type_str(const struct btf *btf, __u32 id, char *out, size_t len,
		  char *c_name, size_t c_len);

/*
 * The type as btf_type_str() says it, but plain `char` named "char"
 * whatever its signedness (a kernel's choice: signed on x86 before Linux
 * 6.2, unsigned from 6.2 on, -funsigned-char): `char *` where btf_type_str
 * says "s8 *" or "u8 *".
 */
void btf_type_shape(const struct btf *btf, __u32 id, char *out, size_t len);

/* A named struct (or union); 0 if there is none. */
__u32 btf_find_struct(const struct btf *btf, const char *name);

/*
 * Resolve a dotted member path (thread_info.cpu) in struct sid, looking
 * through anonymous struct/union members. Returns the member's type id and
 * bit offset, or 0 if not found.
 */
__u32 btf_find_member(const struct btf *btf, __u32 sid, const char *path,
		      __u32 *bit_off);

/*
 * The member of struct sid named exactly name (no path), looked up through
 * anonymous members; its type id, with its bit offset added to *bit_off,
 * or 0. Each lookup searches each type at most 17 times.
 */
__u32 btf_find_member_named(const struct btf *btf, __u32 sid, const char *name,
			    __u32 *bit_off);

/* FUNC_PROTO behind typedef btf_trace_<tp> (typedef -> ptr -> proto), or NULL. */
const struct btf_type *btf_trace_proto(const struct btf *btf, const char *tp);
/* The same from the typedef's id. */
const struct btf_type *btf_trace_proto_of(const struct btf *btf, __u32 id);

/*
 * The types of one kind whose name starts with prefix, sorted by the rest
 * of the name, each name once with its first id: a lookup is a binary
 * search, where btf__find_by_name_kind() scans every type.
 */
struct btf_named {
	const char *name; /* past the prefix */
	__u32 id;
};
struct btf_names {
	struct btf_named *v;
	size_t n;
};
struct btf_names *btf_names_new(const struct btf *btf, int kind,
				const char *prefix); /* NULL: no memory */
/* The id of name (past the prefix), or 0. */
__u32 btf_names_find(const struct btf_names *ix, const char *name);
void btf_names_free(struct btf_names *ix);

/* Does this BTF have any btf_trace_* typedef (Linux 5.5+)? */
bool btf_has_trace_types(const struct btf *btf);

/*
 * What the helpers here rely on, which libbpf does not check when it
 * parses a BTF: every name offset lies in the string section, every type
 * id names a type, chains of typedefs, modifiers, pointers and arrays end,
 * no struct or union holds itself by value.
 * false with why ("type [12] ...") otherwise.
 */
bool btf_well_formed(const struct btf *btf, char *why, size_t len);

#endif
