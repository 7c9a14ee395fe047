// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
/* cgroup v2: where it is mounted, id -> path (a cached walk), path -> id. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "event/cgroup.h"
#include "lib/array.h"
#include "lib/hashtab.h"
#include "lib/util.h"

/* the handle type kernfs (cgroupfs) gives name_to_handle_at: its 64-bit node id */
#define FILEID_KERNFS 0xfe
/*
 * deeper cgroups than this are left out of walks (systemd + k8s: about 6);
 * they are found by handle, where handles work
 */
#define WALK_MAX_DEPTH 64

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape_octal(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*w++ = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 +
				      (s[3] - '0'));
			s += 3;
		} else {
			*w++ = *s;
		}
	}
	*w = 0;
}

/* a better place for the v2 mount: the usual ones first, whole hierarchies only */
static int mount_rank(const char *root, const char *mnt)
{
	int r = strcmp(root, "/") ? 0 : 4;

	if (!strcmp(mnt, "/sys/fs/cgroup"))
		r += 2;
	else if (!strcmp(mnt, "/sys/fs/cgroup/unified"))
		r += 1;
	return r;
}

int cgroup_root_from(const char *mountinfo, char *buf, size_t len, char *err,
		     size_t errlen)
{
	FILE *f = fopen(mountinfo, "re");
	char *line = NULL;
	size_t cap = 0;
	int best = -1, e;

	if (!f) {
		e = -errno;
		snprintf(err, errlen, "cannot read %s: %s (is /proc mounted?)",
			 mountinfo, strerror(-e));
		return e;
	}
	while (getline(&line, &cap, f) > 0) {
		/* id parent maj:min root mountpoint options [optional...] - fstype source super */
		char *fields[6] = { 0 }, *tok, *save = NULL, *fstype = NULL;
		int n = 0, rank;

		for (tok = strtok_r(line, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save)) {
			if (n < 6)
				fields[n] = tok;
			n++;
			if (n > 6 && !strcmp(tok, "-")) {
				fstype = strtok_r(NULL, " \n", &save);
				break;
			}
		}
		if (!fstype || strcmp(fstype, "cgroup2") || !fields[4])
			continue;
		unescape_octal(fields[3]);
		unescape_octal(fields[4]);
		rank = mount_rank(fields[3], fields[4]);
		if (rank <= best)
			continue;
		if (strlen(fields[4]) >= len) {
			snprintf(err, errlen, "cgroup2 mount point %s is too long",
				 fields[4]);
			continue;
		}
		strcpy(buf, fields[4]);
		best = rank;
	}
	free(line);
	fclose(f);
	if (best >= 0)
		return 0;
	snprintf(err, errlen,
		 "no cgroup v2 (cgroup2) mount in %s: mount one with "
		 "'mount -t cgroup2 none /sys/fs/cgroup/unified', or boot with "
		 "systemd.unified_cgroup_hierarchy=1",
		 mountinfo);
	return -ENOENT;
}

int cgroup_root(char *buf, size_t len, char *err, size_t errlen)
{
	return cgroup_root_from("/proc/self/mountinfo", buf, len, err, errlen);
}

/* fd's 8-byte kernfs handle (cgroupfs): the kernel's id of that cgroup */
static bool kernfs_id(int fd, uint64_t *id)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	int mnt;

	if (name_to_handle_at(fd, "", &h.fh, &mnt, AT_EMPTY_PATH) ||
	    h.fh.handle_type != FILEID_KERNFS || h.fh.handle_bytes != 8)
		return false;
	memcpy(id, h.fh.f_handle, 8);
	return true;
}

/* The kernel's id for the cgroup at fd: the kernfs handle, else the inode. */
static int fd_cgroup_id(int fd, uint64_t *id)
{
	struct stat st;

	if (kernfs_id(fd, id))
		return 0;
	if (fstat(fd, &st))
		return -errno;
	*id = st.st_ino;
	return 0;
}

