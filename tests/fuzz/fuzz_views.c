// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The views of a capture (user/view/) on arbitrary captures (fuzz_capture:
 * the file itself, or metadata and raw records made into one): timechart
 * and heatmap pages and the wakeups table, through the analysis' observer.
 * Each ends with a documented exit code; a page, when written, is whole
 * (it ends with </html>). Memory errors are the sanitizers'.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fuzz.h"
#include "lib/duration.h"
#include "lib/util.h"
#include "view/heatmap_file.h"
#include "view/timechart_file.h"
#include "view/wakeups_file.h"

static char out[64];

static void cleanup(void)
{
	unlink(out);
}

static bool code_ok(int rc)
{
	return rc == EXIT_OK || rc == EXIT_USAGE || rc == EXIT_RUNTIME ||
	       rc == EXIT_DAMAGED;
}

/* After a page was written (rc 0 or 5): it is there and whole. */
static void whole(int rc)
{
	uint8_t *b;
	size_t len;

	if (rc != EXIT_OK && rc != EXIT_DAMAGED)
		return;
	b = fuzz_take_file(out, &len);
	FUZZ_ASSERT(b && len > 8 && !memcmp(b + len - 8, "</html>\n", 8));
	free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *cap = fuzz_capture(data, size);
	/* pages 430 and 400 px wide: time axes of 200 px beside the labels */
	struct tc_args ta = { .width = 430, .win = TIMEWIN_ALL, .force = true };
	struct hm_args ha = { .width = 400, .height = 300, .cell_w = 4,
			      .win = TIMEWIN_ALL, .force = true };
	FILE *null;
	int rc;

	if (!out[0]) {
		snprintf(out, sizeof(out), "/dev/shm/abicap-fuzz-%d.html",
			 (int)getpid());
		atexit(cleanup);
	}
	if (!cap)
		return 0;
	rc = timechart_write(cap, out, &ta);
	FUZZ_ASSERT(code_ok(rc));
	whole(rc);
	ha.sel.cgroup = size % 2 ? "/" : NULL;
	rc = heatmap_write(cap, out, &ha);
	FUZZ_ASSERT(code_ok(rc));
	whole(rc);
	null = freopen("/dev/null", "w", stdout);
	FUZZ_ASSERT(null);
	rc = wakeups_report(cap, &TIMEWIN_ALL, size % 3 == 0, 5, size % 5 == 0);
	FUZZ_ASSERT(code_ok(rc));
	return 0;
}
