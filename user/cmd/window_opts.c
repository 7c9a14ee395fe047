// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* --since/--until, shared by report, export, script and timechart. */
#include <getopt.h>
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

const struct opt opts_page[] = {
	{ "output", 'o', "OUT", "the page to write (created 0600; refused if "
	  "it exists, unless --force; never FILE itself, never through a "
	  "symbolic link)" },
	{ "force", OPT_FORCE, NULL, "replace OUT, once the new page is "
	  "complete" },
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

void window_text(FILE *f, const struct timewin *w, uint64_t span)
{
	fprintf(f, "window: from %.3f ms", (double)w->since / 1e6);
	if (w->until != UINT64_MAX)
		fprintf(f, " to %.3f ms", (double)w->until / 1e6);
	fprintf(f, " after the capture's first record (--since/--until): "
		"the figures count only what lies in it");
	if (w->until != UINT64_MAX && w->until > span)
		fprintf(f, "; CUT SHORT: the capture ends at %.3f ms, so it "
			"covers %.3f to %.3f ms", (double)span / 1e6,
			(double)(w->since < span ? w->since : span) / 1e6,
			(double)span / 1e6);
	fputc('\n', f);
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

int window_operand(int argc, const char *cmd, const struct timewin *w)
{
	if (argc - optind != 1) {
		ab_error("%s needs one capture file (see abicap %s --help)", cmd,
			 cmd);
		return EXIT_USAGE;
	}
	return window_check(w);
}

int page_opt(int ch, const char *arg, struct page_args *a, bool *handled)
{
	int ret = window_opt(ch, arg, &a->win, handled);

	if (ret || *handled)
		return ret;
	*handled = true;
	switch (ch) {
	case 'o':
		a->out = arg;
		return 0;
	case OPT_FORCE:
		a->force = true;
		return 0;
	case 'w':
		return opt_number("width", arg, 100, 20000, &a->width);
	case 'p':
		return opt_pid(arg, &a->tgid);
	case 'c':
		a->comm = arg;
		return 0;
	}
	*handled = false;
	return 0;
}

int page_operands(int argc, const char *cmd, const struct page_args *a)
{
	if (argc - optind != 1 || !a->out) {
		ab_error("%s needs a capture file and -o OUT.html (see abicap "
			 "%s --help)", cmd, cmd);
		return EXIT_USAGE;
	}
	return window_check(&a->win);
}
