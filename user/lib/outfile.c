// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "lib/outfile.h"
#include "lib/util.h"

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static int fail(char *err, size_t errlen, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return code;
}

/* The user who ran sudo, if any: their directories are the operator's. */
static uid_t invoking_uid(void)
{
	const char *s = getenv("SUDO_UID");
	char *end;
	unsigned long v;

	if (!s || !*s)
		return getuid();
	errno = 0;
	v = strtoul(s, &end, 10);
	return errno || *end || v > (uid_t)-2 ? getuid() : (uid_t)v;
}

/*
 * Whoever owns a directory, or may write to it without the sticky bit,
 * can rename and replace what abicap puts there: only root, the caller
 * and the user who ran sudo are trusted to.
 */
static int check_dir(int dfd, const char *dir, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(dfd, &st))
		return fail(err, errlen, EXIT_RUNTIME, "cannot use directory "
			    "'%s': %s", dir, strerror(errno));
	if (st.st_uid && st.st_uid != geteuid() && st.st_uid != invoking_uid())
		return fail(err, errlen, EXIT_USAGE, "directory '%s' belongs to "
			    "another user (uid %u), who could replace what abicap "
			    "writes there: write to a directory of yours or root's",
			    dir, (unsigned int)st.st_uid);
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
		return fail(err, errlen, EXIT_USAGE, "directory '%s' is writable "
			    "by everyone without the sticky bit: write elsewhere "
			    "(or chmod +t '%s')", dir, dir);
	return 0;
}

/*
 * Open dir one component at a time, each with O_NOFOLLOW relative to the
 * one before: no symbolic link anywhere, and nothing swapped in between
 * (openat2's RESOLVE_NO_SYMLINKS does the same in one call from Linux 5.6;
 * the walk works everywhere and names the component that is a link).
 */
static int open_dir(const char *dir, char *err, size_t errlen, int *code)
{
	char buf[PATH_MAX], *save, *comp;
	int fd, next;

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf)) {
		*code = fail(err, errlen, EXIT_USAGE, "directory '%s': path too "
			     "long", dir);
		return -1;
	}
	fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		*code = fail(err, errlen, EXIT_RUNTIME, "cannot open '%s': %s",
			     dir[0] == '/' ? "/" : ".", strerror(errno));
		return -1;
	}
	for (comp = strtok_r(buf, "/", &save); comp;
	     comp = strtok_r(NULL, "/", &save)) {
		struct stat st;

		next = openat(fd, comp, O_PATH | O_DIRECTORY | O_NOFOLLOW |
			      O_CLOEXEC);
		if (next < 0) {
			int e = errno;
			bool link = !fstatat(fd, comp, &st, AT_SYMLINK_NOFOLLOW) &&
				    S_ISLNK(st.st_mode);

			close(fd);
			if (link)
				*code = fail(err, errlen, EXIT_USAGE, "'%s' in the "
					     "output path '%s' is a symbolic link: "
					     "abicap never writes through one; give "
					     "the real path (realpath '%s')", comp,
					     dir, dir);
			else
				*code = fail(err, errlen, e == ENOENT ||
					     e == ENOTDIR || e == EACCES ?
					     EXIT_USAGE : EXIT_RUNTIME,
					     "cannot use directory '%s': %s (at "
					     "'%s')", dir, strerror(e), comp);
			return -1;
		}
		close(fd);
		fd = next;
	}
	return fd;
}

/* Split path into its directory (opened) and last component. */
static int split(struct outfile *of, const char *path, char *err,
		 size_t errlen)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[PATH_MAX];
	int code = 0;

	if (!*path)
		return fail(err, errlen, EXIT_USAGE, "the output path is empty: "
			    "give a file name");
	if (!*name || !strcmp(name, ".") || !strcmp(name, ".."))
		return fail(err, errlen, EXIT_USAGE, "output '%s' names a "
			    "directory: give a file name", path);
	if (strlen(name) >= sizeof(of->name))
		return fail(err, errlen, EXIT_USAGE, "output '%s': the file name "
			    "is too long", path);
	strcpy(of->name, name);
	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else if (slash == path)
		snprintf(dir, sizeof(dir), "/");
	else if (snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path),
			  path) >= (int)sizeof(dir))
		return fail(err, errlen, EXIT_USAGE, "output '%s': path too long",
			    path);
	of->dirfd = open_dir(dir, err, errlen, &code);
	if (of->dirfd < 0)
		return code;
	return check_dir(of->dirfd, dir, err, errlen);
}

