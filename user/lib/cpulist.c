// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lib/cpulist.h"

static bool read_cpu(const char **p, long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return false;
	*out = strtol(*p, &end, 10);
	*p = end;
	return *out <= 1 << 20;
}

bool parse_cpulist(const char *list, uint8_t *set, int ncpus, char *err,
		   size_t errlen)
{
	const char *p = list;

	memset(set, 0, ncpus);
	for (;;) {
		long lo, hi;

		if (!read_cpu(&p, &lo))
			goto bad;
		hi = lo;
		if (*p == '-') {
			p++;
			if (!read_cpu(&p, &hi) || hi < lo)
				goto bad;
		}
		if (hi >= ncpus) {
			snprintf(err, errlen, "-C %s: CPU %ld does not exist "
				 "(this machine has CPUs 0-%d)", list, hi,
				 ncpus - 1);
			return false;
		}
		for (long c = lo; c <= hi; c++)
			set[c] = 1;
		if (!*p)
			return true;
		if (*p++ != ',')
			goto bad;
	}
bad:
	snprintf(err, errlen, "-C '%s' is not a CPU list; write it like "
		 "0 or 0-3 or 0,2-3", list);
	return false;
}
