// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* The capabilities loading and attaching abicap's programs takes. */
#include <errno.h>
#include <linux/capability.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
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

/* The initial user namespace's inode (include/linux/proc_ns.h, since 3.8). */
#define PROC_USER_INIT_INO 0xEFFFFFFDU

bool privilege_in_user_ns(void)
{
	struct stat st;

	/* without /proc nothing says so: the kernel's answer will */
	return !stat("/proc/self/ns/user", &st) &&
	       st.st_ino != PROC_USER_INIT_INO;
}

int privilege_denied(const char *what, char *err, size_t errlen)
{
	if (privilege_in_user_ns())
		snprintf(err, errlen, "missing privilege: %s: %s: abicap runs "
			 "in a user namespace (unshare -U, a rootless "
			 "container), whose capabilities do not reach the "
			 "kernel's BPF (it takes CAP_BPF and CAP_PERFMON, or "
			 "CAP_SYS_ADMIN, in the initial user namespace): run as "
			 "root on the host (sudo abicap ...)", what,
			 strerror(EPERM));
	else
		snprintf(err, errlen, "missing privilege: %s: %s although the "
			 "capabilities are there: a security module (SELinux, "
			 "AppArmor) or kernel lockdown refuses BPF to this "
			 "process; see dmesg and the security module's log",
			 what, strerror(EPERM));
	return EXIT_PRIV;
}
