// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A contract against the dependencies of abicap's own BPF object. */
#include <stdio.h>
#include <string.h>
#include "abi/contract_deps.h"
#include "live/capture.h"
#include "live/contract_gate.h"
#include "lib/util.h"

/* abicap's own object, embedded in the binary (no file, no /proc needed). */
static int open_own_object(struct core_object *o, char *err, size_t errlen)
{
	size_t len;
	const char *bytes = capture_elf_bytes(&len);

	return core_object_open_mem(bytes, len, "abicap.bpf.o", o, err, errlen);
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
