// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The helper of outfile_delegate: a child that keeps CAP_DAC_OVERRIDE
 * (and CAP_CHOWN, to give the file to the user who ran sudo) alone, holds the output's directory and nothing else, and on one request
 * commits (renames) or removes the output, then exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lib/outfile.h"

static void keep_only_dac_override(void)
{
	cap_t c = cap_from_text("cap_dac_override,cap_chown=ep");

	/* CAP_CHOWN may not be there (a bounding set without it): then the
	   file stays root's; without either (not root) nothing was to keep */
	if (c && cap_set_proc(c)) {
		cap_free(c);
		c = cap_from_text("cap_dac_override=ep");
		if (c && cap_set_proc(c))
			cap_clear(c), cap_set_proc(c);
	}
	cap_free(c);
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

static void serve_one(struct outfile *of, int sock)
{
	char what = 0, reply[512];
	ssize_t n;

	do
		n = read(sock, &what, 1);
	while (n < 0 && errno == EINTR);
	reply[0] = '0';
	reply[1] = 0;
	if (n == 1 && what == 'c') {
		if (outfile_commit(of, reply + 1, sizeof(reply) - 1))
			reply[0] = '1';
	} else {
		/*
		 * 'k': what was written stays (at a name still free); the
		 * caller died: the file was not finished, nothing is left but
		 * a capture created in place
		 */
		outfile_abort(of, (n == 1 && what == 'k') ||
			      (n != 1 && of->in_place));
	}
	if (n == 1 && write(sock, reply, strlen(reply) + 1) < 0)
		_exit(1);
}

int outfile_delegate(struct outfile *of, char *err, size_t errlen)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1,
				    SIGUSR2, SIGALRM, SIGPIPE };
	int sv[2], null, dfd, sock, keep;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		snprintf(err, errlen, "cannot prepare '%s': %s", of->path,
			 strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot prepare '%s': %s", of->path,
			 strerror(errno));
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (!pid) {
		/* the terminal's Ctrl-C is for abicap: the helper waits for it */
		for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
			signal(sigs[i], SIG_IGN);
		close(sv[0]);
		close(of->fd);
		of->fd = -1;
		dfd = fcntl(of->dirfd, F_DUPFD, 10);
		sock = fcntl(sv[1], F_DUPFD, 10);
		keep = fcntl(of->keep, F_DUPFD, 10);
		/* hold nothing of the caller's: its pipes must see EOF when it ends */
		null = open("/dev/null", O_RDWR);
		for (int i = 0; i < 3 && null >= 0; i++)
			dup2(null, i);
		if (dfd < 0 || sock < 0 || keep < 0 || dup2(dfd, 3) < 0 ||
		    dup2(sock, 4) < 0 || dup2(keep, 5) < 0)
			_exit(1);
		of->dirfd = 3;
		of->keep = 5;
		close_range(6, ~0U, 0);
		keep_only_dac_override();
		serve_one(of, 4);
		_exit(0);
	}
	close(sv[1]);
	of->helper = sv[0];
	of->helper_pid = pid;
	return 0;
}
