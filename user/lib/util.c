// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "lib/sbuf.h"
#include "lib/util.h"

static void (*error_hook)(const char *line);
static bool quiet;

void ab_quiet(bool on)
{
	quiet = on;
}

void ab_set_error_hook(void (*hook)(const char *line))
{
	error_hook = hook;
}

/*
 * Messages echo what the user or a file gave (a path, a flag's value, a
 * name from BTF): escaped as trace escapes names, so no control byte
 * reaches the terminal and a message stays one line.
 */
static void vreport(const char *kind, const char *fmt, va_list ap)
{
	char line[ERRMSG_LEN * 2], safe[4 * sizeof(line)];
	struct sbuf sb;

	vsnprintf(line, sizeof(line), fmt, ap);
	sb_init(&sb, safe, sizeof(safe));
	sb_text_str(&sb, line, sizeof(line));
	if (kind)
		fprintf(stderr, "abicap: %s: %s\n", kind, safe);
	else
		fprintf(stderr, "abicap: %s\n", safe);
	if (error_hook && kind && !strcmp(kind, "error"))
		error_hook(safe);
}

void ab_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap);
	va_end(ap);
}

void ab_warn(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vreport("warning", fmt, ap);
	va_end(ap);
}

void ab_note(const char *fmt, ...)
{
	va_list ap;

	if (quiet)
		return;
	va_start(ap, fmt);
	vreport(NULL, fmt, ap);
	va_end(ap);
}

bool parse_long(const char *s, long min, long max, long *out)
{
	char *end;
	long v;

	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return false;
	*out = v;
	return true;
}

bool parse_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !*s || isspace((unsigned char)*s))
		return false;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > 365 * 86400.0)
		return false;
	*out = v;
	return true;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}
