/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * abicap serve's metrics: the aggregation maps of a running capture, its
 * counters and the contract's verdicts in the Prometheus text format.
 */
#ifndef ABICAP_METRICS_H
#define ABICAP_METRICS_H

#include <stddef.h>
#include <stdint.h>
#include "capture.h"
#include "cgnames.h"

struct metrics_ctx {
	struct capture *cap; /* opened with aggregate */
	struct cgnames *names;
	const char *cgroup_root; /* the v2 mount, to notice removed cgroups */
	unsigned int max_cgroups;
	uint64_t pruned; /* entries of removed cgroups deleted from the map */
	uint64_t http_evicted, http_expired; /* serve's connection guard */
};

/*
 * The exposition text (malloc'd, *len bytes), or NULL with err. When the
 * cgroup map is three quarters full, the entries of cgroups that no longer
 * exist are deleted after this scrape has shown their last values.
 */
char *metrics_render(struct metrics_ctx *m, size_t *len, char *err,
		     size_t errlen);

#endif
