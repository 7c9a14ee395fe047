// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The Perfetto exporter's input: abicap export on a capture file. An input
 * that starts with the capture magic is the file itself; any other is
 * "METADATA JSON\0RAW RECORDS", written out as a well-formed capture (one
 * chunk, checksum right) so that arbitrary records get past the chunk
 * checks into the record decoder and the Perfetto writer.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "capfile.h"
#include "commands.h"
#include "fuzz.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	const uint8_t *nul = memchr(data, 0, size);
	char err[ERRMSG_LEN], *meta;
	struct capw *w;

	if (size >= 8 && !memcmp(data, "ABICAP\r\n", 8)) {
		export_perfetto(fuzz_file(data, size), "/dev/null", true);
		return 0;
	}
	if (!nul || size - (nul - data) - 1 > CAPFILE_CHUNK_RAW)
		return 0;
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/abicap-fuzz-%d.abicap",
			 (int)getpid());
	meta = strndup((const char *)data, nul - data);
	FUZZ_ASSERT(meta);
	w = capw_open(path, true, meta, err, sizeof(err));
	free(meta);
	FUZZ_ASSERT(w);
	if (size - (nul - data) > 1)
		FUZZ_ASSERT(!capw_add(w, nul + 1, size - (nul - data) - 1));
	FUZZ_ASSERT(!capw_close(w, "{}", err, sizeof(err)));
	export_perfetto(path, "/dev/null", true);
	unlink(path);
	return 0;
}
