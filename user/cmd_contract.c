// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap contract show: the built-in contract.
 * abicap contract snapshot: a contract pinned to what one kernel has, every
 * item required, to check later kernels against.
 */
#include <errno.h>
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "btf_source.h"
#include "btf_util.h"
#include "commands.h"
#include "contract.h"
#include "events.h"
#include "layout.h"
#include "util.h"

const char contract_usage[] =
"Usage: abicap contract show\n"
"       abicap contract snapshot [--btf FILE] [--events LIST] [-o FILE]\n"
"\n"
"show      print the built-in contract (bpf/contract.json) as JSON\n"
"snapshot  write a contract pinned to one kernel: each event's prototype and\n"
"          record layout as that kernel has them, and the struct fields the\n"
"          programs read with that kernel's types, all required. Check a\n"
"          later kernel against it: abicap check --contract FILE --btf NEW\n"
"\n"
"  -b, --btf FILE        the kernel (raw BTF, ELF vmlinux, bzImage); default:\n"
"                        the running kernel\n"
"  -e, --events LIST     events to include (default: all six)\n"
"  -o, --output FILE     write there instead of stdout\n"
"  -v, --verbose         libbpf's log on stderr\n"
"  -h, --help            show this help\n"
"\n"
"Exit: 0 ok, 1 the kernel lacks BTF, 2 bad usage or input, 4 write error.\n";

static json_t *snap_args(const struct c_event *e, const struct btf *btf)
{
	struct lfield *k;
	int n = proto_layout(btf, e->name, &k);
	json_t *args = json_array();

	for (int i = 0; i < n; i++) {
		const struct c_arg *base = i < e->nargs ? &e->args[i] : NULL;
		bool same = base && !strcmp(base->type, k[i].type);
		char feeds[128];

		snprintf(feeds, sizeof(feeds), "argument %d", i + 1);
		json_array_append_new(args, json_pack(
			"{s:s, s:s, s:b, s:s}",
			"name", same ? base->name : k[i].name,
			"type", k[i].type, "required", 1,
			"feeds", same ? base->feeds : feeds));
	}
	free(k);
	return args;
}

static json_t *snap_record(const struct c_event *e, const struct btf *btf)
{
	struct lfield *k;
	int n = record_layout(btf, e->record.struct_name, &k);
	json_t *fields;

	if (n < 0)
		return NULL;
	fields = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(fields, json_pack("{s:s, s:s}", "name",
							k[i].name, "type",
							k[i].type));
	free(k);
	return json_pack("{s:s, s:b, s:s, s:o}", "struct", e->record.struct_name,
			 "required", 1, "feeds", e->record.feeds, "fields",
			 fields);
}

/* The field, or the first alternative, that this kernel has. */
static json_t *snap_field(const struct c_field *f, const struct btf *btf,
			  unsigned int mask)
{
	__u32 sid = btf_find_struct(btf, f->struct_name), tid = 0;
	const char *path = f->field;
	char type[TYPE_STR_MAX];
	json_t *events;

	if (sid)
		tid = btf_find_member(btf, sid, path, NULL);
	for (int i = 0; sid && !tid && i < f->nalts; i++) {
		path = f->alts[i].field;
		tid = btf_find_member(btf, sid, path, NULL);
	}
	if (!tid) {
		ab_warn("%s.%s (nor an alternative) is not in this kernel: left "
			"out of the snapshot", f->struct_name, f->field);
		return NULL;
	}
	events = json_array();
	for (int i = 0; i < f->nevent_names; i++) {
		int ev = event_by_name(f->event_names[i],
				       strlen(f->event_names[i]));

		if (ev >= 0 && (mask & (1u << ev)))
			json_array_append_new(events,
					      json_string(f->event_names[i]));
	}
	if (!json_array_size(events)) {
		json_decref(events);
		return NULL;
	}
	btf_type_str(btf, tid, type, sizeof(type), NULL, 0);
	return json_pack("{s:s, s:s, s:s, s:b, s:o, s:s}", "struct",
			 f->struct_name, "field", path, "type", type,
			 "required", 1, "events", events, "feeds", f->feeds);
}

