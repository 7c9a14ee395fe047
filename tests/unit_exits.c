// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * No command exits 0 after a failed write (issue 37): each one's stdout on
 * /dev/full, where every write fails with ENOSPC, must end with exit 4 and
 * a one-line error naming the problem. Before, report (text and JSON),
 * report --slowest and contract show exited 0.
 */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

#define CAP "tests/captures/s390x.abicap" /* a real capture (unit_portable.c) */

/* argv run with stdout on /dev/full: exit code, stderr in err (malloc'd). */
static int run_to_full(char *const argv[], char **err)
{
	int efd[2], status;
	pid_t pid;

	cr_assert_eq(pipe(efd), 0);
	pid = fork();
	cr_assert_geq(pid, 0);
	if (!pid) {
		int full = open("/dev/full", O_WRONLY);

		if (full < 0 || dup2(full, 1) < 0 || dup2(efd[1], 2) < 0)
			_exit(127);
		close(efd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(efd[1]);
	*err = read_all(efd[0]);
	close(efd[0]);
	cr_assert_eq(waitpid(pid, &status, 0), pid);
	cr_assert(WIFEXITED(status), "%s: killed by signal %d", argv[1],
		  WTERMSIG(status));
	return WEXITSTATUS(status);
}

static void assert_write_fails(const char *what, char *const argv[],
			       const char *why)
{
	char *err;
	int code = run_to_full(argv, &err);

	cr_assert_eq(code, 4, "%s to /dev/full: exit %d, want 4: %s", what,
		     code, err);
	cr_assert(strstr(err, why), "%s: want '%s' in: %s", what, why, err);
	/* one error, not one per failed write */
	cr_assert(strstr(err, "error:"), "%s: no error line: %s", what, err);
	cr_assert_null(strstr(strstr(err, "error:") + 1, "error:"),
		       "%s: more than one error: %s", what, err);
	free(err);
}

#define FULL(what, why, ...) assert_write_fails(what, \
	(char *[]){ (char *)abicap_bin(), __VA_ARGS__, NULL }, why)

static const char *enospc = "No space left on device";

Test(exits, report_to_a_full_disk)
{
	FULL("report", enospc, "report", CAP);
	FULL("report --format json", enospc, "report", CAP, "--format", "json");
	FULL("report --slowest", enospc, "report", CAP, "--slowest", "5");
	FULL("report --by cgroup", enospc, "report", CAP, "--by", "cgroup");
}

Test(exits, script_and_wakeups_to_a_full_disk)
{
	FULL("script", enospc, "script", CAP);
	FULL("script -f json", enospc, "script", CAP, "-f", "json");
	FULL("wakeups", enospc, "wakeups", CAP);
	FULL("wakeups --format json", enospc, "wakeups", CAP, "--format", "json");
}

/* contract show prints in one large write: its errno is not kept by stdio */
Test(exits, contract_check_and_help_to_a_full_disk)
{
	FULL("contract show", "cannot write to standard output", "contract",
	     "show");
	FULL("--help", enospc, "--help");
	FULL("--version", enospc, "--version");
	FULL("report --help", enospc, "report", "--help");
	FULL("diff --help", enospc, "diff", "--help");
}

/* the running kernel's BTF: readable without privilege */
Test(exits, check_to_a_full_disk)
{
	if (access("/sys/kernel/btf/vmlinux", R_OK))
		cr_skip_test("no /sys/kernel/btf/vmlinux: check has no kernel to read");
	FULL("check", enospc, "check");
	FULL("check --format json", enospc, "check", "--format", "json");
	FULL("diff", enospc, "diff", "/sys/kernel/btf/vmlinux",
	     "/sys/kernel/btf/vmlinux");
	FULL("contract snapshot", enospc, "contract", "snapshot", "--btf",
	     "/sys/kernel/btf/vmlinux");
}
