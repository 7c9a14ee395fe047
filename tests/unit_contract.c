// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The contract file: the built-in one, and every way a file can be wrong. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "abi/contract.h"
#include "abi/core_relo.h"
#include "event/events.h"
#include "lib/util.h"

static char err[ERRMSG_LEN];

Test(contract, builtin_parses_and_covers_every_event)
{
	struct contract *c = contract_default(err, sizeof(err));
	const struct c_event *sw;

	cr_assert(c, "%s", err);
	cr_assert_eq(c->version, 1);
	cr_assert_str_eq(c->name, "abicap-default");
	/*
	 * the six captured events, sched_process_fork for record -- CMD,
	 * sched_process_free for the pid filter, and the three csd_*
	 * tracepoints of sched_wakeup's wakers, optional (6.3+)
	 */
	cr_assert_eq(c->nevents, ABICAP_EV_COUNT + 5);
	for (int i = 0; i < 3; i++) {
		static const char *const csd[] = { "csd_queue_cpu",
			"csd_function_entry", "csd_function_exit" };
		const struct c_event *e = contract_event(c, csd[i]);

		cr_assert(e, "%s missing", csd[i]);
		cr_assert_eq(e->ev, -1);
		cr_assert_not(e->required);
		cr_assert_str_eq(e->since, "6.3");
		cr_assert(e->fallback && strstr(e->fallback, "sched_waking"));
	}
	cr_assert(contract_event(c, "sched_switch")->required);
	cr_assert_eq(contract_event(c, "sched_process_free")->ev, -1);
	cr_assert_eq(contract_event(c, "sched_process_free")->nargs, 1);
	cr_assert_eq(contract_event(c, "sched_process_fork")->ev, -1);
	cr_assert_eq(contract_event(c, "sched_process_fork")->nargs, 2);
	for (int ev = 0; ev < ABICAP_EV_COUNT; ev++) {
		const struct c_event *e = contract_event(c, event_name(ev));

		cr_assert(e, "%s missing", event_name(ev));
		cr_assert_eq(e->ev, ev);
		cr_assert(e->has_record);
		cr_assert_gt(e->nargs, 0);
		/* every item says what it feeds */
		for (int i = 0; i < e->nargs; i++)
			cr_assert(e->args[i].feeds && *e->args[i].feeds);
		cr_assert(e->record.feeds);
	}
	sw = contract_event(c, "sched_switch");
	cr_assert_eq(sw->nargs, 4);
	cr_assert_str_eq(sw->args[1].type, "struct task_struct *");
	cr_assert_str_eq(sw->args[3].name, "prev_state");
	cr_assert_not(sw->args[3].required);
	cr_assert_str_eq(sw->args[3].since, "5.18");
	cr_assert_str_eq(sw->record.fields[0].type, "char[16]");
	for (int i = 0; i < c->nfields; i++)
		cr_assert(c->fields[i].feeds && c->fields[i].nevent_names > 0);
	contract_free(c);
}

/*
 * Keeping the contract honest: every struct field the compiled BPF object
 * reads through CO-RE is declared in the built-in contract (as a field or an
 * alternative), and every declared field is read by the object.
 */
Test(contract, declares_exactly_what_the_bpf_object_reads)
{
	struct contract *c = contract_default(err, sizeof(err));
	struct core_access *a;
	int n = core_relos_read("build/abicap.bpf.o", &a, err, sizeof(err));
	bool used[64][8] = { { false } };
	int fields = 0;

	cr_assert(c, "%s", err);
	cr_assert_gt(n, 0, "no CO-RE relocations read: %s", err);
	cr_assert_leq(c->nfields, 64);
	for (int i = 0; i < n; i++) {
		bool declared = false;

		if (!core_kind_is_field(a[i].kind))
			continue;
		fields++;
		for (int f = 0; f < c->nfields && !declared; f++) {
			const struct c_field *cf = &c->fields[f];

			if (strcmp(cf->struct_name, a[i].root))
				continue;
			if (!strcmp(cf->field, a[i].path)) {
				declared = used[f][0] = true;
				break;
			}
			for (int k = 0; k < cf->nalts && k < 7; k++)
				if (!strcmp(cf->alts[k].field, a[i].path))
					declared = used[f][k + 1] = true;
		}
		cr_assert(declared, "%s (insn %u, %s) reads %s.%s, which "
			  "bpf/contract.json does not declare", a[i].section,
			  a[i].insn_off, core_kind_str(a[i].kind), a[i].flavour,
			  a[i].path);
	}
	cr_assert_gt(fields, 10);
	for (int f = 0; f < c->nfields; f++) {
		if (!c->fields[f].core)
			continue; /* a kernel property, not read by the programs */
		cr_assert(used[f][0], "the contract declares %s.%s, which no "
			  "program reads", c->fields[f].struct_name,
			  c->fields[f].field);
		for (int k = 0; k < c->fields[f].nalts; k++)
			cr_assert(used[f][k + 1],
				  "the contract declares "
				  "alternative %s.%s, which no program reads",
				  c->fields[f].struct_name,
				  c->fields[f].alts[k].field);
	}
	free(a);
	contract_free(c);
}

