/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The heat map as one self-contained HTML page: a legend, then a canvas
 * as wide as the page (--width): the latency labels, the cells, a margin
 * for the time axis's last label; below the cells the colour scale. Fixed
 * layout (for tests): the canvas starts HM_LEGEND_H down; column c's cells
 * at HM_LABEL_W + c cell_w, row b (latency bucket) at HM_AXIS_H +
 * (top - b) cell_h, top the highest row shown, cell_h (the page's data)
 * what fills the page's height, HM_CELL_H at least.
 */
#ifndef ABICAP_HEATMAP_HTML_H
#define ABICAP_HEATMAP_HTML_H

#include <stdint.h>
#include <stdio.h>
#include "analysis/leaders.h"
#include "view/heatmap.h"

#define HM_LEGEND_H 90
#define HM_LABEL_W 150
#define HM_AXIS_H 20
#define HM_CELL_H 14 /* the least cell height */
#define HM_CELL_H_MAX 48
#define HM_RIGHT_W 50 /* right of the cells: the time axis's last label */
#define HM_SCALE_H 40 /* below the cells: the colour scale */

struct hm_page {
	const char *title; /* the capture */
	const char *what; /* the selection, as words ("every task", ...) */
	uint64_t since_ns; /* the window's start after the first record */
	uint64_t col_ns;
	uint32_t cols, cell_w;
	uint32_t width, height; /* the page's, in CSS pixels */
	const uint32_t *cells; /* cols x HM_ROWS, column-major */
	const struct hm_top *top; /* the same cells' top tasks */
	const struct heatmap *h; /* their names (hm_comm) */
	const struct leaders *procs; /* h->by_process: the processes' names */
	bool tasks_partial; /* some waits are in no cell's top tasks */
	uint64_t waits;
	const char *notice; /* what the page lacks (capview_notice), "" none */
};

/* The columns a page width px wide has of cell_w each (0: under 2). */
uint32_t hm_columns(uint32_t width, uint32_t cell_w);
/* The colour of a cell of count n of max (0: white), "#rrggbb" into buf[8]. */
const char *hm_colour(uint32_t n, uint32_t max, char *buf);
/* The page into f: 0, or -errno. */
int hm_write_html(const struct hm_page *p, FILE *f);

#endif
