// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
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
 * a child without capabilities looks up a map it inherited.
 */
int feature_bpf_fd_unprivileged(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "abicap_probe", 4, 4, 1,
				NULL);
	int status = 0, e = 0;
	pid_t pid;

	if (fd < 0)
		return -errno;
	pid = fork();
	if (!pid) {
		struct __user_cap_header_struct h = {
			.version = _LINUX_CAPABILITY_VERSION_3,
		};
		struct __user_cap_data_struct none[2] = {};
		__u32 key = 0, value;

		if (syscall(SYS_capset, &h, none))
			_exit(2);
		if (!bpf_map_lookup_elem(fd, &key, &value))
			_exit(0);
		_exit(errno == EPERM ? 1 : 3);
	}
	if (pid < 0)
		e = -errno;
	else
		while (waitpid(pid, &status, 0) < 0)
			if (errno != EINTR) {
				e = -errno;
				break;
			}
	close(fd);
	if (e)
		return e;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > 1)
		return -EIO;
	return WEXITSTATUS(status) == 0;
}
