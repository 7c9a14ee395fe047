// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>
#include "fuzz.h"

const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	size_t off = 0;

	if (fd < 0) {
		fd = memfd_create("abicap-fuzz", MFD_CLOEXEC);
		FUZZ_ASSERT(fd >= 0);
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	FUZZ_ASSERT(!ftruncate(fd, 0));
	while (off < size) {
		ssize_t n = pwrite(fd, data + off, size - off, off);

		FUZZ_ASSERT(n > 0);
		off += n;
	}
	return path;
}

FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	FUZZ_ASSERT(f);
	return f;
}
