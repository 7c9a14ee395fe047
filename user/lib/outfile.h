/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * Creating the files abicap writes (captures, Perfetto traces, contracts)
 * so that nothing is lost and nothing is written where it should not be:
 * mode 0600, a new inode, never through a symbolic link (at any component
 * of the path), never in a directory another user controls, and an
 * existing file (--force) replaced only once its replacement is complete.
 */
#ifndef ABICAP_OUTFILE_H
#define ABICAP_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct outfile {
	int fd;		/* the new file, read-write; -1 once handed over or closed */
	int dirfd;	/* its directory, reached without following a symlink */
	const char *path; /* as given, for messages */
	char name[256];	/* the last component of path */
	char tmp[256];	/* when replacing: the temporary beside it; else "" */
	dev_t dev;	/* the inode created: only that one is ever removed */
	ino_t ino;
	int helper;	/* outfile_delegate: the pipe to the helper, else -1 */
	pid_t helper_pid;
};

/*
 * Create the output for path. A path that does not exist is created in
 * place (O_EXCL): a run killed by SIGKILL leaves what it wrote there. An
 * existing regular file, with force only, is left untouched until
 * outfile_commit: the data goes to a temporary file beside it
 * (".NAME.XXXXXXXXXXXXXXXX.tmp", O_EXCL, 0600) that is renamed over it.
 * Refused (EXIT_USAGE, one line in err naming the fix): an empty path or
 * one naming a directory, a symbolic link at any component, a directory
 * owned by a user other than root, the caller or the user who ran sudo,
 * a world-writable directory without the sticky bit, an existing file
 * without force, a file that is not regular, and in a sticky directory
 * (/tmp) a file of another user. A system error is EXIT_RUNTIME.
 */
int outfile_open(struct outfile *of, const char *path, bool force, char *err,
		 size_t errlen);

/*
 * For a process about to drop its privileges (record): the final rename
 * or removal is done by a small helper process that keeps only
 * CAP_DAC_OVERRIDE and can do nothing but that, in this one directory.
 * Without it a root without capabilities could not rename in, say, a
 * user's home. If the caller dies, the helper removes the temporary (the
 * old file stays; a file created in place stays with what was written).
 * 0, or -1 with err.
 */
int outfile_delegate(struct outfile *of, char *err, size_t errlen);

/*
 * The data is complete: fsync (if of->fd is still open), close and, when
 * replacing, rename the temporary over the old file. 0, or -1 with err
 * (then the temporary is removed and the old file is intact).
 */
int outfile_commit(struct outfile *of, char *err, size_t errlen);

/*
 * Failure: remove the temporary (the old file stays as it was), or, for a
 * file created in place, remove it unless keep_partial (what a long run
 * wrote before a full disk stays readable). Only the inode created is
 * removed, never something put at the name since.
 */
void outfile_abort(struct outfile *of, bool keep_partial);

/*
 * Refuse (EXIT_USAGE, err) writing out when it is the same file as other
 * (an input, or another output): the same inode through a hard link or a
 * symbolic link, or for names that do not exist yet the same directory
 * and name. what names other in the message ("the input", ...). 0 if
 * they differ.
 */
int outfile_distinct(const char *out, const char *other, const char *what,
		     char *err, size_t errlen);

#endif
