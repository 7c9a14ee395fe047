// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A capture read for its idle exits: the observer, the tables. */
#include <jansson.h>
#include <string.h>
#include "lib/util.h"
#include "view/capview.h"
#include "view/wakeups.h"
#include "view/wakeups_file.h"

/* The metadata lists the events captured: cpu_idle among them (unlisted: may be). */
static bool has_cpu_idle(const struct capmeta *m)
{
	return !m->events_given || (m->events & 1u << ABICAP_EV_CPU_IDLE);
}

int wakeups_report(const char *cap, const struct timewin *win, bool json,
		   size_t top, bool by_process)
{
	struct analysis_observer obs = { 0 };
	struct wakeups w = { 0 };
	struct capview v;
	int ret;

	ret = capview_open(&v, cap, win);
	if (ret)
		goto out;
	if (!has_cpu_idle(&v.cm)) {
		ab_error("'%s' has no cpu_idle events: record with -e including "
			 "cpu_idle and no task filter (power events belong to "
			 "no task)", cap);
		ret = EXIT_USAGE;
		goto out;
	}
	if (wk_init(&w, v.ncpus, v.from, v.to)) {
		ab_error("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	w.drops = capr_drops(v.r, &w.ndrops);
	obs.ctx = &w;
	obs.wakeup = wk_wakeup;
	obs.idle = wk_idle;
	ret = capview_run(&v, &obs, win, 0, NULL);
	if (ret && ret != EXIT_DAMAGED)
		goto out;
	wk_finish(&w);
	if (by_process && !w.oom)
		wk_by_process(&w, &v.a);
	if (w.oom) {
		ab_error("out of memory reading '%s'", cap);
		ret = EXIT_RUNTIME;
		goto out;
	}
	if (json) {
		json_t *o = wk_json(&w, &v.a);

		json_object_set_new(o, "file", json_string(cap));
		json_object_set_new(o, "integrity",
				    capinfo_json_integrity(&v.ci));
		json_object_set_new(o, "notice",
				    json_string(capview_notice(&v)));
		json_dumpf(o, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(o);
	} else {
		if (*capview_notice(&v))
			printf("INCOMPLETE: %s\n\n", v.notice);
		wk_text(stdout, &w, &v.a, top);
	}
out:
	wk_free(&w);
	capview_close(&v);
	return ret;
}
