/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* abicap check --object: a BPF object's relocations and attach points against kernels. */
#ifndef ABICAP_OBJCHECK_H
#define ABICAP_OBJCHECK_H

#include <stdbool.h>
#include <stdio.h>
#include "abi/core_match.h"
#include "abi/core_relo.h"
#include "abi/verdict_out.h"

struct obj_relo {
	struct core_result r;
	/* behind an exists-check in its program, whatever the kernel answers */
	bool guarded;
	/* the verifier gets to it on this kernel (a failure there rejects the load) */
	bool reachable;
};

struct obj_prog {
	bool attach_ok;
	char attach_detail[256];
	bool calls_subprog; /* BPF-to-BPF calls: .text not followed */
	char reach_detail[192]; /* why branches were not followed, or "" */
	bool loads;
};

struct obj_result {
	struct obj_prog *progs; /* one per core_object.progs */
	int nprogs;
	struct obj_relo *relos; /* one per core_object.relos */
	int failed; /* failing relocations the verifier reaches */
	int failed_unreached; /* failing in code that is dead on this kernel */
	bool loads; /* the prediction for the whole object */
	bool subprog_fails; /* a failing relocation in .text is reached */
	unsigned long long analysed; /* of OBJ_BUDGET */
};

/*
 * The budget of analysis for one object on one kernel: passes over a
 * program's instructions and relocations (two per exists-check, one more
 * per program), in instructions plus relocations. Real objects need well
 * under 1/1000th of it (abicap's own: see README).
 */
#define OBJ_BUDGET (1ull << 24)

/* 0, -1 (out of memory), or -E2BIG: the object needs more than OBJ_BUDGET. */
int objcheck(const struct core_object *o, const struct btf *btf,
	     struct obj_result *res);
void obj_result_free(struct obj_result *r);
/* objcheck()'s failure rc on obj as one line in msg; the exit code (2: past the budget). */
int objcheck_error(int rc, const char *obj, char *msg, size_t len);

/* The results for n kernels, labelled by sources[], as text, JSON or JUnit. */
void objcheck_print(FILE *f, enum vformat fmt, const char *obj_path,
		    const struct core_object *o, const struct obj_result *res,
		    const char *const *sources, int n);

#endif
