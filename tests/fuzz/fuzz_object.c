// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * A compiled BPF object (ELF, its .BTF and .BTF.ext) as abicap check
 * --object and contract from-object read it: core_object_open, then every
 * relocation matched and every program's branches followed against a 6.x-
 * and a 5.10-shaped kernel and against the object's own BTF, the results
 * written as text, JSON and JUnit, and the contract from-object derives.
 * Beyond crashes it holds: a refused object says why; the
 * analysis stays within OBJ_BUDGET (a refusal past it is the only other
 * failure); the derived contract is one contract_parse() accepts, as
 * check --contract must.
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "abi/btf_source.h"
#include "abi/contract.h"
#include "abi/contract_derive.h"
#include "abi/objcheck.h"
#include "fuzz.h"
#include "lib/util.h"

static struct btf *kbtf[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	libbpf_set_print(NULL); /* its warnings on every broken ELF */
	fuzz_kernels(kbtf, "fuzz_object");
	return 0;
}

/* objcheck within its budget: 0, or a refusal past it; never another failure. */
static bool checked(const struct core_object *o, const struct btf *b,
		    struct obj_result *r)
{
	int rc = objcheck(o, b, r);

	FUZZ_ASSERT(r->analysed <= OBJ_BUDGET);
	FUZZ_ASSERT(rc == 0 || rc == -E2BIG);
	if (rc)
		obj_result_free(r);
	return !rc;
}

/* What contract from-object writes must read back as a contract. */
static void derive(const struct core_object *o, const struct obj_result *g)
{
	char err[ERRMSG_LEN] = "";
	json_t *events = contract_derived_events(o, g), *doc;
	struct contract *c;
	char *text;

	if (!json_array_size(events)) {
		json_decref(events);
		return; /* refused: no tracepoint program */
	}
	doc = contract_derived(o, g, events, "fuzz.bpf.o");
	text = json_dumps(doc, JSON_INDENT(2));
	FUZZ_ASSERT(text);
	c = contract_parse(text, strlen(text), "derived", err, sizeof(err));
	if (!c)
		fprintf(stderr, "fuzz_object: the derived contract is refused: "
			"%s\n", err);
	FUZZ_ASSERT(c);
	contract_free(c);
	free(text);
	json_decref(doc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const enum vformat fmts[] = { VF_TEXT, VF_JSON, VF_JUNIT };
	char err[ERRMSG_LEN] = "";
	struct obj_result res[2], self;
	const char *src[2] = { "6.x", "5.10" };
	struct core_object o;
	int n = 0;

	if (core_object_open(fuzz_file(data, size), &o, err, sizeof(err))) {
		FUZZ_ASSERT(err[0]); /* the bytes it quotes are escaped by ab_error() */
		return 0;
	}
	for (int k = 0; k < 2; k++)
		if (checked(&o, kbtf[k], &res[n]))
			n++;
	for (int f = 0; f < 3 && n; f++)
		objcheck_print(fuzz_null(), fmts[f], "fuzz.bpf.o", &o, res, src, n);
	for (int k = 0; k < n; k++)
		obj_result_free(&res[k]);
	if (checked(&o, o.btf, &self)) {
		derive(&o, &self);
		obj_result_free(&self);
	}
	core_object_close(&o);
	return 0;
}
