// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The capture-file reader as abicap report drives it: header, metadata,
 * chunks, records, trailer, then the analysis and both report formats
 * (stdout is closed by the fuzz runs: -close_fd_mask). The input is a
 * capture, or metadata and records made into one (fuzz_capture()).
 */
#include "cmd/commands.h"
#include "fuzz.h"
#include "lib/util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text[] = { "report", (char *)fuzz_capture(data, size), NULL };
	char *json[] = { "report", "--format", "json", text[1], NULL };

	if (!text[1])
		return 0;
	for (int i = 0; i < 2; i++) {
		int rc = i ? do_report(4, json) : do_report(2, text);

		/* read, refused as bad input (2), out of memory (4), damaged (5) */
		FUZZ_ASSERT(rc == EXIT_OK || rc == EXIT_USAGE ||
			    rc == EXIT_RUNTIME || rc == EXIT_DAMAGED);
	}
	return 0;
}
