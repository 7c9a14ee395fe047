// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap wakeups FILE: who wakes the CPUs (PowerTOP's question). */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/window_opts.h"
#include "lib/util.h"
#include "view/wakeups_file.h"

static const struct opt wakeups_opts[] = {
	{ "format", 'f', "FMT", "text (default) or json" },
	{ "top", 'n', "N", "rows of the causes table (default 20)" },
	{ "by", 'b', "WHAT", "the causes per task (default) or per process: a "
	  "process's threads as one, named as report --by process names it "
	  "(\"hackbench:3340\", its leader's name and its pid)" },
	{ 0 },
};

const struct cmd_spec wakeups_spec = {
	.name = "wakeups",
	.synopsis =
"Usage: abicap wakeups FILE [--format text|json] [--top N] [--by task|process]\n"
"                          [--since TIME] [--until TIME]\n"
"Who wakes the CPUs, as PowerTOP asks, from a capture file (abicap record)\n"
"with cpu_idle: each CPU's idle exits and exits per second, its idle\n"
"entries per state (as the kernel's cpuidle usage counters count them)\n"
"beside its idle-state and frequency residency; then what each exit let\n"
"run: the first task woken onto that CPU from its idle entry to the next,\n"
"and its waker, \"(interrupt)\" where the waker was interrupt context. An\n"
"exit that let no task run was an interrupt or timer handled in idle.\n",
	.groups = { wakeups_opts, opts_window, opts_help },
	.epilog =
"Exit: 0 ok, 2 bad usage, not a readable capture, an empty window or a\n"
"capture without cpu_idle, 5 a capture read with damaged, missing,\n"
"doubled or out-of-place parts.\n",
};

int do_wakeups(int argc, char **argv)
{
	struct timewin win = TIMEWIN_ALL;
	struct opt_parser p;
	bool json = false, handled, by_process = false;
	long top = 20;
	int ch, ret;

	opt_parser_init(&p, &wakeups_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		ret = window_opt(ch, optarg, &win, &handled);
		if (ret)
			return ret;
		if (handled)
			continue;
		switch (ch) {
		case 'f':
			if (opt_text_or_json(optarg, &json))
				return EXIT_USAGE;
			break;
		case 'n':
			if (opt_number("top", optarg, 1, 100000, &top))
				return EXIT_USAGE;
			break;
		case 'b':
			if (opt_by_process(optarg, &by_process))
				return EXIT_USAGE;
			break;
		case 'h':
			cmd_help(&wakeups_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&wakeups_spec, argc, argv, ch);
		}
	}
	if (window_operand(argc, "wakeups", &win))
		return EXIT_USAGE;
	return wakeups_report(argv[optind], &win, json, (size_t)top, by_process);
}