static json_t *snapshot(const struct contract *c, const struct btf *btf,
			unsigned int mask, const char *source)
{
	json_t *events = json_array(), *fields = json_array();
	char name[320], desc[512];

	for (int i = 0; i < c->nevents; i++) {
		const struct c_event *e = &c->events[i];
		json_t *ev, *notes, *rec;

		if (e->ev < 0 || !(mask & (1u << e->ev)))
			continue;
		if (!btf_trace_proto(btf, e->name)) {
			ab_warn("tracepoint %s:%s is not in this kernel: left out "
				"of the snapshot", e->group, e->name);
			mask &= ~(1u << e->ev);
			continue;
		}
		ev = json_pack("{s:s, s:s, s:o}", "name", e->name, "group",
			       e->group, "args", snap_args(e, btf));
		rec = e->has_record ? snap_record(e, btf) : NULL;
		if (rec)
			json_object_set_new(ev, "record", rec);
		notes = json_array();
		for (int j = 0; j < e->nnotes; j++)
			json_array_append_new(notes, json_string(e->notes[j]));
		json_object_set_new(ev, "notes", notes);
		json_array_append_new(events, ev);
	}
	for (int i = 0; i < c->nfields; i++) {
		json_t *f = snap_field(&c->fields[i], btf, mask);

		if (f)
			json_array_append_new(fields, f);
	}
	snprintf(name, sizeof(name), "snapshot of %s", source);
	snprintf(desc, sizeof(desc), "Pinned to what %s has: every item "
		 "required. Check a later kernel with: abicap check --contract "
		 "THIS_FILE --btf NEW", source);
	return json_pack("{s:i, s:s, s:s, s:o, s:o}", "abicap_contract",
			 CONTRACT_VERSION, "name", name, "description", desc,
			 "events", events, "fields", fields);
}

static int do_snapshot(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "btf", required_argument, NULL, 'b' },
		{ "events", required_argument, NULL, 'e' },
		{ "output", required_argument, NULL, 'o' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *btf_path = NULL, *out_path = NULL;
	unsigned int mask = EVENTS_ALL;
	bool verbose = false;
	char err[ERRMSG_LEN], source[256];
	struct contract *c;
	struct btf *btf;
	json_t *snap;
	FILE *out = stdout;
	int ch, ret = EXIT_OK;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":b:e:o:vh", opts, NULL)) != -1) {
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
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(contract_usage, stdout);
			return EXIT_OK;
		default:
			return usage_error(argc, argv, ch, "contract");
		}
	}
	if (optind < argc) {
		ab_error("unexpected argument '%s' (see abicap contract --help)",
			 argv[optind]);
		return EXIT_USAGE;
	}
	set_libbpf_verbose(verbose);
	btf = btf_open(btf_path, err, sizeof(err));
	if (!btf) {
		ab_error("%s", err);
		return btf_path ? EXIT_USAGE : EXIT_KERNEL;
	}
	c = contract_default(err, sizeof(err));
	if (!c) {
		ab_error("%s", err);
		btf__free(btf);
		return EXIT_RUNTIME;
	}
	btf_source_label(btf_path, source, sizeof(source));
	snap = snapshot(c, btf, mask, source);
	if (out_path && !(out = fopen(out_path, "w"))) {
		ab_error("cannot write '%s': %s", out_path, strerror(errno));
		ret = EXIT_RUNTIME;
	} else {
		json_dumpf(snap, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', out);
		if ((out_path ? fclose(out) : fflush(out)) != 0) {
			ab_error("cannot write '%s': %s",
				 out_path ? out_path : "stdout", strerror(errno));
			ret = EXIT_RUNTIME;
		}
	}
	json_decref(snap);
	contract_free(c);
	btf__free(btf);
	return ret;
}

int do_contract(int argc, char **argv)
{
	size_t len;
	const char *text;

	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(contract_usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : EXIT_OK;
	}
	if (!strcmp(argv[1], "snapshot"))
		return do_snapshot(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show") && argc == 2) {
		text = contract_default_text(&len);
		fwrite(text, 1, len, stdout);
		return EXIT_OK;
	}
	ab_error("abicap contract: unknown subcommand '%s' (use show or "
		 "snapshot)", argv[1]);
	return EXIT_USAGE;
}
