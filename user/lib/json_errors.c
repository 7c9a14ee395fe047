// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "lib/escape.h"
#include "lib/json_errors.h"
#include "lib/util.h"

static char first_error[ERRMSG_LEN * 2];
static bool have_error;

/* "--format json", "--format=json", "-f json", "-fjson", "--form json" */
static bool format_json(int argc, char **argv)
{
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i], *eq = strchr(a, '=');
		size_t n = eq ? (size_t)(eq - a) : strlen(a);
		bool long_opt = n >= 4 && !strncmp(a, "--format", n);

		if (long_opt && eq)
			return !strcmp(eq + 1, "json");
		if (!strcmp(a, "-fjson"))
			return true;
		if ((long_opt || !strcmp(a, "-f")) && i + 1 < argc) {
			if (!strcmp(argv[i + 1], "json"))
				return true;
			i++;
		}
	}
	return false;
}

/* contract snapshot/from-object write JSON to stdout unless -o/--output is given */
static bool contract_to_stdout(int argc, char **argv)
{
	if (argc < 2 || (strcmp(argv[1], "snapshot") && strcmp(argv[1], "from-object")))
		return false;
	for (int i = 2; i < argc && strcmp(argv[i], "--"); i++)
		if (!strncmp(argv[i], "-o", 2) || !strncmp(argv[i], "--output", 8) ||
		    (strlen(argv[i]) >= 4 && !strncmp(argv[i], "--output",
						       strlen(argv[i]))))
			return false;
	return true;
}

bool json_output_requested(int argc, char **argv)
{
	static const char *const with_format[] = { "check", "diff", "report",
						   "trace" };

	for (size_t i = 0; i < sizeof(with_format) / sizeof(with_format[0]); i++)
		if (!strcmp(argv[0], with_format[i]))
			return format_json(argc, argv);
	if (!strcmp(argv[0], "contract"))
		return contract_to_stdout(argc, argv);
	return false;
}

static void remember(const char *line)
{
	if (have_error)
		return;
	snprintf(first_error, sizeof(first_error), "%s", line);
	have_error = true;
}

void json_errors_begin(void)
{
	ab_set_error_hook(remember);
}

void json_errors_end(int exit_code)
{
	json_t *o;

	ab_set_error_hook(NULL);
	if (!have_error || exit_code == 0)
		return;
	o = json_pack("{s:o, s:i}", "error",
		      json_escaped(first_error, strlen(first_error)),
		      "exit_code", exit_code);
	if (!o)
		return;
	json_dumpf(o, stdout, JSON_PRESERVE_ORDER);
	putchar('\n');
	fflush(stdout);
	json_decref(o);
}
