// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE /* memmem */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include "abi/kernel_id.h"

bool kernel_banner(const void *b, size_t len, char *release, size_t rlen)
{
	static const char tag[] = "Linux version ";
	const char *p = b, *end = p + len;

	while ((p = memmem(p, end - p, tag, sizeof(tag) - 1))) {
		const char *r = p + sizeof(tag) - 1, *e = r;

		/* a format string ("Linux version %s") is not the banner */
		while (e < end && e - r < 64 && isgraph((unsigned char)*e))
			e++;
		if (e > r && isdigit((unsigned char)*r) && e < end && *e == ' ') {
			snprintf(release, rlen, "%.*s", (int)(e - r), r);
			return true;
		}
		p = r;
	}
	return false;
}

void kernel_id_running(struct kernel_id *k)
{
	struct utsname u;

	memset(k, 0, sizeof(*k));
	if (uname(&u))
		return;
	snprintf(k->release, sizeof(k->release), "%s", u.release);
	/* named as the images are: arm64, not aarch64 */
	snprintf(k->arch, sizeof(k->arch), "%.*s", (int)sizeof(k->arch) - 1,
		 !strcmp(u.machine, "aarch64") ? "arm64" : u.machine);
}

void kernel_id_note(struct kernel_id *k, const void *b, size_t len,
		    const char *arch)
{
	if (arch && !k->arch[0])
		snprintf(k->arch, sizeof(k->arch), "%.*s",
			 (int)strcspn(arch, " "), arch);
	if (!k->release[0])
		kernel_banner(b, len, k->release, sizeof(k->release));
}