static void expect_error(const char *json, const char *says)
{
	struct contract *c = contract_parse(json, strlen(json), "t.json", err,
					    sizeof(err));

	cr_assert_null(c, "accepted: %s", json);
	cr_assert(strstr(err, says), "'%s' lacks '%s'", err, says);
	cr_assert_null(strchr(err, '\n'), "one line: %s", err);
}

#define EV_OK "{\"name\":\"sched_waking\",\"group\":\"sched\",\"args\":[]}"
#define TOP(ev, rest) "{\"abicap_contract\":1,\"name\":\"t\",\"events\":[" ev "]" rest "}"

Test(contract, minimal_user_contract_parses)
{
	const char *j = TOP(EV_OK, ",\"fields\":[{\"struct\":\"task_struct\","
			    "\"field\":\"pid\",\"type\":\"s32\",\"events\":"
			    "[\"sched_waking\"],\"feeds\":\"pid\"}]");
	struct contract *c = contract_parse(j, strlen(j), "t.json", err,
					    sizeof(err));

	cr_assert(c, "%s", err);
	cr_assert_eq(c->fields[0].events, 1u << ABICAP_EV_SCHED_WAKING);
	cr_assert(c->fields[0].required); /* the default */
	contract_free(c);
}

Test(contract, malformed_json_gives_line_and_column)
{
	expect_error("{\n  \"abicap_contract\": 1,\n  \"name\": \"x\",,\n}",
		     "contract t.json:3:15: ");
	expect_error("", "contract t.json:1:0:");
	expect_error("{\"abicap_contract\":1", "contract t.json:1:");
	expect_error("\x89PNG\r\n\x1a\n\x00\x01", "contract t.json:1:");
}

Test(contract, content_errors_name_the_place)
{
	expect_error("[]", "the top level must be an object");
	expect_error("{\"abicap_contract\":2,\"name\":\"x\",\"events\":[]}",
		     "format version 2; this abicap reads version 1");
	expect_error("{\"abicap_contract\":\"1\"}", "'abicap_contract' must be an integer");
	expect_error(TOP(EV_OK, ",\"extra\":1"), "unknown key 'extra' (known: "
		     "abicap_contract, name, description, describes, events, fields)");
	expect_error("{\"abicap_contract\":1,\"name\":\"t\",\"events\":[]}",
		     "'events' is empty");
	expect_error(TOP(EV_OK "," EV_OK, ""),
		     "events[1]: duplicate event 'sched_waking' (also events[0])");
	expect_error(TOP("{\"name\":\"a\",\"group\":\"g\",\"args\":[{\"name\":"
			 "\"x\",\"type\":\"int\",\"feeds\":\"y\"}]}", ""),
		     "events[0].args[0]: type 'int' is not one of");
	expect_error(TOP("{\"name\":\"a\",\"group\":\"g\",\"args\":[{\"name\":"
			 "\"x\",\"type\":\"u32\",\"feeds\":\"y\",\"requird\":"
			 "true}]}", ""),
		     "events[0].args[0]: unknown key 'requird'");
	expect_error(TOP("{\"name\":\"a\",\"group\":\"g\",\"args\":[{\"name\":"
			 "\"x\",\"type\":\"u32\",\"feeds\":\"y\",\"required\":"
			 "\"yes\"}]}", ""),
		     "events[0].args[0]: 'required' must be true or false");
	expect_error(TOP("{\"name\":\"a\",\"group\":\"g\",\"args\":[7]}", ""),
		     "events[0].args[0]: must be an object");
	expect_error(TOP("{\"name\":\"a b\",\"group\":\"g\",\"args\":[]}", ""),
		     "event name 'a b' is not a C identifier");
	expect_error(TOP(EV_OK, ",\"fields\":[{\"struct\":\"task_struct\","
			 "\"field\":\"pid\",\"type\":\"s32\",\"events\":"
			 "[\"sched_nope\"],\"feeds\":\"pid\"}]"),
		     "fields[0]: events[0]: 'sched_nope' is not an event of this contract");
	expect_error(TOP(EV_OK, ",\"fields\":[{\"struct\":\"task_struct\","
			 "\"type\":\"s32\",\"events\":[],\"feeds\":\"pid\"}]"),
		     "fields[0]: 'field' is missing");
	/* duplicate keys are a JSON-level error, with the place */
	expect_error("{\"abicap_contract\":1,\"abicap_contract\":1}",
		     "duplicate object key");
}

#define FIELD(s, f) "{\"struct\":\"" s "\",\"field\":\"" f "\",\"type\":" \
	"\"s32\",\"events\":[\"sched_waking\"],\"feeds\":\"pid\"}"

