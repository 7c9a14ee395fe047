// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "lib/escape.h"
#include "lib/sbuf.h"

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
	/*
	 * valid UTF-8 (nearly every name): the string as it is; what the
	 * escaping below writes as \uXXXX (controls, reordering marks) reads
	 * back as those same characters. Only invalid bytes need it ("\xNN").
	 */
	j = json_stringn(s, n);
	if (j)
		return j;
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

void text_printf(FILE *f, const char *fmt, ...)
{
	char small[1024], *text = small, *line, *nl;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(small)) {
		text = malloc(n + 1);
		if (!text)
			return;
		va_start(ap, fmt);
		vsnprintf(text, n + 1, fmt, ap);
		va_end(ap);
	}
	for (line = text; *line; line = nl + 1) {
		size_t len;

		nl = strchrnul(line, '\n');
		len = nl - line;
		/* a line of the output is far shorter than ESCAPE_MAX; cut if not */
		fputs(text_escaped(line, len), f);
		if (!*nl)
			break;
		fputc('\n', f);
	}
	if (text != small)
		free(text);
}
