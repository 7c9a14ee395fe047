// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <string.h>
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
