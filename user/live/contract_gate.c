// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* A contract against the dependencies of abicap's own BPF object. */
#include <stdio.h>
#include <string.h>
#include "abi/contract_deps.h"
#include "live/contract_gate.h"
#include "lib/util.h"

int contract_gate(const struct contract *c, const void *obj, size_t len,
		  unsigned int needs, char *err, size_t errlen)
{
	struct core_object o;
	char why[ERRMSG_LEN];
	int ret;

	if (core_object_open_mem(obj, len, "abicap.bpf.o", &o, why, sizeof(why))) {
		snprintf(err, errlen, "%s", why);
		return EXIT_RUNTIME;
	}
	ret = contract_deps_check(c, &o, needs, err, errlen) ? EXIT_USAGE :
							       EXIT_OK;
	core_object_close(&o);
	return ret;
}