/* May an existing file at the name be replaced? 0 or an exit code. */
static int replaceable(const struct outfile *of, const struct stat *st,
		       bool force, char *err, size_t errlen)
{
	struct stat d;

	if (S_ISLNK(st->st_mode))
		return fail(err, errlen, EXIT_USAGE, "cannot create '%s': it is a "
			    "symbolic link (abicap never writes through one): "
			    "give another path", of->path);
	if (!force)
		return fail(err, errlen, EXIT_USAGE, "cannot create '%s': it "
			    "exists (use --force to replace it)", of->path);
	if (!S_ISREG(st->st_mode))
		return fail(err, errlen, EXIT_USAGE, "'%s' exists and is not a "
			    "regular file: give another path", of->path);
	if (st->st_uid != geteuid() && !fstat(of->dirfd, &d) &&
	    (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH))
		return fail(err, errlen, EXIT_USAGE, "'%s' belongs to another "
			    "user (uid %u) in a shared sticky directory: abicap "
			    "does not replace it; give another path", of->path,
			    (unsigned int)st->st_uid);
	return 0;
}

static int create_at(struct outfile *of, const char *name)
{
	return openat(of->dirfd, name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
		      O_CLOEXEC, 0600);
}

/* The temporary beside the old file: a name nobody else chose (O_EXCL). */
static int create_tmp(struct outfile *of)
{
	for (int tries = 0; tries < 16; tries++) {
		unsigned long long r;
		int fd;

		if (getrandom(&r, sizeof(r), 0) != sizeof(r))
			r = (unsigned long long)getpid() << 20 ^ tries;
		snprintf(of->tmp, sizeof(of->tmp), ".%.200s.%016llx.tmp",
			 of->name, r);
		fd = create_at(of, of->tmp);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	errno = EEXIST;
	return -1;
}

int outfile_open(struct outfile *of, const char *path, bool force, char *err,
		 size_t errlen)
{
	struct stat st;
	int code;

	memset(of, 0, sizeof(*of));
	of->fd = of->dirfd = of->helper = -1;
	of->path = path;
	err[0] = 0;
	code = split(of, path, err, errlen);
	if (code)
		goto fail;
	for (int round = 0; of->fd < 0 && round < 2; round++) {
		if (fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT) {
				code = fail(err, errlen, EXIT_RUNTIME, "cannot "
					    "create '%s': %s", path, strerror(errno));
				goto fail;
			}
			of->fd = create_at(of, of->name);
			if (of->fd < 0 && errno == EEXIST)
				continue; /* it appeared meanwhile: look again */
		} else {
			code = replaceable(of, &st, force, err, errlen);
			if (code)
				goto fail;
			of->fd = create_tmp(of);
		}
		if (of->fd < 0) {
			code = fail(err, errlen, errno == EACCES || errno == EROFS ?
				    EXIT_USAGE : EXIT_RUNTIME, "cannot create "
				    "'%s': %s", path, strerror(errno));
			goto fail;
		}
	}
	if (of->fd < 0) {
		code = fail(err, errlen, EXIT_RUNTIME, "cannot create '%s': it "
			    "keeps appearing and disappearing", path);
		goto fail;
	}
	if (fstat(of->fd, &st)) {
		code = fail(err, errlen, EXIT_RUNTIME, "cannot create '%s': %s",
			    path, strerror(errno));
		outfile_abort(of, false);
		return code;
	}
	of->dev = st.st_dev;
	of->ino = st.st_ino;
	return 0;
fail:
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	of->tmp[0] = 0;
	return code;
}

/* Is the name still the inode this run created? */
static bool ours(const struct outfile *of, const char *name)
{
	struct stat st;

	return !fstatat(of->dirfd, name, &st, AT_SYMLINK_NOFOLLOW) &&
	       st.st_dev == of->dev && st.st_ino == of->ino;
}

static void close_all(struct outfile *of)
{
	if (of->fd >= 0)
		close(of->fd);
	if (of->dirfd >= 0)
		close(of->dirfd);
	if (of->helper >= 0)
		close(of->helper);
	of->fd = of->dirfd = of->helper = -1;
}