/* ---- id -> path table: entries in an array, found through lib/hashtab ---- */

struct ent {
	uint64_t id;
	char *path;  /* NULL in the set of removed ids */
	bool pinned; /* from cgroup_map_set(): kept across walks */
};

/* An entry's address holds until the next table_get() on its table. */
struct table {
	struct ent *v;
	size_t n, cap;
	struct hashtab idx; /* id -> index in v */
};

static struct ent *table_find(const struct table *t, uint64_t id)
{
	uint64_t *i = hashtab_get(&t->idx, id);

	return i ? &t->v[*i] : NULL;
}

/* The entry for id, a new zeroed one (but for its id) if there was none. */
static struct ent *table_get(struct table *t, uint64_t id)
{
	struct ent *e = table_find(t, id);

	if (e)
		return e;
	if (array_room(&t->v, t->n, &t->cap, sizeof(*t->v), 64))
		return NULL;
	if (hashtab_put(&t->idx, id, t->n) < 0)
		return NULL;
	t->v[t->n] = (struct ent){ .id = id };
	return &t->v[t->n++];
}

static void table_free(struct table *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->v[i].path);
	free(t->v);
	hashtab_free(&t->idx);
	*t = (struct table){ 0 };
}

struct cgroup_map {
	char root[PATH_MAX]; /* "" for a table-only map */
	struct table known;
	struct table removed;
	uint64_t last_walk_ns;
	uint64_t interval_ns;
	/* misses by open_by_handle_at() on mnt_fd (cgroup2: kernfs handles) */
	bool can_handle, handles;
	int mnt_fd;
	char mnt_link[PATH_MAX]; /* how /proc/self/fd names the root */
	size_t walked;           /* entries found by the last walk */
	size_t since_walk;       /* entries added by handle since */
	struct cgroup_map_stats st;
};

/* Into t, (id, path): the string of old's entry if it is the same path. */
static int put_walked(struct table *t, struct table *old, uint64_t id,
		      const char *path)
{
	struct ent *o = table_find(old, id), *e = table_get(t, id);

	if (!e)
		return -ENOMEM;
	free(e->path);
	if (o && o->path && !strcmp(o->path, path)) {
		e->path = o->path;
		o->path = NULL;
	} else {
		e->path = strdup(path);
	}
	return e->path ? 0 : -ENOMEM;
}

static bool is_dir(int dfd, const struct dirent *d)
{
	struct stat st;

	if (d->d_type != DT_UNKNOWN)
		return d->d_type == DT_DIR;
	return !fstatat(dfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) &&
	       S_ISDIR(st.st_mode);
}

/* A path that grows as deep as the hierarchy goes: no PATH_MAX. */
struct pathbuf {
	char *s;
	size_t cap;
};

static int pathbuf_room(struct pathbuf *p, size_t need)
{
	while (need > p->cap)
		if (array_room(&p->s, need - 1, &p->cap, 1, 4096))
			return -ENOMEM;
	return 0;
}

/*
 * Every directory below fd (which this closes) into t. path holds fd's
 * hierarchy path (plen chars). On kernfs, readdir's d_ino is the node id.
 * Directories that vanish meanwhile are skipped: only memory errors fail.
 */
static int walk_dir(struct table *t, struct table *old, int fd,
		    struct pathbuf *path, size_t plen, unsigned depth)
{
	DIR *d = fdopendir(fd);
	struct dirent *de;
	int err = 0;

	if (!d) {
		close(fd);
		return 0;
	}
	while (!err && (de = readdir(d))) {
		size_t nlen = strlen(de->d_name), clen;
		int cfd;

		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (!is_dir(dirfd(d), de))
			continue;
		clen = (plen == 1 ? 0 : plen) + 1 + nlen;
		err = pathbuf_room(path, clen + 1);
		if (err)
			break;
		sprintf(path->s + (plen == 1 ? 0 : plen), "/%s", de->d_name);
		err = put_walked(t, old, de->d_ino, path->s);
		if (err || depth + 1 >= WALK_MAX_DEPTH)
			continue;
		cfd = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfd >= 0)
			err = walk_dir(t, old, cfd, path, clen, depth + 1);
		path->s[plen] = 0;
	}
	closedir(d);
	return err;
}

