// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "promcheck.h"

bool utf8_valid(const unsigned char *s, size_t n)
{
	for (size_t i = 0; i < n;) {
		unsigned int c = s[i], need, cp;

		if (c < 0x80) {
			i++;
			continue;
		}
		if ((c & 0xe0) == 0xc0)
			need = 1, cp = c & 0x1f;
		else if ((c & 0xf0) == 0xe0)
			need = 2, cp = c & 0x0f;
		else if ((c & 0xf8) == 0xf0)
			need = 3, cp = c & 0x07;
		else
			return false;
		if (need >= n - i)
			return false;
		for (unsigned int k = 1; k <= need; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((need == 1 && cp < 0x80) || (need == 2 && cp < 0x800) ||
		    (need == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += need + 1;
	}
	return true;
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       c == ':' || (!first && c >= '0' && c <= '9');
}

/* A name at *p; its length (0: none). */
static size_t name_at(const char *p, const char *end)
{
	size_t n = 0;

	while (p + n < end && name_char(p[n], !n))
		n++;
	return n;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

#define FAIL(...) do { snprintf(why, whylen, __VA_ARGS__); goto out; } while (0)

int prom_check(const char *text, size_t len, prom_label_fn fn, void *ctx,
	       char *why, size_t whylen)
{
	char **keys = NULL, *val = malloc(len + 1), metric[256], label[256];
	size_t nkeys = 0, kcap = 0, line = 0;
	int ret = -1;

	if (!val)
		FAIL("out of memory");
	if (!utf8_valid((const unsigned char *)text, len))
		FAIL("not valid UTF-8");
	for (const char *p = text, *end; p < text + len; p = end + 1) {
		const char *q, *key;
		size_t n;

		line++;
		end = memchr(p, '\n', text + len - p);
		if (!end)
			FAIL("line %zu: no final newline", line);
		if (*p == '#') {
			if (strncmp(p, "# HELP ", 7) && strncmp(p, "# TYPE ", 7))
				FAIL("line %zu: a comment that is not HELP or TYPE", line);
			if (!name_at(p + 7, end))
				FAIL("line %zu: HELP/TYPE without a metric name", line);
			continue;
		}
		key = p;
		n = name_at(p, end);
		if (!n || n >= sizeof(metric))
			FAIL("line %zu: no metric name", line);
		memcpy(metric, p, n);
		metric[n] = 0;
		q = p + n;
		if (q < end && *q == '{') {
			q++;
			while (q < end && *q != '}') {
				size_t vn = 0;

				n = name_at(q, end);
				if (!n || n >= sizeof(label) || q + n + 1 >= end ||
				    q[n] != '=' || q[n + 1] != '"')
					FAIL("line %zu: bad label name", line);
				memcpy(label, q, n);
				label[n] = 0;
				for (q += n + 2; q < end && *q != '"'; q++) {
					if (*q != '\\') {
						val[vn++] = *q;
						continue;
					}
					if (++q >= end)
						break;
					if (*q == 'n')
						val[vn++] = '\n';
					else if (*q == '\\' || *q == '"')
						val[vn++] = *q;
					else
						FAIL("line %zu: escape \\%c", line, *q);
				}
				if (q >= end)
					FAIL("line %zu: label value not closed", line);
				val[vn] = 0;
				if (fn)
					fn(ctx, metric, label, val, vn);
				q++;
				if (q < end && *q == ',')
					q++;
				else if (q < end && *q != '}')
					FAIL("line %zu: junk after a label", line);
			}
			if (q >= end)
				FAIL("line %zu: labels not closed", line);
			q++;
		}
		if (q >= end || *q != ' ')
			FAIL("line %zu: no value", line);
		{
			char *num_end, num[64];
			size_t vl = end - q - 1;

			if (!vl || vl >= sizeof(num))
				FAIL("line %zu: bad value", line);
			memcpy(num, q + 1, vl);
			num[vl] = 0;
			strtod(num, &num_end);
			if (*num_end)
				FAIL("line %zu: value '%s' is not a number", line, num);
		}
		if (nkeys == kcap) {
			char **nk = realloc(keys, (kcap = kcap ? 2 * kcap : 256) *
					    sizeof(*keys));

			if (!nk)
				FAIL("out of memory");
			keys = nk;
		}
		if (!(keys[nkeys] = strndup(key, q - key)))
			FAIL("out of memory");
		nkeys++;
	}
	if (nkeys)
		qsort(keys, nkeys, sizeof(*keys), cmp_str);
	for (size_t i = 1; i < nkeys; i++)
		if (!strcmp(keys[i - 1], keys[i]))
			FAIL("series %s twice", keys[i]);
	ret = 0;
out:
	for (size_t i = 0; i < nkeys; i++)
		free(keys[i]);
	free(keys);
	free(val);
	return ret;
}
