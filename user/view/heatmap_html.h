/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The heat map as one self-contained HTML page: a legend, then a canvas
 * TC-style fixed layout (for tests): the canvas starts HM_LEGEND_H down;
 * column c's cells at HM_LABEL_W + c cell_w, row b (latency bucket) at
 * HM_AXIS_H + (top - b) HM_CELL_H, top the highest row shown.
 */
#ifndef ABICAP_HEATMAP_HTML_H
#define ABICAP_HEATMAP_HTML_H

#include <stdint.h>
#include <stdio.h>

#define HM_LEGEND_H 90
#define HM_LABEL_W 150
#define HM_AXIS_H 20
#define HM_CELL_H 14

struct hm_page {
	const char *title; /* the capture */
	const char *what; /* the selection, as words ("every task", ...) */
	uint64_t since_ns; /* the window's start after the first record */
	uint64_t col_ns;
	uint32_t cols, cell_w;
	const uint32_t *cells; /* cols x HM_ROWS, column-major */
	uint64_t waits;
	const char *notice; /* what the page lacks (capview_notice), "" none */
};

/* The colour of a cell of count n of max (0: white), "#rrggbb" into buf[8]. */
const char *hm_colour(uint32_t n, uint32_t max, char *buf);
/* The page into f: 0, or -errno. */
int hm_write_html(const struct hm_page *p, FILE *f);

#endif
