// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* Starting a followed command: fork, hold, exec, and report a failed exec. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "live/spawn.h"

/*
 * Fork the command, held on a pipe until the capture is attached, so its
 * first instruction is already traced. *exec_fd reads the errno of a
 * failed execvp, or EOF once the command runs.
 */
pid_t spawn_held(char **cmd, int *go_fd, int *exec_fd)
{
	int p[2], e[2];
	pid_t pid;

	if (pipe(p))
		return -1;
	if (pipe2(e, O_CLOEXEC)) {
		close(p[0]);
		close(p[1]);
		return -1;
	}
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		char c;
		int err;

		close(p[1]);
		close(e[0]);
		if (read(p[0], &c, 1) != 1)
			_exit(127); /* the capture failed: never run */
		close(p[0]);
		signal(SIGPIPE, SIG_DFL);
		signal(SIGXFSZ, SIG_DFL);
		execvp(cmd[0], cmd);
		err = errno;
		if (write(e[1], &err, sizeof(err)) != sizeof(err))
			_exit(126);
		_exit(127);
	}
	close(p[0]);
	close(e[1]);
	*go_fd = p[1];
	*exec_fd = e[0];
	return pid;
}

/*
 * Can cmd be run (as execvp would find it)? 0 or an errno. Checked before
 * anything is created or loaded; command_started() catches what this
 * cannot tell (a directory, a file that is not an executable).
 */
int command_found(const char *cmd)
{
	const char *dirs = getenv("PATH"), *p, *end;
	char buf[4096];

	if (strchr(cmd, '/'))
		return access(cmd, X_OK) ? errno : 0;
	if (!*cmd)
		return ENOENT;
	for (p = dirs ? dirs : "/bin:/usr/bin"; ; p = end + 1) {
		end = strchrnul(p, ':');
		if (snprintf(buf, sizeof(buf), "%.*s/%s", end > p ? (int)(end - p) :
			     1, end > p ? p : ".", cmd) < (int)sizeof(buf) &&
		    !access(buf, X_OK))
			return 0;
		if (!*end)
			return ENOENT;
	}
}

/* 0 once the command runs, else why it could not be run. */
int command_started(int exec_fd)
{
	int err = 0;
	ssize_t n;

	do
		n = read(exec_fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(exec_fd);
	return n == sizeof(err) ? err : 0;
}
