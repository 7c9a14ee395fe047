/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * abicap serve's metrics: the aggregation maps of a running capture, its
 * counters and the contract's verdicts in the Prometheus text format.
 */
#ifndef ABICAP_METRICS_H
#define ABICAP_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "live/capture.h"
#include "live/cgslots.h"
#include "lib/hashtab.h"
#include "event/cgcpu.h"
#include "event/cgnames.h"

/* Counts kept in user space by series name (a cgroup path, or cgroup#ID). */
struct cg_named {
	char *name;
	struct abicap_cg_stats s;
};

struct cg_named_set {
	struct cg_named *v; /* sorted by name */
	size_t n, cap;
};

/* The series of cgroups pruned before any scrape showed them. */
#define CG_REMOVED_NAME "(removed)"
/* The series of live cgroups evicted from a full map: all they counted. */
#define CG_EVICTED_NAME "(evicted)"
/* serve's sweeps between scrapes: apart at least, and after one that freed nothing */
#define METRICS_SWEEP_NS 100000000ull
#define METRICS_IDLE_NS 1000000000ull
/* serve gives new cgroups their slots between scrapes at most this often */
#define METRICS_CLAIM_NS 1000000000ull

struct metrics_ctx {
	struct capture *cap; /* opened with aggregate */
	struct cgnames *names;
	const char *cgroup_root; /* the v2 mount, to notice removed cgroups */
	unsigned int max_cgroups;
	uint64_t pruned; /* entries of removed cgroups deleted from the map */
	uint64_t http_evicted, http_expired; /* serve's connection guard */
	/* what pruned incarnations of a path still in the map had counted */
	struct cg_named_set retired;
	/* each series as the last scrape showed it */
	struct cg_named_set shown;
	/* what pruned cgroups counted that no scrape showed */
	struct abicap_cg_stats removed;
	/*
	 * Eviction: when the map is nine tenths full, the live cgroups idle
	 * longest leave it until it is three quarters full; all they counted
	 * goes to cgroup="(evicted)". activity: id -> its last count of
	 * switches and waits; active_ns: id -> when that last changed.
	 */
	struct abicap_cg_stats evicted;
	uint64_t evictions;
	struct hashtab activity, active_ns;
	bool removed_series; /* show it, as cgroup="(removed)" (serve) */
	/* metrics_maintain() */
	uint64_t lost_seen, next_sweep_ns;
	/* where cpu.stat is read at each scrape (throttling), found once */
	struct cg_cpu_roots *cpu_roots;
	/* the cgroups' slots (serve: metrics_open_slots); n 0: none */
	struct cgslots slots;
	uint64_t created_claimed; /* ABICAP_AUX_CG_CREATED at the last claims */
	uint64_t next_claim_ns; /* metrics_maintain(): claims not before */
};

/* One cgroup id's statistics in the map, summed over CPUs. */
struct cg_sample {
	uint64_t id;
	struct abicap_cg_stats s;
};

/*
 * The exposition text (malloc'd, *len bytes), or NULL with err. Entries of
 * cgroups that no longer exist are deleted from the map: after this scrape
 * has shown their last values, or before it when no walk ever named them
 * (their counts go to the (removed) series).
 */
char *metrics_render(struct metrics_ctx *m, size_t *len, char *err,
		     size_t errlen);

/*
 * Between scrapes (serve calls it every 100 ms): when events were lost or
 * the map is three quarters full (the entries the programs made, less
 * those deleted: no walk of the map), delete the entries of removed
 * cgroups now, their counts kept as metrics_render() keeps them; if it is
 * still nine tenths full, evict the live cgroups idle longest down to
 * three quarters (their counts to cgroup="(evicted)"), so that a new
 * cgroup always finds room whatever cgroups a tenant keeps. At most a
 * tenth of the time goes to it, and a sweep that freed nothing waits a
 * second for the next.
 */
void metrics_maintain(struct metrics_ctx *m);

/*
 * The per-cgroup families for samples[0..n) (any order; ids named through
 * m->names): one series per label set, every incarnation of a cgroup path
 * (a cgroup removed and made again has a new id) summed with what pruned
 * ones left, so a counter never goes back. 0, or -ENOMEM.
 */
int metrics_write_cgroups(FILE *f, struct metrics_ctx *m,
			  const struct cg_sample *v, size_t n);
/*
 * The kernel side's losses: program runs skipped per attached event
 * (ms, NULL: not known) and statistics updates lost per reason (aux[] by
 * enum abicap_aux, NULL: not known).
 */
void metrics_write_losses(FILE *f, const struct capture_misses *ms,
			  const uint64_t *aux);
/*
 * Use the capture's cgroup slots (its maps cg_owner and cg_slots, sized for
 * max_cgroups). 0, or -1 with err: serve then goes on with cg_stats alone.
 */
int metrics_open_slots(struct metrics_ctx *m, char *err, size_t errlen);
/* What the context holds (not the capture or the names). */
void metrics_fini(struct metrics_ctx *m);

#endif
