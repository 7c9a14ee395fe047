// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <criterion/criterion.h>
#include <elf.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_fixture.h"
#include "harness.h"
#include "objfix.h"

static __u32 get32(const unsigned char *p)
{
	__u32 v;

	memcpy(&v, p, 4);
	return v;
}

/* The file offset of section `name`'s header, asserting it is there. */
static size_t section_header(const struct objfix *f, const char *name)
{
	Elf64_Ehdr eh;
	Elf64_Shdr sh, strsh;

	cr_assert_geq(f->len, sizeof(eh));
	memcpy(&eh, f->buf, sizeof(eh));
	cr_assert(eh.e_ident[EI_CLASS] == ELFCLASS64 &&
		  eh.e_ident[EI_DATA] == ELFDATA2LSB, "not ELF64 LE");
	cr_assert_leq(eh.e_shoff + (size_t)eh.e_shnum * sizeof(sh), f->len);
	memcpy(&strsh, f->buf + eh.e_shoff + eh.e_shstrndx * sizeof(sh),
	       sizeof(sh));
	for (int i = 0; i < eh.e_shnum; i++) {
		memcpy(&sh, f->buf + eh.e_shoff + i * sizeof(sh), sizeof(sh));
		if (!strcmp((const char *)f->buf + strsh.sh_offset + sh.sh_name,
			    name))
			return eh.e_shoff + i * sizeof(sh);
	}
	cr_assert_fail("no section %s", name);
	return 0;
}

/* The file offset and size of section `name`. */
static size_t section(const struct objfix *f, const char *name, size_t *size)
{
	Elf64_Shdr sh;

	memcpy(&sh, f->buf + section_header(f, name), sizeof(sh));
	*size = sh.sh_size;
	return sh.sh_offset;
}

void objfix_section_type(struct objfix *f, const char *name, __u32 type)
{
	size_t at = section_header(f, name) + offsetof(Elf64_Shdr, sh_type);

	memcpy(f->buf + at, &type, 4);
}

void objfix_load(struct objfix *f, const char *obj)
{
	struct btf *b = btf__parse_elf(obj, NULL);

	size_t ext, ext_len, btf, btf_len;
	__u32 hdr_len, relo_off, relo_len;

	memset(f, 0, sizeof(*f));
	cr_assert(b, "%s has no BTF", obj);
	f->btf = b;
	f->buf = read_file(obj, &f->len);
	ext = section(f, ".BTF.ext", &ext_len);
	btf = section(f, ".BTF", &btf_len);
	/* btf_ext_header: magic, version, flags, hdr_len, then (off, len) pairs */
	hdr_len = get32(f->buf + ext + 4);
	relo_off = get32(f->buf + ext + 24);
	relo_len = get32(f->buf + ext + 28);
	cr_assert_geq(hdr_len, 32);
	cr_assert_gt(relo_len, 12, "%s has no CO-RE relocations", obj);
	/* record size, then the first section's name and count */
	f->relo = ext + hdr_len + relo_off + 4 + 8;
	cr_assert_leq(f->relo + 16, ext + ext_len);
	f->strs = btf + get32(f->buf + btf + 4) + get32(f->buf + btf + 16);
	f->strs_len = get32(f->buf + btf + 20);
}

__u32 objfix_type(const struct objfix *f, const char *name)
{
	int id = btf__find_by_name_kind(f->btf, name, BTF_KIND_STRUCT);

	cr_assert_gt(id, 0, "no struct %s", name);
	return id;
}

void objfix_free(struct objfix *f)
{
	btf__free(f->btf);
	free(f->buf);
	memset(f, 0, sizeof(*f));
}

__u32 objfix_get(const struct objfix *f, enum objfix_field field)
{
	return get32(f->buf + f->relo + 4 * field);
}

void objfix_set(struct objfix *f, enum objfix_field field, __u32 v)
{
	memcpy(f->buf + f->relo + 4 * field, &v, 4);
}

char *objfix_access(struct objfix *f)
{
	__u32 off = objfix_get(f, OF_ACCESS_STR);

	cr_assert_lt(off, f->strs_len);
	return (char *)f->buf + f->strs + off;
}

void objfix_write(const struct objfix *f, const char *path)
{
	write_file(path, f->buf, f->len);
}
