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
#include <unistd.h>
#include <bpf/btf.h>
#include "abi/btf_source.h"
#include "abi/btf_util.h"
#include "cmd/commands.h"
#include "abi/contract.h"
#include "abi/core_relo.h"
#include "abi/objcheck.h"
#include "lib/outfile.h"
#include "event/events.h"
#include "abi/layout.h"
#include "lib/util.h"
#include "lib/bpflog.h"

const char contract_usage[] =
"Usage: abicap contract show\n"
"       abicap contract snapshot [--btf FILE] [--events LIST] [-o FILE [--force]]\n"
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
"          later kernel against it: abicap check --contract FILE --btf NEW\n"
"\n"
"  -b, --btf FILE        the kernel (raw BTF, ELF vmlinux, bzImage); default:\n"
"                        the running kernel\n"
"  -e, --events LIST     events to include (default: all six)\n"
"  -o, --output FILE     write there instead of stdout (created 0600; never\n"
"                        the input, never through a symbolic link, nor in a\n"
"                        directory another user owns or may write; refused\n"
"                        if it exists)\n"
"      --force           replace FILE if it exists, once the new one is\n"
"                        complete\n"
"  -v, --verbose         libbpf's log on stderr\n"
"  -h, --help            show this help\n"
"\n"
"Exit: 0 ok, 1 the kernel lacks BTF, 2 bad usage or input (FILE refused\n"
"included), 4 write error.\n";

/*
 * The document, indented, to path (NULL: stdout; outfile_open: a file
 * replaced only with force, once the new one is complete), never onto
 * input (the kernel or object it describes): EXIT_OK or an exit code.
 */
static int write_json(json_t *doc, const char *path, bool force,
		      const char *input)
{
	char err[ERRMSG_LEN];
	struct outfile of;
	FILE *out = stdout;
	int ret = 0;

	if (path) {
		if (input)
			ret = outfile_distinct(path, input, "the input", err,
					       sizeof(err));
		if (!ret)
			ret = outfile_open(&of, path, force, err, sizeof(err));
		if (ret) {
			ab_error("%s", err);
			return ret;
		}
		out = fdopen(of.fd, "w");
		if (!out) {
			ab_error("cannot write '%s': %s", path, strerror(errno));
			outfile_abort(&of, false);
			return EXIT_RUNTIME;
		}
		of.fd = -1; /* the stream's now */
	}
	json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', out);
	if (!path) {
		if (!fflush(out))
			return EXIT_OK;
		ab_error("cannot write 'stdout': %s", strerror(errno));
		return EXIT_RUNTIME;
	}
	ret = fflush(out) || fsync(fileno(out)) ? errno : 0;
	if (fclose(out) && !ret)
		ret = errno;
	if (ret) {
		ab_error("cannot write '%s': %s", path, strerror(ret));
		outfile_abort(&of, false);
		return EXIT_RUNTIME;
	}
	if (outfile_commit(&of, err, sizeof(err))) {
		ab_error("%s", err);
		return EXIT_RUNTIME;
	}
	return EXIT_OK;
}

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
		{ "force", no_argument, NULL, 'F' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	const char *btf_path = NULL, *out_path = NULL;
	unsigned int mask = EVENTS_ALL;
	bool verbose = false, force = false;
	char err[ERRMSG_LEN], source[256];
	struct contract *c;
	struct btf *btf;
	json_t *snap;
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
		case 'F':
			force = true;
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
		return btf_open_kernel_has_no_btf() ? EXIT_KERNEL : EXIT_USAGE;
	}
	c = contract_default(err, sizeof(err));
	if (!c) {
		ab_error("%s", err);
		btf__free(btf);
		return EXIT_RUNTIME;
	}
	btf_source_label(btf_path, source, sizeof(source));
	snap = snapshot(c, btf, mask, source);
	ret = write_json(snap, out_path, force, btf_path);
	json_decref(snap);
	contract_free(c);
	btf__free(btf);
	return ret;
}

/* The final member's type at the end of a relocation's access string. */
static void local_field_type(const struct core_object *o,
			     const struct core_access *a, char *out, size_t len)
{
	__u32 id = btf_skip_mods(o->btf, a->type_id);
	const char *p = a->access;
	bool first = true;

	while (*p) {
		char *end;
		unsigned long idx = strtoul(p, &end, 10);
		const struct btf_type *t = btf__type_by_id(o->btf, id);

		if (end == p || !t)
			break;
		p = *end == ':' ? end + 1 : end;
		if (first) {
			first = false;
		} else if (btf_is_composite(t) && idx < btf_vlen(t)) {
			id = btf_members(t)[idx].type;
		} else if (btf_is_array(t)) {
			id = btf_array(t)->type;
		}
		id = btf_skip_mods(o->btf, id);
	}
	btf_type_str(o->btf, id, out, len, NULL, 0);
}

