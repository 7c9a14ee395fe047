// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* cpu.stat's throttling counters, one cgroup or all of them (cgcpu.h). */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "event/cgcpu.h"
#include "event/cgroup.h"
#include "lib/array.h"
#include "lib/hashtab.h"

#define WALK_DEPTH 64

/* The throttling keys of cpu.stat's text: 0, or -ENOENT without them. */
static int parse(FILE *f, struct cg_cpu_stat *st)
{
	char key[64];
	uint64_t v;
	int have = 0;

	memset(st, 0, sizeof(*st));
	while (fscanf(f, "%63s %" SCNu64, key, &v) == 2) {
		if (!strcmp(key, "nr_periods")) {
			st->nr_periods = v;
			have |= 1;
		} else if (!strcmp(key, "nr_throttled")) {
			st->nr_throttled = v;
			have |= 2;
		} else if (!strcmp(key, "throttled_usec")) {
			st->throttled_ns = v * 1000;
			have |= 4;
		} else if (!strcmp(key, "throttled_time")) { /* v1, ns */
			st->throttled_ns = v;
			st->v1 = true;
			have |= 4;
		}
	}
	return have == 7 ? 0 : -ENOENT;
}

/* Whether a mountinfo super-option list names the cpu controller. */
static bool names_cpu(const char *opts)
{
	const char *p = opts;

	while (p && *p) {
		size_t n = strcspn(p, ",\n");

		if (n == 3 && !strncmp(p, "cpu", 3))
			return true;
		p += n;
		p += *p == ',';
		if (*p == '\n')
			break;
	}
	return false;
}

void cg_cpu_roots_find(struct cg_cpu_roots *r, const char *v2_root)
{
	FILE *f = fopen("/proc/self/mountinfo", "r");
	char line[8192];

	snprintf(r->v2, sizeof(r->v2), "%s", v2_root ? v2_root : "");
	r->v1[0] = 0;
	while (f && fgets(line, sizeof(line), f)) {
		char *dash = strstr(line, " - "), mnt[4096], fs[64], src[256],
		     opts[1024];

		if (!dash || sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1 ||
		    sscanf(dash + 3, "%63s %255s %1023s", fs, src, opts) != 3)
			continue;
		if (!strcmp(fs, "cgroup") && names_cpu(opts) && !r->v1[0] &&
		    !strchr(mnt, '\\')) /* octal escapes: not followed */
			snprintf(r->v1, sizeof(r->v1), "%s", mnt);
	}
	if (f)
		fclose(f);
}

static int read_at(int dfd, struct cg_cpu_stat *st)
{
	int fd = openat(dfd, "cpu.stat", O_RDONLY | O_CLOEXEC);
	FILE *f;
	int c;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	c = parse(f, st);
	fclose(f);
	return c;
}

static int read_path(const char *root, const char *path,
		     struct cg_cpu_stat *st)
{
	int dfd, c;

	if (!root[0])
		return -ENOENT;
	dfd = cgroup_open_below(root, strlen(root), path);
	if (dfd < 0)
		return dfd;
	c = read_at(dfd, st);
	close(dfd);
	return c;
}

int cg_cpu_stat_read(const struct cg_cpu_roots *r, const char *path,
		     struct cg_cpu_stat *st)
{
	int c = read_path(r->v2, path, st);

	return c == -ENOENT ? read_path(r->v1, path, st) : c;
}

struct snap_ent {
	char *path;
	struct cg_cpu_stat st;
};

/* Entries of v2 first (a path there with the keys wins), then of v1. */
struct cg_cpu_snap {
	struct snap_ent *v;
	size_t n, cap;
	struct hashtab by_path; /* hash_str(path) -> index */
};

static bool snap_find(const struct cg_cpu_snap *s, const char *path,
		      struct cg_cpu_stat *st);

static int add(struct cg_cpu_snap *s, const char *path,
	       const struct cg_cpu_stat *st)
{
	if (array_room(&s->v, s->n, &s->cap, sizeof(*s->v), 64))
		return -ENOMEM;
	s->v[s->n].path = strdup(path);
	if (!s->v[s->n].path || hashtab_add(&s->by_path, hash_str(path), s->n)) {
		free(s->v[s->n].path);
		return -ENOMEM;
	}
	s->v[s->n++].st = *st;
	return 0;
}

