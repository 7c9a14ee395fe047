// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <string.h>
#include "lib/strfit.h"

bool vstrfit(char *buf, size_t len, const char *fmt, va_list ap)
{
	int n;

	if (!len)
		return false;
	n = vsnprintf(buf, len, fmt, ap);
	if (n >= 0 && (size_t)n < len)
		return true;
	if (n < 0)
		buf[0] = '\0';
	else if (len > 3)
		memcpy(buf + len - 4, "...", 4);
	return false;
}

bool strfit(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;
	bool ok;

	va_start(ap, fmt);
	ok = vstrfit(buf, len, fmt, ap);
	va_end(ap);
	return ok;
}
