/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* A command to follow, started held until the capture is attached. */
#ifndef ABICAP_SPAWN_H
#define ABICAP_SPAWN_H

#include <sys/types.h>

/*
 * Fork cmd (NULL-terminated), held until a byte is written to *go_fd (EOF
 * there: it exits without running); *exec_fd reads the errno of a failed
 * execvp, or EOF once it runs. The child's pid, or -1 with errno.
 */
pid_t spawn_held(char **cmd, int *go_fd, int *exec_fd);

/* Can cmd be run (as execvp would find it)? 0 or an errno. */
int command_found(const char *cmd);

/* 0 once the command runs, else why it could not be run; closes exec_fd. */
int command_started(int exec_fd);

#endif
