// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include "lib/escape.h"
#include "abi/verdict_out.h"

static const char *result_word(const struct check_result *r, bool strict)
{
	if (r->count[V_BROKEN])
		return "broken";
	if (r->count[V_DEGRADED])
		return strict ? "degraded (fails under --strict)" :
				"satisfied (degraded)";
	return "satisfied";
}

/* "kernel: Linux 6.1.0-57-amd64 (x86_64, little-endian BTF)" */
static void kernel_line(FILE *f, const struct kernel_id *k)
{
	char bo[32] = "";

	if (!k)
		return;
	if (k->byte_order[0])
		snprintf(bo, sizeof(bo), "%s-endian BTF", k->byte_order);
	if (k->release[0] || k->arch[0])
		text_printf(f, "kernel: Linux %s (%s%s%s)\n",
			    k->release[0] ? k->release : "release unknown",
			    k->arch[0] ? k->arch : "architecture unknown",
			    bo[0] ? ", " : "", bo);
	else
		text_printf(f, "kernel: release and architecture unknown (raw "
			    "BTF holds neither%s%s)\n", bo[0] ? "; " : "", bo);
}

static int widest(int w, const char *s)
{
	int n = (int)strlen(s);

	return n > w ? n : w;
}

static void out_text(FILE *f, const struct check_result *r, const char *source,
		     const struct kernel_id *kid, const char *contract,
		     bool strict)
{
	/* as wide as the widest entry (at least as of old): nothing shifts */
	int ws = 16, wi = 24, we = 22, wa = 26;

	for (int i = 0; i < r->n; i++) {
		ws = widest(ws, r->v[i].scope);
		wi = widest(wi, r->v[i].item);
		we = widest(we, r->v[i].expected);
		wa = widest(wa, r->v[i].actual);
	}
	text_printf(f, "abicap check: %s against contract %s\n", source, contract);
	kernel_line(f, kid);
	text_printf(f, "%-*s %-*s %-*s %-*s %s\n", ws, "SCOPE", wi, "ITEM", we,
		    "EXPECTED", wa, "KERNEL HAS", "VERDICT");
	for (int i = 0; i < r->n; i++) {
		const struct verdict *v = &r->v[i];

		text_printf(f, "%-*s %-*s %-*s %-*s %s\n", ws, v->scope, wi,
			    v->item, we, v->expected, wa, v->actual,
			    vstatus_str(v->status));
		if (v->status != V_OK || v->detail[0])
			text_printf(f, "%*s   %s\n", ws, "", v->detail);
	}
	text_printf(f, "result: %d ok, %d degraded, %d broken: %s\n",
		r->count[V_OK], r->count[V_DEGRADED], r->count[V_BROKEN],
		result_word(r, strict));
}

static json_t *str_or_null(const char *s)
{
	return s[0] ? json_string(s) : json_null();
}

static void out_json(FILE *f, const struct check_result *r, const char *source,
		     const struct kernel_id *kid, const char *contract,
		     bool strict)
{
	json_t *items = json_array(), *root;

	for (int i = 0; i < r->n; i++) {
		const struct verdict *v = &r->v[i];

		json_array_append_new(items, json_pack(
			"{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:s}",
			"kind", vkind_str(v->kind), "scope", v->scope,
			"item", v->item, "events", v->event_names,
			"expected", v->expected, "actual", v->actual,
			"verdict", vstatus_str(v->status), "detail", v->detail));
	}
	root = json_pack("{s:s, s:s, s:o, s:{s:i, s:i, s:i}, s:s, s:b}",
			 "source", source, "contract", contract,
			 "items", items, "summary",
			 "ok", r->count[V_OK], "degraded", r->count[V_DEGRADED],
			 "broken", r->count[V_BROKEN],
			 "verdict", r->count[V_BROKEN] ? "broken" :
				    r->count[V_DEGRADED] ? "degraded" : "ok",
			 "strict", strict);
	if (kid)
		json_object_set_new(root, "kernel", json_pack(
			"{s:o, s:o, s:o}", "release", str_or_null(kid->release),
			"arch", str_or_null(kid->arch), "byte_order",
			str_or_null(kid->byte_order)));
	json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', f);
	json_decref(root);
}

void xml_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&apos;", f);
			break;
		default:
			if ((unsigned char)*s < 0x20 && *s != '\t' && *s != '\n')
				fprintf(f, "&#%d;", *s);
			else
				fputc(*s, f);
		}
	}
}

/* One <testcase> per item: broken fails; degraded fails under --strict. */
static void out_junit(FILE *f, const struct check_result *r,
		      const char *source, const char *contract, bool strict)
{
	int failures = r->count[V_BROKEN] + (strict ? r->count[V_DEGRADED] : 0);

	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f, "<testsuites name=\"abicap check\" tests=\"%d\" failures=\"%d\">\n",
		r->n, failures);
	fprintf(f, "  <testsuite name=\"");
	xml_escaped(f, contract);
	fprintf(f, " on ");
	xml_escaped(f, source);
	fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"0\" skipped=\"0\">\n",
		r->n, failures);
	for (int i = 0; i < r->n; i++) {
		const struct verdict *v = &r->v[i];
		bool failed = v->status == V_BROKEN ||
			      (strict && v->status == V_DEGRADED);

		fprintf(f, "    <testcase classname=\"abicap.");
		xml_escaped(f, v->scope);
		fprintf(f, "\" name=\"");
		xml_escaped(f, v->item);
		fprintf(f, "\">");
		if (failed) {
			fprintf(f, "\n      <failure type=\"%s\" message=\"",
				vstatus_str(v->status));
			xml_escaped(f, v->detail);
			fprintf(f, "\">expected ");
			xml_escaped(f, v->expected);
			fprintf(f, "; kernel has ");
			xml_escaped(f, v->actual);
			fprintf(f, "</failure>\n    ");
		} else if (v->status == V_DEGRADED) {
			fprintf(f, "\n      <system-out>degraded: ");
			xml_escaped(f, v->detail);
			fprintf(f, "</system-out>\n    ");
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "  </testsuite>\n</testsuites>\n");
}

void verdicts_print(FILE *f, enum vformat fmt, const struct check_result *r,
		    const char *source, const struct kernel_id *kid,
		    const char *contract, bool strict)
{
	switch (fmt) {
	case VF_TEXT:
		out_text(f, r, source, kid, contract, strict);
		break;
	case VF_JSON:
		out_json(f, r, source, kid, contract, strict);
		break;
	case VF_JUNIT:
		out_junit(f, r, source, contract, strict);
		break;
	}
}

bool parse_vformat(const char *s, enum vformat *out)
{
	if (!strcmp(s, "text"))
		*out = VF_TEXT;
	else if (!strcmp(s, "json"))
		*out = VF_JSON;
	else if (!strcmp(s, "junit"))
		*out = VF_JUNIT;
	else
		return false;
	return true;
}
