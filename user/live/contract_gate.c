// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A contract against the dependencies of abicap's own BPF object. */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>
#include "abi/contract_deps.h"
#include "live/capture.h"
#include "live/contract_gate.h"
#include "lib/util.h"

/* The object as core_relo reads it: a file, here an anonymous one. */
static int open_own_object(struct core_object *o, char *err, size_t errlen)
{
	size_t len, done = 0;
	const char *bytes = capture_elf_bytes(&len);
	char path[64];
	int fd = memfd_create("abicap.bpf.o", MFD_CLOEXEC), ret;

	if (fd < 0) {
		snprintf(err, errlen, "cannot read abicap's own BPF object: "
			 "memfd_create: %s", strerror(errno));
		return -1;
	}
	while (done < len) {
		ssize_t n = write(fd, bytes + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			snprintf(err, errlen, "cannot read abicap's own BPF "
				 "object: %s", n < 0 ? strerror(errno) : "short write");
			close(fd);
			return -1;
		}
		done += n;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	ret = core_object_open(path, o, err, errlen);
	close(fd);
	return ret;
}

int contract_gate(const struct contract *c, unsigned int needs, char *err,
		  size_t errlen)
{
	struct core_object o;
	char why[ERRMSG_LEN];
	int ret;

	if (open_own_object(&o, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		return EXIT_RUNTIME;
	}
	ret = contract_deps_check(c, &o, needs, err, errlen) ? EXIT_USAGE :
							       EXIT_OK;
	core_object_close(&o);
	return ret;
}
