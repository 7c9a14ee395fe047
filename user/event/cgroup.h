/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * cgroup v2 ids and paths. The id the kernel gives BPF programs
 * (bpf_get_current_cgroup_id(), task->cgroups->dfl_cgrp->kn->id) is the
 * kernfs node id of the cgroup's directory: on 64-bit kernels the inode
 * number of that directory in the cgroup2 mount and the 8-byte handle of
 * name_to_handle_at(). The root cgroup is id 1.
 */
#ifndef ABICAP_CGROUP_H
#define ABICAP_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The cgroup v2 mount from /proc/self/mountinfo: /sys/fs/cgroup (pure v2),
 * /sys/fs/cgroup/unified (hybrid), or wherever cgroup2 is mounted.
 * 0, or -errno with a one-line message in err.
 */
int cgroup_root(char *buf, size_t len, char *err, size_t errlen);
/* The same from a mountinfo file of the caller's choice (tests). */
int cgroup_root_from(const char *mountinfo, char *buf, size_t len, char *err,
		     size_t errlen);

/* cgroup id -> hierarchy path cache. */
struct cgroup_map;

/*
 * A cache of the hierarchy under root (NULL: cgroup_root()), filled by one
 * walk now. NULL with err if there is no cgroup2 mount or root cannot be read.
 */
struct cgroup_map *cgroup_map_new(const char *root, char *err, size_t errlen);
/*
 * A map with no hierarchy behind it: only what cgroup_map_set() adds, a miss
 * never walks anything (capture files that carry their own table).
 */
struct cgroup_map *cgroup_map_new_table(void);

/*
 * The path inside the hierarchy ("/" for the root, "/system.slice/foo.service"),
 * or NULL when unknown even after a refresh.
 * On a cgroup2 mount a miss opens the cgroup by its id (open_by_handle_at(),
 * needs CAP_DAC_READ_SEARCH; a few microseconds where a walk costs ~40 us
 * per cgroup): found at once, or known removed (ESTALE). Entries found this
 * way are pruned by a walk once they outnumber the last walk's by 1024.
 * Otherwise (no capability, not cgroupfs) a miss walks the hierarchy again,
 * at most once per rescan interval (100 ms by default): a miss inside the
 * interval is NULL at once. An id still missing after a walk that this miss
 * caused is a cgroup removed since its event (ids are not reused).
 * Removed ids are remembered (at most CGROUP_MAP_MAX_NEG of them): asking
 * again costs nothing, not a walk or a syscall per call.
 *
 * The string belongs to the map: it stays valid while the cgroup exists
 * (later walks keep the same string), and until cgroup_map_free(). A walk
 * that finds the cgroup removed frees it: copy it to keep it longer.
 */
const char *cgroup_map_path(struct cgroup_map *m, uint64_t id);
/*
 * Add or override an entry; it survives later walks. 0, or -EINVAL (id 0,
 * path NULL or not starting with '/'), -ENOMEM.
 */
int cgroup_map_set(struct cgroup_map *m, uint64_t id, const char *path);
void cgroup_map_free(struct cgroup_map *m);

/*
 * Walk the hierarchy now, whatever the rescan interval: 0, or -errno (the
 * old table is kept). The walk reads directories only, so it works without
 * privilege: every cgroup it can list, which is every one but those below
 * a directory its caller may not read.
 */
int cgroup_map_rescan(struct cgroup_map *m);
/*
 * The last walk found id (not only cgroup_map_set() or a handle): after a
 * walk that began once id was seen in use, false means the cgroup was
 * removed, or is out of the walk's sight (an unreadable directory, below
 * 64 levels, a path over 4 KiB), or was renamed while the walk ran.
 */
bool cgroup_map_walked(const struct cgroup_map *m, uint64_t id);

#define CGROUP_MAP_RESCAN_NS (100 * 1000 * 1000ull)
#define CGROUP_MAP_MAX_NEG 4096

/* Minimum time between two walks caused by misses (0: no limit). */
void cgroup_map_set_rescan_interval(struct cgroup_map *m, uint64_t ns);
/* Misses by handle (the default where possible) or by walks only (tests, comparison). */
void cgroup_map_use_handles(struct cgroup_map *m, bool on);

struct cgroup_map_stats {
	uint64_t entries;   /* ids known now */
	uint64_t negatives; /* ids known to be removed */
	uint64_t walks;     /* walks of the hierarchy, the first one included */
	uint64_t by_handle; /* misses found by open_by_handle_at() */
	uint64_t limited;   /* misses answered NULL without a walk: too soon after the last */
	uint64_t walk_errors; /* walks that could not read the root (the old table is kept) */
};
void cgroup_map_stats(const struct cgroup_map *m, struct cgroup_map_stats *st);

/*
 * The directory of cgroup rel ("/a/b", "/" the root) below the first rlen
 * bytes of root, opened one component at a time (openat), so that a path
 * of any length opens: an O_RDONLY | O_DIRECTORY fd, or -errno.
 */
int cgroup_open_below(const char *root, size_t rlen, const char *rel);
/*
 * For --cgroup: a hierarchy path ("/foo/bar", "foo/bar", "/" the root) or a
 * path in the filesystem under root ("/sys/fs/cgroup/unified/foo"), root
 * NULL: cgroup_root(). Gives its id and its level (root = 0, "/foo" = 1),
 * the level bpf_get_current_ancestor_cgroup_id() takes.
 * 0, or -ENOENT, -ENOTDIR, -EINVAL ("..") ... with a one-line err naming the
 * path and the fix.
 */
int cgroup_resolve(const char *root, const char *path, uint64_t *id,
		   unsigned *level, char *err, size_t errlen);

/*
 * The cgroup v2 path of a process ("0::" line of /proc/<pid>/cgroup, pid 0:
 * this process). 0, or -errno (-ENOENT: no such process or no v2 line).
 */
int cgroup_pid_path(pid_t pid, char *buf, size_t len);

#endif
