/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* Subcommands (one do_<cmd>() each) and what they share. */
#ifndef ABICAP_COMMANDS_H
#define ABICAP_COMMANDS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

int do_trace(int argc, char **argv);
int do_record(int argc, char **argv);
int do_report(int argc, char **argv);
int do_export(int argc, char **argv);
int do_check(int argc, char **argv);
int do_diff(int argc, char **argv);
int do_contract(int argc, char **argv);
int do_serve(int argc, char **argv);

/* Each command's options and --help (options.h), as man pages read them. */
struct cmd_spec;
extern const struct cmd_spec trace_spec, record_spec, report_spec, export_spec,
	check_spec, diff_spec, serve_spec, contract_spec;

/* A (sub)command in a dispatch table, which ends with { 0 }. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what; /* one line for the command list */
};

/* The entry called name, NULL if none. */
const struct cmd *cmd_find(const struct cmd *cmds, const char *name);

#endif
