/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Command-line options written once: each command lists its options in
 * tables (shared groups included, e.g. the capture options trace and
 * record both take), and the getopt_long tables and the option lines of
 * --help are both generated from them, so what a command accepts and what
 * it documents cannot differ (scripts/mkman.sh makes the man pages from
 * --help).
 */
#ifndef ABICAP_OPTIONS_H
#define ABICAP_OPTIONS_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The key of an option with no short letter (getopt_long's val). */
#define OPT_LONG(c) (256 + (c))

struct opt {
	const char *name; /* the long name, without "--" */
	int key;          /* the short letter, or OPT_LONG(c) */
	const char *arg;  /* the value's name in --help; NULL: takes none */
	const char *help; /* one paragraph, wrapped by cmd_help() */
};

/* Options any command may take. */
extern const struct opt opts_help[];    /* -h, --help */
extern const struct opt opts_verbose[]; /* -v, --verbose */

#define OPT_GROUPS_MAX 6
#define OPTS_MAX 32

struct cmd_spec {
	const char *name;     /* "trace", "contract snapshot" */
	const char *synopsis; /* the first lines of --help, up to the options */
	/* groups of options, in --help's order; each ends with { 0 } */
	const struct opt *groups[OPT_GROUPS_MAX];
	const char *epilog;   /* after the options */
	bool stop_at_operand; /* options end at the first operand (record CMD) */
};

/* getopt_long's tables for a command, generated from its spec. */
struct opt_parser {
	struct option longs[OPTS_MAX + 1];
	char shorts[3 * OPTS_MAX + 3];
};

/* Builds p for spec (getopt reset for a new parse: optind 0, opterr 0). */
void opt_parser_init(struct opt_parser *p, const struct cmd_spec *spec);
/* getopt_long over argv with p: the key, ':' (no value), '?' (unknown) or -1. */
int opt_next(struct opt_parser *p, int argc, char **argv);
/* The command's whole --help: synopsis, option lines, epilog. */
void cmd_help(const struct cmd_spec *spec, FILE *f);
/* The option with this key in spec, NULL if none. */
const struct opt *cmd_opt(const struct cmd_spec *spec, int key);
/*
 * A number of --name from min to max: 0 and *v set, or EXIT_USAGE
 * (reported: "--name 'arg': give a number from min to max").
 */
int opt_number(const char *name, const char *arg, long min, long max, long *v);
/* --by task|process: 0 and *by_process set, or EXIT_USAGE (reported). */
int opt_by_process(const char *arg, bool *by_process);
/* --pid: 0 and *pid set, or EXIT_USAGE (reported). */
int opt_pid(const char *arg, long *pid);
/* --format text|json: 0 and *json set, or -1 (reported: EXIT_USAGE). */
int opt_text_or_json(const char *arg, bool *json);
/* The error for opt_next's ':' and '?' into err: EXIT_USAGE. */
int opt_error_msg(const struct cmd_spec *spec, int argc, char **argv, int ch,
		  char *err, size_t errlen);
/* The same, reported on stderr. */
int opt_error(const struct cmd_spec *spec, int argc, char **argv, int ch);

#endif
