// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * abicap diff OLD NEW: what changed in the events between two kernels, judged
 * by the append-only rule of TRACE_EVENT_ABI: no argument or record field
 * deleted, retyped or moved; new ones only at the end.
 */
#include <getopt.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_source.h"
#include "lib/escape.h"
#include "cmd/commands.h"
#include "abi/contract.h"
#include "event/events.h"
#include "abi/layout.h"
#include "lib/util.h"
#include "lib/bpflog.h"

const char diff_usage[] =
"Usage: abicap diff OLD NEW [--events LIST | --all] [--format text|json]\n"
"Compare two kernels' BTF (raw BTF, ELF vmlinux or any vmlinuz each) under the\n"
"append-only rule: per event, the tracepoint prototype (arguments added,\n"
"removed, moved or retyped) and the tracefs record layout\n"
"(trace_event_raw_*: fields deleted, retyped, moved or inserted before the\n"
"end break it; fields appended at the end do not).\n"
"\n"
"  -e, --events LIST     events of the built-in contract to compare (default:\n"
"                        all six abicap captures)\n"
"  -a, --all             every tracepoint and record struct either kernel has\n"
"  -f, --format FMT      text (default) or json\n"
"  -v, --verbose         libbpf's log on stderr\n"
"  -h, --help            show this help\n"
"\n"
"Arguments are aligned by type (common prefix, then suffix); record fields by\n"
"name. With --format json an error is also {\"error\": ...} on stdout.\n"
"Exit: 0 compatible, 1 a breaking change or a kernel without BTF, 2 bad usage\n"
"or input.\n";

struct change {
	char scope[96]; /* event, or record struct */
	char what[96]; /* "arg 4", "record trace_event_raw_x.field", "tracepoint" */
	const char *kind; /* "added", "removed", "deleted", "retyped", ... */
	char old_type[TYPE_STR_MAX];
	char new_type[TYPE_STR_MAX];
	int old_idx, new_idx;
	bool breaking;
};

struct diff {
	struct change *v;
	int n, cap;
	int breaking, compatible;
};

static struct change *add_change(struct diff *d, const char *scope,
				 const char *kind, bool breaking)
{
	struct change *c;

	if (d->n == d->cap) {
		d->cap = d->cap ? d->cap * 2 : 64;
		d->v = realloc(d->v, d->cap * sizeof(*d->v));
		if (!d->v) {
			ab_error("out of memory");
			exit(EXIT_RUNTIME);
		}
	}
	c = &d->v[d->n++];
	memset(c, 0, sizeof(*c));
	snprintf(c->scope, sizeof(c->scope), "%s", scope);
	c->kind = kind;
	c->breaking = breaking;
	c->old_idx = c->new_idx = -1;
	if (breaking)
		d->breaking++;
	else
		d->compatible++;
	return c;
}

struct find_ctx {
	struct diff *d;
	const char *scope; /* the tracepoint, or the record struct */
	bool args; /* arguments: 1-based, named by position; fields: 0-based */
};

static void on_finding(void *ctx, const struct lfinding *f)
{
	struct find_ctx *x = ctx;
	int base = x->args ? 1 : 0;
	struct change *c;

	if (f->kind == LC_SAME)
		return;
	c = add_change(x->d, x->scope, x->args && f->kind == LC_DELETED ?
		       "removed" : lchange_str(f->kind), lchange_breaks(f->kind));
	/* an argument is named by where it was, or, if new, where it is */
	if (x->args)
		snprintf(c->what, sizeof(c->what), "arg %d",
			 (f->old_idx >= 0 ? f->old_idx : f->new_idx) + 1);
	else
		snprintf(c->what, sizeof(c->what), "record %s.%s", x->scope,
			 f->name);
	if (f->old_type)
		snprintf(c->old_type, sizeof(c->old_type), "%s", f->old_type);
	if (f->new_type)
		snprintf(c->new_type, sizeof(c->new_type), "%s", f->new_type);
	c->old_idx = f->old_idx >= 0 ? f->old_idx + base : -1;
	c->new_idx = f->new_idx >= 0 ? f->new_idx + base : -1;
}