/* Whether the cgroup at dfd may give its children the cpu controller. */
static bool cpu_below(int dfd)
{
	char buf[512], *save = NULL;
	int fd = openat(dfd, "cgroup.subtree_control", O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return true; /* v1 (no such file): every cgroup has the controller */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return true;
	buf[n] = 0;
	for (char *t = strtok_r(buf, " \n", &save); t;
	     t = strtok_r(NULL, " \n", &save))
		if (!strcmp(t, "cpu"))
			return true;
	return false;
}

/* The cgroup at dfd (closed here), *path its name, and every one below it. */
static int walk(struct cg_cpu_snap *s, int dfd, char **pathp, size_t *cap,
		size_t plen, unsigned int depth)
{
	char *path = *pathp;
	struct cg_cpu_stat st;
	struct dirent *de;
	DIR *d;
	int err = 0;

	if (!read_at(dfd, &st) && !snap_find(s, plen ? path : "/", NULL) &&
	    add(s, plen ? path : "/", &st)) {
		close(dfd);
		return -ENOMEM;
	}
	/*
	 * v2: a cgroup whose subtree_control has no cpu gives none of its
	 * children the controller, nor theirs: nothing below can be
	 * throttled, however many cgroups a user made there
	 */
	if (!cpu_below(dfd)) {
		close(dfd);
		return 0;
	}
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return 0;
	}
	while (!err && depth < WALK_DEPTH && (de = readdir(d))) {
		size_t nlen = strlen(de->d_name);
		int cfd;

		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		/* no PATH_MAX: the name grows with the hierarchy */
		while (!err && plen + 2 + nlen > *cap)
			err = array_room(pathp, plen + 1 + nlen, cap, 1, 4096);
		if (err)
			break;
		path = *pathp;
		cfd = openat(dirfd(d), de->d_name,
			     O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (cfd < 0)
			continue; /* gone meanwhile */
		path[plen] = '/';
		memcpy(path + plen + 1, de->d_name, nlen + 1);
		err = walk(s, cfd, pathp, cap, plen + 1 + nlen, depth + 1);
		path = *pathp;
		path[plen] = 0;
	}
	closedir(d);
	return err;
}

struct cg_cpu_snap *cg_cpu_snap_take(const struct cg_cpu_roots *r)
{
	struct cg_cpu_snap *s = calloc(1, sizeof(*s));
	size_t cap = 4096;
	char *path = malloc(cap);
	const char *root[] = { r->v2, r->v1 };

	if (!s || !path)
		goto fail;
	for (int k = 0; k < 2; k++) {
		int dfd = root[k][0] ? open(root[k], O_RDONLY | O_DIRECTORY |
					   O_CLOEXEC) : -1;

		path[0] = 0;
		if (dfd >= 0 && walk(s, dfd, &path, &cap, 0, 0))
			goto fail;
	}
	free(path);
	return s;
fail:
	free(path);
	cg_cpu_snap_free(s);
	return NULL;
}

struct key {
	const struct cg_cpu_snap *s;
	const char *path;
};

static bool same_path(void *ctx, uint64_t i)
{
	struct key *k = ctx;

	return !strcmp(k->s->v[i].path, k->path);
}

static bool snap_find(const struct cg_cpu_snap *s, const char *path,
		      struct cg_cpu_stat *st)
{
	struct key k = { s, path };
	uint64_t *i = hashtab_find(&s->by_path, hash_str(path), same_path, &k);

	if (i && st)
		*st = s->v[*i].st;
	return i != NULL;
}

bool cg_cpu_snap_get(const struct cg_cpu_snap *s, const char *path,
		     struct cg_cpu_stat *st)
{
	return snap_find(s, path, st);
}

size_t cg_cpu_snap_count(const struct cg_cpu_snap *s)
{
	return s->n;
}

void cg_cpu_snap_free(struct cg_cpu_snap *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i].path);
	free(s->v);
	hashtab_free(&s->by_path);
	free(s);
}

struct cg_cpu_snap_job {
	pthread_t t;
	const struct cg_cpu_roots *r;
	struct cg_cpu_snap *snap;
};

/*
 * The walk yields to the thread draining the rings: ten nice levels below
 * its caller (a tenant's 30,000 cgroups cost a CPU-second of cpu.stat
 * reads; at the caller's priority they took half a CPU from the drain of
 * a loaded machine). Only this thread: Linux gives each thread its own.
 */
static void *snap_thread(void *arg)
{
	struct cg_cpu_snap_job *j = arg;
	pid_t tid = (pid_t)syscall(SYS_gettid);
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (!errno)
		setpriority(PRIO_PROCESS, (id_t)tid, nice + 10 > 19 ? 19 : nice + 10);
	j->snap = cg_cpu_snap_take(j->r);
	return NULL;
}

struct cg_cpu_snap_job *cg_cpu_snap_start(const struct cg_cpu_roots *r)
{
	struct cg_cpu_snap_job *j = calloc(1, sizeof(*j));

	if (!j)
		return NULL;
	j->r = r;
	if (pthread_create(&j->t, NULL, snap_thread, j)) {
		free(j);
		return NULL;
	}
	return j;
}

struct cg_cpu_snap *cg_cpu_snap_wait(struct cg_cpu_snap_job *j)
{
	struct cg_cpu_snap *s;

	if (!j)
		return NULL;
	pthread_join(j->t, NULL);
	s = j->snap;
	free(j);
	return s;
}
