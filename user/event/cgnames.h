/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Names for the cgroup ids in records: the cgroup's path in the v2
 * hierarchy and, where the path says so, its container. Live (the running
 * system's hierarchy, rescanned on a miss) or from a table (a capture
 * file's cgroup blocks). Every name is cached until cgnames_forget(), so
 * a cgroup removed since keeps the name it had.
 */
#ifndef ABICAP_CGNAMES_H
#define ABICAP_CGNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event/container.h"
#include "event/ctnames.h"

struct cgnames;

/* NULL with a one-line err if there is no cgroup v2 hierarchy. */
struct cgnames *cgnames_live(char *err, size_t errlen);
/* Names only from cgnames_set(); NULL when out of memory. */
struct cgnames *cgnames_table(void);
void cgnames_free(struct cgnames *n);

int cgnames_set(struct cgnames *n, uint64_t id, const char *path);
/* Everything known of a cgroup, in one lookup. */
struct cgname {
	const char *path; /* "/system.slice/foo.service" */
	const struct ct_info *ct; /* its container, NULL: in none */
	const char *label; /* the container label (by id), else the path */
	/* a container's names from the runtime's state, NULL: none known */
	const struct ct_names *names;
	/* by name where known ("k8s:NS/POD/NAME", "docker:NAME"), else label */
	const char *name_label;
};
/* false (out untouched) if the id is 0 or unknown; the strings live in n. */
bool cgnames_get(struct cgnames *n, uint64_t id, struct cgname *out);

/*
 * Forget id's name (serve: the cgroup is removed and its statistics are
 * gone), so that the table follows the cgroups in use, not every one ever
 * seen. Strings given out for id are freed.
 */
void cgnames_forget(struct cgnames *n, uint64_t id);
/* Names held now. */
size_t cgnames_count(const struct cgnames *n);
/*
 * Live names: walk the hierarchy now (not rate-limited). 0, or -errno
 * (-EINVAL for a table).
 */
int cgnames_rescan(struct cgnames *n);
/* The last walk found id (see cgroup_map_walked()); false for a table. */
bool cgnames_walked(const struct cgnames *n, uint64_t id);
/* The name held for id, without looking it up: NULL if none is held. */
const char *cgnames_cached(const struct cgnames *n, uint64_t id);
/* "/system.slice/foo.service", NULL if unknown */
const char *cgnames_path(struct cgnames *n, uint64_t id);
/*
 * For text: the container label (by name where the runtime's state gives
 * one: cgname.name_label), else the full path (as JSON has it),
 * else "cgroup#ID" (CGNAMES_UNKNOWN_NOTE says what that is).
 */
const char *cgnames_label(struct cgnames *n, uint64_t id);
/*
 * A container's names (a capture's, read back) for every cgroup of
 * container id (64 hex) on the host (ct_info.within ""; a rootless or
 * nested container of that id is never named by the host's runtimes);
 * live tables look them up themselves. -ENOMEM.
 */
int cgnames_set_ct_names(struct cgnames *n, const char *id,
			 const struct ct_names *cn);
/* fn for each container with names known, until it returns non-zero. */
int cgnames_each_ct_names(const struct cgnames *n,
			  int (*fn)(void *ctx, const char *id,
				    const struct ct_names *cn), void *ctx);
/* cgnames_label() gave a "cgroup#ID": the output should explain it. */
bool cgnames_unknown_shown(const struct cgnames *n);
#define CGNAMES_UNKNOWN_NOTE "cgroup#ID: a cgroup whose path was not known " \
	"when it was captured (removed before abicap could read its name, " \
	"below a directory abicap could not read, or a path of more than " \
	"65535 bytes); ID is the cgroup's id, its directory's inode number"
/*
 * True the first time an id is passed (and known): record writes each
 * cgroup's name once.
 */
bool cgnames_first_use(struct cgnames *n, uint64_t id);

#endif
