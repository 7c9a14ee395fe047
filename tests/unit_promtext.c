// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Label values: escaped as the text format wants, and bounded in length. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "live/promtext.h"

static char *label(const char *v, bool bounded)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	cr_assert(f);
	if (bounded)
		prom_label_bounded(f, "cgroup", v, true, true);
	else
		prom_label(f, "cgroup", v, true, true);
	cr_assert_eq(fclose(f), 0);
	return buf;
}

Test(promtext, short_values_are_as_they_are)
{
	char *a = label("/system.slice/a\"b\\c", true);

	cr_assert_str_eq(a, "cgroup=\"/system.slice/a\\\"b\\\\c\"");
	free(a);
}

/* Issue 32, item 2: a 4 KB path is no 4 KB label, and stays itself. */
Test(promtext, long_values_keep_head_tail_and_a_hash)
{
	static char p1[5000], p2[5000];
	char *a, *b, *c;

	memset(p1, 'a', 4400);
	p1[0] = '/';
	memcpy(p1 + 100, "\xc3\xa9", 2); /* an é across nothing */
	/* a two-byte character where the head is cut (byte 199-200) */
	memcpy(p1 + 199, "\xc3\xa9", 2);
	strcpy(p2, p1);
	p2[2000] = 'b'; /* differs only in the middle */
	a = label(p1, true);
	b = label(p2, true);
	c = label(p1, true);
	cr_assert_lt(strlen(a), PROM_LABEL_MAX);
	cr_assert_str_neq(a, b, "distinct paths, distinct labels");
	cr_assert_str_eq(a, c, "the same path, the same label");
	cr_assert(!strncmp(a, "cgroup=\"/", 9));
	/* cut before the character the byte limit falls in */
	cr_assert(strstr(a, "aaa\xe2\x80\xa6#"), "%s", a);
	cr_assert_null(strstr(a, "\\x"), "no byte of a character left alone: %s", a);
	cr_assert(strstr(a, "\xe2\x80\xa6" "aaaa"));
	cr_assert_eq(a[strlen(a) - 1], '"');
	free(a);
	free(b);
	free(c);
	/* at the bound: as it is */
	memset(p1, 'x', PROM_LABEL_MAX);
	p1[PROM_LABEL_MAX] = 0;
	a = label(p1, true);
	cr_assert_eq(strlen(a), PROM_LABEL_MAX + strlen("cgroup=\"\""));
	free(a);
}