/* A new table of what exists now; entries pinned by cgroup_map_set() stay. */
static int walk(struct cgroup_map *m)
{
	struct table t = { 0 };
	struct pathbuf path = { 0 };
	uint64_t id;
	int fd, err;
	size_t i;

	m->last_walk_ns = mono_ns();
	m->st.walks++;
	fd = open(m->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		m->st.walk_errors++;
		return -errno;
	}
	err = fd_cgroup_id(fd, &id);
	if (!err)
		err = pathbuf_room(&path, 4096);
	if (err) {
		close(fd);
		m->st.walk_errors++;
		return err;
	}
	strcpy(path.s, "/");
	err = put_walked(&t, &m->known, id, path.s);
	if (!err)
		err = walk_dir(&t, &m->known, fd, &path, 1, 0);
	else
		close(fd);
	free(path.s);
	for (i = 0; !err && i < m->known.n; i++) {
		struct ent *o = &m->known.v[i], *e;

		if (!o->pinned)
			continue;
		e = table_get(&t, o->id);
		if (!e) {
			err = -ENOMEM;
			break;
		}
		free(e->path);
		e->path = o->path;
		e->pinned = true;
		o->path = NULL;
	}
	if (err) {
		table_free(&t);
		m->st.walk_errors++;
		return err;
	}
	table_free(&m->known);
	m->known = t;
	m->walked = t.n;
	m->since_walk = 0;
	return 0;
}

static struct cgroup_map *map_alloc(void)
{
	struct cgroup_map *m = calloc(1, sizeof(*m));

	if (m) {
		m->interval_ns = CGROUP_MAP_RESCAN_NS;
		m->mnt_fd = -1;
	}
	return m;
}

static ssize_t fd_link(int fd, char *buf, size_t len)
{
	char link[64];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, buf, len - 1);
	if (n >= 0)
		buf[n] = 0;
	return n;
}

