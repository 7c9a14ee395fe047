// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* What the subcommands share: --contract, labels, usage errors. */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cmd/commands.h"
#include "abi/contract.h"
#include "abi/kernel.h"
#include "event/record.h"
#include "lib/strfit.h"
#include "lib/util.h"

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