static void diff_proto(struct diff *d, const char *tp, const struct btf *ob,
		       const struct btf *nb)
{
	struct lfield *o, *n;
	int no = proto_layout(ob, tp, &o), nn = proto_layout(nb, tp, &n);
	struct find_ctx ctx = { d, tp, true };
	struct change *c;

	if (no >= 0 && nn >= 0) {
		proto_compare(o, no, n, nn, on_finding, &ctx);
	} else if (no >= 0 || nn >= 0) {
		c = add_change(d, tp, nn < 0 ? "removed" : "added", nn < 0);
		snprintf(c->what, sizeof(c->what), "tracepoint");
	}
	free(o);
	free(n);
}

static void diff_record(struct diff *d, const char *sname, const struct btf *ob,
			const struct btf *nb)
{
	struct lfield *o, *n;
	int no = record_layout(ob, sname, &o), nn = record_layout(nb, sname, &n);
	struct find_ctx ctx = { d, sname, false };

	if (no >= 0 && nn >= 0) {
		layout_compare(o, no, n, nn, on_finding, &ctx);
	} else if (no >= 0 || nn >= 0) {
		struct change *c = add_change(d, sname, nn < 0 ? "removed" :
					      "added", nn < 0);

		snprintf(c->what, sizeof(c->what), "record %s", sname);
	}
	free(o);
	free(n);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every name of a kind with a prefix, in either BTF, sorted and unique. */
static int collect_names(const struct btf *a, const struct btf *b, int kind,
			 const char *prefix, char ***out)
{
	const struct btf *both[2] = { a, b };
	char **names = NULL;
	int n = 0, cap = 0, w = 0;

	for (int k = 0; k < 2; k++) {
		__u32 cnt = btf__type_cnt(both[k]);

		for (__u32 id = 1; id < cnt; id++) {
			const struct btf_type *t = btf__type_by_id(both[k], id);
			const char *name = btf__name_by_offset(both[k], t->name_off);

			if (btf_kind(t) != kind || strncmp(name, prefix, strlen(prefix)))
				continue;
			if (n == cap) {
				cap = cap ? cap * 2 : 1024;
				names = realloc(names, cap * sizeof(*names));
				if (!names)
					return -1;
			}
			names[n++] = (char *)name + strlen(prefix);
		}
	}
	qsort(names, n, sizeof(*names), cmp_str);
	for (int i = 0; i < n; i++)
		if (!w || strcmp(names[w - 1], names[i]))
			names[w++] = names[i];
	*out = names;
	return w;
}

/* Returns how many tracepoints and records were compared. */
static int diff_all(struct diff *d, const struct btf *ob, const struct btf *nb)
{
	char **names, full[256];
	int n, total = 0;

	n = collect_names(ob, nb, BTF_KIND_TYPEDEF, "btf_trace_", &names);
	for (int i = 0; i < n; i++)
		diff_proto(d, names[i], ob, nb);
	free(names);
	total += n > 0 ? n : 0;
	n = collect_names(ob, nb, BTF_KIND_STRUCT, "trace_event_raw_", &names);
	for (int i = 0; i < n; i++) {
		snprintf(full, sizeof(full), "trace_event_raw_%s", names[i]);
		diff_record(d, full, ob, nb);
	}
	free(names);
	return total + (n > 0 ? n : 0);
}

/* "sched_switch arg 4", "record trace_event_raw_x.f", "tracepoint x" */
static void item_name(const struct change *c, char *out, size_t len)
{
	if (!strncmp(c->what, "record", 6))
		snprintf(out, len, "%s", c->what);
	else if (!strcmp(c->what, "tracepoint"))
		snprintf(out, len, "tracepoint %s", c->scope);
	else
		snprintf(out, len, "%s %s", c->scope, c->what);
}

static void print_text(const struct diff *d, const char *old, const char *new,
		       int scopes)
{
	text_printf(stdout, "abicap diff: %s -> %s (append-only rule)\n", old, new);
	if (!d->n)
		text_printf(stdout, "no changes in %d compared items\n", scopes);
	for (int i = 0; i < d->n; i++) {
		const struct change *c = &d->v[i];
		char item[224];

		item_name(c, item, sizeof(item));
		text_printf(stdout, "%-9s %s: %s", c->breaking ? "BREAKING" : "ok", item,
		       c->kind);
		if (c->old_type[0] && c->new_type[0] &&
		    strcmp(c->old_type, c->new_type))
			text_printf(stdout, ", %s -> %s", c->old_type, c->new_type);
		else if (c->old_type[0] && !c->new_type[0])
			text_printf(stdout, ", was %s", c->old_type);
		else if (c->new_type[0] && !c->old_type[0])
			text_printf(stdout, ", %s", c->new_type);
		if (c->old_idx >= 0 && c->new_idx >= 0 && c->old_idx != c->new_idx)
			text_printf(stdout, " (position %d -> %d)", c->old_idx, c->new_idx);
		else if (c->old_idx >= 0 && c->new_idx < 0 && !strncmp(c->what, "record", 6))
			text_printf(stdout, " (was at %d)", c->old_idx);
		else if (c->new_idx >= 0 && c->old_idx < 0 && !strncmp(c->what, "record", 6))
			text_printf(stdout, " (at %d)", c->new_idx);
		text_printf(stdout, "\n");
	}
	text_printf(stdout, "result: %d breaking, %d compatible change%s: %s\n", d->breaking,
	       d->compatible, d->compatible == 1 ? "" : "s",
	       d->breaking ? "NOT compatible under the append-only rule" :
			     "compatible");
}

static void print_json(const struct diff *d, const char *old, const char *new)
{
	json_t *changes = json_array(), *root;

	for (int i = 0; i < d->n; i++) {
		const struct change *c = &d->v[i];
		json_t *o = json_pack("{s:s, s:s, s:s, s:b}", "scope", c->scope,
				      "item", c->what, "change", c->kind,
				      "breaking", c->breaking);

		json_object_set_new(o, "old_type", c->old_type[0] ?
				    json_string(c->old_type) : json_null());
		json_object_set_new(o, "new_type", c->new_type[0] ?
				    json_string(c->new_type) : json_null());
		json_object_set_new(o, "old_index", c->old_idx >= 0 ?
				    json_integer(c->old_idx) : json_null());
		json_object_set_new(o, "new_index", c->new_idx >= 0 ?
				    json_integer(c->new_idx) : json_null());
		json_array_append_new(changes, o);
	}
	root = json_pack("{s:s, s:s, s:o, s:i, s:i, s:b}", "old", old, "new", new,
			 "changes", changes, "breaking", d->breaking,
			 "compatible_changes", d->compatible,
			 "append_only_compatible", !d->breaking);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
}

int do_diff(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "events", required_argument, NULL, 'e' },
		{ "all", no_argument, NULL, 'a' },
		{ "format", required_argument, NULL, 'f' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	unsigned int mask = EVENTS_ALL;
	bool all = false, events_given = false, json = false, verbose = false;
	char err[ERRMSG_LEN];
	struct btf *ob = NULL, *nb = NULL;
	struct contract *c = NULL;
	struct diff d = { 0 };
	int ch, ret = EXIT_USAGE, scopes = 0;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":e:af:vh", opts, NULL)) != -1) {
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
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				ab_error("--format '%s': use text or json", optarg);
				return EXIT_USAGE;
			}
			json = !strcmp(optarg, "json");
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			fputs(diff_usage, stdout);
			return EXIT_OK;
		default:
			return usage_error(argc, argv, ch, "diff");
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
	ob = btf_open(argv[optind], err, sizeof(err));
	if (ob)
		nb = btf_open(argv[optind + 1], err, sizeof(err));
	if (!ob || !nb) {
		ab_error("%s", err);
		if (btf_open_kernel_has_no_btf())
			ret = EXIT_KERNEL;
		goto out;
	}
	c = contract_default(err, sizeof(err));
	if (!c) {
		ab_error("%s", err);
		goto out;
	}
	if (all) {
		scopes = diff_all(&d, ob, nb);
	} else {
		/* records shared by several events are compared once */
		for (int i = 0; i < c->nevents; i++) {
			const struct c_event *e = &c->events[i];
			bool seen = false;

			if (e->ev < 0 || !(mask & (1u << e->ev)))
				continue;
			diff_proto(&d, e->name, ob, nb);
			scopes++;
			for (int j = 0; j < i && e->has_record; j++)
				seen |= c->events[j].has_record &&
					(mask & (1u << c->events[j].ev)) &&
					!strcmp(c->events[j].record.struct_name,
						e->record.struct_name);
			if (e->has_record && !seen) {
				diff_record(&d, e->record.struct_name, ob, nb);
				scopes++;
			}
		}
	}
	if (json)
		print_json(&d, argv[optind], argv[optind + 1]);
	else
		print_text(&d, argv[optind], argv[optind + 1], scopes);
	ret = d.breaking ? EXIT_KERNEL : EXIT_OK;
out:
	free(d.v);
	contract_free(c);
	btf__free(ob);
	btf__free(nb);
	return ret;
}
