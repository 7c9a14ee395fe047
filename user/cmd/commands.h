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
int do_script(int argc, char **argv);
int do_timechart(int argc, char **argv);
int do_heatmap(int argc, char **argv);
int do_wakeups(int argc, char **argv);

/* Each command's options and --help (options.h), as man pages read them. */
struct cmd_spec;
extern const struct cmd_spec trace_spec, record_spec, report_spec, export_spec,
	check_spec, diff_spec, serve_spec, contract_spec, script_spec,
	timechart_spec, heatmap_spec, wakeups_spec;

/* A (sub)command in a dispatch table, which ends with { 0 }. */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *what; /* one line for the command list */
	const struct cmd_spec *spec; /* its options; NULL: a subcommand's own */
};

/* abicap's commands (cmd/table.c), ending with { 0 }. */
extern const struct cmd abicap_cmds[];

/* The entry called name, NULL if none. */
const struct cmd *cmd_find(const struct cmd *cmds, const char *name);

/*
 * The budget of work for one input (README "Bounded work for any input"),
 * stated in the --help of every command that reads kernel images or BPF
 * objects (abi/btf_source.c, abi/core_relo.h, abi/objcheck.h hold it).
 */
#define HELP_BUDGET_KERNEL \
"Budget: each kernel file is read within one budget, whatever its shape: at\n" \
"most 1 GiB decompressed in all, each stream at most 32 times its size and\n" \
"1 MiB, 64 decompressions, 3 layers deep, 256 MiB of BTF parsed (Debian's\n" \
"amd64 vmlinuz takes one, of about 60 MB): under 10 s of CPU and 1.6 GB of\n" \
"memory. A file past it is refused (exit 2).\n"
#define HELP_BUDGET_OBJECT \
"An object: at most 16384 CO-RE relocations, 8192 programs and subprograms,\n" \
"and 16777216 instructions of branch analysis per kernel (abicap's own\n" \
"object: 509, 23 and 103606). An object past it is refused (exit 2).\n"

#endif
