// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap timechart as a user sees it: a system-wide capture of perf bench
 * sched messaging, drawn, rendered by a real headless browser, and what the
 * screenshot shows (lanes, their colours, each task's running time and
 * each CPU's busy time counted in pixels) checked against abicap report.
 * ABICAP_DOCS_SHOTS=DIR also keeps the screenshot as DIR/timechart.png.
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "browser.h"
#include "harness.h"
#include "view/heatmap.h"
#include "view/heatmap_html.h"
#include "view/timechart_html.h"

#define path(n) scratch_path(n)

TestSuite(timechart, .init = scratch_init, .fini = scratch_fini, .timeout = 300);

static void require_perf(void)
{
	if (!access("/usr/bin/perf", X_OK))
		return;
	if (getenv("CI"))
		cr_assert_fail("perf is missing: install linux-perf (scripts/setup.sh)");
	test_skip("perf is missing: install linux-perf (scripts/setup.sh)");
}

/* A system-wide capture with perf bench sched messaging in it, into cap. */
static void record_messaging(const char *cap)
{
	char seen[4096];
	struct child rec;
	struct run r;

	spawn(&rec, (char *[]){ (char *)abicap_bin(), "record", "-o",
				(char *)cap, "-d", "2", NULL });
	wait_for_stderr(&rec, "abicap: recording", seen, sizeof(seen));
	r = run_cmd((char *[]){ "perf", "bench", "sched", "messaging", "-g",
				"1", "-l", "200", NULL });
	cr_assert_eq(r.code, 0, "perf bench: %s", r.err);
	free(r.out);
	free(r.err);
	free(read_all(rec.out_fd));
	free(read_all(rec.err_fd));
	cr_assert_eq(wait_exit(&rec, 60), 0, "record failed");
}

static json_t *run_json(char *const argv[])
{
	struct run r = run_cmd(argv);
	json_t *j;

	cr_assert_eq(r.code, 0, "%s exited %d: %s", argv[1], r.code, r.err);
	j = json_loads(r.out, 0, NULL);
	cr_assert(j, "%s: not JSON", argv[1]);
	free(r.out);
	free(r.err);
	return j;
}

/* The page's own data (const D = {...};), which says where each lane is. */
static json_t *page_data(const char *html)
{
	size_t len;
	char *raw = read_file(html, &len), *t = malloc(len + 1), *b, *e;
	json_t *d;

	cr_assert(t);
	memcpy(t, raw, len);
	t[len] = '\0';
	free(raw);
	b = strstr(t, "const D=");

	cr_assert(b, "%s has no data", html);
	b += strlen("const D=");
	e = strstr(b, "};\n");
	cr_assert(e);
	e[1] = '\0';
	d = json_loads(b, 0, NULL);
	cr_assert(d, "%s: its data is not JSON", html);
	free(t);
	return d;
}

static uint64_t num(json_t *o, const char *k)
{
	json_t *v = k ? json_object_get(o, k) : o;

	cr_assert(json_is_integer(v), "no integer %s", k);
	return (uint64_t)json_integer_value(v);
}

/* The report's task with this tid and start, NULL if none. */
static json_t *report_task(json_t *rep, int64_t tid, uint64_t start)
{
	json_t *t;
	size_t i;

	json_array_foreach(json_object_get(rep, "tasks"), i, t)
		if (json_integer_value(json_object_get(t, "tid")) == tid &&
		    (uint64_t)json_integer_value(json_object_get(t, "start_ns")) ==
		    start)
			return t;
	return NULL;
}

static bool is_task_colour(uint32_t px)
{
	if (px == 0xffffff)
		return true;
	for (int k = 0; k < 6; k++)
		if (px == colour_of(tc_task_colour[k]))
			return true;
	return false;
}

/* Pixels of colour along row y of the time axis (width pixels). */
static uint64_t count_px(const struct image *im, uint32_t y, uint32_t width,
			 uint32_t colour, uint64_t *foreign)
{
	uint64_t n = 0;

	for (uint32_t x = 0; x < width; x++) {
		uint32_t px = image_px(im, TC_LABEL_W + x, y);

		n += px == colour;
		if (foreign && !is_task_colour(px))
			(*foreign)++;
	}
	return n;
}

static void keep_shot(const char *png, const char *name)
{
	const char *dir = getenv("ABICAP_DOCS_SHOTS");
	char to[4096];
	size_t len;
	char *b;
	FILE *f;

	if (!dir)
		return;
	snprintf(to, sizeof(to), "%s/%s", dir, name);
	b = read_file(png, &len);
	f = fopen(to, "w");
	cr_assert(f, "%s", to);
	cr_assert_eq(fwrite(b, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
	free(b);
}

/*
 * Issue 33: the tooltip tells what is under the cursor. At a pixel of the
 * first task lane that the screenshot shows running, the page (pointed at
 * by "#hover=X,Y" in a real browser) names the task and "running here".
 */
static void hover_names_the_state(const char *html, const struct image *im,
				  json_t *lanes, size_t ncpus, uint64_t y0,
				  uint32_t width)
{
	uint32_t run = colour_of(tc_task_colour[SPAN_RUNNING]), x = 0;
	json_t *l = json_array_get(lanes, 0);
	char hash[64], want[96], *dom;

	while (x < width && image_px(im, TC_LABEL_W + x,
				     (uint32_t)(y0 + TC_ROW_H / 2)) != run)
		x++;
	cr_assert_lt(x, width, "the first lane never runs");
	snprintf(hash, sizeof(hash), "#hover=%u,%zu", x,
		 TC_AXIS_H + ncpus * TC_CPU_H + TC_ROW_H / 2);
	dom = browser_dom(html, hash, 1000, 600, 60);
	snprintf(want, sizeof(want), "  %s:%lld running here, ",
		 json_string_value(json_object_get(l, "comm")),
		 json_integer_value(json_object_get(l, "tid")));
	cr_assert(strstr(dom, want), "no '%s' in the tooltip", want);
	free(dom);
}

/*
 * The longest stint of a task on cpu in [p0, p1) from the capture's
 * switches. A stint counts only if the switch that ends it is the task's
 * own switch-out: where the next switch out of the CPU names another
 * task, a switch between was lost (CI's quiet run once), and when the
 * task left is unknown, as the analysis has it (docs/analysis.md).
 */
static long long longest_stint(const char *cap, int cpu, uint64_t p0,
			       uint64_t p1, long long *tie)
{
	char c[16], *save = NULL, *line;
	long long cur = -1, best = -1;
	uint64_t since = 0, most = 0;
	struct run r;

	snprintf(c, sizeof(c), "%d", cpu);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "script", (char *)cap, "-f",
				"json", "-e", "sched_switch", "-C", c, NULL });
	cr_assert_eq(r.code, 0, "script: %s", r.err);
	*tie = -1;
	for (line = strtok_r(r.out, "\n", &save); line && since < p1;
	     line = strtok_r(NULL, "\n", &save)) {
		json_t *j = json_loads(line, 0, NULL);
		uint64_t ts = num(j, "ts_ns");
		uint64_t a = since > p0 ? since : p0, b = ts < p1 ? ts : p1;
		long long out = json_integer_value(json_object_get(j, "prev_pid"));

		if (cur > 0 && out == cur && b > a && b - a >= most) {
			*tie = b - a == most ? best : -1;
			most = b - a;
			best = cur;
		}
		cur = json_integer_value(json_object_get(j, "next_pid"));
		since = ts;
		json_decref(j);
	}
	free(r.out);
	free(r.err);
	return best;
}

/*
 * Issue 33: a CPU lane's tooltip says who ran there. At the first busy
 * pixel of the first CPU lane, the task the page names has the longest
 * stint on that CPU in that pixel by the capture's own switches.
 */
static void hover_names_who_ran(const char *cap, const char *html,
				const struct image *im, json_t *d)
{
	uint32_t busy = colour_of(tc_cpu_colour(TC_CPU_BUSY)), x = 0;
	uint32_t width = (uint32_t)num(d, "width");
	json_t *c0 = json_array_get(json_object_get(d, "cpus"), 0);
	uint64_t px = num(d, "px"), p0;
	long long want, tie;
	char hash[64], *dom, *got;

	while (x < width && image_px(im, TC_LABEL_W + x, TC_LEGEND_H + TC_AXIS_H +
				     TC_ROW_H / 2) != busy)
		x++;
	cr_assert_lt(x, width, "CPU %llu is never busy",
		     (unsigned long long)num(c0, "cpu"));
	/* the page's own first pixel: its scale's t0 */
	p0 = num(d, "t0") + x * px;
	want = longest_stint(cap, (int)num(c0, "cpu"), p0, p0 + px, &tie);
	snprintf(hash, sizeof(hash), "#hover=%u,%d", x, TC_AXIS_H + TC_ROW_H / 2);
	dom = browser_dom(html, hash, 1000, 600, 60);
	got = strstr(dom, "ran there the longest in this pixel: ");
	cr_assert(got, "CPU %llu, pixel %u (busy): the tooltip names no task",
		  (unsigned long long)num(c0, "cpu"), x);
	got = strchr(got, ';'); /* "comm:TID; " (a comm may hold ':') */
	while (got && got > dom && *got != ':')
		got--;
	cr_assert(got && (atoll(got + 1) == want || atoll(got + 1) == tie),
		  "the tooltip says %.40s, the switches say tid %lld (or %lld)",
		  got ? got : "nothing", want, tie);
	free(dom);
}

Test(timechart, screenshot_matches_report)
{
	const char *cap = path("m.abicap"), *html = path("m.html");
	const char *png = path("m.png");
	char *bin = (char *)abicap_bin();
	json_t *rep, *d, *lanes, *cpus, *l;
	struct image im;
	uint64_t px, width, y0, foreign = 0;
	size_t i, nrun = 0;
	struct run r;

	require_kernel();
	require_browser();
	require_perf();
	record_messaging(cap);
	rep = run_json((char *[]){ bin, "report", (char *)cap, "-f", "json",
				   "--comm", "sched-messaging", NULL });
	r = run_cmd((char *[]){ bin, "timechart", (char *)cap, "-o",
				(char *)html, "--comm", "sched-messaging",
				"--width", "1000", NULL });
	cr_assert_eq(r.code, 0, "timechart: %s", r.err);
	d = page_data(html);
	lanes = json_object_get(d, "lanes");
	cpus = json_object_get(d, "cpus");
	px = num(d, "px");
	width = num(d, "width");
	/* every lane is a task of the report; every task that ran has a lane */
	json_array_foreach(lanes, i, l) {
		json_t *t = report_task(rep, json_integer_value(json_object_get(l, "tid")),
					num(l, "start"));

		cr_assert(t, "lane %zu (tid %lld) is no task of the report", i,
			  json_integer_value(json_object_get(l, "tid")));
	}
	json_array_foreach(json_object_get(rep, "tasks"), i, l) {
		bool found = false;
		json_t *x;
		size_t k;

		if (!num(l, "runtime_ns"))
			continue;
		nrun++;
		json_array_foreach(lanes, k, x)
			found |= json_integer_value(json_object_get(x, "tid")) ==
				 json_integer_value(json_object_get(l, "tid")) &&
				 num(x, "start") == num(l, "start_ns");
		cr_assert(found, "task %lld ran but has no lane",
			  json_integer_value(json_object_get(l, "tid")));
	}
	cr_assert_geq(nrun, 40, "perf bench sched messaging -g 1 runs 40 "
		      "tasks; the report has %zu that ran", nrun);

	browser_screenshot(html, "#noarrows", png, (int)(TC_LABEL_W + width),
			   (int)(TC_LEGEND_H + TC_AXIS_H +
				 json_array_size(cpus) * TC_CPU_H +
				 json_array_size(lanes) * TC_LANE_H + 8), 120);
	png_read(png, &im);
	y0 = TC_LEGEND_H + TC_AXIS_H + json_array_size(cpus) * TC_CPU_H;
	/* each task lane: its running pixels are its runtime, within its mixed pixels */
	json_array_foreach(lanes, i, l) {
		json_t *t = report_task(rep, json_integer_value(json_object_get(l, "tid")),
					num(l, "start"));
		uint64_t run = count_px(&im, (uint32_t)(y0 + i * TC_LANE_H +
					 TC_ROW_H / 2), (uint32_t)width,
					colour_of(tc_task_colour[SPAN_RUNNING]),
					&foreign);
		uint64_t want = num(t, "runtime_ns"), tol = num(l, "err");
		uint64_t got = run * px;

		/* the page states its resolution; it must be a few pixels */
		cr_assert_leq(tol, 3 * px, "lane %zu: stated error %llu ns is "
			      "over 3 pixels", i, (unsigned long long)tol);
		cr_assert_leq(got > want ? got - want : want - got, tol,
			      "lane %zu (tid %lld): %llu running pixels of %llu "
			      "ns are %llu ns, the report says %llu ns, beyond "
			      "the stated %llu ns", i,
			      json_integer_value(json_object_get(l, "tid")),
			      (unsigned long long)run, (unsigned long long)px,
			      (unsigned long long)got, (unsigned long long)want,
			      (unsigned long long)tol);
	}
	cr_assert_eq(foreign, 0, "%llu pixels of the task lanes have a colour "
		     "that is no task state", (unsigned long long)foreign);
	hover_names_the_state(html, &im, lanes, json_array_size(cpus), y0,
			      (uint32_t)width);
	hover_names_who_ran(cap, html, &im, d);
	/* each CPU lane: busy pixels are the report's busy time */
	json_array_foreach(cpus, i, l) {
		json_t *rc = json_array_get(json_object_get(rep, "cpus"),
					    (size_t)num(l, "cpu"));
		uint64_t busy = count_px(&im, (uint32_t)(TC_LEGEND_H + TC_AXIS_H +
					 i * TC_CPU_H + TC_ROW_H / 2),
					 (uint32_t)width,
					 colour_of(tc_cpu_colour(TC_CPU_BUSY)),
					 NULL) * px;
		uint64_t want = num(rc, "busy_ns"), tol = num(l, "err");

		cr_assert_leq(tol, 3 * px, "CPU %zu: stated error %llu ns is "
			      "over 3 pixels", i, (unsigned long long)tol);

		cr_assert_leq(busy > want ? busy - want : want - busy, tol,
			      "CPU %zu: %llu ns busy in pixels, the report "
			      "says %llu", i, (unsigned long long)busy,
			      (unsigned long long)want);
	}
	/* a CPU lane shows CPU states only (busy, idle by depth, unknown, lost) */
	json_array_foreach(cpus, i, l) {
		uint32_t y = (uint32_t)(TC_LEGEND_H + TC_AXIS_H + i * TC_CPU_H +
					TC_ROW_H / 2);

		for (uint32_t x = 0; x < width; x++) {
			uint32_t px = image_px(&im, TC_LABEL_W + x, y);
			bool known = px == 0xffffff;

			for (unsigned int k = 0; k < PIX_KINDS && !known; k++)
				known = px == colour_of(tc_cpu_colour(k));
			cr_assert(known, "CPU lane %zu, pixel %u: #%06x is no CPU "
				  "state's colour", i, x, px);
		}
	}
	image_free(&im);
	/* the page as a user opens it, arrows included: kept for docs/ */
	browser_screenshot(html, NULL, png, (int)(TC_LABEL_W + width),
			   (int)(TC_LEGEND_H + TC_AXIS_H +
				 json_array_size(cpus) * TC_CPU_H +
				 json_array_size(lanes) * TC_LANE_H + 8), 120);
	png_read(png, &im);
	{
		/* the arrows show in the gaps between task lanes */
		uint64_t marked = 0, arrows = 0;

		json_array_foreach(lanes, i, l)
			arrows += strlen(json_string_value(json_object_get(l, "a")));
		for (i = 0; i + 1 < json_array_size(lanes); i++)
			for (uint32_t x = 0; x < width; x++)
				marked += image_px(&im, TC_LABEL_W + x,
						   (uint32_t)(y0 + i * TC_LANE_H +
							      TC_ROW_H + 1)) != 0xffffff;
		cr_assert(!arrows || marked, "the page has wakeup arrows, the "
			  "screenshot shows none between the lanes");
		/*
		 * issue 33: arrows and all, every pixel of a task lane is a
		 * legend colour (arrows opaque in their own; were blends of
		 * lavender that read as "off CPU, other")
		 */
		foreign = 0;
		json_array_foreach(lanes, i, l)
			for (uint32_t x = 0; x < width; x++) {
				uint32_t p = image_px(&im, TC_LABEL_W + x,
						      (uint32_t)(y0 + i * TC_LANE_H +
								 TC_ROW_H / 2));
				bool known = p == 0xffffff ||
					     p == colour_of(tc_arrow_colour[0]) ||
					     p == colour_of(tc_arrow_colour[1]);

				for (int k = 0; k < 6 && !known; k++)
					known = p == colour_of(tc_task_colour[k]);
				foreign += !known;
			}
		cr_assert_eq(foreign, 0, "%llu pixels of the task lanes, arrows "
			     "drawn, are in no legend colour",
			     (unsigned long long)foreign);
	}
	image_free(&im);
	keep_shot(png, "timechart.png");
	json_decref(rep);
	json_decref(d);
	free(r.out);
	free(r.err);
}

/* The first histogram of report's text (the overall one): counts by bucket. */
static size_t report_histogram(const char *text, uint64_t *b, size_t max)
{
	const char *p = strstr(text, "usecs");
	size_t n = 0;

	cr_assert(p, "the report has no histogram");
	p = strchr(p, '\n');
	while (p && n < max) {
		unsigned long long lo, hi, c;

		if (sscanf(p + 1, " %llu -> %llu : %llu", &lo, &hi, &c) != 3)
			break;
		b[n++] = c;
		p = strchr(p + 1, '\n');
	}
	return n;
}

/*
 * Issue 33: the cell under the cursor tells its column's time, its row's
 * latency and its count, and a click gives the command listing the waits
 * that ended in that column; run in the browser at the page's busiest cell
 * ("#at=COL,ROW" points there as a mouse would).
 */
static void point_at_busiest_cell(const char *cap, const char *html, json_t *d)
{
	json_t *cells = json_object_get(d, "cells"), *col, *tops, *t, *rep;
	size_t x, bx = 0, bb = 0, best = 0, top = num(d, "top"), sum = 0;
	uint64_t since = num(d, "since"), col_ns = num(d, "col_ns"), from;
	char hash[64], want[256], *dom, a[32], b[32], row[16];

	json_array_foreach(cells, x, col)
		for (size_t b = 0; b <= top; b++)
			if (num(json_array_get(col, b), NULL) > best) {
				best = num(json_array_get(col, b), NULL);
				bx = x;
				bb = b;
			}
	snprintf(hash, sizeof(hash), "#at=%zu,%zu", bx, bb);
	dom = browser_dom(html, hash, 600, 600, 60);
	/* an attribute's < and > may come escaped */
	for (char *p = dom, *o = dom; ; p++) {
		bool lt = !strncmp(p, "&lt;", 4), gt = !strncmp(p, "&gt;", 4);

		*o++ = lt ? '<' : gt ? '>' : *p;
		p += lt || gt ? 3 : 0;
		if (!*p)
			break;
	}
	from = since + bx * col_ns;
	snprintf(want, sizeof(want), "data-tip=\"%.3f ms to %.3f ms after the "
		 "first record: %zu wait%s of %s", from / 1e6,
		 (from + col_ns) / 1e6, best, best == 1 ? "" : "s",
		 json_string_value(json_array_get(json_object_get(d, "labels"),
						  bb)));
	cr_assert(strstr(dom, want), "no '%s' in the page's DOM", want);
	snprintf(want, sizeof(want), " --since %lluns --until %lluns --slowest "
		 "20\"", (unsigned long long)from,
		 (unsigned long long)(from + col_ns));
	cr_assert(strstr(dom, want), "no '%s' in the page's DOM", want);
	cr_assert(strstr(dom, "data-canvas-w=\"600\""), "the canvas is not "
		  "the page's width");
	/*
	 * its top tasks, most first, in the tooltip: each has at least that
	 * many waits ending in the column by the report of that window
	 */
	snprintf(row, sizeof(row), "%zu", bb);
	tops = json_object_get(json_array_get(json_object_get(d, "tops"), bx), row);
	cr_assert_gt(json_array_size(tops), 0, "no top tasks for the cell");
	snprintf(a, sizeof(a), "%lluns", (unsigned long long)from);
	snprintf(b, sizeof(b), "%lluns", (unsigned long long)(from + col_ns));
	rep = run_json((char *[]){ (char *)abicap_bin(), "report", (char *)cap,
				   "-f", "json", "--comm", "sched-messaging",
				   "--since", a, "--until", b, NULL });
	json_array_foreach(tops, x, t) {
		const char *name = json_string_value(json_array_get(t, 0));
		uint64_t n = num(json_array_get(t, 1), NULL);
		long long tid = atoll(strrchr(name, ':') + 1);
		json_t *rt = NULL, *e;
		size_t k;

		json_array_foreach(json_object_get(rep, "tasks"), k, e)
			if (json_integer_value(json_object_get(e, "tid")) == tid)
				rt = e;

		cr_assert(rt, "%s is not in the report of that window", name);
		cr_assert_geq(num(rt, "rq_samples"), n, "%s: %llu waits in the "
			      "cell, fewer in the window", name,
			      (unsigned long long)n);
		cr_assert(!x || n <= num(json_array_get(json_array_get(tops,
			  x - 1), 1), NULL), "not most first");
		snprintf(want, sizeof(want), "%s%s (%llu)", x ? ", " : "most: ",
			 name, (unsigned long long)n);
		cr_assert(strstr(dom, want), "no '%s' in the tooltip", want);
		sum += n;
	}
	cr_assert_leq(sum, best);
	json_decref(rep);
	free(dom);
}

Test(timechart, heatmap_matches_report)
{
	const char *cap = path("h.abicap"), *html = path("h.html");
	const char *png = path("h.png");
	char *bin = (char *)abicap_bin();
	uint64_t hist[HM_ROWS] = { 0 }, rows[HM_ROWS] = { 0 }, waits = 0;
	json_t *d, *cells, *col, *rep;
	size_t nb, x, top, max, cw, ch;
	struct image im;
	struct run r;

	require_kernel();
	require_browser();
	require_perf();
	record_messaging(cap);
	r = run_cmd((char *[]){ bin, "report", (char *)cap, "--comm",
				"sched-messaging", NULL });
	cr_assert_eq(r.code, 0, "report: %s", r.err);
	nb = report_histogram(r.out, hist, HM_ROWS);
	free(r.out);
	free(r.err);
	rep = run_json((char *[]){ bin, "report", (char *)cap, "-f", "json",
				   "--comm", "sched-messaging", NULL });
	r = run_cmd((char *[]){ bin, "heatmap", (char *)cap, "-o",
				(char *)html, "--comm", "sched-messaging",
				"--width", "600", "--cell", "6", NULL });
	cr_assert_eq(r.code, 0, "heatmap: %s", r.err);
	free(r.out);
	free(r.err);
	d = page_data(html);
	cells = json_object_get(d, "cells");
	top = num(d, "top");
	max = num(d, "max");
	cw = num(d, "cell_w");
	cr_assert_eq(nb, top + 1, "the report has %zu histogram rows, the "
		     "heat map %zu", nb, top + 1);
	json_array_foreach(cells, x, col)
		for (size_t b = 0; b <= top; b++) {
			rows[b] += num(json_array_get(col, b), NULL);
		}
	for (size_t b = 0; b <= top; b++) {
		cr_assert_eq(rows[b], hist[b], "row %zu: %llu waits in the heat "
			     "map, %llu in the report's histogram", b,
			     (unsigned long long)rows[b],
			     (unsigned long long)hist[b]);
		waits += rows[b];
	}
	cr_assert_eq(waits, num(json_object_get(rep, "runqueue_latency"),
				"samples"));
	cr_assert_gt(waits, 0);
	/* issue 33: the page is --width wide, the last label inside it */
	ch = num(d, "cell_h");
	cr_assert_eq(num(d, "width"), 600);
	cr_assert_leq(HM_LABEL_W + json_array_size(cells) * cw + HM_RIGHT_W, 600);
	cr_assert(ch >= HM_CELL_H && ch <= HM_CELL_H_MAX, "cell height %zu", ch);
	browser_screenshot(html, NULL, png, 600, (int)(HM_LEGEND_H + HM_AXIS_H +
			   (top + 1) * ch + HM_SCALE_H + 10), 60);
	png_read(png, &im);
	/* every cell shows its count's colour; white where there is none */
	json_array_foreach(cells, x, col)
		for (size_t b = 0; b <= top; b++) {
			uint32_t n = (uint32_t)num(json_array_get(col, b), NULL);
			char want[8];
			uint32_t px = image_px(&im, (uint32_t)(HM_LABEL_W + x * cw +
					       cw / 2), (uint32_t)(HM_LEGEND_H +
					       HM_AXIS_H + (top - b) * ch +
					       ch / 2));

			cr_assert_eq(px, colour_of(hm_colour(n, (uint32_t)max, want)),
				     "cell (%zu, %zu) of %u waits is #%06x, "
				     "not %s", x, b, n, px, want);
		}
	image_free(&im);
	keep_shot(png, "heatmap.png");
	point_at_busiest_cell(cap, html, d);
	json_decref(rep);
	json_decref(d);
}

/*
 * Issue 33: a record -- CMD chart starts with CMD's tasks (before, lanes
 * went by start time: tasks already running when the command began, seen
 * beside it, came first), and the recorder's own tasks come last.
 */
Test(timechart, a_command_chart_starts_with_the_command)
{
	const char *cap = path("cmd.abicap"), *html = path("cmd.html");
	char *bin = (char *)abicap_bin();
	json_t *d, *l;
	long long pid = 0, rec_tgid = 0;
	size_t i, n, ours = 0;
	bool others = false, recorder = false;
	struct run r;

	require_kernel();
	r = run_cmd((char *[]){ bin, "record", "-o", (char *)cap, "--",
				"build/pingpong", "0.5", NULL });
	cr_assert_eq(r.code, 0, "record: %s", r.err);
	cr_assert_eq(sscanf(r.out, "{\"pid\":%lld", &pid), 1, "%s", r.out);
	free(r.out);
	free(r.err);
	r = run_cmd((char *[]){ bin, "timechart", (char *)cap, "-o",
				(char *)html, NULL });
	cr_assert_eq(r.code, 0, "timechart: %s", r.err);
	free(r.out);
	free(r.err);
	d = page_data(html);
	n = json_array_size(json_object_get(d, "lanes"));
	/*
	 * the recorder: the process of the last lane named abicap (another
	 * abicap running meanwhile, another test's, is one of the others)
	 */
	json_array_foreach(json_object_get(d, "lanes"), i, l)
		if (!strcmp(json_string_value(json_object_get(l, "comm")),
			    "abicap") &&
		    json_integer_value(json_object_get(l, "tgid")) != pid)
			rec_tgid = json_integer_value(json_object_get(l, "tgid"));
	json_array_foreach(json_object_get(d, "lanes"), i, l) {
		long long tgid = json_integer_value(json_object_get(l, "tgid"));
		bool rec = rec_tgid && tgid == rec_tgid;

		if (tgid == pid) {
			cr_assert(!others && !recorder, "lane %zu of %zu, the "
				  "command's %s, after others' lanes", i, n,
				  json_string_value(json_object_get(l, "comm")));
			ours++;
		} else if (rec) {
			recorder = true;
		} else {
			cr_assert(!recorder, "lane %zu (%s) after the recorder's",
				  i, json_string_value(json_object_get(l, "comm")));
			others = true;
		}
	}
	/* pingpong's main thread, abc_ping and abc_pong */
	cr_assert_geq(ours, 3, "%zu lanes of the command's process", ours);
	json_decref(d);
}
