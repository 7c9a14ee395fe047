// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Containers started by the real runtimes (issue 32, item 6): podman,
 * Docker and containerd (ctr), each running a small image made here from
 * a static busybox (no registry). record's report --by container, serve's
 * series and heatmap --container must name each container by the name its
 * runtime knows: "podman:NAME", "docker:NAME", "containerd:NS/NAME".
 *
 * On this kind of machine (no CAP_SYS_RESOURCE; hybrid cgroups, hugetlb on
 * the v2 hierarchy) the runtimes run with: podman --runtime runc (crun
 * refuses a hybrid layout whose v2 hierarchy has a controller) and
 * --ulimit values not above the current hard limits (podman's defaults,
 * 1048576 open files, cannot be set without CAP_SYS_RESOURCE); dockerd with
 * --iptables=false --bridge=none and containers with --network none; ctr
 * as it is.
 *
 * Each runs twice: on the hybrid layout as it is, and in unified mode, as
 * on a pure cgroup2 host: the runtime (and its daemons) in a mount
 * namespace of its own where /sys/fs/cgroup is the cgroup2 hierarchy, so
 * that it sees no v1 hierarchy and makes its containers in cgroup2 alone
 * (there podman also runs with --pids-limit=-1: the pids controller is on
 * v1 here, and runc refuses a pids limit it cannot set).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "harness.h"

#define IMAGE "localhost/abicap-busy:1"
/* wakes 500 times a second: switches and waits in its cgroup */
#define TICK "while :; do usleep 2000; done"

static char name[64];
/* the runtime runs in unified mode (see above) */
static bool unified;
#define UNIFIED "unshare -m sh -c 'mount -t cgroup2 none /sys/fs/cgroup && exec \"$0\" \"$@\"' "
static char rootfs_tar[512];
static pid_t daemons[2];
static int ndaemons;

static struct run sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static struct run sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return run_cmd((char *[]){ "sh", "-c", cmd, NULL });
}

static void need(const char *tool)
{
	struct run r = sh("command -v %s", tool);

	if (!r.code)
		return;
	if (getenv("CI"))
		cr_assert_fail("%s missing in CI (scripts/setup.sh installs it)", tool);
	test_skip("%s missing: scripts/setup.sh installs it", tool);
}

static void setup(void)
{
	struct run r;

	require_kernel();
	scratch_init();
	snprintf(name, sizeof(name), "abc-%d", getpid());
	snprintf(rootfs_tar, sizeof(rootfs_tar), "%s", scratch_path("rootfs.tar"));
	r = sh("d=%s && mkdir -p $d/bin && cp /usr/bin/busybox $d/bin/ && "
	       "ln -s busybox $d/bin/sh && ln -s busybox $d/bin/usleep && "
	       "tar -C $d -cf %s .", scratch_path("rootfs"), rootfs_tar);
	cr_assert_eq(r.code, 0, "the image's root: %s", r.err);
}

static void teardown(void)
{
	free(sh("podman rm -f %s; docker rm -f %s; "
		"ctr -n abicap-test task kill -s KILL %s; sleep 0.2; "
		"ctr -n abicap-test task rm %s; ctr -n abicap-test c rm %s",
		name, name, name, name, name).err);
	/* a daemon in a session of its own (spawn_quiet): all its processes */
	for (int i = ndaemons - 1; i >= 0; i--)
		if (!kill(-daemons[i], SIGTERM) || !kill(daemons[i], SIGTERM))
			waitpid(daemons[i], NULL, 0);
	ndaemons = 0;
	unified = false;
	scratch_fini();
}

TestSuite(runtimes, .init = setup, .fini = teardown, .timeout = 240);

static json_t *group(json_t *rep, const char *label)
{
	json_t *g;
	size_t i;

	json_array_foreach(json_object_get(rep, "groups"), i, g)
		if (!strcmp(json_string_value(json_object_get(g, "group")), label))
			return g;
	return NULL;
}

/*
 * The container pid (its shell) runs in is named label by report --by
 * container, serve (container_name="ctname") and heatmap --container.
 */
