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

extern const char check_usage[];
extern const char record_usage[];
extern const char report_usage[];
extern const char export_usage[];
extern const char diff_usage[];
extern const char contract_usage[];
extern const char serve_usage[];

/* The error for getopt's ':' (missing value) and '?' (unknown option): EXIT_USAGE. */
int usage_error(int argc, char **argv, int ch, const char *cmd);

#endif
