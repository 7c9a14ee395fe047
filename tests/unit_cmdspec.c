// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
/*
 * Every command's option table (cmd/options.h): what getopt accepts and
 * what --help documents come from it, so each option must be complete,
 * unique, accepted under both its names and shown in --help.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/commands.h"
#include "cmd/options.h"

/* every command's table, from the command table main() dispatches by */
static const struct cmd_spec *specs[32];
static size_t NSPECS;

static void specs_init(void)
{
	for (const struct cmd *c = abicap_cmds; c->name; c++) {
		cr_assert_not_null(c->spec, "%s has no option table", c->name);
		cr_assert_str_eq(c->spec->name, c->name);
		cr_assert_lt(NSPECS, sizeof(specs) / sizeof(specs[0]));
		specs[NSPECS++] = c->spec;
	}
	cr_assert_geq(NSPECS, 12, "only %zu commands in the table", NSPECS);
}

TestSuite(cmdspec, .init = specs_init);

static char *help_of(const struct cmd_spec *s)
{
	char *text = NULL;
	size_t len;
	FILE *f = open_memstream(&text, &len);

	cr_assert_not_null(f);
	cmd_help(s, f);
	fclose(f);
	return text;
}

Test(cmdspec, every_option_is_complete_and_unique)
{
	for (size_t i = 0; i < NSPECS; i++) {
		const struct opt *seen[OPTS_MAX];
		int n = 0;

		for (int g = 0; g < OPT_GROUPS_MAX && specs[i]->groups[g]; g++) {
			for (const struct opt *o = specs[i]->groups[g]; o->name; o++) {
				cr_assert_lt(n, OPTS_MAX, "%s: too many options",
					     specs[i]->name);
				cr_assert(o->help && *o->help, "%s --%s: no help",
					  specs[i]->name, o->name);
				cr_assert(o->key > 0 && o->key != ':' && o->key != '?',
					  "%s --%s: key %d", specs[i]->name,
					  o->name, o->key);
				for (int k = 0; k < n; k++) {
					cr_assert_neq(seen[k]->key, o->key,
						      "%s: --%s and --%s share a key",
						      specs[i]->name, seen[k]->name,
						      o->name);
					cr_assert_str_neq(seen[k]->name, o->name,
							  "%s: --%s twice",
							  specs[i]->name, o->name);
				}
				seen[n++] = o;
			}
		}
		cr_assert_not_null(cmd_opt(specs[i], 'h'), "%s has no --help",
				   specs[i]->name);
	}
}

/* argv "cmd OPT [VALUE]": opt_next gives the option's key, then -1 */
static void accepted(const struct cmd_spec *s, const struct opt *o,
		     const char *as)
{
	char *argv[] = { "cmd", (char *)as, "value", NULL };
	int argc = o->arg ? 3 : 2;
	struct opt_parser p;

	opt_parser_init(&p, s);
	cr_assert_eq(opt_next(&p, argc, argv), o->key, "%s: %s not accepted",
		     s->name, as);
	if (o->arg)
		cr_assert_str_eq(optarg, "value");
	cr_assert_eq(opt_next(&p, argc, argv), -1);
}

Test(cmdspec, every_option_is_accepted_by_both_names_and_documented)
{
	for (size_t i = 0; i < NSPECS; i++) {
		char *help = help_of(specs[i]);

		for (int g = 0; g < OPT_GROUPS_MAX && specs[i]->groups[g]; g++) {
			for (const struct opt *o = specs[i]->groups[g]; o->name; o++) {
				char as[64], line[96];

				snprintf(as, sizeof(as), "--%s", o->name);
				accepted(specs[i], o, as);
				if (o->key < 256) {
					snprintf(as, sizeof(as), "-%c", o->key);
					accepted(specs[i], o, as);
					snprintf(line, sizeof(line), "\n  -%c, --%s%s%s ",
						 o->key, o->name, o->arg ? " " : "",
						 o->arg ? o->arg : "");
				} else {
					snprintf(line, sizeof(line), "\n      --%s%s%s ",
						 o->name, o->arg ? " " : "",
						 o->arg ? o->arg : "");
				}
				cr_assert(strstr(help, line), "%s --help lacks '%s'",
					  specs[i]->name, line + 1);
			}
		}
		free(help);
	}
}

Test(cmdspec, an_option_of_no_table_is_refused_and_named)
{
	char *argv[] = { "cmd", "--output", "x", NULL };
	struct opt_parser p;
	char err[256];
	int ch;

	opt_parser_init(&p, &trace_spec);
	ch = opt_next(&p, 3, argv);
	cr_assert_eq(ch, '?');
	opt_error_msg(&trace_spec, 3, argv, ch, err, sizeof(err));
	cr_assert_str_eq(err, "unknown option '--output' (see abicap trace --help)");
	argv[1] = "--duration";
	opt_parser_init(&p, &trace_spec);
	ch = opt_next(&p, 2, argv);
	cr_assert_eq(ch, ':');
	opt_error_msg(&trace_spec, 2, argv, ch, err, sizeof(err));
	cr_assert_str_eq(err, "option '--duration' needs a value (see abicap "
			 "trace --help)");
}

Test(cmdspec, help_fits_79_columns_and_shares_the_capture_options)
{
	char *t = help_of(&trace_spec), *r = help_of(&record_spec);
	const char *p;

	for (size_t i = 0; i < NSPECS; i++) {
		char *h = help_of(specs[i]);

		for (p = h; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] != 0))
			cr_assert_leq(strcspn(p, "\n"), 79, "%s: '%.*s'",
				      specs[i]->name, (int)strcspn(p, "\n"), p);
		free(h);
	}
	/* record documents the filters as trace does, word for word */
	p = strstr(t, "  -e, --events");
	cr_assert_not_null(p);
	cr_assert(strstr(r, "  -e, --events"));
	cr_assert_eq(strncmp(strstr(r, "  -e, --events"), p,
			     strstr(t, "  -v, --verbose") - p), 0);
	cr_assert_null(strstr(r, "as for trace"));
	free(t);
	free(r);
}
