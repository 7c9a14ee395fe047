// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The harness's skip rule (tests/harness.h), run by tests/install/harness.sh:
 * with ABICAP_SKIP_DEMO set this test cannot run and skips with that
 * reason; with ABICAP_SKIP_PART_DEMO set it leaves a part unchecked. The
 * script checks what a user sees: the skip counted and shown with its
 * reason, and under CI a failure instead.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include "harness.h"

Test(harness, skips_when_asked)
{
	const char *why = getenv("ABICAP_SKIP_DEMO");
	const char *part = getenv("ABICAP_SKIP_PART_DEMO");

	if (why)
		test_skip("%s", why);
	/* what every machine has: none of these skips */
	require_cpus(1);
	require_path("/", "root directory");
	if (part)
		test_skip_part("%s", part);
}

/* A failure message shows the metric's lines, not the whole scrape. */
Test(harness, metric_lines_are_the_metric_s_only)
{
	const char *text = "# TYPE a counter\na{x=\"1\"} 1\nab 2\na{x=\"2\"} 3\nb 4\n";
	char *l = metric_lines(text, "a{x=\"3\"");

	cr_assert_str_eq(l, "  a{x=\"1\"} 1\n  a{x=\"2\"} 3\n");
	free(l);
	l = metric_lines(text, "c ");
	cr_assert_str_eq(l, "  (none)\n");
	free(l);
}