/*
 * Notes for what the contract format cannot check itself: every program's
 * attach point and argument count, every type and enum relocation.
 */
static json_t *derived_notes(const struct core_object *o,
			     const struct obj_result *guards)
{
	json_t *notes = json_array();
	char note[320];

	for (int i = 0; i < o->nprogs; i++) {
		const struct core_prog *p = &o->progs[i];

		if (p->ctx_args >= 0)
			snprintf(note, sizeof(note), "program %s (%s) reads %d "
				 "argument%s of %s", p->name, p->section,
				 p->ctx_args, p->ctx_args == 1 ? "" : "s",
				 p->target);
		else
			snprintf(note, sizeof(note), "program %s attaches to %s",
				 p->name, p->section);
		json_array_append_new(notes, json_string(note));
	}
	for (int i = 0; i < o->nrelos; i++) {
		const struct core_access *a = &o->relos[i];

		if (core_kind_is_field(a->kind))
			continue;
		snprintf(note, sizeof(note), "program %s: %s of %s (%s)",
			 a->program, core_kind_str(a->kind),
			 guards->relos[i].r.what,
			 guards->relos[i].guarded ? "guarded" : "unguarded");
		json_array_append_new(notes, json_string(note));
	}
	json_array_append_new(notes, json_string("argument counts, attach points, "
		"type and enum relocations are checked by abicap check --object"));
	return notes;
}

/* Tracepoint programs' targets, as contract events (the contract needs one). */
static json_t *derived_events(const struct core_object *o,
			      const struct obj_result *guards)
{
	json_t *events = json_array();

	for (int i = 0; i < o->nprogs; i++) {
		const struct core_prog *p = &o->progs[i];
		bool dup = false;

		if (strcmp(p->attach, "tp_btf") && strcmp(p->attach, "raw_tp") &&
		    strcmp(p->attach, "tp"))
			continue;
		for (int k = 0; k < i; k++)
			dup |= !strcmp(o->progs[k].target, p->target) &&
			       (!strcmp(o->progs[k].attach, "tp_btf") ||
				!strcmp(o->progs[k].attach, "raw_tp") ||
				!strcmp(o->progs[k].attach, "tp"));
		if (dup)
			continue;
		json_array_append_new(events, json_pack(
			"{s:s, s:s, s:[], s:o}", "name", p->target, "group",
			p->attach, "args", "notes", json_array_size(events) ?
			json_array() : derived_notes(o, guards)));
	}
	return events;
}

static const char *prog_target(const struct core_object *o, const char *prog)
{
	for (int i = 0; i < o->nprogs; i++)
		if (!strcmp(o->progs[i].name, prog) && o->progs[i].target[0] &&
		    (!strcmp(o->progs[i].attach, "tp_btf") ||
		     !strcmp(o->progs[i].attach, "raw_tp") ||
		     !strcmp(o->progs[i].attach, "tp")))
			return o->progs[i].target;
	return NULL;
}

/*
 * A guarded access through a ___flavour, in a program that also reads the
 * type directly behind a guard: the other branch, an alternative.
 */
static bool is_alternative(const struct core_object *o,
			   const struct obj_result *guards, int i)
{
	const struct core_access *a = &o->relos[i];

	if (!strcmp(a->root, a->flavour) || !guards->relos[i].guarded)
		return false;
	for (int k = 0; k < o->nrelos; k++)
		if (!strcmp(o->relos[k].program, a->program) &&
		    !strcmp(o->relos[k].root, a->root) &&
		    !strcmp(o->relos[k].flavour, o->relos[k].root) &&
		    core_kind_is_field(o->relos[k].kind))
			return true;
	return false;
}

/*
 * One field per (root, path) read: required unless every read is guarded;
 * accesses through a ___flavour of a type the program also reads directly
 * become alternatives of those fields.
 */
