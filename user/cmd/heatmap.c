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
	{ "output", 'o', "OUT", "the page to write (created 0600; refused if "
	  "it exists, unless --force; never FILE itself, never through a "
	  "symbolic link)" },
	{ "force", OPT_LONG('F'), NULL, "replace OUT, once the new page is "
	  "complete" },
	{ "width", 'w', "PX", "pixels of the time axis (default 1200, 100 to "
	  "20000)" },
	{ "cell", OPT_LONG('W'), "PX", "pixels of a column (default 4, 1 to "
	  "100): the time axis has width / cell columns" },
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
"Usage: abicap heatmap FILE -o OUT.html [--width PX] [--cell PX] [--pid PID]\n"
"                         [--comm COMM] [--cgroup PATH] [--container NAME]\n"
"                         [--since TIME] [--until TIME] [--force]\n"
"Draw the run-queue latency of a capture file (abicap record) over time as\n"
"a heat map in one self-contained HTML page (no network): time across,\n"
"latency up in the report's log2 buckets of microseconds, each cell's\n"
"colour the number of waits (log scale) that ended then with that\n"
"latency. The waits are the report's (abicap report): each column's\n"
"counts summed over time are its histogram.\n",
	.groups = { heatmap_opts, opts_window, opts_help },
	.epilog =
"A task is in the cgroup it was last seen in. A cgroup or container the\n"
"capture does not name selects nothing (the page says so: 0 waits).\n"
"Exit: 0 ok, 2 bad usage, not a readable capture, an empty window or OUT\n"
"refused, 4 write failure, 5 the page drawn from a capture with damaged,\n"
"missing, doubled or out-of-place parts.\n",
};

int do_heatmap(int argc, char **argv)
{
	struct hm_args a = { .width = 1200, .cell_w = 4, .win = TIMEWIN_ALL };
	const char *out = NULL;
	struct opt_parser p;
	bool handled;
	long v;
	int ch, ret;

	opt_parser_init(&p, &heatmap_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		ret = window_opt(ch, optarg, &a.win, &handled);
		if (ret)
			return ret;
		if (handled)
			continue;
		switch (ch) {
		case 'o':
			out = optarg;
			break;
		case OPT_LONG('F'):
			a.force = true;
			break;
		case 'w':
			if (!parse_long(optarg, 100, 20000, &v)) {
				ab_error("--width '%s': give a number of pixels "
					 "from 100 to 20000", optarg);
				return EXIT_USAGE;
			}
			a.width = (uint32_t)v;
			break;
		case OPT_LONG('W'):
			if (!parse_long(optarg, 1, 100, &v)) {
				ab_error("--cell '%s': give a number of pixels "
					 "from 1 to 100", optarg);
				return EXIT_USAGE;
			}
			a.cell_w = (uint32_t)v;
			break;
		case 'p':
			if (!parse_long(optarg, 1, 0x7fffffff, &v)) {
				ab_error("--pid '%s' is not a process id", optarg);
				return EXIT_USAGE;
			}
			a.tgid = (int32_t)v;
			break;
		case 'c':
			a.comm = optarg;
			break;
		case OPT_LONG('g'):
			a.sel.cgroup = optarg;
			break;
		case OPT_LONG('k'):
			a.sel.container = optarg;
			break;
		case 'h':
			cmd_help(&heatmap_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&heatmap_spec, argc, argv, ch);
		}
	}
	if (argc - optind != 1 || !out) {
		ab_error("heatmap needs a capture file and -o OUT.html (see "
			 "abicap heatmap --help)");
		return EXIT_USAGE;
	}
	if (window_check(&a.win))
		return EXIT_USAGE;
	if (a.width / a.cell_w < 2) {
		ab_error("--width %u with --cell %u leaves fewer than 2 columns: "
			 "give a wider --width or a smaller --cell", a.width,
			 a.cell_w);
		return EXIT_USAGE;
	}
	return heatmap_write(argv[optind], out, &a);
}
