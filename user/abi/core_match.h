/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* One CO-RE relocation against a kernel's BTF, by libbpf's rules. */
#ifndef ABICAP_CORE_MATCH_H
#define ABICAP_CORE_MATCH_H

#include <stdbool.h>
#include "abi/core_relo.h"

/* enum bpf_core_relo_kind */
enum {
	CORE_FIELD_BYTE_OFFSET = 0,
	CORE_FIELD_BYTE_SIZE = 1,
	CORE_FIELD_EXISTS = 2,
	CORE_FIELD_SIGNED = 3,
	CORE_FIELD_LSHIFT_U64 = 4,
	CORE_FIELD_RSHIFT_U64 = 5,
	CORE_TYPE_ID_LOCAL = 6,
	CORE_TYPE_ID_TARGET = 7,
	CORE_TYPE_EXISTS = 8,
	CORE_TYPE_SIZE = 9,
	CORE_ENUMVAL_EXISTS = 10,
	CORE_ENUMVAL_VALUE = 11,
	CORE_TYPE_MATCHES = 12,
};

enum core_outcome {
	CORE_RESOLVED, /* same offset and size as compiled */
	CORE_RESOLVED_DIFFERENT, /* another offset or size: CO-RE relocates it */
	CORE_ABSENT, /* an existence check that is false here: not a failure */
	CORE_FAILED, /* libbpf would poison the instruction */
};

struct core_result {
	enum core_outcome outcome;
	char what[160]; /* "task_struct___o.state", "enum bpf_map_type::X" */
	__u64 local, target; /* offset, size or value, where it applies */
	char detail[320]; /* "offset 24 -> 32", or what the kernel has instead */
};

/* The target's types by essential name, to find candidates without a scan. */
struct core_index;
struct core_index *core_index_new(const struct btf *target); /* NULL: no memory */
void core_index_free(struct core_index *ix);

/* ix: core_index_new(target) */
void core_match(const struct btf *local, const struct core_access *a,
		const struct btf *target, const struct core_index *ix,
		struct core_result *r);

/*
 * The value libbpf writes into the relocated instruction (an immediate, or
 * a load's offset), where this matching knows it: true with *v set.
 */
bool core_relo_value(const struct core_access *a, const struct core_result *r,
		     __u64 *v);

/* field_exists, type_exists, enumval_exists: checks, never failures. */
bool core_kind_is_guard(__u32 kind);
const char *core_outcome_str(enum core_outcome o);

#endif
