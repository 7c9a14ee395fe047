// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The contract parser (contract_parse), then the checker and the verdict
 * writers on what it accepts, held against two kernel BTFs shaped like a
 * 6.x and a 5.10 kernel (tests/fuzz/corpus/fuzz_btf/raw-*.btf).
 */
#include <bpf/btf.h>
#include <stdlib.h>
#include "abi/btf_source.h"
#include "abi/checker.h"
#include "abi/contract.h"
#include "fuzz.h"
#include "lib/util.h"
#include "abi/verdict_out.h"

static struct btf *kbtf[2];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	fuzz_kernels(kbtf, "fuzz_contract");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[ERRMSG_LEN] = "";
	struct contract *c;

	c = contract_parse((const char *)data, size, "fuzz", err, sizeof(err));
	if (!c) {
		FUZZ_ASSERT(err[0]);
		return 0;
	}
	for (int i = 0; i < 2; i++) {
		struct check_result res = { 0 };

		if (!contract_check(c, kbtf[i], &res)) {
			check_worst(&res, ~0u);
			for (int f = VF_TEXT; f <= VF_JUNIT; f++)
				verdicts_print(fuzz_null(), f, &res, "fuzz", NULL,
					       c->name, i);
		}
		check_result_free(&res);
	}
	contract_free(c);
	return 0;
}
