// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE /* vasprintf */
/* libbpf's messages: none unless asked (-v), kernel addresses hidden. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "lib/bpflog.h"

static int silent_log(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l;
	(void)f;
	(void)ap;
	return 0;
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

	(void)l;
	n = vasprintf(&s, f, ap);
	if (n < 0)
		return n;
	fputs_redacted(s, stderr);
	free(s);
	return n;
}

void set_libbpf_verbose(bool verbose)
{
	libbpf_set_print(verbose ? verbose_log : silent_log);
}
