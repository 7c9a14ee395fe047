// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The capture-file reader as abicap report drives it: header, metadata,
 * chunks, records, trailer, then the analysis and both report formats
 * (stdout is closed by the fuzz runs: -close_fd_mask). The input is a
 * capture, or metadata and records made into one (fuzz_capture()).
 */
#include "commands.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text[] = { "report", (char *)fuzz_capture(data, size), NULL };
	char *json[] = { "report", "--json", text[1], NULL };

	if (!text[1])
		return 0;
	do_report(2, text);
	do_report(3, json);
	return 0;
}
