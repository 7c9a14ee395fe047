// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture into its timechart page: read with the observer, drawn, committed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "lib/cpulist.h"
#include "lib/util.h"
#include "view/capview.h"
#include "lib/outfile.h"
#include "view/pagefile.h"
#include "view/timechart_file.h"
#include "view/timechart_html.h"

struct page_ctx {
	const struct timechart *tc;
	const struct tc_page *pg;
};

static int write_page(void *ctx, FILE *f)
{
	const struct page_ctx *p = ctx;

	return tc_write_html(p->tc, p->pg, f);
}

static int cpu_set(const struct tc_args *a, int ncpus, uint8_t **set)
{
	char err[ERRMSG_LEN];

	*set = NULL;
	if (!a->cpulist)
		return 0;
	*set = calloc((size_t)ncpus, 1);
	if (!*set) {
		ab_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (!parse_cpulist(a->cpulist, *set, ncpus, err, sizeof(err))) {
		ab_error("-C '%s': give CPUs of the capture (0-%d), e.g. 0,2-3",
			 a->cpulist, ncpus - 1);
		return EXIT_USAGE;
	}
	return 0;
}

int timechart_write(const char *cap, const char *out, const struct tc_args *a)
{
	struct analysis_observer obs;
	struct timechart *tc = NULL;
	struct tc_page pg = { .title = cap, .tgid = a->tgid, .comm = a->comm };
	struct pixscale sc = { 0 };
	struct capview v;
	uint8_t *cpus = NULL;
	struct page_ctx pc;
	struct outfile of;
	bool written = false;
	int ret, c;

	ret = page_open(&of, out, cap, a->force);
	if (ret)
		return ret;
	ret = capview_open(&v, cap, &a->win);
	if (ret)
		goto out;
	ret = cpu_set(a, v.ncpus, &cpus);
	if (ret)
		goto out;
	pg.cpus = cpus;
	pg.task_filtered = v.ci.task_filtered;
	pg.since_ns = v.from - v.first;
	sc.t0 = v.from;
	sc.px_ns = (v.to - v.from + a->width - 1) / a->width;
	if (!sc.px_ns)
		sc.px_ns = 1;
	sc.width = (uint32_t)((v.to - v.from + sc.px_ns) / sc.px_ns);
	tc = tc_new(&sc, v.ncpus);
	if (!tc) {
		ab_error("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	tc_observer(tc, &obs);
	ret = capview_run(&v, &obs, &a->win, 0, NULL);
	if (ret && ret != EXIT_DAMAGED)
		goto out;
	tc_finish(tc);
	if (tc->oom) {
		ab_error("out of memory drawing '%s'", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	pc = (struct page_ctx){ tc, &pg };
	c = page_write(&of, out, write_page, &pc);
	written = true;
	if (c) {
		ret = c;
		goto out;
	}
	ab_note("wrote %s: %d CPUs and %zu tasks in %u pixels of %.3f us",
		out, tc->ncpus, tc->nlanes, sc.width, (double)sc.px_ns / 1e3);
out:
	if (!written)
		page_abort(&of);
	tc_free(tc);
	free(cpus);
	capview_close(&v);
	return ret;
}
