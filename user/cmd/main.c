// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap's command line: one do_<cmd>() per subcommand. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "abicap.h"
#include "capfile/capfile.h"
#include "cmd/commands.h"
#include "lib/json_errors.h"
#include "lib/util.h"

static void usage(FILE *f)
{
	fprintf(f, "Usage: abicap COMMAND [OPTIONS]\n"
		"Capture Linux scheduler and power events with eBPF.\n\n"
		"Commands:\n");
	for (const struct cmd *c = abicap_cmds; c->name; c++)
		fprintf(f, "  %-10s %s\n", c->name, c->what);
	fprintf(f, "\n'abicap COMMAND --help' describes a command.\n"
		"  -h, --help     show this help\n"
		"  -V, --version  show the version\n\n"
		"Exit codes: 0 ok; 1 the kernel cannot do it (no BTF, tracepoint "
		"missing, contract broken);\n2 bad usage or input; 3 missing privilege; "
		"4 runtime failure;\n5 (report, export) a damaged capture, read "
		"past its damaged parts.\n");
}

/*
 * Whether stdout is a pipe or socket whose reader went away (`| head`
 * has read enough): for those commands that ignore SIGPIPE (trace,
 * script) a clean end, which they report themselves. The kernel marks
 * such a pipe's write end POLLERR.
 */
static bool reader_gone(void)
{
	struct pollfd p = { .fd = STDOUT_FILENO, .events = POLLOUT };
	struct stat st;

	if (fstat(STDOUT_FILENO, &st) ||
	    !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

/*
 * What a command printed must have reached stdout, for every command in
 * one place: a write or flush that failed (a full disk, /dev/full) is exit
 * 4, never 0 or 5. A reader gone from a pipe is not a failure (trace and
 * script say what they wrote). A command that already failed at run time
 * said so itself.
 */
static int stdout_written(int ret)
{
	bool failed = ferror(stdout);
	int e = 0;

	if (fflush(stdout)) {
		failed = true;
		e = errno;
	}
	if (!failed || ret == EXIT_RUNTIME || e == EPIPE || reader_gone())
		return ret;
	ab_error("cannot write to standard output: %s (what it holds is "
		 "incomplete; write where there is space, or to a file)",
		 e ? strerror(e) : "a write failed");
	return ret == EXIT_OK || ret == EXIT_DAMAGED ? EXIT_RUNTIME : ret;
}

int main(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return stdout_written(EXIT_OK);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		/* what record writes: the file's format, and its records' */
		printf("abicap %s (capture file format %d, record layout %d)\n",
		       ABICAP_VERSION, CAPFILE_VERSION, ABICAP_RECORD_VERSION);
		return stdout_written(EXIT_OK);
	}
	c = cmd_find(abicap_cmds, argv[1]);
	if (c) {
		bool json = json_output_requested(argc - 1, argv + 1);
		int ret;

		if (json)
			json_errors_begin();
		ret = stdout_written(c->fn(argc - 1, argv + 1));
		if (json)
			json_errors_end(ret);
		return ret;
	}
	ab_error("unknown command '%s' (see abicap --help)", argv[1]);
	return EXIT_USAGE;
}
