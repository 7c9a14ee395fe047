// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdlib.h>
#include <string.h>
#include "escape.h"
#include "format.h"

const char *text_escaped(const char *s, size_t n)
{
	static char ring[4][4 * ESCAPE_MAX + 4];
	static unsigned int next;
	char *buf = ring[next++ % 4];
	struct sbuf sb;

	s = s ? s : "";
	n = strnlen(s, n);
	sb_init(&sb, buf, sizeof(ring[0]));
	sb_text_str(&sb, s, n < ESCAPE_MAX ? n : ESCAPE_MAX);
	if (n > ESCAPE_MAX) /* longer than any comm or cgroup path: said so */
		sb_puts(&sb, "...");
	return buf;
}

json_t *json_escaped(const char *s, size_t n)
{
	struct sbuf sb;
	json_t *j;
	char *buf;

	s = s ? s : "";
	n = strnlen(s, n);
	/* \u00XX is 6 bytes for one, and the quotes */
	buf = malloc(6 * n + 3);
	if (!buf)
		return NULL;
	sb_init(&sb, buf, 6 * n + 3);
	sb_json_str(&sb, s, n);
	j = json_loadb(buf, sb.len, JSON_DECODE_ANY, NULL);
	free(buf);
	return j;
}
