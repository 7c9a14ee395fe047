// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The Perfetto exporter's input: abicap export on a capture file (either
 * form of fuzz_capture()), the trace written (with --force) over the one
 * of the run before. Invariants: a run that fails leaves the last trace
 * as it was, and no output goes through a symbolic link.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "report/perfetto_export.h"
#include "fuzz.h"
#include "lib/util.h"

static char out[64], link_path[64], sentinel[64];

/* The file holds exactly what it held (size and modification time). */
static bool unchanged(const char *p, const struct stat *was)
{
	struct stat now;

	return !stat(p, &now) && now.st_ino == was->st_ino &&
	       now.st_size == was->st_size &&
	       now.st_mtim.tv_nsec == was->st_mtim.tv_nsec &&
	       now.st_mtim.tv_sec == was->st_mtim.tv_sec;
}

static void cleanup(void)
{
	unlink(out);
	unlink(link_path);
	unlink(sentinel);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *cap = fuzz_capture(data, size);
	struct stat before, s;
	bool had;
	int rc;

	if (!out[0]) {
		FILE *f;

		snprintf(out, sizeof(out), "/dev/shm/abicap-fuzz-%d.pftrace",
			 (int)getpid());
		snprintf(link_path, sizeof(link_path), "/dev/shm/abicap-fuzz-%d.link",
			 (int)getpid());
		snprintf(sentinel, sizeof(sentinel), "/dev/shm/abicap-fuzz-%d.keep",
			 (int)getpid());
		f = fopen(sentinel, "w");
		FUZZ_ASSERT(f && fputs("keep", f) >= 0 && !fclose(f));
		unlink(link_path);
		FUZZ_ASSERT(!symlink(sentinel, link_path));
		atexit(cleanup);
	}
	if (!cap)
		return 0;
	had = !stat(out, &before);
	rc = export_perfetto(cap, out, true);
	FUZZ_ASSERT(rc == EXIT_OK || rc == EXIT_USAGE || rc == EXIT_RUNTIME ||
		    rc == EXIT_DAMAGED);
	if (rc && rc != EXIT_DAMAGED)
		FUZZ_ASSERT(had ? unchanged(out, &before) : stat(out, &s));
	FUZZ_ASSERT(!stat(sentinel, &before));
	FUZZ_ASSERT(export_perfetto(cap, link_path, true) == EXIT_USAGE);
	FUZZ_ASSERT(unchanged(sentinel, &before) && before.st_size == 4);
	return 0;
}
