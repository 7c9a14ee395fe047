// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "lib/hashtab.h"
#include "event/format.h"
#include "live/promtext.h"

static bool valid_utf8(const char *v)
{
	size_t n = strlen(v);

	for (size_t i = 0, k; i < n; i += k)
		if (!(k = utf8_seq_len((const unsigned char *)v + i, n - i)))
			return false;
	return true;
}

void prom_label(FILE *f, const char *name, const char *v, bool first,
		bool is_path)
{
	const unsigned char *s = (const unsigned char *)v;
	bool marked = is_path && !valid_utf8(v);
	size_t n = strlen(v);

	fprintf(f, "%s%s=\"", first ? "" : ",", name);
	for (size_t i = 0; i < n;) {
		size_t k = utf8_seq_len(s + i, n - i);

		if (!k || (marked && s[i] == '\\'))
			fprintf(f, "\\\\x%02x", s[i]); /* the text \xHH */
		else if (s[i] == '\\' || s[i] == '"')
			fprintf(f, "\\%c", s[i]);
		else if (s[i] == '\n')
			fputs("\\n", f);
		else
			fwrite(s + i, 1, k, f);
		i += k ? k : 1;
	}
	fputs(marked ? "/\"" : "\"", f);
}

/* n, lowered to the start of the UTF-8 character it is inside of */
static size_t char_start(const char *v, size_t n)
{
	while (n > 0 && ((unsigned char)v[n] & 0xc0) == 0x80)
		n--;
	return n;
}

void prom_label_bounded(FILE *f, const char *name, const char *v, bool first,
			bool is_path)
{
	size_t n = strlen(v), head, tail;
	char buf[2 * PROM_LABEL_KEEP + 64];

	if (n <= PROM_LABEL_MAX) {
		prom_label(f, name, v, first, is_path);
		return;
	}
	head = char_start(v, PROM_LABEL_KEEP);
	tail = char_start(v, n - PROM_LABEL_KEEP);
	snprintf(buf, sizeof(buf), "%.*s\xe2\x80\xa6#%016" PRIx64 "\xe2\x80\xa6%s",
		 (int)head, v, hash_str(v), v + tail);
	prom_label(f, name, buf, first, is_path);
}
