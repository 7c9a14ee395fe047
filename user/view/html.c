// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Untrusted strings into HTML text and into JSON inside <script>. */
#include <string.h>
#include "lib/sbuf.h"
#include "view/html.h"

#define STR_MAX 8192

void html_text(FILE *f, const char *s, size_t n)
{
	char buf[STR_MAX * 4 + 1];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	sb_text_str(&sb, s, n < STR_MAX ? n : STR_MAX);
	for (size_t i = 0; i < sb.len; i++) {
		switch (buf[i]) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(buf[i], f);
		}
	}
}

void html_notice(FILE *f, const char *notice)
{
	if (!notice || !*notice)
		return;
	fputs("<b style=\"color:#b00000\">Incomplete:</b> ", f);
	html_text(f, notice, strlen(notice));
	fputs("<br>", f);
}

void html_json_str(FILE *f, const char *s, size_t n)
{
	char buf[STR_MAX * 6 + 3];
	struct sbuf sb;

	sb_init(&sb, buf, sizeof(buf));
	sb_json_str(&sb, s, n < STR_MAX ? n : STR_MAX);
	for (size_t i = 0; i < sb.len; i++) {
		if (buf[i] == '<' || buf[i] == '>' || buf[i] == '&')
			fprintf(f, "\\u%04x", (unsigned char)buf[i]);
		else
			fputc(buf[i], f);
	}
}
