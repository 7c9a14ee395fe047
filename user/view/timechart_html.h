/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The timechart as one self-contained HTML page (no network): a legend,
 * then a canvas drawn by a short script from the page's own data. The
 * layout is fixed, so that a test can find a lane's pixels in a
 * screenshot: the canvas is the page's width (--width: the labels, the
 * time axis, TC_RIGHT_W for its last label) and starts TC_LEGEND_H pixels down; in it, pixel
 * column x of the time axis is at TC_LABEL_W + x, CPU lane c's state row at
 * TC_AXIS_H + c TC_CPU_H (TC_ROW_H tall, its frequency row TC_FREQ_H below
 * it), task lane i at TC_AXIS_H + ncpus TC_CPU_H + i TC_LANE_H (TC_ROW_H
 * tall). Wakeup arrows are drawn under the lanes (seen in the gaps),
 * opaque, in colours of their own.
 */
#ifndef ABICAP_TIMECHART_HTML_H
#define ABICAP_TIMECHART_HTML_H

#include <stdint.h>
#include <stdio.h>
#include "view/timechart.h"

#define TC_LEGEND_H 120
#define TC_LABEL_W 180
#define TC_RIGHT_W 50 /* right of the time axis: its last label */
/* The least pixels of a time axis. */
#define TC_AXIS_MIN 100
#define TC_AXIS_H 20
#define TC_ROW_H 10
#define TC_FREQ_H 4
#define TC_CPU_H 18
#define TC_LANE_H 12

/*
 * The pixels of the time axis of a page width pixels wide (the labels and
 * the right margin aside), 0 if under TC_AXIS_MIN.
 */
uint32_t tc_axis_px(uint32_t width);

/* The wakeup arrows' colours: from a task's lane, from interrupt context. */
extern const char *const tc_arrow_colour[2];
/* The colours (#rrggbb) of task kinds (enum span_kind) and CPU kinds. */
extern const char *const tc_task_colour[6];
const char *tc_cpu_colour(unsigned int kind);

/* Which lanes the page shows. */
struct tc_page {
	const char *title; /* the capture's name */
	int32_t tgid; /* 0: every task */
	const char *comm; /* NULL: every name */
	const uint8_t *cpus; /* NULL: every CPU */
	bool task_filtered; /* the capture saw some tasks only: no CPU lanes */
	uint64_t since_ns; /* the window's start after the first record */
	size_t max_lanes; /* --max-lanes (0: no limit) */
	const struct tc_choice *choice; /* the tasks, lanes or not (tc_choose) */
	const char *notice; /* what the page lacks (capview_notice), "" none */
};

/* The page into f: 0, or -errno of the write. */
int tc_write_html(const struct timechart *tc, const struct tc_page *pg,
		  FILE *f);

#endif
