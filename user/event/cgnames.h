/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Names for the cgroup ids in records: the cgroup's path in the v2
 * hierarchy and, where the path says so, its container. Live (the running
 * system's hierarchy, rescanned on a miss) or from a table (a capture
 * file's cgroup blocks). Every name is cached for the object's lifetime, so
 * a cgroup removed since keeps the name it had.
 */
#ifndef ABICAP_CGNAMES_H
#define ABICAP_CGNAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "event/container.h"

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
	const char *label; /* the container label, else the path */
};
/* false (out untouched) if the id is 0 or unknown; the strings live in n. */
bool cgnames_get(struct cgnames *n, uint64_t id, struct cgname *out);

/*
 * Known to be removed (live names only): cgnames_path() may be NULL for a
 * cgroup that exists but could not be looked up yet (rate-limited walks).
 */
bool cgnames_removed(struct cgnames *n, uint64_t id);
/* "/system.slice/foo.service", NULL if unknown */
const char *cgnames_path(struct cgnames *n, uint64_t id);
/* For tables: the container label, else the path, else "cgroup#ID". */
const char *cgnames_label(struct cgnames *n, uint64_t id);
/*
 * True the first time an id is passed (and known): record writes each
 * cgroup's name once.
 */
bool cgnames_first_use(struct cgnames *n, uint64_t id);

#endif
