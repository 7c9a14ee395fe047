// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Mutated copies of a kernel's BTF: one struct member or tracepoint argument gone. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "btf_mutate.h"

/* btf_trace_<tp>'s prototype: typedef -> pointer -> FUNC_PROTO. */
static __u32 trace_proto(const struct btf *b, const char *tp)
{
	char name[160];
	const struct btf_type *t;
	int id;

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	id = btf__find_by_name_kind(b, name, BTF_KIND_TYPEDEF);
	cr_assert_gt(id, 0, "no %s in the BTF", name);
	t = btf__type_by_id(b, btf__type_by_id(b, id)->type);
	cr_assert(t && btf_is_ptr(t));
	cr_assert(btf_is_func_proto(btf__type_by_id(b, t->type)));
	return t->type;
}

static void add_struct_without(struct btf *dst, const struct btf *src,
				const struct btf_type *t, const char *member)
{
	const struct btf_member *m = btf_members(t);
	int found = 0;

	cr_assert_gt(btf__add_struct(dst, btf__name_by_offset(src, t->name_off),
				     t->size), 0);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(src, m->name_off);

		if (!strcmp(name, member)) {
			found++;
			continue;
		}
		cr_assert_eq(btf__add_field(dst, name, m->type,
					    btf_member_bit_offset(t, i),
					    btf_member_bitfield_size(t, i)), 0);
	}
	cr_assert_eq(found, 1, "no member %s to remove", member);
}

static void add_proto_without_last(struct btf *dst, const struct btf *src,
				   const struct btf_type *t)
{
	const struct btf_param *p = btf_params(t);

	cr_assert_gt(btf_vlen(t), 0);
	cr_assert_gt(btf__add_func_proto(dst, t->type), 0);
	for (int i = 0; i < btf_vlen(t) - 1; i++, p++)
		cr_assert_eq(btf__add_func_param(dst, btf__name_by_offset(src,
						 p->name_off), p->type), 0);
}

void btf_write_without(const char *src_path, const char *dst_path,
		       const char *what)
{
	struct btf *src = btf__parse(src_path, NULL), *dst = btf__new_empty();
	const char *dot = strchr(what, '.');
	__u32 target = 0, proto = 0, n;
	char sname[128];
	const void *raw;
	__u32 size;

	cr_assert(src && dst, "%s: cannot read", src_path);
	if (dot) {
		snprintf(sname, sizeof(sname), "%.*s", (int)(dot - what), what);
		target = btf__find_by_name_kind(src, sname, BTF_KIND_STRUCT);
		cr_assert_gt((int)target, 0, "no struct %s", sname);
	} else {
		snprintf(sname, sizeof(sname), "%.*s", (int)strcspn(what, "("),
			 what);
		proto = trace_proto(src, sname);
	}
	n = btf__type_cnt(src);
	for (__u32 id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(src, id);

		if (id == target)
			add_struct_without(dst, src, t, dot + 1);
		else if (id == proto)
			add_proto_without_last(dst, src, t);
		else
			cr_assert_eq(btf__add_type(dst, src, t), (int)id);
	}
	raw = btf__raw_data(dst, &size);
	cr_assert(raw);
	write_file(dst_path, raw, size);
	btf__free(dst);
	btf__free(src);
}
