// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* abicap check: hold the contract against a kernel's BTF, item by item. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_source.h"
#include "abi/checker.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "abi/contract.h"
#include "abi/contract_deps.h"
#include "live/capture.h"
#include "live/contract_gate.h"
#include "abi/kernel.h"
#include "abi/kernel_id.h"
#include "abi/objcheck.h"
#include "lib/util.h"
#include "abi/verdict_out.h"
#include "lib/bpflog.h"

static const struct opt check_own[] = {
	{ "btf", 'b', "FILE",
	  "the kernel to check: raw BTF (either byte order), an ELF "
	  "vmlinux, or any Debian vmlinuz: x86 bzImage, arm64/riscv64 "
	  "Image, EFI zboot, armhf zImage, s390x, or gzip/xz/zstd/lz4 of "
	  "one; default: the running kernel (/sys/kernel/btf/vmlinux)" },
	{ "format", 'f', "FMT",
	  "text (default), json, or junit (one test case per item); with "
	  "json an error is also {\"error\": ...} on stdout" },
	{ "contract", 'c', "FILE",
	  "the contract to check instead of the built-in one; refused if it "
	  "omits an item abicap's programs for its events depend on (unless "
	  "it \"describes\" another object or kernel)" },
	{ "strict", OPT_LONG('s'), NULL,
	  "degraded items fail too" },
	{ "object", 'o', "OBJ",
	  "instead of the contract: will this compiled CO-RE object load on "
	  "each kernel given with --btf (repeat it)? Every CO-RE relocation "
	  "(resolves / resolves to another offset or size / fails) and "
	  "attach point" },
	{ 0 },
};

const struct cmd_spec check_spec = {
	.name = "check",
	.synopsis =
"Usage: abicap check [--btf FILE] [--contract FILE] [--format text|json|junit]\n"
"                    [--strict]\n"
"       abicap check --object OBJ.bpf.o [--btf FILE]...\n"
"                    [--format text|json|junit]\n"
"Check the ABI contract (default: the one built in, from bpf/contract.json)\n"
"against a kernel's BTF, item by item: tracepoint prototypes, struct fields\n"
"the BPF programs read, and tracefs record layouts under the append-only rule.\n",
	.groups = { check_own, opts_verbose, opts_help },
	.epilog =
"Verdicts: ok; degraded (an optional item is missing, or an alternative is\n"
"used: the detail names what is lost or the fallback taken); broken (a\n"
"required item is missing or has another type or position).\n"
"With --object, a failing relocation rejects the load only where the\n"
"verifier reaches it: existence checks are resolved for each kernel and the\n"
"branches on them followed, as the verifier does.\n"
HELP_BUDGET_KERNEL
HELP_BUDGET_OBJECT
"Exit: 0 satisfied (degraded allowed unless --strict; with --object: loads\n"
"on every kernel), 1 broken (or rejected by a kernel, or a kernel without\n"
"BTF), 2 bad usage or input (a contract that omits a dependency or a file\n"
"past the budget included).\n",
};

#define MAX_BTFS 64

/* check --object: each kernel in turn, then the prediction per kernel. */
static int check_object(const char *obj, const char *const *btfs, int nbtf,
			enum vformat fmt)
{
	struct obj_result res[MAX_BTFS];
	char labels[MAX_BTFS][256], err[ERRMSG_LEN];
	const char *sources[MAX_BTFS];
	struct core_object o;
	int ret = EXIT_OK, done = 0, rc;

	if (core_object_open(obj, &o, err, sizeof(err))) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	if (!nbtf)
		nbtf = 1; /* btfs[0] is NULL: the running kernel */
	for (int k = 0; k < nbtf; k++) {
		struct btf_open_info bi = { 0 };
		struct btf *btf = btf_open(btfs[k], &bi, err, sizeof(err));

		if (!btf) {
			ab_error("%s", err);
			ret = bi.no_btf ? EXIT_KERNEL : EXIT_USAGE;
			goto out;
		}
		btf_source_label(btfs[k], labels[k], sizeof(labels[k]));
		sources[k] = labels[k];
		if ((rc = objcheck(&o, btf, &res[k]))) {
			btf__free(btf);
			obj_result_free(&res[k]);
			ret = objcheck_error(rc, obj, err, sizeof(err));
			ab_error("%s", err);
			goto out;
		}
		done++;
		btf__free(btf);
		if (!res[k].loads)
			ret = EXIT_KERNEL;
	}
	objcheck_print(stdout, fmt, obj, &o, res, sources, done);
out:
	for (int k = 0; k < done; k++)
		obj_result_free(&res[k]);
	core_object_close(&o);
	return ret;
}