static json_t *derived_fields(const struct core_object *o,
			      const struct obj_result *guards, json_t *events)
{
	json_t *fields = json_array();

	for (int i = 0; i < o->nrelos; i++) {
		const struct core_access *a = &o->relos[i];
		bool dup = false, required = false;
		char type[TYPE_STR_MAX], feeds[256];
		json_t *evs, *f, *alts;
		const char *t;

		if (!core_kind_is_field(a->kind) || is_alternative(o, guards, i))
			continue;
		for (int k = 0; k < i && !dup; k++)
			dup = core_kind_is_field(o->relos[k].kind) &&
			      !strcmp(o->relos[k].flavour, a->flavour) &&
			      !strcmp(o->relos[k].path, a->path);
		if (dup)
			continue;
		evs = json_array();
		alts = json_array();
		for (int k = 0; k < o->nrelos; k++) {
			const struct core_access *b = &o->relos[k];

			if (!core_kind_is_field(b->kind) || strcmp(b->root, a->root))
				continue;
			if (!strcmp(b->flavour, a->flavour) && !strcmp(b->path, a->path)) {
				required |= !guards->relos[k].guarded;
				t = prog_target(o, b->program);
				if (t && !json_array_size(evs))
					json_array_append_new(evs, json_string(t));
			} else if (strcmp(b->flavour, b->root) &&
				   !strcmp(b->program, a->program) &&
				   guards->relos[k].guarded && !json_array_size(alts)) {
				local_field_type(o, b, type, sizeof(type));
				json_array_append_new(alts, json_pack(
					"{s:s, s:s}", "field", b->path, "type", type));
			}
		}
		if (!json_array_size(evs)) {
			json_decref(evs);
			json_decref(alts);
			continue; /* a program with no tracepoint to tie it to */
		}
		local_field_type(o, a, type, sizeof(type));
		snprintf(feeds, sizeof(feeds), "read by %s (%s)", a->program,
			 a->section);
		f = json_pack("{s:s, s:s, s:s, s:b, s:o, s:s}", "struct", a->root,
			      "field", a->path, "type", type, "required", required,
			      "events", evs, "feeds", feeds);
		if (json_array_size(alts))
			json_object_set_new(f, "alternatives", alts);
		else
			json_decref(alts);
		json_array_append_new(fields, f);
	}
	(void)events;
	return fields;
}

static int do_from_object(int argc, char **argv)
{
	const char *out_path = NULL, *obj;
	bool force = false;
	char err[ERRMSG_LEN], desc[512], name[320];
	struct core_object o;
	struct obj_result guards;
	struct btf *self;
	json_t *events, *doc;
	int ch, ret = EXIT_OK;
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":o:h", opts, NULL)) != -1) {
		if (ch == 'o') {
			out_path = optarg;
		} else if (ch == 'F') {
			force = true;
		} else if (ch == 'h') {
			fputs(contract_usage, stdout);
			return EXIT_OK;
		} else {
			return usage_error(argc, argv, ch, "contract");
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
	if (objcheck(&o, self, &guards)) {
		ab_error("out of memory");
		core_object_close(&o);
		return EXIT_RUNTIME;
	}
	events = derived_events(&o, &guards);
	if (!json_array_size(events)) {
		ab_error("%s has no tp_btf, raw_tp or tp program: a contract "
			 "needs a tracepoint (use abicap check --object for "
			 "other program types)", obj);
		json_decref(events);
		ret = EXIT_USAGE;
		goto out;
	}
	snprintf(name, sizeof(name), "derived from %s", obj);
	snprintf(desc, sizeof(desc), "What %s relies on, as its CO-RE relocations "
		 "and section names show. Field types are pinned as compiled "
		 "(libbpf itself accepts integers of another size).", obj);
	doc = json_pack("{s:i, s:s, s:s, s:o, s:o}", "abicap_contract",
			CONTRACT_VERSION, "name", name, "description", desc,
			"events", events, "fields",
			derived_fields(&o, &guards, events));
	ret = write_json(doc, out_path, force, obj);
	json_decref(doc);
out:
	obj_result_free(&guards);
	core_object_close(&o);
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
	if (!strcmp(argv[1], "from-object"))
		return do_from_object(argc - 1, argv + 1);
	if (!strcmp(argv[1], "show") && argc > 2) {
		ab_error("unexpected argument '%s' (contract show takes none; see "
			 "abicap contract --help)", argv[2]);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "show")) {
		text = contract_default_text(&len);
		fwrite(text, 1, len, stdout);
		return EXIT_OK;
	}
	ab_error("abicap contract: unknown subcommand '%s' (use show, snapshot "
		 "or from-object)", argv[1]);
	return EXIT_USAGE;
}
