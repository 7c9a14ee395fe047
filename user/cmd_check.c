// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap check: hold the contract against a kernel's BTF, item by item. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_source.h"
#include "checker.h"
#include "commands.h"
#include "contract.h"
#include "kernel.h"
#include "util.h"
#include "verdict_out.h"

const char check_usage[] =
"Usage: abicap check [--btf FILE] [--contract FILE] [--format text|json|junit] [--strict]\n"
"Check the ABI contract (default: the one built in, from bpf/contract.json)\n"
"against a kernel's BTF, item by item: tracepoint prototypes, struct fields\n"
"the BPF programs read, and tracefs record layouts under the append-only rule.\n"
"\n"
"  -b, --btf FILE        the kernel to check: raw BTF, an ELF vmlinux with a\n"
"                        .BTF section, or a bzImage/vmlinuz (gzip, xz, zstd);\n"
"                        default: the running kernel (/sys/kernel/btf/vmlinux)\n"
"  -c, --contract FILE   the contract to check instead of the built-in one\n"
"  -f, --format FMT      text (default), json, or junit (one test case per item)\n"
"      --strict          degraded items fail too\n"
"  -v, --verbose         libbpf's log on stderr\n"
"  -h, --help            show this help\n"
"\n"
"Verdicts: ok; degraded (an optional item is missing, or an alternative is\n"
"used: the detail names what is lost or the fallback taken); broken (a\n"
"required item is missing or has another type or position).\n"
"Exit: 0 satisfied (degraded allowed unless --strict), 1 broken,\n"
"2 bad usage or input.\n";

int do_check(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "btf", required_argument, NULL, 'b' },
		{ "contract", required_argument, NULL, 'c' },
		{ "format", required_argument, NULL, 'f' },
		{ "strict", no_argument, NULL, 's' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *btf_path = NULL, *contract_path = NULL;
	enum vformat fmt = VF_TEXT;
	bool strict = false, verbose = false;
	char err[ERRMSG_LEN], source[256];
	struct check_result res;
	struct contract *c;
	struct btf *btf;
	int ch, ret;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":b:c:f:vh", opts, NULL)) != -1) {
		switch (ch) {
		case 'b':
			btf_path = optarg;
			break;
		case 'c':
			contract_path = optarg;
			break;
		case 'f':
			if (!parse_vformat(optarg, &fmt)) {
				ab_error("--format '%s': use text, json or junit",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case 's':
			strict = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(check_usage, stdout);
			return EXIT_OK;
		default:
			return usage_error(argc, argv, ch, "check");
		}
	}
	if (optind < argc) {
		ab_error("unexpected argument '%s' (see abicap check --help)",
			 argv[optind]);
		return EXIT_USAGE;
	}
	set_libbpf_verbose(verbose);
	c = load_contract_arg(contract_path, err, sizeof(err));
	if (!c) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	btf = btf_open(btf_path, err, sizeof(err));
	if (!btf) {
		ab_error("%s", err);
		contract_free(c);
		return btf_path ? EXIT_USAGE : EXIT_KERNEL;
	}
	if (contract_check(c, btf, &res)) {
		ab_error("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	btf_source_label(btf_path, source, sizeof(source));
	verdicts_print(stdout, fmt, &res, source, c->name, strict);
	if (res.count[V_BROKEN] || (strict && res.count[V_DEGRADED]))
		ret = EXIT_KERNEL;
	else
		ret = EXIT_OK;
	check_result_free(&res);
out:
	btf__free(btf);
	contract_free(c);
	return ret;
}