struct check_args {
	const char *contract_path, *object;
	const char *btfs[MAX_BTFS]; /* --btf, in order; the contract's: btfs[0] */
	int nbtf;
	enum vformat fmt;
	bool strict, verbose;
};

/* The options into a: -1 to go on, or the exit code (--help, an error). */
static int check_parse(int argc, char **argv, struct check_args *a)
{
	struct opt_parser p;
	int ch;

	opt_parser_init(&p, &check_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'b':
			if (a->nbtf == MAX_BTFS) {
				ab_error("--btf: at most %d kernels", MAX_BTFS);
				return EXIT_USAGE;
			}
			a->btfs[a->nbtf++] = optarg;
			break;
		case 'o':
			a->object = optarg;
			break;
		case 'c':
			a->contract_path = optarg;
			break;
		case 'f':
			if (!parse_vformat(optarg, &a->fmt)) {
				ab_error("--format '%s': use text, json or junit",
					 optarg);
				return EXIT_USAGE;
			}
			break;
		case OPT_LONG('s'):
			a->strict = true;
			break;
		case 'v':
			a->verbose = true;
			break;
		case 'h':
			cmd_help(&check_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&check_spec, argc, argv, ch);
		}
	}
	if (optind < argc) {
		ab_error("unexpected argument '%s' (see abicap check --help)",
			 argv[optind]);
		return EXIT_USAGE;
	}
	return -1;
}

/* A contract (the built-in one, or --contract) against one kernel's BTF. */
static int check_contract(const struct check_args *a)
{
	const char *btf_path = a->nbtf ? a->btfs[a->nbtf - 1] : NULL;
	char err[ERRMSG_LEN], source[256];
	struct btf_open_info bi = { 0 };
	struct check_result res;
	struct kernel_id kid;
	struct contract *c;
	struct btf *btf;
	size_t len;
	const void *obj = capture_elf_bytes(&len);
	int ret;

	c = load_contract_arg(a->contract_path, err, sizeof(err));
	if (!c) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	/* fail closed: a contract for abicap declares all its programs need */
	ret = c->describes ? EXIT_OK :
			     contract_gate(c, obj, len, contract_deps_declared(c),
					   err, sizeof(err));
	if (ret) {
		ab_error("%s", err);
		contract_free(c);
		return ret;
	}
	btf = btf_open(btf_path, &bi, err, sizeof(err));
	if (!btf) {
		ab_error("%s", err);
		contract_free(c);
		return bi.no_btf ? EXIT_KERNEL : EXIT_USAGE;
	}
	if (contract_check(c, btf, &res)) {
		ab_error("out of memory");
		ret = EXIT_RUNTIME;
		goto out;
	}
	btf_source_label(btf_path, source, sizeof(source));
	kid = bi.kid;
	snprintf(kid.byte_order, sizeof(kid.byte_order), "%s",
		 btf__endianness(btf) == BTF_BIG_ENDIAN ? "big" : "little");
	verdicts_print(stdout, a->fmt, &res, source, &kid, c->name, a->strict);
	if (res.count[V_BROKEN] || (a->strict && res.count[V_DEGRADED]))
		ret = EXIT_KERNEL;
	else
		ret = EXIT_OK;
	check_result_free(&res);
out:
	btf__free(btf);
	contract_free(c);
	return ret;
}

int do_check(int argc, char **argv)
{
	struct check_args a = { .fmt = VF_TEXT };
	int ret = check_parse(argc, argv, &a);

	if (ret >= 0)
		return ret;
	set_libbpf_verbose(a.verbose);
	if (a.object) {
		if (a.contract_path || a.strict) {
			ab_error("--object checks the object itself: it takes no "
				 "--contract or --strict");
			return EXIT_USAGE;
		}
		return check_object(a.object, a.btfs, a.nbtf, a.fmt);
	}
	if (a.nbtf > 1) {
		ab_error("several --btf go with --object; check one kernel at a "
			 "time against a contract");
		return EXIT_USAGE;
	}
	return check_contract(&a);
}
