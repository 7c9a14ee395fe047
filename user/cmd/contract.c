// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap contract show: the built-in contract.
 * abicap contract snapshot: a contract pinned to what one kernel has, every
 * item required, to check later kernels against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_source.h"
#include "cmd/commands.h"
#include "cmd/options.h"
#include "abi/contract.h"
#include "abi/contract_derive.h"
#include "abi/contract_snapshot.h"
#include "abi/core_relo.h"
#include "abi/objcheck.h"
#include "event/events.h"
#include "lib/json_write.h"
#include "lib/util.h"
#include "lib/bpflog.h"

static const struct opt snapshot_own[] = {
	{ "btf", 'b', "FILE", "the kernel (raw BTF, ELF vmlinux, bzImage); "
	  "default: the running kernel" },
	{ "events", 'e', "LIST", "events to include (default: all six)" },
	{ 0 },
};

/* snapshot's and from-object's */
static const struct opt output_opts[] = {
	{ "output", 'o', "FILE", "write there instead of stdout (created 0600; "
	  "never the input, never through a symbolic link, nor in a directory "
	  "another user owns or may write; refused if it exists; under sudo, "
	  "in a directory of the user who ran sudo, it is given to that user)" },
	{ "force", OPT_LONG('F'), NULL, "replace FILE if it exists, once the new "
	  "one is complete" },
	{ 0 },
};

static const char contract_synopsis[] =
"Usage: abicap contract show\n"
"       abicap contract snapshot [--btf FILE] [--events LIST]\n"
"                                [-o FILE [--force]]\n"
"       abicap contract from-object OBJ.bpf.o [-o FILE [--force]]\n"
"\n"
"show      print the built-in contract (bpf/contract.json) as JSON\n"
"from-object\n"
"          derive a contract from a compiled CO-RE object: a tracepoint per\n"
"          tp_btf/raw_tp/tp program, a field per CO-RE field relocation\n"
"          (optional where an exists-check guards it; a guarded ___flavour\n"
"          of the same type becomes its alternative), and notes for the\n"
"          attach points, argument counts, type and enum relocations it\n"
"          cannot express (abicap check --object checks those)\n"
"snapshot  write a contract pinned to one kernel: each event's prototype and\n"
"          record layout as that kernel has them, and the struct fields the\n"
"          programs read with that kernel's types, all required. Check a\n"
"          later kernel against it: abicap check --contract FILE --btf NEW\n";

static const char contract_epilog[] =
HELP_BUDGET_KERNEL
HELP_BUDGET_OBJECT
"Exit: 0 ok, 1 the kernel lacks BTF, 2 bad usage or input (FILE refused\n"
"included, a file past the budget too), 4 write error.\n";

/* The whole command's --help: every subcommand's options */
const struct cmd_spec contract_spec = {
	.name = "contract",
	.synopsis = contract_synopsis,
	.groups = { snapshot_own, output_opts, opts_verbose, opts_help },
	.epilog = contract_epilog,
};

/* what each subcommand accepts (its --help is the command's) */
static const struct cmd_spec snapshot_spec = {
	.name = "contract",
	.groups = { snapshot_own, output_opts, opts_verbose, opts_help },
};

static const struct cmd_spec from_object_spec = {
	.name = "contract",
	.groups = { output_opts, opts_help },
};

