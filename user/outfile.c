// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "outfile.h"

/* A world-writable sticky directory (/tmp): others may plant files there. */
static bool in_shared_dir(const char *path)
{
	char buf[4096];
	struct stat d;

	snprintf(buf, sizeof(buf), "%s", path);
	if (stat(dirname(buf), &d))
		return false;
	return (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH);
}

/* With --force: remove what is at path if it may be replaced. */
static int remove_old(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (lstat(path, &st))
		return errno == ENOENT ? 0 : -1;
	if (S_ISLNK(st.st_mode)) {
		snprintf(err, errlen, "'%s' is a symbolic link: abicap never "
			 "writes through one; remove it or give another path",
			 path);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' exists and is not a regular file: "
			 "give another path", path);
		return -1;
	}
	if (st.st_uid != geteuid() && in_shared_dir(path)) {
		snprintf(err, errlen, "'%s' belongs to another user (uid %u) in a "
			 "shared sticky directory: abicap does not replace it; "
			 "give another path", path, (unsigned int)st.st_uid);
		return -1;
	}
	if (unlink(path) && errno != ENOENT) {
		snprintf(err, errlen, "cannot replace '%s': %s", path,
			 strerror(errno));
		return -1;
	}
	return 0;
}

int outfile_create(const char *path, bool force, char *err, size_t errlen)
{
	int fd, e;

	err[0] = 0;
	if (force && remove_old(path, err, errlen)) {
		if (!err[0])
			snprintf(err, errlen, "cannot create '%s': %s", path,
				 strerror(errno));
		return -1;
	}
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd >= 0)
		return fd;
	e = errno;
	if (e == EEXIST && !force) {
		struct stat st;
		bool link = !lstat(path, &st) && S_ISLNK(st.st_mode);

		snprintf(err, errlen, "cannot create '%s': %s", path, link ?
			 "it is a symbolic link (abicap never writes through one): "
			 "give another path" :
			 "it exists (use --force to replace it)");
	} else {
		snprintf(err, errlen, "cannot create '%s': %s%s", path,
			 strerror(e), e == EEXIST ?
			 " (it appeared while being replaced)" : "");
	}
	return -1;
}
