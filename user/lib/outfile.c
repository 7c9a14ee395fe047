// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <signal.h>
#include <sys/file.h>
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
 * Under sudo, a file written into a directory of the user who ran it is
 * that user's (as `sudo abicap record -o pp.abicap` in their home should
 * leave a file they can read), given as it is committed, before it is at
 * its name (a capture created in place is root's while it is written).
 * Elsewhere (root's directories, /tmp) it stays the writer's. Where the
 * kernel will not (no CAP_CHOWN), the file stays the writer's too.
 */
static void give_to_sudo_user(const struct outfile *of, int fd)
{
	const char *s = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	uid_t uid = invoking_uid();
	gid_t gid = (gid_t)-1;
	struct stat st;
	char *end;

	if (!s || !*s || geteuid() || uid == geteuid() ||
	    fstat(of->dirfd, &st) || st.st_uid != uid)
		return;
	if (g && *g) {
		unsigned long v;

		errno = 0;
		v = strtoul(g, &end, 10);
		if (!errno && !*end && v <= (gid_t)-2)
			gid = (gid_t)v;
	}
	if (fchown(fd, uid, gid) && gid != (gid_t)-1)
		(void)!fchown(fd, uid, (gid_t)-1);
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

bool outfile_no_tmpfile;

/*
 * A named temporary is removed by the signal that ends the run (where the
 * signal's action is the default, as in export and contract: record has
 * its own handlers and ends cleanly); SIGKILL leaves it to the next run
 * (clean_stale). The handler uses only async-signal-safe calls, on slots
 * filled before they are marked used.
 */
#define GUARDS 4
static struct guard {
	volatile sig_atomic_t used;
	int dirfd;
	dev_t dev;
	ino_t ino;
	char name[256];
} guards[GUARDS];
static const int fatal_sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGXFSZ };

static void on_fatal(int sig)
{
	int e = errno;

	for (int i = 0; i < GUARDS; i++) {
		struct stat st;

		if (guards[i].used &&
		    !fstatat(guards[i].dirfd, guards[i].name, &st,
			     AT_SYMLINK_NOFOLLOW) &&
		    st.st_dev == guards[i].dev && st.st_ino == guards[i].ino)
			unlinkat(guards[i].dirfd, guards[i].name, 0);
	}
	/* the signal's own end, as if it had never been caught */
	signal(sig, SIG_DFL);
	raise(sig);
	errno = e;
}

static void guard(const struct outfile *of)
{
	struct sigaction sa = { .sa_handler = on_fatal }, old;
	struct guard *g = NULL;

	for (int i = 0; i < GUARDS && !g; i++)
		if (!guards[i].used)
			g = &guards[i];
	if (!g || !of->tmp[0])
		return;
	g->dirfd = of->dirfd;
	g->dev = of->dev;
	g->ino = of->ino;
	memcpy(g->name, of->tmp, sizeof(g->name));
	g->used = 1;
	sigfillset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		if (!sigaction(fatal_sigs[i], NULL, &old) &&
		    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
			sigaction(fatal_sigs[i], &sa, NULL);
}

static void unguard(const struct outfile *of)
{
	for (int i = 0; i < GUARDS; i++)
		if (guards[i].used && guards[i].dirfd == of->dirfd)
			guards[i].used = 0;
}

/*
 * A temporary's name: ".NAME.PID.RANDOM.tmp". The pid says whose it is,
 * for the next run to tell a temporary of a run killed by SIGKILL from one
 * in use (clean_stale); the random part makes it a name nobody else chose.
 */
static void tmp_name(struct outfile *of, unsigned int try)
{
	unsigned long long r;

	if (getrandom(&r, sizeof(r), 0) != sizeof(r))
		r = (unsigned long long)getpid() << 20 ^ try;
	snprintf(of->tmp, sizeof(of->tmp), ".%.200s.%d.%016llx.tmp", of->name,
		 (int)getpid(), r);
}

/* Is ent a temporary of of->name (tmp_name)? Its pid in *pid. */
static bool tmp_of(const struct outfile *of, const char *ent, pid_t *pid)
{
	size_t n = strnlen(of->name, 200);
	const char *p = ent + n + 2;
	char *end;
	long v;

	if (ent[0] != '.' || strncmp(ent + 1, of->name, n) || ent[n + 1] != '.' ||
	    *p < '1' || *p > '9')
		return false;
	errno = 0;
	v = strtol(p, &end, 10);
	if (errno || v <= 0 || v > INT_MAX || *end != '.')
		return false;
	for (p = end + 1; isxdigit((unsigned char)*p) && !isupper(*p); p++)
		;
	*pid = (pid_t)v;
	return p - end == 17 && !strcmp(p, ".tmp");
}

/*
 * Remove what a run killed by SIGKILL left of its temporary for this very
 * name (where there is no O_TMPFILE, or between the link and the rename
 * of a replacement): only a regular file of the caller's, named as
 * tmp_name makes them, whose process is gone and whose lock nobody holds
 * (a live run holds it, in whatever pid namespace it runs).
 */
static void clean_stale(struct outfile *of)
{
	int dfd = openat(of->dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *e;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return;
	}
	while ((e = readdir(d))) {
		struct stat st, fst;
		pid_t pid;
		int fd;

		if (!tmp_of(of, e->d_name, &pid) || !kill(pid, 0) ||
		    errno != ESRCH ||
		    fstatat(of->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) || st.st_uid != geteuid())
			continue;
		fd = openat(of->dirfd, e->d_name, O_RDONLY | O_NOFOLLOW |
			    O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!fstat(fd, &fst) && fst.st_dev == st.st_dev &&
		    fst.st_ino == st.st_ino && !flock(fd, LOCK_EX | LOCK_NB) &&
		    !fstatat(of->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
		    st.st_dev == fst.st_dev && st.st_ino == fst.st_ino)
			unlinkat(of->dirfd, e->d_name, 0);
		close(fd);
	}
	closedir(d);
}

/*
 * The new file: an inode without a name (O_TMPFILE) where the filesystem
 * has them, so that nothing is left whatever ends the run, even SIGKILL;
 * elsewhere a named temporary beside the name (O_EXCL, 0600). Locked, to
 * tell it in use (clean_stale).
 */
static int create_new(struct outfile *of)
{
	int fd = -1;

	of->tmp[0] = 0;
	if (!outfile_no_tmpfile) {
		fd = openat(of->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR &&
				errno != EINVAL))
			goto out;
	}
	for (unsigned int tries = 0; tries < 16; tries++) {
		tmp_name(of, tries);
		fd = openat(of->dirfd, of->tmp, O_RDWR | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd >= 0 || errno != EEXIST)
			break;
	}
	if (fd < 0)
		of->tmp[0] = 0;
out:
	if (fd >= 0)
		flock(fd, LOCK_EX | LOCK_NB);
	return fd;
}

static int open_out(struct outfile *of, const char *path, bool force,
		    bool in_place, char *err, size_t errlen)
{
	struct stat st;
	int code;

	memset(of, 0, sizeof(*of));
	of->fd = of->dirfd = of->helper = of->keep = -1;
	of->path = path;
	err[0] = 0;
	code = split(of, path, err, errlen);
	if (code)
		goto fail;
	if (fstatat(of->dirfd, of->name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT) {
			code = fail(err, errlen, EXIT_RUNTIME, "cannot create "
				    "'%s': %s", path, strerror(errno));
			goto fail;
		}
	} else {
		code = replaceable(of, &st, force, err, errlen);
		if (code)
			goto fail;
		of->replace = true;
	}
	clean_stale(of);
	of->in_place = in_place && !of->replace;
	if (of->in_place) {
		of->fd = openat(of->dirfd, of->name, O_RDWR | O_CREAT | O_EXCL |
				O_NOFOLLOW | O_CLOEXEC, 0600);
		if (of->fd < 0 && errno == EEXIST) {
			code = fail(err, errlen, EXIT_USAGE, "cannot create "
				    "'%s': it appeared meanwhile; give another "
				    "path (or --force)", path);
			goto fail;
		}
	} else {
		of->fd = create_new(of);
	}
	if (of->fd < 0) {
		code = fail(err, errlen, errno == EACCES || errno == EROFS ?
			    EXIT_USAGE : EXIT_RUNTIME, "cannot create "
			    "'%s': %s", path, strerror(errno));
		goto fail;
	}
	of->keep = fcntl(of->fd, F_DUPFD_CLOEXEC, 0);
	if (of->keep < 0 || fstat(of->fd, &st)) {
		code = fail(err, errlen, EXIT_RUNTIME, "cannot create '%s': %s",
			    path, strerror(errno));
		outfile_abort(of, false);
		return code;
	}
	of->dev = st.st_dev;
	of->ino = st.st_ino;
	guard(of);
	return 0;
fail:
	if (of->dirfd >= 0)
		close(of->dirfd);
	of->dirfd = -1;
	of->tmp[0] = 0;
	return code;
}

int outfile_open(struct outfile *of, const char *path, bool force, char *err,
		 size_t errlen)
{
	return open_out(of, path, force, false, err, errlen);
}

int outfile_open_capture(struct outfile *of, const char *path, bool force,
			 char *err, size_t errlen)
{
	return open_out(of, path, force, true, err, errlen);
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
	unguard(of);
	if (of->fd >= 0)
		close(of->fd);
	if (of->dirfd >= 0)
		close(of->dirfd);
	if (of->helper >= 0)
		close(of->helper);
	if (of->keep >= 0)
		close(of->keep);
	of->fd = of->dirfd = of->helper = of->keep = -1;
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

/* Remove the named temporary if it is still ours (never another file). */
static void remove_tmp(struct outfile *of)
{
	if (of->dirfd >= 0 && of->tmp[0] && ours(of, of->tmp))
		unlinkat(of->dirfd, of->tmp, 0);
	of->tmp[0] = 0;
}

/* Give the unnamed (O_TMPFILE) inode the name to. */
static int link_anon(struct outfile *of, const char *to)
{
	char self[64];

	/* AT_EMPTY_PATH needs CAP_DAC_READ_SEARCH; /proc works for anyone */
	if (!linkat(of->keep, "", of->dirfd, to, AT_EMPTY_PATH))
		return 0;
	if (errno == EEXIST)
		return -1;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", of->keep);
	return linkat(AT_FDCWD, self, of->dirfd, to, AT_SYMLINK_FOLLOW);
}

/* The named temporary at the name, which must still be free. */
static int rename_noreplace(struct outfile *of)
{
	if (!renameat2(of->dirfd, of->tmp, of->dirfd, of->name,
		       RENAME_NOREPLACE))
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	/* a filesystem without RENAME_NOREPLACE: a link never replaces */
	if (linkat(of->dirfd, of->tmp, of->dirfd, of->name, 0))
		return -1;
	unlinkat(of->dirfd, of->tmp, 0);
	return 0;
}

/*
 * The new file at its name: a new path only if it is still free, an old
 * file replaced in one rename. An unnamed inode being replaced gets a
 * temporary name for that rename. -1 with errno.
 */
static int publish(struct outfile *of)
{
	int e;

	give_to_sudo_user(of, of->keep);
	if (of->in_place)
		return 0;
	if (!of->tmp[0] && !of->replace)
		return link_anon(of, of->name);
	for (unsigned int tries = 0; !of->tmp[0] && tries < 16; tries++) {
		tmp_name(of, tries);
		if (!link_anon(of, of->tmp)) {
			guard(of);
			break;
		}
		e = errno;
		of->tmp[0] = 0;
		if (e != EEXIST) {
			errno = e;
			return -1;
		}
	}
	if (!of->tmp[0]) {
		errno = EEXIST;
		return -1;
	}
	if (!ours(of, of->tmp)) {
		of->tmp[0] = 0;
		errno = ESTALE;
		return -1;
	}
	if (of->replace ? renameat(of->dirfd, of->tmp, of->dirfd, of->name) :
	    rename_noreplace(of)) {
		e = errno;
		remove_tmp(of);
		errno = e;
		return -1;
	}
	of->tmp[0] = 0;
	return 0;
}

int outfile_commit(struct outfile *of, char *err, size_t errlen)
{
	int e = 0, fd = of->fd >= 0 ? of->fd : of->keep;

	if (fd >= 0 && fsync(fd))
		e = errno;
	if (of->fd >= 0 && close(of->fd) && !e)
		e = errno;
	of->fd = -1;
	if (e) {
		snprintf(err, errlen, "cannot write '%s': %s", of->path,
			 strerror(e));
		outfile_abort(of, false);
		return -1;
	}
	if (of->helper >= 0) {
		e = ask_helper(of, 'c', err, errlen);
		close_all(of);
		reap_helper(of);
		return e;
	}
	if (publish(of)) {
		e = errno;
		if (e == EEXIST && !of->replace)
			snprintf(err, errlen, "cannot create '%s': a file "
				 "appeared at that name meanwhile (it is left as "
				 "it is; give another path)", of->path);
		else if (e == ESTALE)
			snprintf(err, errlen, "cannot replace '%s': its "
				 "temporary was removed or replaced", of->path);
		else
			snprintf(err, errlen, "cannot %s '%s': %s%s",
				 of->replace ? "replace" : "create", of->path,
				 strerror(e), of->replace ? " (it is left as it "
				 "was)" : "");
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
	/* what a long run wrote before a failure, at a name still free */
	if (keep_partial && !of->replace && of->dirfd >= 0 && !publish(of)) {
		close_all(of);
		return;
	}
	if (of->in_place && of->dirfd >= 0 && ours(of, of->name))
		unlinkat(of->dirfd, of->name, 0);
	remove_tmp(of);
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
