// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture into its run-queue latency heat map page. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "report/report_read.h"
#include "lib/util.h"
#include "view/capview.h"
#include "view/heatmap_file.h"
#include "view/heatmap_html.h"
#include "lib/outfile.h"
#include "view/pagefile.h"

static int write_page(void *ctx, FILE *f)
{
	return hm_write_html(ctx, f);
}

/* What the selection is, in words, into buf. */
static const char *what_of(const struct hm_args *a, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s", "the tasks");

	if (a->tgid)
		n += snprintf(buf + n, len - (size_t)n, " of process %d", a->tgid);
	if (a->comm)
		n += snprintf(buf + n, len - (size_t)n, " named %s", a->comm);
	if (a->sel.cgroup)
		n += snprintf(buf + n, len - (size_t)n, " in cgroup %s",
			      a->sel.cgroup);
	if (a->sel.container)
		snprintf(buf + n, len - (size_t)n, " in container %s",
			 a->sel.container);
	if (!a->tgid && !a->comm && !a->sel.cgroup && !a->sel.container)
		snprintf(buf, len, "every task");
	return buf;
}

int heatmap_write(const char *cap, const char *out, const struct hm_args *a)
{
	struct analysis_observer obs = { 0 };
	struct heatmap h = { 0 };
	struct cgnames *names = NULL;
	struct hm_page pg = { .title = cap };
	uint32_t *cells = NULL;
	struct hm_top *top = NULL;
	struct leaders procs = { 0 };
	struct capview v;
	char what[512];
	uint64_t span;
	struct outfile of;
	bool written = false;
	int ret, c;

	if (!hm_columns(a->width, a->cell_w)) {
		ab_error("a page %u pixels wide leaves fewer than 2 columns of %u "
			 "beside the labels: give a wider --width or a smaller "
			 "--cell", a->width, a->cell_w);
		return EXIT_USAGE;
	}
	ret = page_open(&of, out, cap, a->force);
	if (ret)
		return ret;
	ret = capview_open(&v, cap, &a->win);
	if (ret)
		goto out;
	span = v.to - v.from;
	pg.cell_w = a->cell_w;
	pg.width = a->width;
	pg.height = a->height;
	pg.cols = hm_columns(a->width, a->cell_w);
	pg.col_ns = span / pg.cols + 1; /* the last record inside the last column */
	pg.since_ns = v.from - v.first;
	hm_init(&h, v.from, pg.col_ns, pg.cols, &v.a,
		a->sel.cgroup || a->sel.container);
	h.by_process = a->by_process;
	obs.ctx = &h;
	obs.wait = hm_wait;
	ret = capview_run(&v, &obs, &a->win, a->tgid, a->comm);
	if (ret && ret != EXIT_DAMAGED)
		goto out;
	names = capture_cgnames(v.r, a->sel.cgroup || a->sel.container,
				&v.cg_used, &v.ct);
	cells = calloc((size_t)pg.cols * HM_ROWS, sizeof(*cells));
	if (h.oom || !names || !cells) {
		ab_error("out of memory drawing '%s'", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	c = hm_sum(&h, &a->sel, names, cells, &pg.waits);
	if (c == -EOVERFLOW) {
		ab_error("'%s': a cell of the heat map would hold 2^32 waits or "
			 "more: draw a shorter --since/--until window or more "
			 "columns (--width, --cell)", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (c) {
		ab_error("out of memory drawing '%s'", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	top = calloc((size_t)pg.cols * HM_ROWS, sizeof(*top));
	if (!top || hm_top_tasks(&h, &a->sel, names, top)) {
		ab_error("out of memory drawing '%s'", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	pg.cells = cells;
	pg.top = top;
	pg.h = &h;
	if (a->by_process && leaders_find(&procs, &v.a)) {
		ab_error("out of memory drawing '%s'", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	pg.procs = a->by_process ? &procs : NULL;
	pg.tasks_partial = h.tasks_partial;
	pg.notice = capview_notice(&v);
	pg.what = what_of(a, what, sizeof(what));
	if (!pg.waits)
		ab_warn("'%s': no run-queue wait of %s was measured: the heat "
			"map is empty", cap, pg.what);
	c = page_write(&of, out, write_page, &pg);
	written = true;
	if (c) {
		ret = c;
		goto out;
	}
	ab_note("wrote %s: %llu waits in %u columns of %.3f ms", out,
		(unsigned long long)pg.waits, pg.cols, (double)pg.col_ns / 1e6);
out:
	if (!written)
		page_abort(&of);
	hm_free(&h);
	free(cells);
	free(top);
	leaders_free(&procs);
	cgnames_free(names);
	capview_close(&v);
	return ret;
}
