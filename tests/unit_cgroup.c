// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * cgroup v2 mount discovery, path resolution and the id -> path cache, over
 * mountinfo fixtures and a directory tree standing in for the hierarchy (on
 * cgroupfs an id is the directory's inode: tests/kernel_cgroup.c checks that).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "event/cgroup.h"
#include "harness.h"
#include "lib/util.h"

static char err[ERRMSG_LEN];

static const char *mountinfo(const char *text)
{
	const char *p = scratch_path("mountinfo");
	FILE *f = fopen(p, "w");

	cr_assert(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static int root_of(const char *text, char *buf, size_t len)
{
	err[0] = buf[0] = 0;
	return cgroup_root_from(mountinfo(text), buf, len, err, sizeof(err));
}

static void expect_root(const char *text, const char *want)
{
	char buf[256];

	cr_assert_eq(root_of(text, buf, sizeof(buf)), 0, "%s", err);
	cr_assert_str_eq(buf, want);
}

TestSuite(cgroup_root, .init = scratch_init, .fini = scratch_fini);

#define PROC_SYS "22 28 0:20 / /proc rw,nosuid,nodev,noexec,relatime shared:12 - proc proc rw\n"
#define V1(n, c) #n " 31 0:" #n " / /sys/fs/cgroup/" c " rw,relatime shared:" #n " - cgroup cgroup rw," c "\n"

Test(cgroup_root, pure_v2)
{
	expect_root(PROC_SYS
		    "30 24 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate,memory_recursiveprot\n",
		    "/sys/fs/cgroup");
}

Test(cgroup_root, hybrid)
{
	expect_root(PROC_SYS
		    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
		    V1(32, "cpu") V1(35, "memory")
		    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
		    V1(40, "systemd"),
		    "/sys/fs/cgroup/unified");
}

Test(cgroup_root, elsewhere_with_escapes)
{
	expect_root(PROC_SYS "50 22 0:40 / /run/my\\040cgroups rw,relatime - cgroup2 none rw\n",
		    "/run/my cgroups");
}

Test(cgroup_root, whole_hierarchy_over_a_bind_mounted_subtree)
{
	/* a container's view of one subtree, then the host's whole hierarchy */
	expect_root("60 22 0:26 /system.slice/foo.service /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
		    "61 22 0:26 / /mnt/cg rw shared:1 master:2 - cgroup2 cgroup2 rw\n",
		    "/mnt/cg");
}

Test(cgroup_root, v1_only_is_an_error_with_the_fix)
{
	char buf[256];

	cr_assert_eq(root_of(PROC_SYS V1(32, "cpu") V1(40, "systemd"), buf, sizeof(buf)),
		     -ENOENT);
	cr_assert(strstr(err, "no cgroup v2"), "%s", err);
	cr_assert(strstr(err, "mount -t cgroup2"), "%s", err);
	cr_assert_null(strchr(err, '\n'));
}

Test(cgroup_root, unreadable_mountinfo)
{
	char buf[64];

	cr_assert_eq(cgroup_root_from("/nonexistent/mountinfo", buf, sizeof(buf),
				      err, sizeof(err)), -ENOENT);
	cr_assert(strstr(err, "/nonexistent/mountinfo"), "%s", err);
}

Test(cgroup_root, this_machine)
{
	char buf[256];
	struct stat st;

	/* every Linux this runs on has a cgroup2 mount (hybrid or pure v2) */
	cr_assert_eq(cgroup_root(buf, sizeof(buf), err, sizeof(err)), 0, "%s", err);
	cr_assert_eq(stat(buf, &st), 0, "%s", buf);
	cr_assert(S_ISDIR(st.st_mode));
}

/* ---- a stand-in hierarchy ---- */

static const char *tree;
/* no inode number comes near this */
#define NO_SUCH_ID (1ull << 62)

static uint64_t mk(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	cr_assert_eq(mkdir(p, 0755), 0, "mkdir %s: %s", p, strerror(errno));
	cr_assert_eq(stat(p, &st), 0);
	return st.st_ino;
}

static void rm(const char *rel)
{
	char p[512];

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	cr_assert_eq(rmdir(p), 0, "rmdir %s: %s", p, strerror(errno));
}

static uint64_t ino(const char *rel)
{
	char p[512];
	struct stat st;

	snprintf(p, sizeof(p), "%s%s", tree, rel);
	cr_assert_eq(stat(p, &st), 0, "%s", p);
	return st.st_ino;
}

static void tree_init(void)
{
	scratch_init();
	tree = scratch_path("cg");
	tree = strdup(tree);
	cr_assert_eq(mkdir(tree, 0755), 0);
}

static void tree_fini(void)
{
	free((char *)tree);
	scratch_fini();
}

static uint64_t walks(struct cgroup_map *m)
{
	struct cgroup_map_stats st;

	cgroup_map_stats(m, &st);
	return st.walks;
}

TestSuite(cgroup_map, .init = tree_init, .fini = tree_fini);

static struct cgroup_map *map_of_tree(void)
{
	struct cgroup_map *m = cgroup_map_new(tree, err, sizeof(err));

	cr_assert_not_null(m, "%s", err);
	return m;
}

Test(cgroup_map, one_walk_knows_the_tree)
{
	uint64_t a = mk("/system.slice"), b = mk("/system.slice/nginx.service"),
		 c = mk("/user.slice");
	struct cgroup_map *m = map_of_tree();
	struct cgroup_map_stats st;

	/* a file in a cgroup is not a cgroup */
	fclose(fopen(scratch_path("cg/system.slice/cgroup.procs"), "w"));
	cr_assert_str_eq(cgroup_map_path(m, ino("")), "/");
	cr_assert_str_eq(cgroup_map_path(m, a), "/system.slice");
	cr_assert_str_eq(cgroup_map_path(m, b), "/system.slice/nginx.service");
	cr_assert_str_eq(cgroup_map_path(m, c), "/user.slice");
	cgroup_map_stats(m, &st);
	cr_assert_eq(st.walks, 1);
	cr_assert_eq(st.entries, 4);
	cgroup_map_free(m);
}

Test(cgroup_map, miss_walks_again_and_finds_a_new_cgroup)
{
	struct cgroup_map *m;
	uint64_t id;

	mk("/a");
	m = map_of_tree();
	id = mk("/a/late");
	/*
	 * inside the interval: no walk, not found yet (an hour: a busy
	 * machine may hold this process longer than the default 100 ms)
	 */
	cgroup_map_set_rescan_interval(m, 3600ull * 1000000000);
	cr_assert_null(cgroup_map_path(m, id));
	cr_assert_eq(walks(m), 1);
	/* past the interval (1 ns: no time to wait out) it walks again */
	cgroup_map_set_rescan_interval(m, 1);
	cr_assert_str_eq(cgroup_map_path(m, id), "/a/late");
	cr_assert_eq(walks(m), 2);
	cgroup_map_free(m);
}

Test(cgroup_map, removed_cgroup_does_not_walk_on_every_call)
{
	struct cgroup_map *m;
	uint64_t gone, other;
	int i;

	gone = mk("/gone");
	m = map_of_tree();
	cgroup_map_set_rescan_interval(m, 0);
	cr_assert_str_eq(cgroup_map_path(m, gone), "/gone");
	/* made before the removal: a file system may give the inode again */
	other = mk("/other");
	rm("/gone");
	/* a walk for another id drops it from the table */
	cr_assert_str_eq(cgroup_map_path(m, other), "/other");
	cr_assert_eq(walks(m), 2);
	/* one walk to learn it is gone, then none: even with no rate limit */
	for (i = 0; i < 1000; i++)
		cr_assert_null(cgroup_map_path(m, gone));
	cr_assert_eq(walks(m), 3);
	cgroup_map_free(m);
}

Test(cgroup_map, flood_of_unknown_ids_is_rate_limited)
{
	struct cgroup_map *m = map_of_tree();
	struct cgroup_map_stats st;
	uint64_t id;

	cgroup_map_set_rescan_interval(m, 3600ull * 1000000000);
	for (id = NO_SUCH_ID; id < NO_SUCH_ID + 10000; id++)
		cr_assert_null(cgroup_map_path(m, id));
	cgroup_map_stats(m, &st);
	cr_assert_eq(st.walks, 1);
	cr_assert_eq(st.limited, 10000);
	/* inside the interval nothing is concluded: no negatives */
	cr_assert_eq(st.negatives, 0);
	cgroup_map_free(m);
}

Test(cgroup_map, negatives_are_bounded)
{
	struct cgroup_map *m = map_of_tree();
	struct cgroup_map_stats st;
	uint64_t id;

	cgroup_map_set_rescan_interval(m, 0);
	for (id = NO_SUCH_ID; id < NO_SUCH_ID + CGROUP_MAP_MAX_NEG + 10; id++)
		cr_assert_null(cgroup_map_path(m, id));
	cgroup_map_stats(m, &st);
	cr_assert_leq(st.negatives, CGROUP_MAP_MAX_NEG);
	cr_assert_gt(st.negatives, 0);
	cgroup_map_free(m);
}

Test(cgroup_map, string_stays_while_the_cgroup_exists)
{
	uint64_t a = mk("/a");
	struct cgroup_map *m = map_of_tree();
	const char *p = cgroup_map_path(m, a);
	uint64_t b;

	cgroup_map_set_rescan_interval(m, 0);
	b = mk("/b");
	cr_assert_str_eq(cgroup_map_path(m, b), "/b");
	cr_assert_eq(walks(m), 2);
	/* the same string after the walk: callers may keep it */
	cr_assert_eq(cgroup_map_path(m, a), p);
	cgroup_map_free(m);
}

Test(cgroup_map, set_overrides_and_survives_walks)
{
	uint64_t a = mk("/a");
	struct cgroup_map *m = map_of_tree();

	cgroup_map_set_rescan_interval(m, 0);
	cr_assert_eq(cgroup_map_set(m, a, "/renamed"), 0);
	cr_assert_eq(cgroup_map_set(m, 987654321, "/from/a/capture"), 0);
	cr_assert_str_eq(cgroup_map_path(m, a), "/renamed");
	cr_assert_null(cgroup_map_path(m, NO_SUCH_ID)); /* a walk */
	cr_assert_eq(walks(m), 2);
	cr_assert_str_eq(cgroup_map_path(m, a), "/renamed");
	cr_assert_str_eq(cgroup_map_path(m, 987654321), "/from/a/capture");
	cr_assert_eq(cgroup_map_set(m, 0, "/x"), -EINVAL);
	cr_assert_eq(cgroup_map_set(m, 5, "relative"), -EINVAL);
	cr_assert_eq(cgroup_map_set(m, 5, NULL), -EINVAL);
	cgroup_map_free(m);
}

Test(cgroup_map, table_only_map_never_walks)
{
	struct cgroup_map *m = cgroup_map_new_table();
	int i;

	cr_assert_not_null(m);
	for (i = 1; i <= 1000; i++) {
		char p[32];

		snprintf(p, sizeof(p), "/c%d", i);
		cr_assert_eq(cgroup_map_set(m, i * 7, p), 0);
	}
	cr_assert_str_eq(cgroup_map_path(m, 7 * 500), "/c500");
	cr_assert_null(cgroup_map_path(m, 3));
	cr_assert_eq(walks(m), 0);
	cgroup_map_free(m);
}

Test(cgroup_map, unreadable_root)
{
	cr_assert_null(cgroup_map_new("/nonexistent/cgroup", err, sizeof(err)));
	cr_assert(strstr(err, "/nonexistent/cgroup"), "%s", err);
	cr_assert_null(cgroup_map_new("", err, sizeof(err)));
}

Test(cgroup_map, root_removed_keeps_what_it_knew)
{
	char moved[512];
	uint64_t a = mk("/a");
	struct cgroup_map *m = map_of_tree();
	struct cgroup_map_stats st;

	cgroup_map_set_rescan_interval(m, 0);
	snprintf(moved, sizeof(moved), "%s.moved", tree);
	cr_assert_eq(rename(tree, moved), 0);
	cr_assert_null(cgroup_map_path(m, NO_SUCH_ID));
	cr_assert_str_eq(cgroup_map_path(m, a), "/a");
	cgroup_map_stats(m, &st);
	cr_assert_eq(st.walk_errors, 1);
	cr_assert_eq(rename(moved, tree), 0);
	cgroup_map_free(m);
}

/* ---- path -> id ---- */

TestSuite(cgroup_resolve, .init = tree_init, .fini = tree_fini);

static int resolve(const char *path, uint64_t *id, unsigned *level)
{
	err[0] = 0;
	return cgroup_resolve(tree, path, id, level, err, sizeof(err));
}

Test(cgroup_resolve, hierarchy_and_filesystem_paths)
{
	uint64_t want = (mk("/kubepods"), mk("/kubepods/burstable")), id;
	char fs[512];
	unsigned level;
	const char *forms[] = { "/kubepods/burstable", "kubepods/burstable",
				"/kubepods//burstable/", "./kubepods/./burstable" };
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		id = 0;
		level = 99;
		cr_assert_eq(resolve(forms[i], &id, &level), 0, "%s: %s", forms[i], err);
		cr_assert_eq(id, want, "%s", forms[i]);
		cr_assert_eq(level, 2, "%s", forms[i]);
	}
	snprintf(fs, sizeof(fs), "%s/kubepods/burstable", tree);
	cr_assert_eq(resolve(fs, &id, &level), 0, "%s", err);
	cr_assert_eq(id, want);
	cr_assert_eq(level, 2);
}

Test(cgroup_resolve, root_is_level_0)
{
	uint64_t id;
	unsigned level;

	cr_assert_eq(resolve("/", &id, &level), 0, "%s", err);
	cr_assert_eq(level, 0);
	cr_assert_eq(id, ino(""));
	cr_assert_eq(resolve(tree, &id, &level), 0, "%s", err);
	cr_assert_eq(level, 0);
	cr_assert_eq(id, ino(""));
}

Test(cgroup_resolve, unknown_path_names_it_and_where_to_look)
{
	uint64_t id;
	unsigned level;

	mk("/system.slice");
	cr_assert_eq(resolve("/system.slice/nope.service", &id, &level), -ENOENT);
	cr_assert(strstr(err, "/system.slice/nope.service"), "%s", err);
	cr_assert(strstr(err, "ls "), "%s", err);
	cr_assert(strstr(err, tree), "%s", err);
	cr_assert(strstr(err, "/proc/<pid>/cgroup"), "%s", err);
	cr_assert_null(strchr(err, '\n'));
}

Test(cgroup_resolve, v1_path_points_at_the_v2_mount)
{
	uint64_t id;
	unsigned level;

	cr_assert_eq(resolve("/sys/fs/cgroup/memory/foo", &id, &level), -ENOENT);
	cr_assert(strstr(err, "cgroup v2 hierarchy is mounted at"), "%s", err);
	cr_assert(strstr(err, tree), "%s", err);
}

Test(cgroup_resolve, bad_paths)
{
	uint64_t id;
	unsigned level;

	mk("/a");
	cr_assert_eq(resolve("/a/../..", &id, &level), -EINVAL);
	cr_assert(strstr(err, ".."), "%s", err);
	cr_assert_eq(resolve("", &id, &level), -EINVAL);
	cr_assert(strstr(err, "empty"), "%s", err);
	fclose(fopen(scratch_path("cg/a/cgroup.procs"), "w"));
	cr_assert_eq(resolve("/a/cgroup.procs", &id, &level), -ENOTDIR);
	cr_assert(strstr(err, "not a cgroup"), "%s", err);
}

Test(cgroup_pid, this_process)
{
	char path[4096];

	cr_assert_eq(cgroup_pid_path(0, path, sizeof(path)), 0);
	cr_assert_eq(path[0], '/', "%s", path);
	if (strlen(path) >= 2)
		cr_assert_eq(cgroup_pid_path(getpid(), path, 2), -ENAMETOOLONG);
	cr_assert_eq(cgroup_pid_path(999999999, path, sizeof(path)), -ENOENT);
}
