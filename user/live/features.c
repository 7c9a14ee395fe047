// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include "live/features.h"

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/*
 * PR_CAPBSET_READ fails with EINVAL for a capability the kernel does not
 * know (capabilities(7)); CAP_PERFMON (38) and CAP_BPF came together in
 * Linux 5.8.
 */
bool feature_cap_bpf(void)
{
	return prctl(PR_CAPBSET_READ, CAP_BPF, 0, 0, 0) >= 0;
}

/*
 * Before Linux 6.5 (commit 1d28635abcf1, "bpf: Move unprivileged checks
 * into map_create() and bpf_prog_load()"; backported to some stable
 * lines) every bpf(2) command checked kernel.unprivileged_bpf_disabled,
 * not only creating maps and loading programs. Asked the way it matters:
 * a map lookup with the calling thread's effective capabilities cleared
 * (the kernel checks those only), restored from the permitted set after.
 * No process or thread is created: record's command stays its last child.
 */
int feature_bpf_fd_unprivileged(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct had[2], none[2];
	__u32 key = 0, value;
	int fd, ret, e;

	if (syscall(SYS_capget, &h, had))
		return -errno;
	fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "abicap_probe", 4, 4, 1, NULL);
	if (fd < 0)
		return -errno;
	memcpy(none, had, sizeof(none));
	none[0].effective = none[1].effective = 0;
	if (syscall(SYS_capset, &h, none)) {
		ret = -errno;
		close(fd);
		return ret;
	}
	ret = !bpf_map_lookup_elem(fd, &key, &value);
	e = errno;
	if (syscall(SYS_capset, &h, had))
		ret = -errno;
	else if (!ret && e != EPERM)
		ret = -e;
	close(fd);
	return ret;
}
