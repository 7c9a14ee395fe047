// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture into its timechart page: read with the observer, drawn, committed. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capfile/capwarn.h"
#include "report/report_read.h"
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

/* The scale of v's window at width pixels. */
static struct pixscale scale_of(const struct capview *v, uint32_t width)
{
	struct pixscale sc = { .t0 = v->from, .width = width };

	/*
	 * exactly width pixels, the last record inside the last one: no sum
	 * here can overflow, whatever the span (up to 2^64 - 1 ns)
	 */
	sc.px_ns = (v->to - v->from) / width + 1;
	return sc;
}

/* v (open) read into a new *tcp under rule: an EXIT_* code (EXIT_DAMAGED: drawn). */
static int read_chart(struct capview *v, const struct tc_args *a,
		      const struct tc_lanes_rule *rule, struct timechart **tcp)
{
	struct pixscale sc = scale_of(v, tc_axis_px(a->width));
	struct analysis_observer obs;
	int ret;

	*tcp = tc_new(&sc, v->ncpus, rule);
	if (!*tcp) {
		ab_error("out of memory");
		return EXIT_RUNTIME;
	}
	tc_observer(*tcp, &obs);
	ret = capview_run(v, &obs, &a->win, 0, NULL);
	if (ret && ret != EXIT_DAMAGED)
		return ret;
	tc_finish(*tcp);
	if ((*tcp)->oom) {
		ab_error("out of memory drawing '%s'", v->path);
		return EXIT_RUNTIME;
	}
	return ret;
}

/*
 * The tasks the page shows into ch (its counts for the legend); more than
 * --max-lanes (or lanes the filters took from tasks they show): read again,
 * quietly (the first read said its warnings), with lanes for the chosen
 * tasks only.
 */
static int read_chosen(struct capview *v, const char *cap,
		       const struct tc_args *a, struct timechart **tcp,
		       struct tc_choice *ch)
{
	struct tc_lanes_rule rule = { .tgid = a->tgid };
	int ret;

	if (tc_choose(*tcp, a->tgid, a->comm, a->max_lanes, ch)) {
		ab_error("out of memory");
		return EXIT_RUNTIME;
	}
	if (ch->all_have_lanes)
		return 0;
	if (ch->left_out)
		ab_warn("'%s' shows %zu tasks, past --max-lanes %zu: the %zu with "
			"the most time on a CPU have lanes, %zu more do not (the "
			"page's legend counts them and their time)", cap,
			ch->shown, a->max_lanes, ch->nchosen, ch->left_out);
	rule.only = ch->chosen;
	rule.nonly = ch->nchosen;
	tc_free(*tcp);
	*tcp = NULL;
	capview_close(v);
	ab_quiet(true);
	ret = capview_open(v, cap, &a->win);
	if (!ret)
		ret = read_chart(v, a, &rule, tcp);
	ab_quiet(false);
	free(ch->chosen);
	ch->chosen = NULL;
	return ret;
}

/*
 * Each lane's rank (struct tc_lane): a record -- CMD chart starts with
 * CMD's tasks, and the recorder's own come last (issue 33). A task the
 * analysis no longer holds (its tid taken again since) ranks with a
 * followed thread of its process.
 */
static void rank_lanes(struct timechart *tc, const struct analysis *a)
{
	struct hashtab followed = { 0 }; /* tgids of followed tasks */

	for (size_t i = 0; i < tc->nlanes; i++) {
		struct tc_lane *l = &tc->lanes[i];
		const struct task *t = analysis_find(a, l->id.tid);

		if (a->recorder_tgid && l->id.tgid == a->recorder_tgid)
			l->rank = 2;
		else if (!a->task_filtered || (t && t->start_ns == l->id.start_ns &&
					       t->followed == FOLLOW_YES))
			l->rank = 0;
		else
			l->rank = 1;
		/* no memory: that process's other threads keep rank 1 */
		if (!l->rank)
			(void)hashtab_put(&followed, (uint64_t)l->id.tgid, 1);
	}
	for (size_t i = 0; i < tc->nlanes; i++)
		if (tc->lanes[i].rank == 1 &&
		    hashtab_get(&followed, (uint64_t)tc->lanes[i].id.tgid))
			tc->lanes[i].rank = 0;
	hashtab_free(&followed);
}

int timechart_write(const char *cap, const char *out, const struct tc_args *a)
{
	struct timechart *tc = NULL;
	struct tc_page pg = { .title = cap, .tgid = a->tgid, .comm = a->comm,
			      .max_lanes = a->max_lanes };
	struct tc_lanes_rule rule = { .max = a->max_lanes, .tgid = a->tgid };
	struct tc_choice ch = { 0 };
	struct capview v;
	uint8_t *cpus = NULL;
	struct page_ctx pc;
	struct outfile of;
	bool written = false;
	int ret, c, damaged;

	if (!tc_axis_px(a->width)) {
		ab_error("a page %u pixels wide has no room for a time axis "
			 "beside the labels: give --width %d or more", a->width,
			 TC_LABEL_W + TC_RIGHT_W + TC_AXIS_MIN);
		return EXIT_USAGE;
	}
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
	ret = read_chart(&v, a, &rule, &tc);
	if (ret && ret != EXIT_DAMAGED)
		goto out;
	if (report_no_task(&v.a, cap, a->tgid, a->comm)) {
		ret = EXIT_USAGE;
		goto out;
	}
	damaged = ret;
	ret = read_chosen(&v, cap, a, &tc, &ch);
	if (ret && ret != EXIT_DAMAGED)
		goto out;
	ret = damaged;
	rank_lanes(tc, &v.a);
	pg.choice = &ch;
	pg.notice = capview_notice(&v);
	pc = (struct page_ctx){ tc, &pg };
	c = page_write(&of, out, write_page, &pc);
	written = true;
	if (c) {
		ret = c;
		goto out;
	}
	ab_note("wrote %s: %d CPUs and %zu tasks in %u pixels of %.3f us",
		out, tc->ncpus, tc->nlanes, tc->sc.width,
		(double)tc->sc.px_ns / 1e3);
out:
	if (!written)
		page_abort(&of);
	tc_free(tc);
	free(cpus);
	capview_close(&v);
	return ret;
}
