/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The CO-RE relocations of a compiled BPF object (.BTF.ext core_relo
 * records): which type and field every relocated instruction accesses.
 */
#ifndef ABICAP_CORE_RELO_H
#define ABICAP_CORE_RELO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

struct core_access {
	char section[64]; /* program section, e.g. tp_btf/sched_switch */
	__u32 insn_off;
	__u32 kind; /* enum bpf_core_relo_kind */
	char root[64]; /* the root type, ___flavour suffix stripped */
	char flavour[80]; /* the root type as written (task_struct___o) */
	char path[192]; /* member path below root: "thread_info.cpu"; "" for type relocations */
	char access[64]; /* the raw access string, "0:1:2" */
};

/* Every CO-RE relocation of OBJ; the count, or -1 with err. *out is malloc'd. */
int core_relos_read(const char *obj, struct core_access **out, char *err,
		    size_t errlen);

/* "field_byte_offset", "field_exists", "type_exists", ... */
const char *core_kind_str(__u32 kind);
/* The field kinds (byte offset/size, exists, signed, shifts). */
bool core_kind_is_field(__u32 kind);

#endif
