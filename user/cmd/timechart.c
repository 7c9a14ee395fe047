// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap timechart FILE -o OUT.html: the picture perf timechart draws, from a capture. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/window_opts.h"
#include "lib/util.h"
#include "view/timechart_file.h"

#define OPT_MAX_LANES OPT_LONG('L')
#define TC_MAX_LANES_DEFAULT 5000
#define TC_MAX_LANES_MAX 100000

static const struct opt timechart_opts[] = {
	{ "width", 'w', "PX", "the page's width (default 1600, 330 to 20000): "
	  "the lane labels take 180 pixels and the time axis's last label "
	  "50, the time axis the rest; what is shorter than a pixel is "
	  "merged" },
	{ "pid", 'p', "PID", "only the task lanes of this process (tgid)" },
	{ "comm", 'c', "COMM", "only the task lanes of tasks with this name" },
	{ "cpu", 'C', "CPULIST", "only these CPUs' lanes, e.g. 0,2-3" },
	{ "max-lanes", OPT_MAX_LANES, "N", "task lanes at most (default "
	  "5000, 1 to 100000, 0: no limit): past it the tasks with the most "
	  "time on a CPU get them, and the legend counts the rest and their "
	  "time" },
	{ 0 },
};

const struct cmd_spec timechart_spec = {
	.name = "timechart",
	.synopsis =
"Usage: abicap timechart FILE -o OUT.html [--width PX] [--pid PID]\n"
"                         [--comm COMM] [-C CPULIST] [--max-lanes N]\n"
"                         [--since TIME] [--until TIME] [--force]\n"
"Draw a capture file (abicap record) as perf timechart does, in one\n"
"self-contained HTML page (no network): a lane per CPU (busy; idle,\n"
"shaded by idle-state depth; unknown; records lost; its frequency in a\n"
"thin row under it) and per task (running; waiting for a CPU; sleeping,\n"
"S, or I, an idle kernel thread; blocked, D; off CPU in another state;\n"
"unknown), with wakeup arrows from the waker's lane (or the CPU, for a\n"
"wakeup from an interrupt) to the wakee's. A task's lane is named by its\n"
"last name (the one --comm chooses by, as in report), and by the one\n"
"before an exec in its tooltip. The page zooms (the wheel, or a drag\n"
"across it; a double-click resets) down to 100 ns pixels, drawn from a\n"
"finer layer of the same rows (at most 16 MB of the page).\n",
	.groups = { opts_page, timechart_opts, opts_window, opts_help },
	.epilog =
"The states are the report's (abicap report): the same analysis closes\n"
"every interval. Whatever is shorter than a pixel is merged: a pixel that\n"
"holds more than one state shows one of them, the one owed the most time\n"
"(each state's time in such pixels is carried to the next), so that a\n"
"state's pixels times the pixel's length stay within a stated difference\n"
"(in the legend and each lane's tooltip, under 2 pixels as measured) of\n"
"the report's time. One wakeup arrow is drawn per wakee and pixel; the\n"
"others are counted. A task seen only in wakeups gets no lane (counted).\n"
"Past --max-lanes the capture is read twice: once to rank the tasks,\n"
"once to draw the chosen (the page stays a size a browser draws; each\n"
"task left out costs about 100 bytes of memory, not a lane's 1 KB).\n"
"Exit: 0 ok, 2 bad usage, not a readable capture, an empty window or OUT\n"
"refused, 4 write failure, 5 the page drawn from a capture with damaged,\n"
"missing, doubled or out-of-place parts.\n",
};

int do_timechart(int argc, char **argv)
{
	struct page_args pa = { .width = 1600, .win = TIMEWIN_ALL };
	struct tc_args a = { 0 };
	const char *cpulist = NULL;
	long max_lanes = TC_MAX_LANES_DEFAULT;
	struct opt_parser p;
	bool handled;
	int ch, ret;

	opt_parser_init(&p, &timechart_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		ret = page_opt(ch, optarg, &pa, &handled);
		if (ret)
			return ret;
		if (handled)
			continue;
		switch (ch) {
		case 'C':
			cpulist = optarg;
			break;
		case OPT_MAX_LANES:
			ret = opt_number("max-lanes", optarg, 0,
					 TC_MAX_LANES_MAX, &max_lanes);
			if (ret)
				return ret;
			break;
		case 'h':
			cmd_help(&timechart_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&timechart_spec, argc, argv, ch);
		}
	}
	if (page_operands(argc, "timechart", &pa))
		return EXIT_USAGE;
	a = (struct tc_args){ .width = (uint32_t)pa.width, .win = pa.win,
		.tgid = (int32_t)pa.tgid, .comm = pa.comm, .cpulist = cpulist,
		.force = pa.force, .max_lanes = (size_t)max_lanes };
	return timechart_write(argv[optind], pa.out, &a);
}
