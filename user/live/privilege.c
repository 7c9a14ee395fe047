// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The capabilities loading and attaching abicap's programs takes. */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "abi/kernel.h"
#include "lib/util.h"
#include "live/features.h"
#include "live/privilege.h"

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

int privilege_check(char *err, size_t errlen)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2] = {};
	bool bpf, perfmon;

	if (syscall(SYS_capget, &h, d)) {
		snprintf(err, errlen, "cannot read this process's capabilities: %s",
			 strerror(errno));
		return EXIT_PRIV;
	}
	if (has_cap(d, CAP_SYS_ADMIN))
		return EXIT_OK;
	/* before Linux 5.8 CAP_SYS_ADMIN is the only way */
	if (!feature_cap_bpf()) {
		snprintf(err, errlen, "missing capability CAP_SYS_ADMIN: this "
			 "kernel (%s) predates CAP_BPF and CAP_PERFMON; run as "
			 "root (sudo abicap ...)", kernel_release());
		return EXIT_PRIV;
	}
	bpf = has_cap(d, CAP_BPF);
	perfmon = has_cap(d, CAP_PERFMON);
	if (bpf && perfmon)
		return EXIT_OK;
	snprintf(err, errlen, "missing capability %s: run as root (sudo abicap "
		 "...) or grant CAP_BPF and CAP_PERFMON (setcap "
		 "cap_bpf,cap_perfmon+ep on the binary, or capsh --addamb)",
		 !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" :
		 !bpf ? "CAP_BPF" : "CAP_PERFMON");
	return EXIT_PRIV;
}

int privilege_perfbuf_denied(size_t bytes, char *err, size_t errlen)
{
	snprintf(err, errlen, "missing capability CAP_IPC_LOCK: %zu MB of perf "
		 "buffers exceed the locked-memory limit for perf "
		 "(kernel.perf_event_mlock_kb per CPU, then ulimit -l); grant "
		 "CAP_IPC_LOCK, raise ulimit -l, or give a smaller --buffer-size",
		 bytes >> 20);
	return EXIT_PRIV;
}
