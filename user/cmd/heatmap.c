// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap heatmap FILE -o OUT.html: run-queue latency over time. */
#include <getopt.h>
#include <stdio.h>
#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/window_opts.h"
#include "lib/util.h"
#include "view/heatmap_file.h"

static const struct opt heatmap_opts[] = {
	{ "width", 'w', "PX", "the page's width (default 1600, 100 to 20000): "
	  "the latency labels take 150 pixels and the time axis's last label "
	  "50, the cells the rest" },
	{ "height", OPT_LONG('H'), "PX", "the page's height (default 1000, 200 "
	  "to 20000): the rows grow to fill it (14 to 48 pixels each)" },
	{ "by", 'b', "WHAT", "name each cell's top tasks (default) or top "
	  "processes in its tooltip: a process's threads as one, named as "
	  "report --by process names it (\"hackbench:3340\")" },
	{ "cell", OPT_LONG('W'), "PX", "pixels of a column (default 4, 1 to "
	  "100): the cells have (width - 200) / cell columns" },
	{ "pid", 'p', "PID", "only the waits of this process's tasks (tgid)" },
	{ "comm", 'c', "COMM", "only the waits of tasks with this name" },
	{ "cgroup", OPT_LONG('g'), "PATH", "only the waits of tasks in this "
	  "cgroup v2 path or below it, as the capture names it "
	  "(/system.slice/x.service)" },
	{ "container", OPT_LONG('k'), "NAME", "only the waits of tasks in this "
	  "container, as abicap report --by container names it "
	  "(docker:9601db7daeea)" },
	{ 0 },
};

const struct cmd_spec heatmap_spec = {
	.name = "heatmap",
	.synopsis =
"Usage: abicap heatmap FILE -o OUT.html [--width PX] [--height PX] [--cell PX]\n"
"                         [--by task|process] [--pid PID]\n"
"                         [--comm COMM] [--cgroup PATH] [--container NAME]\n"
"                         [--since TIME] [--until TIME] [--force]\n"
"Draw the run-queue latency of a capture file (abicap record) over time as\n"
"a heat map in one self-contained HTML page (no network): time across,\n"
"latency up in the report's log2 buckets of microseconds, each cell's\n"
"colour the number of waits (log scale) that ended then with that\n"
"latency. The waits are the report's (abicap report): a row summed over\n"
"time is that row of its histogram.\n",
	.groups = { opts_page, heatmap_opts, opts_window, opts_help },
	.epilog =
"A task is in the cgroup it was last seen in. A cgroup or container the\n"
"capture does not name selects nothing (the page says so: 0 waits).\n"
"Exit: 0 ok, 2 bad usage, not a readable capture, an empty window or OUT\n"
"refused, 4 write failure, 5 the page drawn from a capture with damaged,\n"
"missing, doubled or out-of-place parts.\n",
};

int do_heatmap(int argc, char **argv)
{
	struct page_args pa = { .width = 1600, .win = TIMEWIN_ALL };
	struct hm_args a = { 0 };
	struct hm_select sel = { 0 };
	struct opt_parser p;
	bool handled;
	long cell = 4, height = 1000;
	bool by_process = false;
	int ch, ret;

	opt_parser_init(&p, &heatmap_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		ret = page_opt(ch, optarg, &pa, &handled);
		if (ret)
			return ret;
		if (handled)
			continue;
		switch (ch) {
		case OPT_LONG('W'):
			if (opt_number("cell", optarg, 1, 100, &cell))
				return EXIT_USAGE;
			break;
		case 'b':
			if (opt_by_process(optarg, &by_process))
				return EXIT_USAGE;
			break;
		case OPT_LONG('H'):
			if (opt_number("height", optarg, 200, 20000, &height))
				return EXIT_USAGE;
			break;
		case OPT_LONG('g'):
			sel.cgroup = optarg;
			break;
		case OPT_LONG('k'):
			sel.container = optarg;
			break;
		case 'h':
			cmd_help(&heatmap_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&heatmap_spec, argc, argv, ch);
		}
	}
	if (page_operands(argc, "heatmap", &pa))
		return EXIT_USAGE;
	a = (struct hm_args){ .width = (uint32_t)pa.width,
		.height = (uint32_t)height, .by_process = by_process,
		.cell_w = (uint32_t)cell, .win = pa.win,
		.tgid = (int32_t)pa.tgid, .comm = pa.comm, .sel = sel,
		.force = pa.force };
	return heatmap_write(argv[optind], pa.out, &a);
}