static int do_snapshot(int argc, char **argv)
{
	const char *btf_path = NULL, *out_path = NULL;
	unsigned int mask = EVENTS_ALL;
	bool verbose = false, force = false;
	char err[ERRMSG_LEN], source[256];
	struct contract *c;
	struct btf *btf;
	struct btf_open_info bi = { 0 };
	json_t *snap;
	struct opt_parser p;
	int ch, ret = EXIT_OK;

	opt_parser_init(&p, &snapshot_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		switch (ch) {
		case 'b':
			btf_path = optarg;
			break;
		case 'e':
			if (!parse_event_list(optarg, &mask, err, sizeof(err))) {
				ab_error("%s", err);
				return EXIT_USAGE;
			}
			break;
		case 'o':
			out_path = optarg;
			break;
		case OPT_LONG('F'):
			force = true;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			cmd_help(&contract_spec, stdout);
			return EXIT_OK;
		default:
			return opt_error(&snapshot_spec, argc, argv, ch);
		}
	}
	if (optind < argc) {
		ab_error("unexpected argument '%s' (see abicap contract --help)",
			 argv[optind]);
		return EXIT_USAGE;
	}
	set_libbpf_verbose(verbose);
	btf = btf_open(btf_path, &bi, err, sizeof(err));
	if (!btf) {
		ab_error("%s", err);
		return bi.no_btf ? EXIT_KERNEL : EXIT_USAGE;
	}
	c = contract_default(err, sizeof(err));
	if (!c) {
		ab_error("%s", err);
		btf__free(btf);
		return EXIT_RUNTIME;
	}
	btf_source_label(btf_path, source, sizeof(source));
	snap = contract_snapshot(c, btf, mask, source);
	ret = json_write_file(snap, out_path, force, btf_path);
	json_decref(snap);
	contract_free(c);
	btf__free(btf);
	return ret;
}

static int do_from_object(int argc, char **argv)
{
	const char *out_path = NULL, *obj;
	bool force = false;
	char err[ERRMSG_LEN];
	struct core_object o;
	struct obj_result guards;
	struct btf *self;
	json_t *events, *doc;
	struct opt_parser p;
	int ch, ret = EXIT_OK;

	opt_parser_init(&p, &from_object_spec);
	while ((ch = opt_next(&p, argc, argv)) != -1) {
		if (ch == 'o') {
			out_path = optarg;
		} else if (ch == OPT_LONG('F')) {
			force = true;
		} else if (ch == 'h') {
			cmd_help(&contract_spec, stdout);
			return EXIT_OK;
		} else {
			return opt_error(&from_object_spec, argc, argv, ch);
		}
	}
	if (argc - optind != 1) {
		ab_error("contract from-object needs one BPF object (OBJ.bpf.o)");
		return EXIT_USAGE;
	}
	obj = argv[optind];
	set_libbpf_verbose(false);
	if (core_object_open(obj, &o, err, sizeof(err))) {
		ab_error("%s", err);
		return EXIT_USAGE;
	}
	/* which accesses are guarded does not depend on the kernel: use the object's own BTF */
	self = o.btf;
	if ((ret = objcheck(&o, self, &guards))) {
		obj_result_free(&guards);
		ret = objcheck_error(ret, obj, err, sizeof(err));
		ab_error("%s", err);
		core_object_close(&o);
		return ret;
	}
	events = contract_derived_events(&o, &guards);
	if (!json_array_size(events)) {
		ab_error("%s has no tp_btf, raw_tp or tp program naming a "
			 "tracepoint: a contract "
			 "needs a tracepoint (use abicap check --object for "
			 "other program types)", obj);
		json_decref(events);
		ret = EXIT_USAGE;
		goto out;
	}
	doc = contract_derived(&o, &guards, events, obj);
	ret = json_write_file(doc, out_path, force, obj);
	json_decref(doc);
out:
	obj_result_free(&guards);
	core_object_close(&o);
	return ret;
}

static int do_show(int argc, char **argv)
{
	size_t len;
	const char *text;

	if (argc > 1) {
		ab_error("unexpected argument '%s' (contract show takes none; see "
			 "abicap contract --help)", argv[1]);
		return EXIT_USAGE;
	}
	text = contract_default_text(&len);
	fwrite(text, 1, len, stdout);
	return EXIT_OK;
}

static const struct cmd contract_cmds[] = {
	{ "show", do_show, "print the built-in contract", NULL },
	{ "snapshot", do_snapshot, "a contract pinned to one kernel", NULL },
	{ "from-object", do_from_object, "a contract derived from a CO-RE object", NULL },
	{ 0 },
};

int do_contract(int argc, char **argv)
{
	const struct cmd *c;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		cmd_help(&contract_spec, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	c = cmd_find(contract_cmds, argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	ab_error("abicap contract: unknown subcommand '%s' (use show, snapshot "
		 "or from-object)", argv[1]);
	return EXIT_USAGE;
}