/*
 * A struct member given twice is refused as a second event is (issue 23:
 * 95,035 copies of one field were accepted); one of a kind in another
 * struct is not a duplicate. Found by sorting: 100,000 fields, the last a
 * copy of the first, take well under a second.
 */
Test(contract, duplicate_fields_are_refused)
{
	const char *ok = TOP(EV_OK, ",\"fields\":[" FIELD("task_struct", "pid")
			     "," FIELD("rq", "pid") "," FIELD("task_struct",
			     "tgid") "]");
	struct contract *c = contract_parse(ok, strlen(ok), "t.json", err,
					    sizeof(err));
	char *big, *at;
	size_t n = 100000, cap = n * 128;

	cr_assert(c, "%s", err);
	contract_free(c);
	expect_error(TOP(EV_OK, ",\"fields\":[" FIELD("task_struct", "pid") ","
			 FIELD("rq", "cpu") "," FIELD("task_struct", "pid") ","
			 FIELD("task_struct", "pid") "]"),
		     "contract t.json: fields[2]: duplicate field "
		     "'task_struct.pid' (also fields[0]): give each struct "
		     "member once");
	big = malloc(cap);
	cr_assert(big);
	at = big + sprintf(big, "{\"abicap_contract\":1,\"name\":\"t\","
			   "\"events\":[" EV_OK "],\"fields\":[");
	for (size_t i = 0; i < n; i++)
		at += sprintf(at, "%s{\"struct\":\"task_struct\",\"field\":"
			      "\"f%zu\",\"type\":\"s32\",\"events\":"
			      "[\"sched_waking\"],\"feeds\":\"pid\"}",
			      i ? "," : "", i + 1 < n ? i : 0);
	strcpy(at, "]}");
	c = contract_parse(big, strlen(big), "t.json", err, sizeof(err));
	free(big);
	cr_assert_null(c, "100,000 fields with a copy accepted");
	cr_assert(strstr(err, "fields[99999]: duplicate field 'task_struct.f0' "
			 "(also fields[0])"), "%s", err);
}

Test(contract, load_errors_name_the_file)
{
	cr_assert_null(contract_load("/nonexistent/c.json", err, sizeof(err)));
	cr_assert_str_eq(err, "cannot open contract '/nonexistent/c.json': "
			 "No such file or directory");
}

Test(contract, type_spellings)
{
	char out[TYPE_STR_MAX];

	cr_assert(type_canonical("struct   task_struct*", out, sizeof(out)));
	cr_assert_str_eq(out, "struct task_struct *");
	cr_assert(type_canonical(" u32 ", out, sizeof(out)));
	cr_assert_str_eq(out, "u32");
	cr_assert(type_canonical("char[16]", out, sizeof(out)));
	cr_assert(type_canonical("void *", out, sizeof(out)));
	cr_assert(type_canonical("u8 **", out, sizeof(out)));
	cr_assert_str_eq(out, "u8 **");
	cr_assert_not(type_canonical("void", out, sizeof(out)));
	cr_assert_not(type_canonical("int", out, sizeof(out)));
	cr_assert_not(type_canonical("char[0]", out, sizeof(out)));
	cr_assert_not(type_canonical("struct 9x *", out, sizeof(out)));
	cr_assert_not(type_canonical("u32 * x", out, sizeof(out)));
}

/* What from-object derives from abicap's own object is in the built-in contract. */
Test(contract, derived_from_own_object_matches_builtin)
{
	struct contract *c = contract_default(err, sizeof(err));
	char cmd[256], *out = NULL;
	size_t len = 0;
	FILE *p;
	struct contract *d;

	cr_assert(c, "%s", err);
	snprintf(cmd, sizeof(cmd), "%s contract from-object build/abicap.bpf.o",
		 getenv("ABICAP_BIN") ? getenv("ABICAP_BIN") : "build/abicap");
	p = popen(cmd, "r");
	cr_assert(p);
	cr_assert_gt(getdelim(&out, &len, '\0', p), 0);
	cr_assert_eq(pclose(p), 0);
	d = contract_parse(out, strlen(out), "derived", err, sizeof(err));
	cr_assert(d, "%s", err);
	cr_assert_eq(d->nfields, 24);
	for (int i = 0; i < d->nfields; i++) {
		bool found = false;

		for (int k = 0; k < c->nfields && !found; k++)
			found = !strcmp(c->fields[k].struct_name, d->fields[i].struct_name) &&
				!strcmp(c->fields[k].field, d->fields[i].field) &&
				!strcmp(c->fields[k].type, d->fields[i].type);
		cr_assert(found, "derived %s.%s (%s) is not in bpf/contract.json",
			  d->fields[i].struct_name, d->fields[i].field,
			  d->fields[i].type);
	}
	free(out);
	contract_free(d);
	contract_free(c);
}
