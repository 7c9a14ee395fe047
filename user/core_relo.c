// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "btf_util.h"
#include "core_relo.h"

/* The .BTF.ext header as the kernel's UAPI-adjacent btf_ext format lays it out. */
struct ext_header {
	__u16 magic;
	__u8 version;
	__u8 flags;
	__u32 hdr_len;
	__u32 func_info_off;
	__u32 func_info_len;
	__u32 line_info_off;
	__u32 line_info_len;
	__u32 core_relo_off;
	__u32 core_relo_len;
};

/*
 * Debian's libbpf 1.1.2 declares btf_ext__raw_data() but its library only
 * has the older name btf_ext__get_raw_data(); newer libbpf has the new one.
 * Both weak: use whichever this libbpf has.
 */
extern const void *btf_ext__get_raw_data(const struct btf_ext *e, __u32 *size)
	__attribute__((weak));
#pragma weak btf_ext__raw_data

static const void *ext_raw(const struct btf_ext *e, __u32 *size)
{
	if (btf_ext__raw_data)
		return btf_ext__raw_data(e, size);
	if (btf_ext__get_raw_data)
		return btf_ext__get_raw_data(e, size);
	return NULL;
}

struct relo_rec {
	__u32 insn_off;
	__u32 type_id;
	__u32 access_str_off;
	__u32 kind;
};

const char *core_kind_str(__u32 kind)
{
	static const char *const names[] = {
		"field_byte_offset", "field_byte_size", "field_exists",
		"field_signed", "field_lshift_u64", "field_rshift_u64",
		"type_id_local", "type_id_target", "type_exists", "type_size",
		"enumval_exists", "enumval_value", "type_matches",
	};

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "unknown";
}

bool core_kind_is_field(__u32 kind)
{
	return kind <= 5;
}

/* Follow "0:1:2" from the root type: member names joined with '.'. */
static void access_path(const struct btf *btf, __u32 type_id,
			const char *access, char *out, size_t len)
{
	__u32 id = btf_skip_mods(btf, type_id);
	const char *p = access;
	bool first = true;

	out[0] = 0;
	while (*p) {
		char *end;
		unsigned long idx = strtoul(p, &end, 10);
		const struct btf_type *t = btf__type_by_id(btf, id);

		if (end == p || !t)
			break;
		if (first) {
			first = false; /* the first index steps over the pointer */
		} else if (btf_is_composite(t) && idx < btf_vlen(t)) {
			const struct btf_member *m = btf_members(t) + idx;
			const char *n = btf__name_by_offset(btf, m->name_off);

			if (n && *n)
				snprintf(out + strlen(out), len - strlen(out),
					 "%s%s", out[0] ? "." : "", n);
			id = btf_skip_mods(btf, m->type);
		} else if (btf_is_array(t)) {
			snprintf(out + strlen(out), len - strlen(out), "[%lu]", idx);
			id = btf_skip_mods(btf, btf_array(t)->type);
		}
		p = *end == ':' ? end + 1 : end;
	}
}

int core_relos_read(const char *obj, struct core_access **out, char *err,
		    size_t errlen)
{
	struct btf_ext *ext = NULL;
	struct btf *btf;
	const struct ext_header *h;
	const unsigned char *raw, *p, *end;
	__u32 size, rec_size;
	int n = 0, cap = 0;

	*out = NULL;
	btf = btf__parse_elf(obj, &ext);
	if (!btf) {
		snprintf(err, errlen, "cannot read BTF of '%s': %s", obj,
			 strerror(errno));
		return -1;
	}
	if (!ext) {
		btf__free(btf);
		return 0; /* no .BTF.ext: no relocations */
	}
	raw = ext_raw(ext, &size);
	h = (const void *)raw;
	if (!raw || size < sizeof(*h) || h->magic != 0xeB9F ||
	    h->hdr_len < offsetof(struct ext_header, core_relo_len) + 4) {
		btf_ext__free(ext);
		btf__free(btf);
		return 0; /* an old header without CO-RE relocations */
	}
	p = raw + h->hdr_len + h->core_relo_off;
	end = p + h->core_relo_len;
	if (end > raw + size || h->core_relo_len < 4) {
		btf_ext__free(ext);
		btf__free(btf);
		return 0;
	}
	memcpy(&rec_size, p, 4);
	p += 4;
	while (p + 8 <= end && rec_size >= sizeof(struct relo_rec)) {
		__u32 sec_off, num;
		const char *sec;

		memcpy(&sec_off, p, 4);
		memcpy(&num, p + 4, 4);
		p += 8;
		sec = btf__name_by_offset(btf, sec_off);
		for (__u32 i = 0; i < num && p + rec_size <= end; i++, p += rec_size) {
			struct relo_rec r;
			struct core_access *a;
			const struct btf_type *t;
			const char *root, *suffix;

			memcpy(&r, p, sizeof(r));
			if (n == cap) {
				cap = cap ? cap * 2 : 64;
				*out = realloc(*out, cap * sizeof(**out));
				if (!*out) {
					n = -1;
					snprintf(err, errlen, "out of memory");
					goto done;
				}
			}
			a = &(*out)[n++];
			memset(a, 0, sizeof(*a));
			snprintf(a->section, sizeof(a->section), "%s", sec ? sec : "?");
			a->insn_off = r.insn_off;
			a->kind = r.kind;
			snprintf(a->access, sizeof(a->access), "%s",
				 btf__name_by_offset(btf, r.access_str_off));
			t = btf__type_by_id(btf, btf_skip_mods(btf, r.type_id));
			root = t ? btf__name_by_offset(btf, t->name_off) : "";
			snprintf(a->flavour, sizeof(a->flavour), "%s", root);
			suffix = strstr(root, "___");
			snprintf(a->root, sizeof(a->root), "%.*s",
				 suffix ? (int)(suffix - root) : (int)strlen(root),
				 root);
			if (core_kind_is_field(r.kind))
				access_path(btf, r.type_id, a->access, a->path,
					    sizeof(a->path));
		}
	}
done:
	btf_ext__free(ext);
	btf__free(btf);
	return n;
}
