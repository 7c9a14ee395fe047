// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What the subcommands share: the dispatch tables' lookup. */
#include <string.h>
#include "cmd/commands.h"

const struct cmd *cmd_find(const struct cmd *cmds, const char *name)
{
	for (const struct cmd *c = cmds; c->name; c++)
		if (!strcmp(c->name, name))
			return c;
	return NULL;
}
