// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --since/--until, shared by report, export, script and timechart. */
#include <stdint.h>
#include "cmd/window_opts.h"
#include "lib/util.h"

const struct opt opts_window[] = {
	{ "since", OPT_SINCE, "TIME", "only what happens from TIME after the "
	  "capture's first record (a number and a unit: 1.5s, 200ms, 2us, "
	  "500ns)" },
	{ "until", OPT_UNTIL, "TIME", "only what happens up to TIME after the "
	  "capture's first record" },
	{ 0 },
};

int window_opt(int ch, const char *arg, struct timewin *w, bool *handled)
{
	uint64_t ns;

	*handled = ch == OPT_SINCE || ch == OPT_UNTIL;
	if (!*handled)
		return 0;
	if (!parse_duration_ns(arg, &ns)) {
		ab_error("--%s '%s': give a time after the capture's first "
			 "record with a unit, e.g. 1.5s, 200ms, 2us or 500ns",
			 ch == OPT_SINCE ? "since" : "until", arg);
		return EXIT_USAGE;
	}
	if (ch == OPT_SINCE)
		w->since = ns;
	else
		w->until = ns;
	return 0;
}

int window_check(const struct timewin *w)
{
	if (w->until < w->since) {
		ab_error("--until comes before --since: give a window that "
			 "ends after it starts");
		return EXIT_USAGE;
	}
	return 0;
}
