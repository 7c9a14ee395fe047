// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The running kernel's release. */
#include <stdio.h>
#include <sys/utsname.h>
#include "abi/kernel.h"

bool kernel_older_than(int want_major, int want_minor)
{
	int major = 0, minor = 0;

	if (sscanf(kernel_release(), "%d.%d", &major, &minor) != 2)
		return false;
	return major < want_major || (major == want_major && minor < want_minor);
}

const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}
