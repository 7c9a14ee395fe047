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
#include "event/cgnames.h"

/* What pruned incarnations of a still-present cgroup path had counted. */
struct cg_retired {
	char *path;
	struct abicap_cg_stats s;
};

struct metrics_ctx {
	struct capture *cap; /* opened with aggregate */
	struct cgnames *names;
	const char *cgroup_root; /* the v2 mount, to notice removed cgroups */
	unsigned int max_cgroups;
	uint64_t pruned; /* entries of removed cgroups deleted from the map */
	uint64_t http_evicted, http_expired; /* serve's connection guard */
	struct cg_retired *retired; /* sorted by path */
	size_t nretired;
};

/* One cgroup id's statistics in the map, summed over CPUs. */
struct cg_sample {
	uint64_t id;
	struct abicap_cg_stats s;
};

/*
 * The exposition text (malloc'd, *len bytes), or NULL with err. When the
 * cgroup map is three quarters full, the entries of cgroups that no longer
 * exist are deleted after this scrape has shown their last values.
 */
char *metrics_render(struct metrics_ctx *m, size_t *len, char *err,
		     size_t errlen);

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
/* What the context holds (not the capture or the names). */
void metrics_fini(struct metrics_ctx *m);

#endif
