// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "abi/btf_source.h"
#include "capfile/capfile.h"
#include "fuzz.h"
#include "lib/util.h"

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

uint8_t *fuzz_take_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;

	FUZZ_ASSERT(f && !fseek(f, 0, SEEK_END));
	*len = ftell(f);
	buf = malloc(*len ? *len : 1);
	rewind(f);
	FUZZ_ASSERT(buf && fread(buf, 1, *len, f) == *len);
	fclose(f);
	unlink(path);
	return buf;
}

const char *fuzz_capture(const uint8_t *data, size_t size)
{
	static char path[64];
	const uint8_t *nul = memchr(data, 0, size);
	char err[ERRMSG_LEN], *meta;
	const char *cap;
	uint8_t *buf;
	size_t len, rlen = nul ? size - (nul - data) - 1 : 0;
	struct capw *w;

	if (size >= 8 && !memcmp(data, "ABICAP\r\n", 8))
		return fuzz_file(data, size);
	if (!nul || rlen > CAPFILE_CHUNK_RAW)
		return NULL;
	if (!path[0])
		snprintf(path, sizeof(path), "/dev/shm/abicap-fuzz-%d.abicap",
			 (int)getpid());
	meta = strndup((const char *)data, nul - data);
	FUZZ_ASSERT(meta);
	w = capw_open(path, true, meta, err, sizeof(err));
	free(meta);
	FUZZ_ASSERT(w);
	if (rlen)
		FUZZ_ASSERT(!capw_add(w, nul + 1, rlen));
	FUZZ_ASSERT(!capw_close(w, "{}", err, sizeof(err)));
	/* into the memfd, so that no file outlives the run */
	buf = fuzz_take_file(path, &len);
	cap = fuzz_file(buf, len);
	free(buf);
	return cap;
}

void fuzz_kernels(struct btf *k[2], const char *target)
{
	static const char *const files[2] = {
		FUZZ_SEEDS "/fuzz_btf/raw-6x.btf",
		FUZZ_SEEDS "/fuzz_btf/raw-5.10.btf",
	};
	char err[ERRMSG_LEN];

	for (int i = 0; i < 2; i++) {
		k[i] = btf_open(files[i], NULL, err, sizeof(err));
		if (!k[i]) {
			fprintf(stderr, "%s: %s\n", target, err);
			exit(1);
		}
	}
}
