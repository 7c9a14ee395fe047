// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The BTF input path (btf_open: raw BTF, an ELF's .BTF, a bzImage's gzip,
 * xz, zstd or lz4 payload), then the default contract checked against
 * whatever BTF it accepts, as abicap check --btf FILE does. Whatever the
 * file, the work stays within the budget for one file (btf_open's
 * default); a file past it is refused.
 */
#include <bpf/btf.h>
#include <stdlib.h>
#include "abi/btf_source.h"
#include "abi/checker.h"
#include "abi/contract.h"
#include "fuzz.h"
#include "lib/util.h"

static struct contract *contract;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char err[ERRMSG_LEN];

	(void)argc;
	(void)argv;
	contract = contract_default(err, sizeof(err));
	if (!contract) {
		fprintf(stderr, "fuzz_btf: %s\n", err);
		exit(1);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[ERRMSG_LEN] = "";
	struct check_result res = { 0 };
	struct btf_open_info bi = { 0 };
	struct btf *btf;

	btf = btf_open(fuzz_file(data, size), &bi, err, sizeof(err));
	FUZZ_ASSERT(bi.spent.bytes <= 1ull << 30 && bi.spent.streams <= 64 &&
		    bi.spent.btf_bytes <= 256ull << 20);
	if (!btf) {
		FUZZ_ASSERT(err[0]);
		return 0;
	}
	if (!contract_check(contract, btf, &res))
		check_worst(&res, ~0u);
	check_result_free(&res);
	btf__free(btf);
	return 0;
}
