// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A diff as text (one line a change) or JSON, on stdout. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "abi/btf_diff_out.h"
#include "lib/escape.h"

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

/* what a "char signedness" change is */
static const char *char_note(const struct change *c)
{
	if (!strcmp(c->new_char, "unsigned"))
		return "plain char: signed -> unsigned; Linux 6.2+ builds with "
		       "-funsigned-char";
	return "plain char: unsigned -> signed";
}

void diff_print_text(const struct diff *d, const char *old, const char *new,
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
		if (c->old_char)
			text_printf(stdout, ", %s (%s)", c->new_type, char_note(c));
		else if (c->old_type[0] && c->new_type[0] &&
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

void diff_print_json(const struct diff *d, const char *old, const char *new)
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
		if (c->old_char) {
			json_object_set_new(o, "old_char", json_string(c->old_char));
			json_object_set_new(o, "new_char", json_string(c->new_char));
			json_object_set_new(o, "note", json_string(char_note(c)));
		}
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
