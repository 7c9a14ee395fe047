// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#define _GNU_SOURCE
/*
 * cgroup ids on the running kernel: real cgroups made and removed under the
 * cgroup v2 mount (root needed). The id BPF gets (bpf_get_current_cgroup_id)
 * is the kernfs node id, which name_to_handle_at() gives as an 8-byte handle
 * of type FILEID_KERNFS; on 64-bit it is also the directory's inode.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "event/cgroup.h"
#include "harness.h"
#include "lib/util.h"

static char err[ERRMSG_LEN];
static char root[256];
static char base[64];      /* "/abicap-cgmap-<pid>": this test's cgroups */
static char home[4096];    /* where this process was, to go back before removal */
static char made[8][512];  /* cgroup directories to remove, deepest last */
static int nmade;

static void cg_fini(void)
{
	char procs[sizeof(root) + sizeof(home) + sizeof("/cgroup.procs")];
	FILE *f;

	if (home[0]) {
		snprintf(procs, sizeof(procs), "%s%s/cgroup.procs", root,
			 strcmp(home, "/") ? home : "");
		f = fopen(procs, "w");
		if (f) {
			fprintf(f, "%d\n", getpid());
			fclose(f);
		}
	}
	while (nmade > 0)
		rmdir(made[--nmade]);
}

TestSuite(cgroup_kernel, .fini = cg_fini, .timeout = 30);

/* root, a cgroup2 mount and this test's base cgroup */
static void setup(void)
{
	require_kernel();
	cr_assert_eq(cgroup_root(root, sizeof(root), err, sizeof(err)), 0, "%s", err);
	snprintf(base, sizeof(base), "/abicap-cgmap-%d", getpid());
}

/* make root/base/rel; its path in the hierarchy */
static const char *mkcg(const char *rel, char *hier, size_t len)
{
	cr_assert_lt(nmade, 8);
	snprintf(hier, len, "%s%s", base, rel);
	snprintf(made[nmade], sizeof(made[0]), "%s%s", root, hier);
	cr_assert_eq(mkdir(made[nmade], 0755), 0, "mkdir %s: %s", made[nmade],
		     strerror(errno));
	return made[nmade++];
}

static void rmcg(const char *dir)
{
	cr_assert_eq(rmdir(dir), 0, "rmdir %s: %s", dir, strerror(errno));
	for (int i = 0; i < nmade; i++)
		if (!strcmp(made[i], dir))
			made[i][0] = 0;
}

/* the kernel's own encoding of the id, independent of the code under test */
static uint64_t handle_id(const char *dir)
{
	struct {
		struct file_handle fh;
		unsigned char bytes[MAX_HANDLE_SZ];
	} h = { .fh.handle_bytes = MAX_HANDLE_SZ };
	uint64_t id;
	int mnt;

	cr_assert_eq(name_to_handle_at(AT_FDCWD, dir, &h.fh, &mnt, 0), 0,
		     "name_to_handle_at %s: %s", dir, strerror(errno));
	cr_assert_eq(h.fh.handle_type, 0xfe, "handle type %d: not kernfs",
		     h.fh.handle_type);
	cr_assert_eq(h.fh.handle_bytes, 8);
	memcpy(&id, h.fh.f_handle, 8);
	return id;
}

static uint64_t walks(struct cgroup_map *m)
{
	struct cgroup_map_stats st;

	cgroup_map_stats(m, &st);
	return st.walks;
}

