/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * tracefs record layouts (struct trace_event_raw_<class>) and the
 * append-only rule TRACE_EVENT_ABI would have enforced: no field deleted,
 * retyped or moved; new fields only at the end.
 */
#ifndef ABICAP_LAYOUT_H
#define ABICAP_LAYOUT_H

#include <stdbool.h>
#include <linux/types.h>
#include "abi/contract.h"

struct btf;
struct btf_type;

struct lfield {
	char name[64];
	char type[TYPE_STR_MAX];
	/* the type with plain char named (btf_type_shape()); "" = type */
	char shape[TYPE_STR_MAX];
};

enum lchange {
	LC_SAME, /* same name, type and position */
	LC_APPENDED, /* new, after every old field: compatible */
	LC_DELETED,
	LC_RETYPED, /* (and maybe moved too) */
	LC_MOVED,
	LC_INSERTED, /* new, before the end: shifts what follows */
	/*
	 * Same place and shape, only plain char's signedness differs (Linux
	 * 6.2's -funsigned-char): the same bytes, compatible.
	 */
	LC_CHAR_SIGN,
};

struct lfinding {
	enum lchange kind;
	const char *name;
	const char *old_type; /* NULL for new fields */
	const char *new_type; /* NULL for deleted fields */
	const char *old_shape, *new_shape; /* the types with char named */
	int old_idx; /* -1 for new fields */
	int new_idx; /* -1 for deleted fields */
};

typedef void (*lfinding_cb)(void *ctx, const struct lfinding *f);

/* Calls cb for every old field (in old order), then every new one. */
void layout_compare(const struct lfield *old, int nold,
		    const struct lfield *new, int nnew, lfinding_cb cb,
		    void *ctx);

/*
 * Arguments have no names in BTF: they are aligned by shape (the type,
 * plain char named whatever its signedness), the longest
 * common prefix first, then the longest common suffix of what remains; the
 * middle is retyped pairwise, and what is left over of it was deleted, or
 * inserted (appended when nothing old follows). Findings name old or new
 * positions, as layout_compare's.
 */
void proto_compare(const struct lfield *old, int nold,
		   const struct lfield *new, int nnew, lfinding_cb cb,
		   void *ctx);

static inline bool lchange_breaks(enum lchange k)
{
	return k != LC_SAME && k != LC_APPENDED && k != LC_CHAR_SIGN;
}

const char *lchange_str(enum lchange k);

/*
 * The record fields of struct `name` in this BTF, without the common header
 * (`ent`) and the trailing `__data[0]`. Returns the count (*out malloc'd),
 * or -1 if the struct is not there.
 */
int record_layout(const struct btf *btf, const char *name, struct lfield **out);

/* The tracepoint's arguments (without void *__data) as arg1..N; -1 if none. */
int proto_layout(const struct btf *btf, const char *tp, struct lfield **out);
/* The same for struct sid (0: none), and for a FUNC_PROTO (NULL: none). */
int record_layout_of(const struct btf *btf, __u32 sid, struct lfield **out);
int proto_layout_of(const struct btf *btf, const struct btf_type *proto,
		    struct lfield **out);

#endif
