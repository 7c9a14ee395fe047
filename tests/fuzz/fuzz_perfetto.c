// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The Perfetto exporter's input: abicap export on a capture file (either
 * form of fuzz_capture()), the trace written to /dev/null.
 */
#include "commands.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *cap = fuzz_capture(data, size);

	if (cap) {
		int rc = export_perfetto(cap, "/dev/null", true);

		FUZZ_ASSERT(rc == EXIT_OK || rc == EXIT_USAGE ||
			    rc == EXIT_RUNTIME || rc == EXIT_DAMAGED);
	}
	return 0;
}
