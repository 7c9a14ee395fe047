// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Option tables to getopt_long's tables and to --help (options.h). */
#include <string.h>
#include "cmd/options.h"
#include "lib/util.h"

/* --help's width, and the least room an option's text keeps on its line */
#define HELP_WIDTH 79
#define HELP_GAP 2

const struct opt opts_help[] = {
	{ "help", 'h', NULL, "show this help" },
	{ 0 },
};

const struct opt opts_verbose[] = {
	{ "verbose", 'v', NULL, "print libbpf's log (verifier output) on stderr" },
	{ 0 },
};

#define for_each_opt(o, spec, g)                                         \
	for (int g = 0; g < OPT_GROUPS_MAX && (spec)->groups[g]; g++)     \
		for (const struct opt *o = (spec)->groups[g]; o->name; o++)

void opt_parser_init(struct opt_parser *p, const struct cmd_spec *spec)
{
	size_t n = 0, s = 0;

	memset(p, 0, sizeof(*p));
	if (spec->stop_at_operand)
		p->shorts[s++] = '+';
	p->shorts[s++] = ':'; /* a missing value is ':', not '?' */
	for_each_opt(o, spec, g) {
		if (n == OPTS_MAX)
			break; /* the unit test holds every spec below this */
		p->longs[n].name = o->name;
		p->longs[n].has_arg = o->arg ? required_argument : no_argument;
		p->longs[n].val = o->key;
		n++;
		if (o->key < 256) {
			p->shorts[s++] = (char)o->key;
			if (o->arg)
				p->shorts[s++] = ':';
		}
	}
	optind = 0; /* full re-initialisation: parsers may run more than once */
	opterr = 0;
}

int opt_next(struct opt_parser *p, int argc, char **argv)
{
	return getopt_long(argc, argv, p->shorts, p->longs, NULL);
}

const struct opt *cmd_opt(const struct cmd_spec *spec, int key)
{
	for_each_opt(o, spec, g)
		if (o->key == key)
			return o;
	return NULL;
}

/* "-d, --duration SECS" or "    --attach MODE" */
static int opt_label(const struct opt *o, char *buf, size_t len)
{
	char sh[5] = "    ";

	if (o->key < 256)
		snprintf(sh, sizeof(sh), "-%c, ", o->key);
	return snprintf(buf, len, "%s--%s%s%s", sh, o->name, o->arg ? " " : "",
			o->arg ? o->arg : "");
}

/* text from column col to HELP_WIDTH, broken at spaces */
static void wrap(FILE *f, const char *text, int col, int at)
{
	const char *p = text;

	while (*p) {
		int room = HELP_WIDTH - col, n = (int)strlen(p);

		if (n > room) {
			int cut = room;

			while (cut > 0 && p[cut] != ' ')
				cut--;
			if (!cut) /* a word longer than the line */
				cut = (int)strcspn(p, " ");
			n = cut;
		}
		fprintf(f, "%*s%.*s\n", at, "", n, p);
		p += n;
		while (*p == ' ')
			p++;
		at = col;
	}
}

void cmd_help(const struct cmd_spec *spec, FILE *f)
{
	char label[128];
	int col = 0;

	for_each_opt(o, spec, g) {
		int n = opt_label(o, label, sizeof(label));

		if (n > col)
			col = n;
	}
	col += 2 + HELP_GAP;
	fputs(spec->synopsis, f);
	fputc('\n', f);
	for_each_opt(o, spec, g) {
		int n = opt_label(o, label, sizeof(label));

		fprintf(f, "  %s", label);
		wrap(f, o->help, col, col - 2 - n);
	}
	if (spec->epilog) {
		fputc('\n', f);
		fputs(spec->epilog, f);
	}
}

int opt_error_msg(const struct cmd_spec *spec, int argc, char **argv, int ch,
		  char *err, size_t errlen)
{
	const char *arg = optind - 1 < argc ? argv[optind - 1] : "?";
	/* "--name=value": the option is the name */
	int n = !strncmp(arg, "--", 2) ? (int)strcspn(arg, "=") : (int)strlen(arg);

	if (ch == ':')
		snprintf(err, errlen, "option '%.*s' needs a value (see abicap %s "
			 "--help)", n, arg, spec->name);
	else
		snprintf(err, errlen, "unknown option '%.*s' (see abicap %s "
			 "--help)", n, arg, spec->name);
	return EXIT_USAGE;
}

int opt_error(const struct cmd_spec *spec, int argc, char **argv, int ch)
{
	char err[ERRMSG_LEN];

	opt_error_msg(spec, argc, argv, ch, err, sizeof(err));
	ab_error("%s", err);
	return EXIT_USAGE;
}

int opt_by_process(const char *arg, bool *by_process)
{
	if (strcmp(arg, "task") && strcmp(arg, "process")) {
		ab_error("--by '%s': use task or process", arg);
		return EXIT_USAGE;
	}
	*by_process = !strcmp(arg, "process");
	return 0;
}

int opt_number(const char *name, const char *arg, long min, long max, long *v)
{
	if (parse_long(arg, min, max, v))
		return 0;
	ab_error("--%s '%s': give a number from %ld to %ld", name, arg, min,
		 max);
	return EXIT_USAGE;
}

int opt_pid(const char *arg, long *pid)
{
	if (parse_long(arg, 1, 0x7fffffff, pid))
		return 0;
	ab_error("--pid '%s' is not a process id", arg);
	return EXIT_USAGE;
}

int opt_text_or_json(const char *arg, bool *json)
{
	if (strcmp(arg, "text") && strcmp(arg, "json")) {
		ab_error("--format '%s': use text or json", arg);
		return -1;
	}
	*json = !strcmp(arg, "json");
	return 0;
}
