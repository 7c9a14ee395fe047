// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap diff OLD NEW: what changed in the events between two kernels, judged
 * by the append-only rule of TRACE_EVENT_ABI: no argument or record field
 * deleted, retyped or moved; new ones only at the end.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_diff.h"
#include "abi/btf_diff_out.h"
#include "abi/btf_source.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "abi/contract.h"
#include "event/events.h"
#include "lib/util.h"
#include "lib/bpflog.h"

static const struct opt diff_own[] = {
	{ "events", 'e', "LIST",
	  "events of the built-in contract to compare (default: all six "
	  "abicap captures)" },
	{ "all", 'a', NULL,
	  "every tracepoint and record struct either kernel has" },
	{ "format", 'f', "FMT",
	  "text (default) or json" },
	{ 0 },
};

const struct cmd_spec diff_spec = {
	.name = "diff",
	.synopsis =
"Usage: abicap diff OLD NEW [--events LIST | --all] [--format text|json]\n"
"Compare two kernels' BTF (raw BTF, ELF vmlinux or any vmlinuz each) under the\n"
"append-only rule: per event, the tracepoint prototype (arguments added,\n"
"removed, moved or retyped) and the tracefs record layout\n"
"(trace_event_raw_*: fields deleted, retyped, moved or inserted before the\n"
"end break it; fields appended at the end do not).\n",
	.groups = { diff_own, opts_verbose, opts_help },
	.epilog =
"Arguments are aligned by shape (common prefix, then suffix, then a longest\n"
"common subsequence); record fields by name. Plain char is named char: a\n"
"change of its sign alone (Linux 6.2's -funsigned-char) is 'char signedness',\n"
"compatible. With --format json an error is also {\"error\": ...} on stdout.\n"
HELP_BUDGET_KERNEL
"Exit: 0 compatible, 1 a breaking change or a kernel without BTF, 2 bad usage\n"
"or input (a file past the budget included).\n",
};

int do_diff(int argc, char **argv)
{
	struct opt_parser p;
	unsigned int mask = EVENTS_ALL;
	bool all = false, events_given = false, json = false, verbose = false;
	char err[ERRMSG_LEN];
	struct btf *ob = NULL, *nb = NULL;
	struct btf_open_info bi = { 0 };
	struct contract *c = NULL;
	struct diff d = { 0 };
	int ch, ret = EXIT_USAGE, scopes = 0;

	opt_parser_init(&p, &diff_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'e':
			if (!parse_event_list(optarg, &mask, err, sizeof(err))) {
				ab_error("%s", err);
				return EXIT_USAGE;
			}
			events_given = true;
			break;
		case 'a':
			all = true;
			break;
		case 'f':
			if (opt_text_or_json(optarg, &json))
				return EXIT_USAGE;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			cmd_help(&diff_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&diff_spec, argc, argv, ch);
		}
	}
	if (argc - optind != 2) {
		ab_error("diff needs two kernels, OLD and NEW (BTF, vmlinux or "
			 "bzImage files); see abicap diff --help");
		return EXIT_USAGE;
	}
	if (all && events_given) {
		ab_error("--all and --events exclude each other");
		return EXIT_USAGE;
	}
	set_libbpf_verbose(verbose);
	ob = btf_open(argv[optind], &bi, err, sizeof(err));
	if (ob)
		nb = btf_open(argv[optind + 1], &bi, err, sizeof(err));
	if (!ob || !nb) {
		ab_error("%s", err);
		if (bi.no_btf)
			ret = EXIT_KERNEL;
		goto out;
	}
	c = contract_default(err, sizeof(err));
	if (!c) {
		ab_error("%s", err);
		goto out;
	}
	if (all)
		scopes = diff_all(&d, ob, nb);
	else
		scopes = diff_events(&d, c, mask, ob, nb);
	if (json)
		diff_print_json(&d, argv[optind], argv[optind + 1]);
	else
		diff_print_text(&d, argv[optind], argv[optind + 1], scopes);
	ret = d.breaking ? EXIT_KERNEL : EXIT_OK;
out:
	free(d.v);
	contract_free(c);
	btf__free(ob);
	btf__free(nb);
	return ret;
}
