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
	char tmp[256];	/* a named temporary beside it (no O_TMPFILE), else "" */
	bool replace;	/* an existing file is replaced at commit */
	bool in_place;	/* outfile_open_capture of a new path */
	int keep;	/* the new inode (of->fd may be handed over): linked at
			   commit, and locked while this run lives */
	dev_t dev;	/* the inode created: only that one is ever removed */
	ino_t ino;
	int helper;	/* outfile_delegate: the pipe to the helper, else -1 */
	pid_t helper_pid;
};

/*
 * Create the output for path. Nothing appears at path until
 * outfile_commit: the data goes to a file without a name (O_TMPFILE,
 * 0600), which no end of the run, not even SIGKILL, can leave behind;
 * on a filesystem without O_TMPFILE to a temporary beside it
 * (".NAME.PID.XXXXXXXXXXXXXXXX.tmp", O_EXCL, 0600), which the next run
 * for the same path removes if its run is gone. Commit gives a new path
 * the file only if the name is still free; an existing regular file
 * (with force only) is replaced in one rename.
 * Refused (EXIT_USAGE, one line in err naming the fix): an empty path or
 * one naming a directory, a symbolic link at any component, a directory
 * owned by a user other than root, the caller or the user who ran sudo,
 * a world-writable directory without the sticky bit, an existing file
 * without force, a file that is not regular, and in a sticky directory
 * (/tmp) a file of another user. A system error is EXIT_RUNTIME.
 * Under sudo (SUDO_UID, SUDO_GID) a file committed into a directory the
 * user who ran sudo owns is given to that user (their uid and gid).
 */
int outfile_open(struct outfile *of, const char *path, bool force, char *err,
		 size_t errlen);

/*
 * The same for a capture (record -o), whose chunks read back up to the
 * last complete one whatever ends the run: a new path is created in place
 * (O_EXCL), so that a recorder killed by SIGKILL leaves what it captured.
 * A file replaced (force) is as with outfile_open.
 */
int outfile_open_capture(struct outfile *of, const char *path, bool force,
			 char *err, size_t errlen);

/*
 * For a process about to drop its privileges (record): the final rename
 * or removal is done by a small helper process that keeps only
 * CAP_DAC_OVERRIDE (and CAP_CHOWN, for the user who ran sudo) and can do
 * nothing but that, in this one directory.
 * Without it a root without capabilities could not rename in, say, a
 * user's home. If the caller dies, the helper drops the new file (an old
 * one stays as it was; a capture created in place stays with what was
 * written).
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
 * Failure: the new file is dropped (an old one stays as it was), or, with
 * keep_partial and a path that did not exist, given the name as it is
 * (what a long run wrote before a full disk stays readable). Only the
 * inode created is removed, never something put at the name since.
 */
void outfile_abort(struct outfile *of, bool keep_partial);

/*
 * Refuse (EXIT_USAGE, err) writing out when it is the same file as other
 * (an input, or another output): the same inode through a hard link or a
 * symbolic link, or for names that do not exist yet the same directory
 * and name. what names other in the message ("the input", ...). 0 if
 * they differ.
 */
/* Tests: behave as on a filesystem without O_TMPFILE. */
extern bool outfile_no_tmpfile;

int outfile_distinct(const char *out, const char *other, const char *what,
		     char *err, size_t errlen);

#endif