Test(cgroup_kernel, inode_handle_and_resolve_agree)
{
	char hier[256], sub[256];
	const char *dir, *subdir;
	struct stat st;
	uint64_t id;
	unsigned level;

	setup();
	dir = mkcg("", hier, sizeof(hier));
	subdir = mkcg("/worker", sub, sizeof(sub));
	cr_assert_eq(stat(subdir, &st), 0);
	cr_assert_eq((uint64_t)st.st_ino, handle_id(subdir));
	cr_assert_eq(cgroup_resolve(NULL, sub, &id, &level, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(id, handle_id(subdir));
	cr_assert_eq(level, 2);
	/* the filesystem path form */
	cr_assert_eq(cgroup_resolve(root, dir, &id, &level, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(id, handle_id(dir));
	cr_assert_eq(level, 1);
	/* the root cgroup is id 1, level 0 */
	cr_assert_eq(cgroup_resolve(NULL, "/", &id, &level, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(id, 1);
	cr_assert_eq(level, 0);
	cr_assert_eq(handle_id(root), 1);
}

Test(cgroup_kernel, this_process_cgroup)
{
	char hier[256], procs[600], now[4096];
	const char *dir;
	struct cgroup_map *m;
	uint64_t id;
	unsigned level;
	FILE *f;

	setup();
	cr_assert_eq(cgroup_pid_path(0, home, sizeof(home)), 0);
	dir = mkcg("", hier, sizeof(hier));
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	f = fopen(procs, "w");
	cr_assert(f, "%s: %s", procs, strerror(errno));
	fprintf(f, "%d\n", getpid());
	cr_assert_eq(fclose(f), 0, "moving into %s: %s", dir, strerror(errno));

	cr_assert_eq(cgroup_pid_path(0, now, sizeof(now)), 0);
	cr_assert_str_eq(now, hier);
	cr_assert_eq(cgroup_resolve(NULL, now, &id, &level, err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(id, handle_id(dir));
	m = cgroup_map_new(NULL, err, sizeof(err));
	cr_assert_not_null(m, "%s", err);
	cr_assert_str_eq(cgroup_map_path(m, id), hier);
	cgroup_map_free(m);
}

Test(cgroup_kernel, map_knows_every_cgroup_by_its_handle)
{
	char a[256], b[256], c[256];
	const char *da, *db, *dc;
	struct cgroup_map *m;

	setup();
	da = mkcg("", a, sizeof(a));
	db = mkcg("/b", b, sizeof(b));
	dc = mkcg("/b/c", c, sizeof(c));
	m = cgroup_map_new(NULL, err, sizeof(err));
	cr_assert_not_null(m, "%s", err);
	cr_assert_str_eq(cgroup_map_path(m, 1), "/");
	cr_assert_str_eq(cgroup_map_path(m, handle_id(da)), a);
	cr_assert_str_eq(cgroup_map_path(m, handle_id(db)), b);
	cr_assert_str_eq(cgroup_map_path(m, handle_id(dc)), c);
	cr_assert_eq(walks(m), 1);
	cgroup_map_free(m);
}

static struct cgroup_map *new_map(bool handles)
{
	struct cgroup_map *m = cgroup_map_new(NULL, err, sizeof(err));
	struct cgroup_map_stats st;

	cr_assert_not_null(m, "%s", err);
	cgroup_map_use_handles(m, handles);
	cgroup_map_stats(m, &st);
	cr_assert_eq(st.walks, 1);
	return m;
}

/* the default: a miss opens the cgroup by its id, no walk, no waiting */
Test(cgroup_kernel, miss_by_handle_finds_a_new_cgroup_at_once)
{
	char a[256], late[256];
	struct cgroup_map *m;
	struct cgroup_map_stats st;
	uint64_t id;

	setup();
	mkcg("", a, sizeof(a));
	m = new_map(true);
	id = handle_id(mkcg("/late", late, sizeof(late)));
	cr_assert_str_eq(cgroup_map_path(m, id), late);
	cgroup_map_stats(m, &st);
	cr_assert_eq(st.walks, 1);
	cr_assert_eq(st.by_handle, 1);
	cr_assert_eq(st.limited, 0);
	cgroup_map_free(m);
}

/* without handles (no CAP_DAC_READ_SEARCH): a walk, once the interval is over */
Test(cgroup_kernel, miss_by_walk_finds_a_new_cgroup)
{
	char a[256], late[256];
	struct cgroup_map *m;
	uint64_t id;

	setup();
	mkcg("", a, sizeof(a));
	m = new_map(false);
	id = handle_id(mkcg("/late", late, sizeof(late)));
	usleep(CGROUP_MAP_RESCAN_NS / 1000 + 20000);
	cr_assert_str_eq(cgroup_map_path(m, id), late);
	cr_assert_eq(walks(m), 2);
	cgroup_map_free(m);
}

Test(cgroup_kernel, removed_cgroup_by_handle_is_null_at_once)
{
	char a[256], gone[256];
	const char *dgone;
	struct cgroup_map *m;
	struct cgroup_map_stats st;
	uint64_t gid;
	int i;

	setup();
	mkcg("", a, sizeof(a));
	m = new_map(true);
	/* made and removed between two walks: never in the table */
	dgone = mkcg("/gone", gone, sizeof(gone));
	gid = handle_id(dgone);
	rmcg(dgone);
	for (i = 0; i < 1000; i++)
		cr_assert_null(cgroup_map_path(m, gid));
	cgroup_map_stats(m, &st);
	cr_assert_eq(st.walks, 1);
	cr_assert_eq(st.by_handle, 0);
	cr_assert_eq(st.negatives, 1);
	cgroup_map_free(m);
}

Test(cgroup_kernel, removed_cgroup_by_walk_is_not_a_walk_per_call)
{
	char a[256], gone[256], other[256];
	const char *dgone;
	struct cgroup_map *m;
	uint64_t gid, oid, t0;
	int calls = 0;

	setup();
	mkcg("", a, sizeof(a));
	dgone = mkcg("/gone", gone, sizeof(gone));
	gid = handle_id(dgone);
	m = new_map(false);
	cr_assert_str_eq(cgroup_map_path(m, gid), gone);
	rmcg(dgone);
	oid = handle_id(mkcg("/other", other, sizeof(other)));
	cr_assert_neq(oid, gid);
	usleep(CGROUP_MAP_RESCAN_NS / 1000 + 20000);
	/* the walk for the new cgroup finds the old one gone */
	cr_assert_str_eq(cgroup_map_path(m, oid), other);
	cr_assert_eq(walks(m), 2);
	/* asked for again and again for 300 ms: one more walk, then remembered */
	usleep(CGROUP_MAP_RESCAN_NS / 1000 + 20000);
	for (t0 = mono_ns(); mono_ns() - t0 < 300000000ull; calls++)
		cr_assert_null(cgroup_map_path(m, gid));
	cr_assert_eq(walks(m), 3, "%d calls", calls);
	cgroup_map_free(m);
}

/* many short-lived cgroups looked up by handle: the table stays about what exists */
Test(cgroup_kernel, handle_entries_of_removed_cgroups_are_pruned, .timeout = 60)
{
	char a[256], dir[600];
	struct cgroup_map *m;
	struct cgroup_map_stats st;
	uint64_t before;
	int round, i, n;

	setup();
	mkcg("", a, sizeof(a));
	m = new_map(true);
	cgroup_map_set_rescan_interval(m, 0);
	cgroup_map_stats(m, &st);
	before = st.entries;
	n = (int)before + 1100;
	for (round = 0; round < 2; round++) {
		for (i = 0; i < n; i++) {
			snprintf(dir, sizeof(dir), "%s%s/r%d-%d", root, a, round, i);
			cr_assert_eq(mkdir(dir, 0755), 0, "%s: %s", dir, strerror(errno));
			cr_assert_not_null(cgroup_map_path(m, handle_id(dir)));
			cr_assert_eq(rmdir(dir), 0);
		}
	}
	cgroup_map_stats(m, &st);
	cr_assert_eq(st.by_handle, 2 * (uint64_t)n);
	cr_assert_geq(st.walks, 2);
	/* one walk's worth plus what came by handle since: not every cgroup ever seen */
	cr_assert_leq(st.entries, before + 1024 + 16, "%llu entries",
		      (unsigned long long)st.entries);
	cgroup_map_free(m);
}

Test(cgroup_kernel, resolve_errors_name_the_path_and_the_fix)
{
	char a[256], p[600];
	uint64_t id;
	unsigned level;

	setup();
	mkcg("", a, sizeof(a));
	snprintf(p, sizeof(p), "%s/no-such-cgroup", a);
	cr_assert_eq(cgroup_resolve(NULL, p, &id, &level, err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, p), "%s", err);
	cr_assert(strstr(err, root), "%s", err);
	cr_assert(strstr(err, "/proc/<pid>/cgroup"), "%s", err);
	snprintf(p, sizeof(p), "%s%s/cgroup.procs", root, a);
	cr_assert_eq(cgroup_resolve(NULL, p, &id, &level, err, sizeof(err)), -ENOTDIR);
	cr_assert(strstr(err, "not a cgroup"), "%s", err);
	if (strcmp(root, "/sys/fs/cgroup")) {
		/* hybrid: a v1 hierarchy's path points at where v2 is */
		cr_assert_eq(cgroup_resolve(NULL, "/sys/fs/cgroup/cpu/x", &id, &level,
					    err, sizeof(err)), -ENOENT);
		cr_assert(strstr(err, "cgroup v2 hierarchy is mounted at"), "%s", err);
	}
}