/* Misses go by handle when root is a kernfs (cgroup2) mount and /proc names it. */
static void handles_init(struct cgroup_map *m)
{
	uint64_t id;

	m->mnt_fd = open(m->root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (m->mnt_fd < 0)
		return;
	m->can_handle = kernfs_id(m->mnt_fd, &id) &&
			fd_link(m->mnt_fd, m->mnt_link, sizeof(m->mnt_link)) > 0;
	if (!strcmp(m->mnt_link, "/"))
		m->mnt_link[0] = 0;
	m->handles = m->can_handle;
}

/* The name of the directory with kernfs id `id` in directory fd (kept open). */
static char *name_in(int fd, uint64_t id)
{
	int dfd = openat(fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;
	char *name = NULL;

	if (!d) {
		if (dfd >= 0)
			close(dfd);
		return NULL;
	}
	while (!name && (de = readdir(d)))
		if (de->d_ino == id && strcmp(de->d_name, ".") &&
		    strcmp(de->d_name, ".."))
			name = strdup(de->d_name);
	closedir(d);
	return name;
}

/*
 * The hierarchy path of the cgroup at fd, from its parents' entries: for
 * a path the kernel cannot give whole (readlink: ENAMETOOLONG past a
 * page). NULL if a parent cannot be read or the root is not above it.
 */
static char *path_up(const struct cgroup_map *m, int fd)
{
	struct pathbuf out = { 0 };
	size_t len = 0, nlen;
	uint64_t root_id, id;
	int cur = dup(fd), up;
	char *name;
	bool ok = false;

	if (cur < 0 || !kernfs_id(m->mnt_fd, &root_id))
		goto out;
	/* built from the end: each name goes in front */
	for (;;) {
		if (!kernfs_id(cur, &id))
			break;
		if (id == root_id) {
			ok = true;
			break;
		}
		up = openat(cur, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		name = up >= 0 ? name_in(up, id) : NULL;
		close(cur);
		cur = up;
		nlen = name ? strlen(name) : 0;
		if (!name || pathbuf_room(&out, len + nlen + 2)) {
			free(name);
			break;
		}
		memmove(out.s + nlen + 1, out.s, len);
		out.s[0] = '/';
		memcpy(out.s + 1, name, nlen);
		len += nlen + 1;
		out.s[len] = 0;
		free(name);
	}
out:
	if (cur >= 0)
		close(cur);
	if (ok && !len)
		return strdup("/");
	if (!ok)
		free(out.s);
	return ok ? out.s : NULL;
}

/*
 * The cgroup with this kernfs id, opened by handle: O(1) where a walk reads
 * every cgroup directory (about 40 us each). 1 found (entry added), 0 gone
 * (ESTALE: ids are not reused), -1 cannot tell (no CAP_DAC_READ_SEARCH...):
 * misses walk from then on.
 */
static int by_handle(struct cgroup_map *m, uint64_t id, struct ent **out)
{
	struct {
		struct file_handle fh;
		uint64_t id;
	} h = { .fh = { .handle_bytes = 8, .handle_type = FILEID_KERNFS } };
	char path[PATH_MAX], *p;
	size_t pre = strlen(m->mnt_link);
	ssize_t n;
	int fd;

	memcpy(h.fh.f_handle, &id, 8);
	fd = open_by_handle_at(m->mnt_fd, &h.fh, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		/* ENOTDIR: a file's id, not a cgroup's */
		if (errno == ESTALE || errno == ENOTDIR || errno == ENOENT)
			return 0;
		m->handles = m->can_handle = false;
		return -1;
	}
	n = fd_link(fd, path, sizeof(path));
	/* longer than the kernel gives whole: from the parents */
	if (n < 0 && errno == ENAMETOOLONG) {
		p = path_up(m, fd);
		close(fd);
		if (p)
			goto found;
		return -1; /* removed meanwhile, or unreadable: a walk tells */
	}
	close(fd);
	if (n > 10 && !strcmp(path + n - 10, " (deleted)"))
		return 0;
	if (n < 0 || strncmp(path, m->mnt_link, pre) ||
	    (path[pre] != '/' && path[pre])) {
		m->handles = m->can_handle = false;
		return -1;
	}
	p = strdup(path[pre] ? path + pre : "/");
found:
	*out = p ? table_get(&m->known, id) : NULL;
	if (!*out) {
		free(p);
		return -1;
	}
	(*out)->path = p;
	m->st.by_handle++;
	m->since_walk++;
	return 1;
}

struct cgroup_map *cgroup_map_new(const char *root, char *err, size_t errlen)
{
	struct cgroup_map *m = map_alloc();
	int e;

	if (!m) {
		snprintf(err, errlen, "out of memory for the cgroup map");
		return NULL;
	}
	if (!root) {
		if (cgroup_root(m->root, sizeof(m->root), err, errlen)) {
			free(m);
			return NULL;
		}
	} else if (!*root || strlen(root) >= sizeof(m->root)) {
		snprintf(err, errlen, "bad cgroup root '%s': give the cgroup2 mount point, e.g. /sys/fs/cgroup",
			 root);
		free(m);
		return NULL;
	} else {
		strcpy(m->root, root);
	}
	handles_init(m);
	e = walk(m);
	if (e) {
		snprintf(err, errlen, "cannot read the cgroup hierarchy at %s: %s (run as root?)",
			 m->root, strerror(-e));
		cgroup_map_free(m);
		return NULL;
	}
	return m;
}

int cgroup_map_rescan(struct cgroup_map *m)
{
	if (!m->root[0])
		return -EINVAL;
	return walk(m);
}

bool cgroup_map_walked(const struct cgroup_map *m, uint64_t id)
{
	const struct ent *e = table_find(&m->known, id);

	return e && !e->pinned;
}

struct cgroup_map *cgroup_map_new_table(void)
{
	return map_alloc();
}

const char *cgroup_map_path(struct cgroup_map *m, uint64_t id)
{
	struct ent *e = table_find(&m->known, id);

	if (e)
		return e->path;
	if (!id || !m->root[0] || table_find(&m->removed, id))
		return NULL;
	if (m->handles) {
		int r = by_handle(m, id, &e);

		if (r > 0) {
			/*
			 * Entries added by handle outlive their cgroups until
			 * a walk: one (rate-limited) when they outgrow what
			 * exists, so the table stays about what exists.
			 */
			if (m->since_walk > m->walked + 1024 &&
			    mono_ns() - m->last_walk_ns >= m->interval_ns) {
				walk(m);
				e = table_find(&m->known, id);
			}
			return e ? e->path : NULL;
		}
		if (!r)
			goto removed;
	}
	if (m->interval_ns && mono_ns() - m->last_walk_ns < m->interval_ns) {
		m->st.limited++;
		return NULL;
	}
	if (walk(m))
		return NULL;
	e = table_find(&m->known, id);
	if (e)
		return e->path;
removed:
	/* bounded: forget them all rather than grow without end */
	if (m->removed.n >= CGROUP_MAP_MAX_NEG)
		table_free(&m->removed);
	table_get(&m->removed, id);
	return NULL;
}

int cgroup_map_set(struct cgroup_map *m, uint64_t id, const char *path)
{
	struct ent *e;
	char *p;

	if (!id || !path || path[0] != '/')
		return -EINVAL;
	p = strdup(path);
	e = p ? table_get(&m->known, id) : NULL;
	if (!e) {
		free(p);
		return -ENOMEM;
	}
	free(e->path);
	e->path = p;
	e->pinned = true;
	return 0;
}

void cgroup_map_free(struct cgroup_map *m)
{
	if (!m)
		return;
	table_free(&m->known);
	table_free(&m->removed);
	if (m->mnt_fd >= 0)
		close(m->mnt_fd);
	free(m);
}

void cgroup_map_set_rescan_interval(struct cgroup_map *m, uint64_t ns)
{
	m->interval_ns = ns;
}

void cgroup_map_use_handles(struct cgroup_map *m, bool on)
{
	m->handles = on && m->can_handle;
}

void cgroup_map_stats(const struct cgroup_map *m, struct cgroup_map_stats *st)
{
	*st = m->st;
	st->entries = m->known.n;
	st->negatives = m->removed.n;
}

/* path -> "/a/b" (no empty or "." parts; out has strlen(path) + 2 bytes), its level; -EINVAL on "..". */
static int canonical(const char *path, char *out, unsigned *level)
{
	size_t o = 0;

	*level = 0;
	out[0] = 0;
	while (*path) {
		size_t n = strcspn(path, "/");

		if (n == 2 && !strncmp(path, "..", 2))
			return -EINVAL;
		if (n && !(n == 1 && path[0] == '.')) {
			out[o++] = '/';
			memcpy(out + o, path, n);
			o += n;
			out[o] = 0;
			++*level;
		}
		path += n;
		while (*path == '/')
			path++;
	}
	if (!o)
		strcpy(out, "/");
	return 0;
}

int cgroup_open_below(const char *root, size_t rlen, const char *rel)
{
	const char *p = rel, *end;
	int fd, nfd;

	{
		char r[PATH_MAX];

		snprintf(r, sizeof(r), "%.*s", (int)rlen, root);
		fd = open(rlen ? r : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	while (fd >= 0 && *p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		end = p + strcspn(p, "/");
		if (end - p > NAME_MAX) {
			close(fd);
			errno = ENAMETOOLONG;
			return -ENAMETOOLONG;
		}
		{
			char comp[NAME_MAX + 1];

			memcpy(comp, p, end - p);
			comp[end - p] = 0;
			nfd = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
		close(fd);
		fd = nfd;
		p = end;
	}
	return fd < 0 ? -errno : fd;
}

static void resolve_error(int e, const char *path, const char *in,
			  const char *root, size_t rlen, const char *rel,
			  char *err, size_t errlen)
{
	if (e == -ENOENT && in == path && !strncmp(path, "/sys/fs/cgroup", 14))
		snprintf(err, errlen,
			 "cgroup '%s' not found: the cgroup v2 hierarchy is mounted at %.*s; give a path under it (ls %.*s)",
			 path, (int)rlen, root, (int)rlen, root);
	else if (e == -ENOENT)
		snprintf(err, errlen,
			 "cgroup '%s' not found (no directory %.*s%s): list the cgroups with 'ls %.*s', or see the '0::' line of /proc/<pid>/cgroup",
			 path, (int)rlen, root, rel, (int)rlen, root);
	else if (e == -ENOTDIR)
		snprintf(err, errlen,
			 "cgroup '%s' is not a cgroup (%.*s%s is not a directory): give a cgroup directory, e.g. /system.slice",
			 path, (int)rlen, root, rel);
	else
		snprintf(err, errlen, "cannot open cgroup '%s' (%.*s%s): %s (run as root?)",
			 path, (int)rlen, root, rel, strerror(-e));
}

int cgroup_resolve(const char *root, const char *path, uint64_t *id,
		   unsigned *level, char *err, size_t errlen)
{
	char rootbuf[PATH_MAX], *rel;
	const char *in = path;
	size_t rlen;
	int fd, e;

	if (!root) {
		e = cgroup_root(rootbuf, sizeof(rootbuf), err, errlen);
		if (e)
			return e;
		root = rootbuf;
	}
	if (!path || !*path) {
		snprintf(err, errlen,
			 "empty cgroup path: give one such as /system.slice/foo.service (the '0::' line of /proc/<pid>/cgroup)");
		return -EINVAL;
	}
	rlen = strlen(root);
	while (rlen > 0 && root[rlen - 1] == '/')
		rlen--;
	/* a path in the filesystem under the mount: keep the part inside */
	if (!strncmp(path, root, rlen) && (path[rlen] == '/' || !path[rlen]))
		in = path + rlen;
	rel = malloc(strlen(in) + 2);
	if (!rel) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	e = canonical(in, rel, level);
	if (e == -EINVAL) {
		snprintf(err, errlen,
			 "cgroup path '%s' has a '..': give the path from the cgroup root, e.g. /system.slice/foo.service",
			 path);
		free(rel);
		return e;
	}
	fd = cgroup_open_below(root, rlen, rel);
	if (fd < 0) {
		resolve_error(fd, path, in, root, rlen, rel, err, errlen);
		free(rel);
		return fd;
	}
	e = fd_cgroup_id(fd, id);
	close(fd);
	if (e)
		snprintf(err, errlen, "cannot read the id of cgroup '%s' (%.*s%s): %s",
			 path, (int)rlen, root, rel, strerror(-e));
	free(rel);
	return e;
}

int cgroup_pid_path(pid_t pid, char *buf, size_t len)
{
	char file[64], *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int e = -ENOENT;
	FILE *f;

	if (pid)
		snprintf(file, sizeof(file), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(file, sizeof(file), "/proc/self/cgroup");
	f = fopen(file, "re");
	if (!f)
		return -errno;
	while ((n = getline(&line, &cap, f)) > 0) {
		if (strncmp(line, "0::", 3))
			continue;
		if (line[n - 1] == '\n')
			line[--n] = 0;
		if ((size_t)n - 3 >= len) {
			e = -ENAMETOOLONG;
		} else {
			strcpy(buf, line + 3);
			e = 0;
		}
		break;
	}
	free(line);
	fclose(f);
	return e;
}
