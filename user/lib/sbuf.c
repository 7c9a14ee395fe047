// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
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
 * Whether the UTF-8 sequence s of k bytes is a code point that changes how
 * a line reads (issue 37: a comm holding U+202E reversed a row): the
 * bidirectional controls (U+061C, U+200E/F, U+202A-E, U+2066-9) and the
 * line and paragraph separators (U+2028/9).
 */
static bool reorders(const unsigned char *s, size_t k)
{
	uint32_t cp;

	if (k == 2)
		return s[0] == 0xd8 && s[1] == 0x9c;
	if (k != 3 || s[0] != 0xe2)
		return false;
	cp = (uint32_t)(s[0] & 0x0f) << 12 | (uint32_t)(s[1] & 0x3f) << 6 |
	     (s[2] & 0x3f);
	return cp == 0x200e || cp == 0x200f || (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/*
 * s[0..n), up to a NUL. Valid UTF-8 of two or more bytes and printable ASCII
 * go through as they are (JSON escapes '"' and '\\'; text escapes the C1
 * controls, which some terminals obey, as their two bytes). Control bytes become
 * \u00XX in JSON and \xHH in text. Bytes that are not UTF-8 cannot be said in
 * JSON: they become the four characters \xHH there too. A code point that
 * reorders or breaks a line (reorders()) becomes \uXXXX in both: in JSON an
 * escape that decodes to the same name, in text six characters.
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
		} else if (reorders(s + i, k)) {
			sb_printf(sb, "\\u%04x", k == 2 ? 0x061cu :
				  (unsigned int)((s[i] & 0x0f) << 12 |
				  (s[i + 1] & 0x3f) << 6 | (s[i + 2] & 0x3f)));
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
