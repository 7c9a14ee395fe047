// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE /* vasprintf */
/* What the subcommands share: libbpf logging, --contract, labels, usage errors. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "commands.h"
#include "contract.h"
#include "kernel.h"
#include "record.h"
#include "strfit.h"
#include "util.h"

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

struct contract *load_contract_arg(const char *path, char *err, size_t errlen)
{
	return path ? contract_load(path, err, errlen) :
		      contract_default(err, errlen);
}

void btf_source_label(const char *path, char *out, size_t len)
{
	/* a path too long for the label shows cut, marked "..." */
	if (path)
		strfit(out, len, "%s", path);
	else
		strfit(out, len, "running kernel %s", kernel_release());
}

int usage_error(int argc, char **argv, int ch, const char *cmd)
{
	const char *opt = optind - 1 < argc ? argv[optind - 1] : "?";

	if (ch == ':')
		ab_error("option '%s' needs a value (see abicap %s --help)", opt,
			 cmd);
	else
		ab_error("unknown option '%s' (see abicap %s --help)", opt, cmd);
	return EXIT_USAGE;
}

int meta_ncpus_given(json_t *meta)
{
	json_int_t v = json_integer_value(json_object_get(meta, "ncpus"));

	return v >= 1 && v <= CAPTURE_MAX_CPUS ? (int)v : 0;
}

int meta_ncpus(json_t *meta, const union abicap_rec *recs, size_t n)
{
	int v = meta_ncpus_given(meta);
	uint32_t max = 0;

	if (v)
		return v;
	for (size_t i = 0; i < n; i++)
		if (recs[i].hdr.cpu >= max && recs[i].hdr.cpu < CAPTURE_MAX_CPUS)
			max = recs[i].hdr.cpu + 1;
	return max ? (int)max : 1;
}
