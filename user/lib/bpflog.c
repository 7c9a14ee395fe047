// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE /* vasprintf */
/* libbpf's messages: none unless asked (-v), kernel addresses hidden. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "lib/bpflog.h"

static struct bpflog_failure failure;

void bpflog_reset(void)
{
	memset(&failure, 0, sizeof(failure));
}

const struct bpflog_failure *bpflog_failure(void)
{
	return &failure;
}

/* The name in "map 'NAME': ..." or "prog 'NAME': ..." (s after the quote). */
static void quoted_name(char *out, size_t n, const char *s)
{
	const char *q = strchr(s, '\'');

	snprintf(out, n, "%.*s", q ? (int)(q - s) : 0, s);
}

/*
 * The verifier's reason in a program's load log: its last line but the
 * statistics it ends with ("processed N insns ...", "verification time").
 */
static void log_reason(const char *log)
{
	const char *end = strstr(log, "-- END PROG LOAD LOG --");
	const char *p = log, *line = NULL, *nl;
	size_t len = 0;

	while (p < end && (nl = memchr(p, '\n', end - p))) {
		if (nl > p && strncmp(p, "processed ", 10) &&
		    strncmp(p, "verification time", 17) &&
		    strncmp(p, "stack depth", 11)) {
			line = p;
			len = nl - p;
		}
		p = nl + 1;
	}
	if (line)
		snprintf(failure.why, sizeof(failure.why), "%.*s", (int)len,
			 line);
}

/*
 * libbpf's warnings (1.1 to 1.5 word them alike): "libbpf: map 'X': failed
 * to create: ...", "libbpf: prog 'X': BPF program load failed: ...", then
 * "libbpf: prog 'X': -- BEGIN PROG LOAD LOG --" with the verifier's log.
 */
void bpflog_note(int l, const char *s)
{
	const char *log;

	/* libbpf prefixes its own messages (not the verifier's log lines) */
	if (!strncmp(s, "libbpf: ", 8))
		s += 8;
	if (l != LIBBPF_WARN || failure.map[0] ||
	    (failure.prog[0] && failure.why[0]))
		return;
	if (!strncmp(s, "map '", 5) && strstr(s, "': failed to create")) {
		quoted_name(failure.map, sizeof(failure.map), s + 5);
	} else if (!strncmp(s, "prog '", 6) && !failure.prog[0] &&
		   strstr(s, "': BPF program load failed")) {
		quoted_name(failure.prog, sizeof(failure.prog), s + 6);
	} else if (!strncmp(s, "prog '", 6) &&
		   (log = strstr(s, "-- BEGIN PROG LOAD LOG --\n"))) {
		if (!failure.prog[0])
			quoted_name(failure.prog, sizeof(failure.prog), s + 6);
		log_reason(log + 26);
	}
}

static int silent_log(enum libbpf_print_level l, const char *f, va_list ap)
{
	char *s;
	int n = vasprintf(&s, f, ap);

	if (n < 0)
		return n;
	bpflog_note(l, s);
	free(s);
	return n;
}

void fputs_redacted(const char *s, FILE *out)
{
	const char *p;

	while ((p = strstr(s, "0xffff"))) {
		size_t n = strspn(p + 2, "0123456789abcdef");

		fwrite(s, 1, p - s, out);
		fputs(n == 16 ? "0x<kernel address>" : "0xffff", out);
		s = p + (n == 16 ? 18 : 6);
	}
	fputs(s, out);
}

/*
 * libbpf's log, with the verifier's: with CAP_PERFMON the kernel shows map
 * addresses in it ("r1 = 0xffff..."), which abicap never prints.
 */
static int verbose_log(enum libbpf_print_level l, const char *f, va_list ap)
{
	char *s;
	int n;

	n = vasprintf(&s, f, ap);
	if (n < 0)
		return n;
	bpflog_note(l, s);
	fputs_redacted(s, stderr);
	free(s);
	return n;
}

void set_libbpf_verbose(bool verbose)
{
	libbpf_set_print(verbose ? verbose_log : silent_log);
}
