/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The ABI contract: a versioned JSON file (bpf/contract.json is the default,
 * embedded in build/abicap) naming every tracepoint argument, struct field
 * and tracefs record field abicap relies on. This module parses and
 * validates it; checker.c holds it against a kernel's BTF.
 */
#ifndef ABICAP_CONTRACT_H
#define ABICAP_CONTRACT_H

#include <stdbool.h>
#include <stddef.h>
#include <jansson.h>

#define CONTRACT_VERSION 1
#define TYPE_STR_MAX 96

/* Strings point into the parsed JSON document, which the contract owns. */
struct c_arg {
	const char *name;
	char type[TYPE_STR_MAX]; /* canonical: see type_canonical() */
	bool required;
	const char *since;
	const char *feeds;
	const char *fallback;
};

struct c_recfield {
	const char *name;
	char type[TYPE_STR_MAX];
};

struct c_record {
	const char *struct_name; /* trace_event_raw_<class> */
	bool required;
	const char *feeds;
	struct c_recfield *fields;
	int nfields;
};

struct c_event {
	const char *name;
	const char *group;
	int ev; /* enum abicap_event, or -1 for an event abicap does not capture */
	/* "required": false: a kernel without it takes the fallback */
	bool required;
	const char *since;
	const char *fallback;
	struct c_arg *args;
	int nargs;
	bool has_record;
	struct c_record record;
	const char **notes;
	int nnotes;
};

struct c_alt {
	const char *field;
	char type[TYPE_STR_MAX];
	const char *until;
	/* acceptable only where this member path exists ("struct.a.b") */
	const char *requires;
	bool equivalent; /* as good as the field itself: ok, not degraded */
};

struct c_field {
	const char *struct_name;
	const char *field; /* dotted path through nested members: thread_info.cpu */
	char type[TYPE_STR_MAX];
	bool required;
	const char *since;
	const char *feeds;
	const char *fallback; /* what is done instead when it is missing */
	bool core; /* read by the programs through CO-RE (false: a kernel property) */
	struct c_alt *alts;
	int nalts;
	unsigned int events; /* abicap events (1 << ev) it matters for */
	const char **event_names;
	int nevent_names;
};

struct contract {
	int version;
	const char *name;
	const char *description;
	/*
	 * What the contract describes where that is not abicap's own programs
	 * (contract from-object, contract snapshot); NULL: abicap's programs,
	 * whose every dependency it must then declare (contract_deps.h).
	 */
	const char *describes;
	struct c_event *events;
	int nevents;
	struct c_field *fields;
	int nfields;
	void *doc; /* the json_t the strings live in */
};

/*
 * Parse a contract from memory; `origin` names it in errors. On failure
 * returns NULL with one line in err: "FILE:LINE:COL: ..." for JSON syntax,
 * "FILE: events[1].args[0]: ..." for content.
 */
struct contract *contract_parse(const char *buf, size_t len, const char *origin,
				char *err, size_t errlen);
/* Read and parse a file; errors as above (plus the file's own). */
struct contract *contract_load(const char *path, char *err, size_t errlen);
/* The contract embedded from bpf/contract.json. */
struct contract *contract_default(char *err, size_t errlen);
const char *contract_default_text(size_t *len);
/* --contract FILE, or the built-in contract when path is NULL. */
struct contract *load_contract_arg(const char *path, char *err, size_t errlen);
/* A contract document of events and fields (both taken); NULL: no memory. */
json_t *contract_json(const char *name, const char *desc, json_t *events,
		      json_t *fields);
void contract_free(struct contract *c);

const struct c_event *contract_event(const struct contract *c, const char *name);

/*
 * Canonical type spelling: bool, u8/u16/u32/u64, s8/s16/s32/s64, char[N],
 * "struct NAME", "union NAME", "enum NAME", "T *" (T any of these, or void).
 * Returns false if s is none of them.
 */
bool type_canonical(const char *s, char *out, size_t outlen);

#endif
