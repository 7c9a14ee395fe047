// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Issue 33: the timechart zooms inside the page, drawing from a finer
 * layer than its pixels, so that a capture can be looked at down to
 * single switches without drawing it again. The capture: tasks a (100)
 * and b (200) take turns on CPU 0 every 10 us for 100 ms, a asleep while
 * b runs. Unzoomed, a page pixel holds about 13 turns of each; zoomed to
 * 0.2 ms, every turn is about 38 screen pixels wide, and the screenshot,
 * the tooltip and the view the page reports say exactly that.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "browser.h"
#include "capfile/capfile.h"
#include "harness.h"
#include "recfix.h"
#include "view/pixrow.h"
#include "view/timechart_html.h"

TestSuite(zoom, .init = scratch_init, .fini = scratch_fini, .timeout = 180);

#define TURN_NS 10000ull
#define TURNS 10000

/* a runs in even turns, b in odd ones; CPU 0 idle after the last. */
static void alternating(const char *cap)
{
	char err[256];
	struct capw *w = capw_open(cap, true, "{\"ncpus\":1,\"events\":"
				   "[\"sched_switch\"]}", err, sizeof(err));
	uint64_t t = 1000000000ull;

	cr_assert(w, "%s", err);
	for (int i = 0; i <= TURNS; i++) {
		int32_t prev = i ? (i % 2 ? 100 : 200) : 0;
		int32_t next = i == TURNS ? 0 : i % 2 ? 200 : 100;
		union abicap_rec r = recfix_switch(t + i * TURN_NS, 0, prev,
			prev ? (prev == 100 ? "a" : "b") : "swapper/0", 1, next,
			next ? (next == 100 ? "a" : "b") : "swapper/0", 0);

		cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
}

/* The page of cap, 1000 pixels wide (an axis of 770). */
static void chart(const char *cap, const char *html)
{
	struct run r = run_cmd((char *[]){ (char *)abicap_bin(), "timechart",
					   (char *)cap, "-o", (char *)html,
					   "--width", "1000", NULL });

	cr_assert_eq(r.code, 0, "%s", r.err);
	free(r.out);
	free(r.err);
}

static char *attr(const char *dom, const char *name)
{
	char key[64], *p, *e;

	snprintf(key, sizeof(key), "%s=\"", name);
	p = strstr(dom, key);
	cr_assert(p, "the page sets no %s: %.300s", name, dom);
	p += strlen(key);
	e = strchr(p, '"');
	cr_assert(e);
	return strndup(p, (size_t)(e - p));
}

Test(zoom, a_zoomed_view_is_drawn_from_the_finer_layer)
{
	enum { WIDTH = 1000, AXIS = WIDTH - 230 };
	char *cap = scratch_path("alt.abicap"), *html = scratch_path("alt.html");
	char *png = scratch_path("alt.png"), *dom, *v;
	uint32_t run = colour_of(tc_task_colour[SPAN_RUNNING]);
	uint32_t sleep = colour_of(tc_task_colour[SPAN_SLEEP]);
	uint32_t y = TC_LEGEND_H + TC_AXIS_H + TC_CPU_H + TC_ROW_H / 2, prev = 0;
	int runs = 0, shortest = AXIS, longest = 0, len = 0;
	struct image im;

	require_browser();
	alternating(cap);
	chart(cap, html);
	/* a zoom to [10, 10.2] ms, the pointer 5 pixels in on a's lane */
	dom = browser_dom(html, "#zoom=10,10.2&hover=5,40", 1400, 600, 60);
	v = attr(dom, "data-view");
	cr_assert_str_eq(v, "10000000,10200000", "the view is not the zoom asked");
	free(v);
	v = attr(dom, "data-tip");
	/* 10.00065 ms: turn 1000, a's; the run as the layer knows it, exactly */
	cr_assert(strstr(v, "a:100 running here, 10.000000 to 10.010000 ms "
			 "(0.010000 ms in pixels)"), "the tooltip says: %s", v);
	free(v);
	free(dom);
	browser_screenshot(html, "#zoom=10,10.2&noarrows", png,
			   TC_LABEL_W + WIDTH, (int)(y + 2 * TC_LANE_H), 60);
	png_read(png, &im);
	/* a's lane: 10 runs of 20 turns, each 10 us of 0.2 ms over the axis */
	for (uint32_t x = 0; x <= AXIS; x++) {
		uint32_t p = x < AXIS ? image_px(&im, TC_LABEL_W + x, y) : 0;

		cr_assert(x == AXIS || p == run || p == sleep,
			  "pixel %u of a's lane is %06x, neither running nor "
			  "sleeping", x, p);
		if (p == prev) {
			len++;
			continue;
		}
		if (prev == run) {
			runs++;
			shortest = len < shortest ? len : shortest;
			longest = len > longest ? len : longest;
		}
		prev = p;
		len = 1;
	}
	image_free(&im);
	cr_assert_eq(runs, 10, "a ran %d times in the zoomed view, not 10", runs);
	/* 770 px for 0.2 ms: 38.5 a turn, the first and last may be cut */
	cr_assert(longest <= 39 && shortest >= 38 - 1, "runs of %d to %d pixels",
		  shortest, longest);
}

/*
 * The layer's budget halves its rows: a new pixel shows its left half's
 * kind where that half was drawn, else its right half's.
 */
Test(zoom, a_halved_row_keeps_the_left_half_where_drawn)
{
	struct pixscale sc = { .t0 = 0, .px_ns = 10, .width = 16 };
	struct pixrow r;

	pixrow_init(&r, &sc);
	/* pixels 0-2 kind 1, 3 kind 2, 5-6 kind 3 (4 a gap), 7-10 kind 1 */
	pixrow_add(&r, 0, 30, 1);
	pixrow_add(&r, 30, 40, 2);
	pixrow_add(&r, 50, 70, 3);
	pixrow_add(&r, 70, 110, 1);
	pixrow_finish(&r);
	cr_assert_eq(r.n, 4);
	pixrow_halve(&r);
	/* new 0: 1,1; 1: 1,2 -> 1; 2: gap,3 -> 3; 3: 3,1 -> 3; 4: 1,1; 5: 1,- */
	cr_assert_eq(r.n, 3, "%zu runs", r.n);
	cr_assert(r.runs[0].x0 == 0 && r.runs[0].x1 == 2 && r.runs[0].kind == 1);
	cr_assert(r.runs[1].x0 == 2 && r.runs[1].x1 == 4 && r.runs[1].kind == 3);
	cr_assert(r.runs[2].x0 == 4 && r.runs[2].x1 == 6 && r.runs[2].kind == 1,
		  "[%u, %u) kind %u", r.runs[2].x0, r.runs[2].x1, r.runs[2].kind);
	pixrow_free(&r);
}

/* The view the page reports (data-view), as two numbers of ns. */
static void view_of(const char *html, const char *hash, double v[2])
{
	char *dom = browser_dom(html, hash, 1400, 600, 60), *s = attr(dom, "data-view");

	cr_assert_eq(sscanf(s, "%lf,%lf", &v[0], &v[1]), 2, "data-view %s", s);
	free(s);
	free(dom);
}

static double page_px(const char *html)
{
	struct run r = run_cmd((char *[]){ "grep", "-o", "\"px\":[0-9]*",
					   (char *)html, NULL });
	double px = r.code ? 0 : strtod(r.out + 5, NULL);

	cr_assert_gt(px, 0, "no px in %s", html);
	free(r.out);
	free(r.err);
	return px;
}

/*
 * The handlers themselves, as a mouse drives them (the page dispatches
 * the events "#drag=X0,X1" and "#wheel=X,DY" name): a drag from pixel 100
 * to 200 of the axis shows exactly what those pixels spanned; a wheel
 * turn towards the user at pixel 385 shows 0.8 of it all, the time under
 * the cursor where it was.
 */
Test(zoom, drag_and_wheel_zoom_where_the_mouse_is)
{
	char *cap = scratch_path("dw.abicap"), *html = scratch_path("dw.html");
	double v[2], px, span;

	require_browser();
	alternating(cap);
	chart(cap, html);
	px = page_px(html);
	span = px * 770;
	view_of(html, "#drag=100,200", v);
	cr_assert(v[0] == 100 * px && v[1] == 200 * px,
		  "dragged over pixels 100-200 (%.0f-%.0f ns): the view is "
		  "%.0f-%.0f", 100 * px, 200 * px, v[0], v[1]);
	view_of(html, "#wheel=385,-100", v);
	cr_assert(fabs(v[1] - v[0] - 0.8 * span) < 1 &&
		  fabs(v[0] - 0.2 * 385 * px) < 1,
		  "a wheel turn at pixel 385: the view is %.0f-%.0f ns of %.0f",
		  v[0], v[1], span);
	view_of(html, "#wheel=385,-100&wheel=385,100", v);
	cr_assert(v[0] == 0 && fabs(v[1] - span) < 1,
		  "a turn back: %.0f-%.0f ns of %.0f", v[0], v[1], span);
}

/* a switch on CPU 0 at ms from prev to next, with their processes */
static void psw(struct capw *w, int ms, int32_t prev, int32_t ptgid,
		int32_t next, int32_t ntgid)
{
	union abicap_rec r = recfix_switch(1000000000ull + ms * 1000000ull, 0,
					   prev, prev ? "hack" : "swapper/0", 1,
					   next, next ? "hack" : "swapper/0", 0);

	r.sw.prev_tgid = ptgid;
	r.sw.next_tgid = ntgid;
	cr_assert_eq(capw_add(w, &r, r.hdr.size), 0);
}

/*
 * Process rows: threads 100, 101, 102 of process 100 and process 200 take
 * 1 ms turns on CPU 0 (100, 101, 200, 102). Grouped, the page shows a row
 * for process 100 and one for 200; the process row runs wherever a thread
 * of it runs; a click on its name unfolds its three threads under it.
 */
Test(zoom, threads_grouped_by_process_unfold_on_a_click)
{
	char *cap = scratch_path("pr.abicap"), *html = scratch_path("pr.html");
	char *png = scratch_path("pr.png"), *dom, *s;
	uint32_t run = colour_of(tc_task_colour[SPAN_RUNNING]);
	uint32_t y = TC_LEGEND_H + TC_AXIS_H + TC_CPU_H + TC_ROW_H / 2;
	char err[256];
	struct capw *w = capw_open(cap, true, "{\"ncpus\":1,\"events\":"
				   "[\"sched_switch\"]}", err, sizeof(err));
	struct image im;

	require_browser();
	cr_assert(w, "%s", err);
	psw(w, 0, 0, 0, 100, 100);
	psw(w, 1, 100, 100, 101, 100);
	psw(w, 2, 101, 100, 200, 200);
	psw(w, 3, 200, 200, 102, 100);
	psw(w, 4, 102, 100, 0, 0);
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	chart(cap, html);
	dom = browser_dom(html, "", 1400, 600, 60);
	s = attr(dom, "data-rows");
	cr_assert_str_eq(s, "l100,l101,l200,l102", "ungrouped by default");
	free(s);
	free(dom);
	/* grouped; the pointer on process 100's row in its second ms */
	dom = browser_dom(html, "#group&hover=290,40", 1400, 600, 60);
	s = attr(dom, "data-rows");
	cr_assert_str_eq(s, "p100,l200");
	free(s);
	s = attr(dom, "data-tip");
	cr_assert(strstr(s, "process hack:100, 3 threads here: 1 running, 1 "
			 "sleeping"), "the tooltip says: %s", s);
	free(s);
	free(dom);
	dom = browser_dom(html, "#group&click=-100,40", 1400, 600, 60);
	s = attr(dom, "data-rows");
	cr_assert_str_eq(s, "p100,l100,l101,l102,l200", "a click on the name");
	free(s);
	free(dom);
	browser_screenshot(html, "#group&noarrows", png, TC_LABEL_W + 1000,
			   (int)(y + 2 * TC_LANE_H), 60);
	png_read(png, &im);
	/* 770 px for 4 ms: process 100 runs in ms 0-2 and 3-4 */
	for (uint32_t x = 0; x < 770; x++) {
		bool hundred = x < 2 * 770 / 4 - 1 || x > 3 * 770 / 4 + 1;

		if (hundred)
			cr_assert_eq(image_px(&im, TC_LABEL_W + x, y), run,
				     "process 100's row at pixel %u is %06x, not "
				     "running", x, image_px(&im, TC_LABEL_W + x, y));
	}
	cr_assert_eq(image_px(&im, TC_LABEL_W + 2 * 770 / 4 + 40, y +
			      TC_LANE_H), run, "process 200 runs in its ms");
	image_free(&im);
}

/*
 * Issue 33: the page fits the window it was made for, lanes taller than
 * the window included (its vertical scrollbar takes width from it): 200
 * tasks, drawn --width 1600 and shot in a 1600 x 700 window, have no
 * sideways scrollbar. Its bottom-left pixel is then the label column's
 * white margin; a scrollbar's button is grey there (the canvas was 16
 * pixels too wide for the window beside the vertical bar).
 */
Test(zoom, a_page_taller_than_its_window_fits_its_width)
{
	char *cap = scratch_path("tall.abicap"), *html = scratch_path("tall.html");
	char *png = scratch_path("tall.png"), err[256];
	struct capw *w = capw_open(cap, true, "{\"ncpus\":1,\"events\":"
				   "[\"sched_switch\"]}", err, sizeof(err));
	struct image im;
	struct run r;

	require_browser();
	cr_assert(w, "%s", err);
	for (int i = 0; i <= 200; i++) {
		union abicap_rec rec = recfix_switch(1000000000ull + i * 10000ull,
						     0, i ? 99 + i : 0, NULL, 1,
						     i < 200 ? 100 + i : 0, NULL, 0);

		cr_assert_eq(capw_add(w, &rec, rec.hdr.size), 0);
	}
	cr_assert_eq(capw_close(w, "{}", err, sizeof(err)), 0);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "timechart", cap, "-o",
				html, NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	free(r.out);
	free(r.err);
	browser_screenshot_as_seen(html, "", png, 1600, 700, 60);
	png_read(png, &im);
	cr_assert_eq(image_px(&im, 1, im.h - 3), 0xffffff, "the bottom-left "
		     "pixel is %06x: a sideways scrollbar",
		     image_px(&im, 1, im.h - 3));
	image_free(&im);
}
