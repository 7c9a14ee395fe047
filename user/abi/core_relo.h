/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The CO-RE relocations of a compiled BPF object (.BTF.ext core_relo
 * records): which type and field every relocated instruction accesses.
 */
#ifndef ABICAP_CORE_RELO_H
#define ABICAP_CORE_RELO_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/bpf.h>
#include <linux/types.h>

struct btf;

struct core_access {
	char section[64]; /* program section, e.g. tp_btf/sched_switch */
	char program[80]; /* the program holding the instruction, or "F (subprogram)" */
	__u32 insn_off; /* byte offset in the section */
	int prog; /* index in core_object.progs; -1 in a subprogram (.text) */
	__u32 type_id; /* root type in the object's BTF */
	__u32 kind; /* enum bpf_core_relo_kind */
	char root[64]; /* the root type, ___flavour suffix stripped */
	char flavour[80]; /* the root type as written (task_struct___o) */
	char path[192]; /* member path below root: "thread_info.cpu"; "" for type relocations */
	char access[64]; /* the raw access string, "0:1:2" */
};

/* A BPF program of the object, with its attach point from the section name. */
struct core_prog {
	char name[64];
	char section[96];
	char attach[16]; /* tp_btf, raw_tp, tp, fentry, fexit, kprobe, ... or "" */
	char target[96]; /* the tracepoint or function; "" if none */
	int ctx_args; /* raw_tp, tp_btf: how many u64 arguments it reads from ctx */
	__u32 sec_idx; /* ELF section */
	__u32 off, size; /* bytes within the section */
	struct bpf_insn *insns; /* its instructions as compiled, size / 8 */
};

/* A function in .text: only loaded into the programs that call it. */
struct core_subprog {
	char name[64];
	__u32 off, size;
};

struct core_object {
	struct btf *btf; /* the object's own BTF (local types) */
	struct core_access *relos;
	int nrelos;
	struct core_prog *progs;
	int nprogs;
	struct core_subprog *subprogs; /* BPF-to-BPF functions in .text */
	int nsubprogs;
	size_t subprogs_cap;
};

/*
 * The budget for one object (exit 2 past it): what the checks do grows
 * with the square of these at worst. abicap's own: 509 relocations, 23
 * programs.
 */
#define CORE_MAX_RELOS 16384
#define CORE_MAX_PROGS 8192

/* Read OBJ's programs and CO-RE relocations: 0, or -1 with err. */
int core_object_open(const char *obj, struct core_object *o, char *err,
		     size_t errlen);
/* The same from an object in memory (abicap's own, embedded); name for messages. */
int core_object_open_mem(const void *buf, size_t len, const char *name,
			 struct core_object *o, char *err, size_t errlen);
void core_object_close(struct core_object *o);

/* Every CO-RE relocation of OBJ; the count, or -1 with err. *out is malloc'd. */
int core_relos_read(const char *obj, struct core_access **out, char *err,
		    size_t errlen);

/* "field_byte_offset", "field_exists", "type_exists", ... */
const char *core_kind_str(__u32 kind);
/* The field kinds (byte offset/size, exists, signed, shifts). */
bool core_kind_is_field(__u32 kind);

#endif
