// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Durations with a unit: "1.5s", "200ms", "2us", "500ns". */
#include <ctype.h>
#include <string.h>
#include "lib/duration.h"

#define YEAR_NS (365ull * 86400 * 1000000000ull)

bool parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct { const char *unit; uint64_t ns; } units[] = {
		{ "s", 1000000000ull }, { "ms", 1000000ull },
		{ "us", 1000ull }, { "ns", 1ull },
	};
	uint64_t ip = 0, frac = 0, fscale = 1;
	const char *p = s;
	bool digits = false;

	if (!s)
		return false;
	for (; isdigit((unsigned char)*p); p++, digits = true) {
		if (ip > YEAR_NS)
			return false;
		ip = ip * 10 + (uint64_t)(*p - '0');
	}
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, digits = true) {
			if (fscale < 1000000000ull) { /* beyond 1 ns: ignored */
				frac = frac * 10 + (uint64_t)(*p - '0');
				fscale *= 10;
			}
		}
	}
	if (!digits)
		return false;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		uint64_t u = units[i].ns;

		if (strcmp(p, units[i].unit))
			continue;
		if (ip > YEAR_NS / u)
			return false;
		*ns = ip * u + (frac * u + fscale / 2) / fscale;
		return *ns <= YEAR_NS;
	}
	return false;
}
