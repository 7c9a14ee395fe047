// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What the subcommands share: usage errors. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/commands.h"
#include "lib/util.h"

int usage_error(int argc, char **argv, int ch, const char *cmd)
{
	const char *opt = optind - 1 < argc ? argv[optind - 1] : "?";

	if (ch == ':')
		ab_error("option '%s' needs a value (see abicap %s --help)", opt,
			 cmd);
	else
		ab_error("unknown option '%s' (see abicap %s --help)", opt, cmd);
	return EXIT_USAGE;
}