static void assert_named(pid_t pid, const char *label, const char *ctname)
{
	char *cap = scratch_path("rt.abicap"), *page = scratch_path("rt.html");
	char listen[64], seen[1024], prefix[256], *text = NULL;
	int port = free_ports(1);
	struct child srv;
	json_t *rep, *g;
	struct run r;

	cr_assert_gt(pid, 0, "the runtime gave no pid");
	unlink(cap);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "record", "-o", cap, "-d",
				"1", NULL });
	cr_assert_eq(r.code, 0, "record exited %d: %s", r.code, r.err);
	r = run_cmd((char *[]){ (char *)abicap_bin(), "report", cap, "--by",
				"container", "-f", "json", NULL });
	cr_assert_eq(r.code, 0, "%s", r.err);
	rep = json_loads(r.out, 0, NULL);
	cr_assert(rep);
	g = group(rep, label);
	cr_assert(g, "no group %s (pid %d) in: %.3000s", label, pid, r.out);
	cr_assert_geq(json_integer_value(json_object_get(g, "tasks")), 1);
	cr_assert_gt(json_integer_value(json_object_get(g, "rq_samples")), 10);
	json_decref(rep);

	r = run_cmd((char *[]){ (char *)abicap_bin(), "heatmap", cap, "-o", page,
				"--container", (char *)label, NULL });
	cr_assert_eq(r.code, 0, "heatmap --container %s: %s", label, r.err);

	snprintf(listen, sizeof(listen), "127.0.0.1:%d", port);
	spawn(&srv, (char *[]){ (char *)abicap_bin(), "serve", "--listen", listen,
			       NULL });
	daemons[ndaemons++] = srv.pid;
	wait_for_stderr(&srv, "serving http://", seen, sizeof(seen));
	snprintf(prefix, sizeof(prefix), "container_name=\"%s\"", ctname);
	for (int t = 0; t < 50; t++) {
		free(text);
		text = scrape_metrics(port);
		if (strstr(text, prefix))
			break;
		usleep(100000);
	}
	cr_assert(strstr(text, prefix), "no series with %s: %s", prefix,
		  metric_lines(text, "abicap_context_switches_total{"));
	free(text);
	kill(srv.pid, SIGTERM);
	free(read_all(srv.err_fd));
	wait_exit(&srv, 20);
	ndaemons--;
}

/*
 * argv with stdio /dev/null, no other descriptor (conmon and the daemons
 * keep what they are given: run_cmd would wait for them), in a session of
 * its own.
 */
