/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* abicap heatmap: a capture's run-queue latency heat map page. */
#ifndef ABICAP_HEATMAP_FILE_H
#define ABICAP_HEATMAP_FILE_H

#include <stdbool.h>
#include <stdint.h>
#include "lib/duration.h"
#include "view/heatmap.h"

struct hm_args {
	uint32_t width, height; /* the page's, in CSS pixels */
	uint32_t cell_w; /* pixels of a column */
	struct timewin win;
	int32_t tgid; /* 0: every task */
	const char *comm; /* NULL: every name */
	struct hm_select sel;
	bool by_process; /* the cells' top processes, not tasks */
	bool force;
};

/* An EXIT_* code, errors reported; out is created only once complete. */
int heatmap_write(const char *cap, const char *out, const struct hm_args *a);

#endif