/* The request to the helper; its answer: a status byte and err. */
static int ask_helper(struct outfile *of, char what, char *err, size_t errlen)
{
	char reply[512];
	ssize_t n;

	if (write(of->helper, &what, 1) != 1)
		return fail(err, errlen, -1, "cannot finish '%s': its helper "
			    "is gone", of->path);
	do
		n = read(of->helper, reply, sizeof(reply) - 1);
	while (n < 0 && errno == EINTR);
	if (n < 1)
		return fail(err, errlen, -1, "cannot finish '%s': its helper "
			    "is gone", of->path);
	reply[n] = 0;
	if (reply[0] == '0')
		return 0;
	snprintf(err, errlen, "%s", reply + 1);
	return -1;
}

static void reap_helper(struct outfile *of)
{
	if (of->helper_pid > 0)
		waitpid(of->helper_pid, NULL, 0);
	of->helper_pid = 0;
}

static void remove_ours(struct outfile *of, bool keep_partial)
{
	const char *name = of->tmp[0] ? of->tmp : of->name;

	if (of->dirfd < 0 || (keep_partial && !of->tmp[0]))
		return;
	if (ours(of, name))
		unlinkat(of->dirfd, name, 0);
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int e = 0;

	if (of->fd >= 0 && fsync(of->fd))
		e = errno;
	if (of->fd >= 0 && close(of->fd) && !e)
		e = errno;
	of->fd = -1;
	if (e) {
		snprintf(err, errlen, "cannot write '%s': %s", of->path,
			 strerror(e));
		outfile_abort(of, true);
		return -1;
	}
	if (of->helper >= 0) {
		e = ask_helper(of, 'c', err, errlen);
		close_all(of);
		reap_helper(of);
		return e;
	}
	if (of->tmp[0] && !ours(of, of->tmp)) {
		snprintf(err, errlen, "cannot replace '%s': its temporary '%s' "
			 "was removed or replaced", of->path, of->tmp);
		close_all(of);
		return -1;
	}
	if (of->tmp[0] && renameat(of->dirfd, of->tmp, of->dirfd, of->name)) {
		snprintf(err, errlen, "cannot replace '%s': %s (it is left as "
			 "it was)", of->path, strerror(errno));
		remove_ours(of, false);
		close_all(of);
		return -1;
	}
	/* the rename itself on disk; an O_PATH directory cannot be synced */
	e = openat(of->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (e >= 0) {
		fsync(e);
		close(e);
	}
	close_all(of);
	return 0;
}

void outfile_abort(struct outfile *of, bool keep_partial)
{
	char err[256];

	if (of->fd >= 0)
		close(of->fd);
	of->fd = -1;
	if (of->helper >= 0) {
		ask_helper(of, keep_partial ? 'k' : 'd', err, sizeof(err));
		close_all(of);
		reap_helper(of);
		return;
	}
	remove_ours(of, keep_partial);
	close_all(of);
}

/* The directory (resolved) and name of path; st if it exists. */
static bool identify(const char *path, char *canon, size_t len,
		     struct stat *st)
{
	const char *slash = strrchr(path, '/'), *name = slash ? slash + 1 : path;
	char dir[PATH_MAX], *real;

	if (!slash)
		snprintf(dir, sizeof(dir), ".");
	else
		snprintf(dir, sizeof(dir), "%.*s", slash == path ? 1 :
			 (int)(slash - path), path);
	real = realpath(dir, NULL);
	snprintf(canon, len, "%s/%s", real ? real : dir, name);
	free(real);
	return !stat(path, st);
}

int outfile_distinct(const char *out, const char *other, const char *what,
		     char *err, size_t errlen)
{
	char a[2 * PATH_MAX], b[2 * PATH_MAX];
	struct stat sa, sb;
	bool ea = identify(out, a, sizeof(a), &sa),
	     eb = identify(other, b, sizeof(b), &sb);

	if ((ea && eb && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino) ||
	    !strcmp(a, b))
		return fail(err, errlen, EXIT_USAGE, "output '%s' is the same "
			    "file as %s '%s': give another output path", out,
			    what, other);
	return 0;
}
