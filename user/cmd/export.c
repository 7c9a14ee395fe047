// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap export FILE --perfetto OUT: a capture as a Perfetto trace. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include "capfile/perfetto_export.h"
#include "cmd/commands.h"
#include "lib/util.h"

const char export_usage[] =
"Usage: abicap export FILE --perfetto OUT.pftrace [--force]\n"
"Write a capture (abicap record) as a native Perfetto trace: ftrace event\n"
"bundles per CPU (sched_switch, sched_wakeup, sched_waking,\n"
"sched_wakeup_new, cpu_idle, cpu_frequency) and a process tree with the\n"
"thread names, for ui.perfetto.dev or trace_processor.\n"
"\n"
"  -P, --perfetto OUT   the trace to write (created 0600; refused if it\n"
"                       exists, unless --force; never FILE itself, never\n"
"                       through a symbolic link, nor in a directory another\n"
"                       user owns or may write)\n"
"      --force          replace OUT, once the new trace is complete (on\n"
"                       failure the old one stays as it was)\n"
"  -h, --help           show this help\n"
"A capture over 64 MiB (ABICAP_EXPORT_STREAM_MB) or over a million records\n"
"is read twice instead of held in memory: a bounded window of records (and\n"
"an entry per thread) whatever its size or content, half the speed.\n"
"A part of the capture damaged, missing, doubled or out of place is named\n"
"(with its byte offset) and left out; the trace holds the rest.\n"
"Exit: 0 ok, 2 bad usage, not a readable capture or OUT refused, 4 write\n"
"failure, 5 the trace written from a capture with damaged, missing,\n"
"doubled or out-of-place parts.\n";

int do_export(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "perfetto", required_argument, NULL, 'P' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *outp = NULL;
	bool force = false;
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":P:h", opts, NULL)) != -1) {
		if (ch == 'P') {
			outp = optarg;
		} else if (ch == 'F') {
			force = true;
		} else if (ch == 'h') {
			fputs(export_usage, stdout);
			return EXIT_OK;
		} else {
			return usage_error(argc, argv, ch, "export");
		}
	}
	if (argc - optind != 1 || !outp) {
		ab_error("export needs a capture file and --perfetto OUT (see "
			 "abicap export --help)");
		return EXIT_USAGE;
	}
	return export_perfetto(argv[optind], outp, force);
}
