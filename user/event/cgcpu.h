/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A cgroup's CPU quota throttling, as the kernel counts it in cpu.stat:
 * nr_periods, nr_throttled and the time throttled -- cgroup v2's
 * throttled_usec where the cpu controller is on the v2 hierarchy, else
 * (a hybrid system: the controller on a v1 hierarchy) the v1 cpu cgroup of
 * the same path, its throttled_time (ns). Without either the cgroup cannot
 * be throttled by a quota of its own. Run-queue waits of a throttled
 * cgroup look like CPU contention; these say how much was the quota.
 */
#ifndef ABICAP_CGCPU_H
#define ABICAP_CGCPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cg_cpu_stat {
	uint64_t nr_periods, nr_throttled;
	uint64_t throttled_ns; /* v2: throttled_usec * 1000; v1: throttled_time */
	bool v1; /* from the v1 cpu hierarchy */
};

/* Where cpu.stat is read: the v2 mount ("" none), the v1 cpu mount ("" none). */
struct cg_cpu_roots {
	char v2[4096], v1[4096];
};
/* Find the mounts in /proc/self/mountinfo (v2 given, as cgroup_root() found it). */
void cg_cpu_roots_find(struct cg_cpu_roots *r, const char *v2_root);

/*
 * cpu.stat's throttling of the cgroup at path: 0, -ENOENT without the
 * throttling keys in either hierarchy (no cpu controller), -errno (gone).
 */
int cg_cpu_stat_read(const struct cg_cpu_roots *r, const char *path,
		     struct cg_cpu_stat *st);

/* Every cgroup's throttling at one moment, by path. */
struct cg_cpu_snap;
/* NULL: out of memory (cgroups that cannot be read are left out). */
struct cg_cpu_snap *cg_cpu_snap_take(const struct cg_cpu_roots *r);
/* path's stat in the snapshot: false if it was not there (or not readable). */
bool cg_cpu_snap_get(const struct cg_cpu_snap *s, const char *path,
		     struct cg_cpu_stat *st);
size_t cg_cpu_snap_count(const struct cg_cpu_snap *s);
/*
 * The snapshot taken in a thread of its own, so that whoever drains the
 * rings goes on meanwhile (30,000 cgroups take about a second): *out is
 * set by cg_cpu_snap_wait(). NULL if no thread could start (then take it
 * inline).
 */
struct cg_cpu_snap_job;
struct cg_cpu_snap_job *cg_cpu_snap_start(const struct cg_cpu_roots *r);
/* The job's snapshot (NULL: out of memory), once it is taken; frees the job. */
struct cg_cpu_snap *cg_cpu_snap_wait(struct cg_cpu_snap_job *j);
void cg_cpu_snap_free(struct cg_cpu_snap *s);

#endif
