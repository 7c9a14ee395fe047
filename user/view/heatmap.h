/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The run-queue latency heat map: time (columns) by latency (rows: the
 * report's log2 buckets of microseconds, 0, 1, 2-3, 4-7, ...), each cell
 * the number of waits that ended in that column with that latency. From
 * the analysis' wait callbacks (the waits the report counts), kept per
 * cgroup so that a cgroup or a container can be chosen once the capture's
 * names are read.
 */
#ifndef ABICAP_HEATMAP_H
#define ABICAP_HEATMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "analysis/analysis.h"
#include "analysis/observe.h"
#include "event/cgnames.h"
#include "lib/hashtab.h"

#define HM_ROWS 40 /* bucket b: 0 for < 1 us, else 2^(b-1) .. 2^b - 1 us */

/* The row of a latency (the report's histogram bucket). */
unsigned int hm_bucket(uint64_t ns);

struct heatmap {
	uint64_t t0, col_ns;
	uint32_t cols;
	const struct analysis *a; /* for each waiter's cgroup */
	bool by_cgroup; /* cells per cgroup (a selection by cgroup), else one grid */
	uint64_t *grid; /* !by_cgroup: cols x HM_ROWS, column-major */
	/*
	 * by_cgroup: only the cells waits fill, (group x cols x HM_ROWS + cell)
	 * -> waits, so that memory follows the waits, not cgroups x cells
	 */
	struct hashtab cells;
	uint64_t *groups; /* group -> cgroup id (0: unknown) */
	size_t ngroups, cap, last;
	struct hashtab by_id; /* cgroup id -> its group */
	uint64_t waits;
	/*
	 * (group x cols x HM_ROWS + cell) << 22 | tid -> that task's waits
	 * there: each cell's top tasks. tasks_partial: some waits were not
	 * kept so (a tid of 2^22 or more, past 2^42 group cells)
	 */
	struct hashtab by_task;
	bool by_process; /* by_task's ids are tgids: top processes */
	bool tasks_partial;
	/* tid -> its name at its last wait (index in comms) */
	struct hashtab comm_of;
	char (*comms)[16];
	size_t ncomms, ccap;
	bool oom;
};

#define HM_TOP 3 /* the tasks a cell names */
struct hm_top {
	int32_t tid[HM_TOP]; /* 0: none */
	uint32_t n[HM_TOP];
};

/*
 * cols columns of col_ns from t0; a: the analysis the waits come from;
 * by_cgroup: keep the cells per cgroup (for hm_sum's selection).
 */
void hm_init(struct heatmap *h, uint64_t t0, uint64_t col_ns, uint32_t cols,
	     const struct analysis *a, bool by_cgroup);
/* The observer's wait callback, ctx a struct heatmap. */
void hm_wait(void *ctx, const struct wait_ev *w);

/* Which cgroups count (NULL strings: any). */
struct hm_select {
	const char *cgroup; /* a cgroup v2 path: it and those below it */
	const char *container; /* a container label as the report prints it */
};
/*
 * The cells of the groups sel chooses, summed into out (cols x HM_ROWS,
 * zeroed here), the waits counted into *waits; names: the capture's.
 * 0, -ENOMEM, or -EOVERFLOW where a cell would hold 2^32 waits or more.
 */
int hm_sum(const struct heatmap *h, const struct hm_select *sel,
	   struct cgnames *names, uint32_t *out, uint64_t *waits);
/* The name tid had at its last wait counted, "?" if none. */
const char *hm_comm(const struct heatmap *h, int32_t tid);
/*
 * Each cell's HM_TOP tasks (h->by_process: processes, by tgid) with the
 * most waits there in the groups sel chooses, most first, into top (cols
 * x HM_ROWS, zeroed here): 0 or -ENOMEM.
 */
int hm_top_tasks(const struct heatmap *h, const struct hm_select *sel,
		 struct cgnames *names, struct hm_top *top);
void hm_free(struct heatmap *h);

#endif
