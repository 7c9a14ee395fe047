/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A compiled BPF test object in memory, to damage on purpose: its first
 * CO-RE relocation record in .BTF.ext and that record's access string in
 * .BTF, found by their offsets in the file (ELF64 little-endian, as clang
 * writes them on this machine).
 */
#ifndef ABICAP_TEST_OBJFIX_H
#define ABICAP_TEST_OBJFIX_H

#include <stddef.h>
#include <linux/types.h>

struct btf;

struct objfix {
	struct btf *btf; /* the object's BTF as built */
	unsigned char *buf;
	size_t len;
	size_t relo; /* file offset of the first relocation record */
	size_t strs; /* file offset of .BTF's string section */
	size_t strs_len;
};

/* the words of a struct bpf_core_relo record */
enum objfix_field { OF_INSN_OFF, OF_TYPE_ID, OF_ACCESS_STR, OF_KIND };

/* Read obj (asserting it has a CO-RE relocation); objfix_free() releases it. */
void objfix_load(struct objfix *f, const char *obj);
void objfix_free(struct objfix *f);
__u32 objfix_get(const struct objfix *f, enum objfix_field field);
void objfix_set(struct objfix *f, enum objfix_field field, __u32 v);
/* The first relocation's access string ("0:1"), to rewrite in place. */
char *objfix_access(struct objfix *f);
/* The id of the struct named name in the object's BTF (as read before any change). */
__u32 objfix_type(const struct objfix *f, const char *name);
/* Give section `name` another sh_type (SHT_NOBITS: no data in the file). */
void objfix_section_type(struct objfix *f, const char *name, __u32 type);
void objfix_write(const struct objfix *f, const char *path);

#endif