static pid_t spawn_quiet(char *const argv[])
{
	pid_t pid = fork();

	cr_assert_geq(pid, 0);
	if (!pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		close_range(3, ~0u, 0);
		setsid();
		execvp(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/* sh -c cmd, spawned quietly: its status. */
static int detached(const char *cmd)
{
	pid_t pid = spawn_quiet((char *[]){ "sh", "-c", (char *)cmd, NULL });
	int st;

	cr_assert_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The first number a runtime's command prints: its container's pid. */
static pid_t pid_in(struct run r)
{
	long pid = r.code ? 0 : strtol(r.out, NULL, 10);

	free(r.out);
	free(r.err);
	return (pid_t)pid;
}

static void podman_case(void)
{
	struct rlimit nofile, nproc;
	unsigned long long np;
	char label[96], cmd[1024];
	struct run r;

	need("podman");
	need("runc");
	cr_assert_eq(getrlimit(RLIMIT_NOFILE, &nofile), 0);
	cr_assert_eq(getrlimit(RLIMIT_NPROC, &nproc), 0);
	np = nproc.rlim_max == RLIM_INFINITY || nproc.rlim_max > 32768 ? 32768 :
	     nproc.rlim_max;
	r = sh("podman import -q %s %s", rootfs_tar, IMAGE);
	cr_assert_eq(r.code, 0, "podman import: %s", r.err);
	/*
	 * conmon, which stays, keeps every descriptor it is given: the
	 * command runs with none but its stdio (run_cmd would wait for it)
	 */
	snprintf(cmd, sizeof(cmd), "%spodman run -d --runtime runc %s--ulimit "
		 "nofile=%llu:%llu --ulimit nproc=%llu:%llu --name %s %s "
		 "/bin/sh -c '" TICK "' 2>%s", unified ? UNIFIED : "",
		 unified ? "--pids-limit=-1 " : "",
		 (unsigned long long)nofile.rlim_max,
		 (unsigned long long)nofile.rlim_max, np, np, name, IMAGE,
		 scratch_path("podman.err"));
	cr_assert_eq(detached(cmd), 0, "podman run: %s",
		     read_file(scratch_path("podman.err"), &(size_t){ 0 }));
	snprintf(label, sizeof(label), "podman:%s", name);
	assert_named(pid_in(sh("podman inspect -f '{{.State.Pid}}' %s", name)),
		     label, name);
}

Test(runtimes, podman_names_its_container)
{
	podman_case();
}

Test(runtimes, podman_names_its_container_unified)
{
	unified = true;
	podman_case();
}

/* A daemon started for the test (stopped by the suite's fini). */
static void start_daemon(const char *what, const char *ready_cmd,
			 char *const argv[])
{
	char *wrapped[16] = { "unshare", "-m", "sh", "-c",
			      "mount -t cgroup2 none /sys/fs/cgroup && exec \"$0\" \"$@\"" };
	pid_t pid;
	struct run r;
	int n = 5;

	for (int i = 0; unified && argv[i] && n < 15; i++)
		wrapped[n++] = argv[i];
	pid = spawn_quiet(unified ? wrapped : argv);
	daemons[ndaemons++] = pid;
	for (int t = 0; t < 300; t++) {
		r = sh("%s", ready_cmd);
		free(r.out);
		free(r.err);
		if (!r.code)
			return;
		cr_assert_eq(waitpid(pid, NULL, WNOHANG), 0, "%s exited", what);
		usleep(100000);
	}
	cr_assert_fail("%s not ready in 30 s (%s)", what, ready_cmd);
}

/* containerd, where none answers */
static void have_containerd(void)
{
	struct run r = sh("ctr version");

	free(r.out);
	free(r.err);
	if (r.code)
		start_daemon("containerd", "ctr version",
			     (char *[]){ "containerd", NULL });
}

static void docker_case(void)
{
	char label[96];
	struct run r;

	need("dockerd");
	need("containerd");
	r = sh("docker info");
	free(r.out);
	free(r.err);
	if (!r.code && unified)
		test_skip("a dockerd runs already, on the host's layout: the "
			  "unified case needs its own");
	if (r.code && unified) {
		/*
		 * one mount namespace for both: runc (containerd's child)
		 * must see the root dockerd mounted for the container
		 */
		start_daemon("containerd and dockerd", "docker info",
			     (char *[]){ "sh", "-c", "containerd & exec dockerd "
					 "--iptables=false --ip6tables=false "
					 "--bridge=none --containerd="
					 "/run/containerd/containerd.sock", NULL });
	} else if (r.code) {
		have_containerd();
		start_daemon("dockerd", "docker info",
			     (char *[]){ "dockerd", "--iptables=false",
					 "--ip6tables=false", "--bridge=none",
					 "--containerd=/run/containerd/containerd.sock",
					 NULL });
	}
	r = sh("docker import %s %s", rootfs_tar, IMAGE);
	cr_assert_eq(r.code, 0, "docker import: %s", r.err);
	r = sh("docker run -d --network none --name %s %s /bin/sh -c '" TICK "'",
	       name, IMAGE);
	cr_assert_eq(r.code, 0, "docker run: %s", r.err);
	snprintf(label, sizeof(label), "docker:%s", name);
	assert_named(pid_in(sh("docker inspect -f '{{.State.Pid}}' %s", name)),
		     label, name);
}

Test(runtimes, docker_names_its_container)
{
	docker_case();
}

Test(runtimes, docker_names_its_container_unified)
{
	unified = true;
	docker_case();
}

/*
 * ctr puts a container at /NS/ID, a name rather than a hex id: it is a
 * container because containerd's state says so.
 */
static void containerd_case(void)
{
	char label[128], oci[512];
	struct run r;

	need("containerd");
	need("ctr");
	need("umoci");
	r = sh("ctr version");
	free(r.out);
	free(r.err);
	if (!r.code && unified)
		test_skip("a containerd runs already, on the host's layout: the "
			  "unified case needs its own");
	have_containerd();
	/* an OCI image archive of the same root, made by umoci */
	snprintf(oci, sizeof(oci), "%s", scratch_path("oci"));
	r = sh("umoci init --layout %s && umoci new --image %s:1 && "
	       "mkdir -p %s.b && umoci unpack --rootless --image %s:1 %s.b && "
	       "tar -C %s.b/rootfs -xf %s && umoci repack --image %s:1 %s.b && "
	       "tar -C %s -cf %s.tar . && ctr -n abicap-test image import "
	       "--index-name %s %s.tar", oci, oci, oci, oci, oci, oci, rootfs_tar,
	       oci, oci, oci, oci, IMAGE, oci);
	cr_assert_eq(r.code, 0, "the image for ctr: %s", r.err);
	/*
	 * unified: no cpu shares (ctr's default, 1024): the cpu controller
	 * is on v1 here, and runc cannot write cpu.weight
	 */
	r = sh("ctr -n abicap-test run -d %s%s %s /bin/sh -c '" TICK "'",
	       unified ? "--cpu-shares 0 " : "", IMAGE, name);
	cr_assert_eq(r.code, 0, "ctr run: %s", r.err);
	r = sh("ctr -n abicap-test task ls | awk '$1 == \"%s\" { print $2 }'",
	       name);
	snprintf(label, sizeof(label), "containerd:abicap-test/%s", name);
	assert_named(pid_in(r), label, name);
}

Test(runtimes, containerd_names_its_container)
{
	containerd_case();
}

Test(runtimes, containerd_names_its_container_unified)
{
	unified = true;
	containerd_case();
}
