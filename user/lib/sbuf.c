// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "lib/sbuf.h"

void sb_init(struct sbuf *sb, char *buf, size_t cap)
{
	sb->p = buf;
	sb->len = 0;
	sb->cap = cap;
	sb->overflow = false;
	buf[0] = 0;
}

static void sb_putn(struct sbuf *sb, const char *s, size_t n)
{
	if (sb->len + n >= sb->cap) {
		sb->overflow = true;
		return;
	}
	memcpy(sb->p + sb->len, s, n);
	sb->len += n;
	sb->p[sb->len] = 0;
}

void sb_puts(struct sbuf *sb, const char *s)
{
	sb_putn(sb, s, strlen(s));
}

void sb_printf(struct sbuf *sb, const char *fmt, ...)
{
	size_t room = sb->cap - sb->len;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(sb->p + sb->len, room, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= room) {
		sb->p[sb->len] = 0;
		sb->overflow = true;
		return;
	}
	sb->len += n;
}

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef)
		len = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		len = 4;
	else
		return 0;
	/* the second byte's range excludes overlongs and surrogates */
	if (c == 0xe0)
		lo = 0xa0;
	else if (c == 0xed)
		hi = 0x9f;
	else if (c == 0xf0)
		lo = 0x90;
	else if (c == 0xf4)
		hi = 0x8f;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * s[0..n), up to a NUL. Valid UTF-8 of two or more bytes and printable ASCII
 * go through as they are (JSON escapes '"' and '\\'; text escapes the C1
 * controls, which some terminals obey, as their two bytes). Control bytes become
 * \u00XX in JSON and \xHH in text. Bytes that are not UTF-8 cannot be said in
 * JSON: they become the four characters \xHH there too.
 */
static void sb_escaped(struct sbuf *sb, const char *str, size_t n, bool json)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	while (i < n && s[i]) {
		size_t k = utf8_seq_len(s + i, strnlen(str + i, n - i));

		/* C1 controls (U+0080-U+009F, 0xC2 0x80-0x9F): CSI to some terminals */
		bool c1 = k == 2 && s[i] == 0xc2 && s[i + 1] < 0xa0;

		if (c1 && !json) {
			sb_printf(sb, "\\x%02x\\x%02x", s[i], s[i + 1]);
		} else if (k == 1 && s[i] >= 0x20 && s[i] < 0x7f) {
			if (json && (s[i] == '"' || s[i] == '\\'))
				sb_putn(sb, "\\", 1);
			sb_putn(sb, str + i, 1);
		} else if (k > 1) {
			sb_putn(sb, str + i, k);
		} else if (json && k == 1) {
			sb_printf(sb, "\\u%04x", s[i]);
		} else {
			sb_printf(sb, json ? "\\\\x%02x" : "\\x%02x", s[i]);
		}
		i += k ? k : 1;
	}
}

void sb_json_str(struct sbuf *sb, const char *s, size_t n)
{
	sb_putn(sb, "\"", 1);
	sb_escaped(sb, s, n, true);
	sb_putn(sb, "\"", 1);
}

void sb_text_str(struct sbuf *sb, const char *s, size_t n)
{
	sb_escaped(sb, s, n, false);
}
