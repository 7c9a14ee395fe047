// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>
#include "kernel.h"
#include "util.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif

static bool has_cap(const struct __user_cap_data_struct d[2], int cap)
{
	return d[cap / 32].effective & (1u << (cap % 32));
}

int kernel_check_privilege(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};

	if (syscall(SYS_capget, &h, d)) {
		snprintf(err, errlen, "cannot read this process's capabilities: %s",
			 strerror(errno));
		return EXIT_PRIV;
	}
	if (has_cap(d, CAP_SYS_ADMIN))
		return EXIT_OK;
	if (has_cap(d, CAP_BPF) && has_cap(d, CAP_PERFMON))
		return EXIT_OK;
	snprintf(err, errlen, "missing capability %s: run as root (sudo abicap ...) "
		 "or grant CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN before Linux 5.8)",
		 !has_cap(d, CAP_BPF) ? (!has_cap(d, CAP_PERFMON) ?
			"CAP_BPF and CAP_PERFMON" : "CAP_BPF") : "CAP_PERFMON");
	return EXIT_PRIV;
}

const char *kernel_release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		return "unknown";
	return u.release;
}
