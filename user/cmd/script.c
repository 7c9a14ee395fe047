// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap script FILE: a capture's events as text or JSON lines. */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "cmd/commands.h"
#include "cmd/options.h"
#include "cmd/window_opts.h"
#include "event/events.h"
#include "lib/util.h"
#include "view/script.h"

#define POWER_EVENTS ((1u << ABICAP_EV_CPU_IDLE) | (1u << ABICAP_EV_CPU_FREQUENCY))

static const struct opt script_opts[] = {
	{ "format", 'f', "FMT", "text (default, as trace prints) or json "
	  "(one object a line)" },
	{ "events", 'e', "LIST", "comma-separated events (default: all): "
	  "sched_switch, sched_wakeup, sched_wakeup_new, sched_waking, "
	  "cpu_idle, cpu_frequency" },
	{ "pid", 'p', "PID", "only sched events with a task of this process "
	  "(tgid) on either side (prev or next, wakee or waker); power events "
	  "are left out" },
	{ "comm", 'c', "COMM", "only sched events with a task of this name "
	  "(prev or next, or the wakee); power events are left out" },
	{ "cpu", 'C', "CPULIST", "only events on these CPUs, e.g. 0,2-3" },
	{ 0 },
};

const struct cmd_spec script_spec = {
	.name = "script",
	.synopsis =
"Usage: abicap script FILE [--format text|json] [-e LIST] [--pid PID]\n"
"                         [--comm COMM] [-C CPULIST] [--since TIME]\n"
"                         [--until TIME]\n"
"Print the events of a capture file (abicap record) in time order, one a\n"
"line, as abicap trace prints them live: text with milliseconds from the\n"
"capture's first record, or JSON lines with the raw CLOCK_MONOTONIC\n"
"timestamps. Cgroups are named as the capture names them.\n",
	.groups = { script_opts, opts_window, opts_help },
	.epilog =
"The records stream in one bounded window whatever the file's size. A file\n"
"cut short is printed up to its last complete chunk, and says so; a part\n"
"damaged, missing, doubled or out of place is named (with its byte offset)\n"
"and left out.\n"
"Exit: 0 ok (also when the reader closes the pipe), 2 bad usage or a file\n"
"that is not a readable capture, 4 a write failure, 5 a capture read with\n"
"damaged, missing, doubled or out-of-place parts.\n",
};

int do_script(int argc, char **argv)
{
	struct script_opts o = { .fmt = FMT_TEXT, .win = TIMEWIN_ALL };
	char err[ERRMSG_LEN];
	unsigned long long written;
	bool json = false, events_given = false, handled;
	struct opt_parser p;
	long pid;
	int ch, ret;

	o.filter.events = EVENTS_ALL;
	opt_parser_init(&p, &script_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		ret = window_opt(ch, optarg, &o.win, &handled);
		if (ret)
			return ret;
		if (handled)
			continue;
		switch (ch) {
		case 'f':
			if (opt_text_or_json(optarg, &json))
				return EXIT_USAGE;
			o.fmt = json ? FMT_JSON : FMT_TEXT;
			break;
		case 'e':
			if (!parse_event_list(optarg, &o.filter.events, err,
					      sizeof(err))) {
				ab_error("%s", err);
				return EXIT_USAGE;
			}
			events_given = true;
			break;
		case 'p':
			if (opt_pid(optarg, &pid))
				return EXIT_USAGE;
			o.filter.tgid = (int32_t)pid;
			break;
		case 'c':
			if (strlen(optarg) >= sizeof(o.filter.comm)) {
				ab_error("--comm '%s' is longer than a task name "
					 "(%d bytes at most)", optarg,
					 ABICAP_COMM_LEN - 1);
				return EXIT_USAGE;
			}
			strcpy(o.filter.comm, optarg);
			break;
		case 'C':
			o.cpulist = optarg;
			break;
		case 'h':
			cmd_help(&script_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&script_spec, argc, argv, ch);
		}
	}
	if (window_operand(argc, "script", &o.win))
		return EXIT_USAGE;
	if ((o.filter.tgid || o.filter.comm[0]) && events_given &&
	    (o.filter.events & POWER_EVENTS)) {
		ab_error("power events (cpu_idle, cpu_frequency) belong to no "
			 "task: leave them out of --events, or drop --pid/--comm");
		return EXIT_USAGE;
	}
	signal(SIGPIPE, SIG_IGN); /* a reader gone (| head) is EPIPE: exit 0 */
	return script_capture(argv[optind], &o, stdout, &written);
}
