// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap export FILE --perfetto OUT: a capture as a Perfetto trace. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include "report/perfetto_export.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/window_opts.h"
#include "lib/util.h"

static const struct opt export_own[] = {
	{ "perfetto", 'P', "OUT",
	  "the trace to write (created 0600; refused if it exists, unless "
	  "--force; never FILE itself, never through a symbolic link, nor "
	  "in a directory another user owns or may write; under sudo, in a "
	  "directory of the user who ran sudo, it is given to that user)" },
	{ "force", OPT_LONG('F'), NULL,
	  "replace OUT, once the new trace is complete (on failure the old "
	  "one stays as it was)" },
	{ 0 },
};

const struct cmd_spec export_spec = {
	.name = "export",
	.synopsis =
"Usage: abicap export FILE --perfetto OUT.pftrace [--force] [--since TIME]\n"
"                         [--until TIME]\n"
"Write a capture (abicap record) as a native Perfetto trace: ftrace event\n"
"bundles per CPU (sched_switch, sched_wakeup, sched_waking,\n"
"sched_wakeup_new, cpu_idle, cpu_frequency) and a process tree with the\n"
"thread names, for ui.perfetto.dev or trace_processor.\n",
	.groups = { export_own, opts_window, opts_help },
	.epilog =
"A capture over 64 MiB (ABICAP_EXPORT_STREAM_MB) or over a million records\n"
"is read twice instead of held in memory: a bounded window of records (and\n"
"an entry per thread) whatever its size or content, half the speed.\n"
"The trace is at most 128 times the capture's size and 64 MiB (a real\n"
"one is 5-25 times; ABICAP_EXPORT_MAX_MB sets it): past that the export\n"
"stops, keeps nothing and exits 2.\n"
"A part of the capture damaged, missing, doubled or out of place is named\n"
"(with its byte offset) and left out; the trace holds the rest.\n"
"Exit: 0 ok, 2 bad usage, not a readable capture, past the bound or OUT\n"
"refused, 4 write failure, 5 the trace written from a capture with\n"
"damaged, missing, doubled or out-of-place parts.\n",
};

int do_export(int argc, char **argv)
{
	struct opt_parser p;
	struct timewin win = TIMEWIN_ALL;
	const char *outp = NULL;
	bool force = false, handled;
	int ch, ret;

	opt_parser_init(&p, &export_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		ret = window_opt(ch, optarg, &win, &handled);
		if (ret)
			return ret;
		if (handled)
			continue;
		if (ch == 'P') {
			outp = optarg;
		} else if (ch == OPT_LONG('F')) {
			force = true;
		} else if (ch == 'h') {
			cmd_help(&export_spec, stdout);
			return EXIT_OK;
		} else {
			return opt_error(&export_spec, argc, argv, ch);
		}
	}
	if (argc - optind != 1 || !outp) {
		ab_error("export needs a capture file and --perfetto OUT (see "
			 "abicap export --help)");
		return EXIT_USAGE;
	}
	if (window_check(&win))
		return EXIT_USAGE;
	return export_perfetto_window(argv[optind], outp, force, &win);
}
