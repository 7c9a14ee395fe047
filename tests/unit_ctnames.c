// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Container names from the runtimes' state, in a copy of each runtime's
 * layout under a scratch root (the real runtimes: kernel_containers.c).
 */
#define _GNU_SOURCE
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "event/cgnames.h"
#include "event/ctnames.h"
#include "harness.h"

TestSuite(ctnames, .init = scratch_init, .fini = scratch_fini);

#define ID "3f4e5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6f7081"

/* root/rel with text, its directories made */
static void plant(const char *rel, const char *text)
{
	char p[1024], *s;
	FILE *f;

	snprintf(p, sizeof(p), "%s%s", scratch_path("root"), rel);
	for (s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	cr_assert(f, "%s", p);
	fputs(text, f);
	fclose(f);
}

static struct ct_names look(void)
{
	struct ct_names n;

	cr_assert_eq(ct_names_lookup(scratch_path("root"), ID, &n), 0);
	return n;
}

/* a bundle's config.json at rel naming pod, ns and name by these keys */
static void bundle_names(const char *rel, const char *kpod, const char *kns,
			 const char *kname)
{
	char text[1024];
	struct ct_names n;

	snprintf(text, sizeof(text), "{\"ociVersion\":\"1.0.2\",\"annotations\":"
		 "{\"io.kubernetes.cri.container-type\":\"container\",\"%s\":"
		 "\"web-1\",\"%s\":\"shop\",\"%s\":\"nginx\"}}", kpod, kns, kname);
	plant(rel, text);
	n = look();
	cr_assert_str_eq(n.pod, "web-1");
	cr_assert_str_eq(n.ns, "shop");
	cr_assert_str_eq(n.name, "nginx");
}

Test(ctnames, containerd_bundle_annotations)
{
	bundle_names("/run/containerd/io.containerd.runtime.v2.task/k8s.io/" ID
		     "/config.json", "io.kubernetes.cri.sandbox-name",
		     "io.kubernetes.cri.sandbox-namespace",
		     "io.kubernetes.cri.container-name");
}

Test(ctnames, crio_bundle_annotations)
{
	bundle_names("/run/containers/storage/overlay-containers/" ID
		     "/userdata/config.json", "io.kubernetes.pod.name",
		     "io.kubernetes.pod.namespace", "io.kubernetes.container.name");
}

Test(ctnames, runc_state_labels_and_crun_bundle)
{
	struct ct_names n;

	plant("/run/runc/" ID "/state.json", "{\"id\":\"" ID "\",\"config\":{"
	      "\"labels\":[\"io.kubernetes.pod.name=p\",\"bundle=/b\","
	      "\"io.kubernetes.container.name=c=1\"]}}");
	n = look();
	cr_assert_str_eq(n.pod, "p");
	cr_assert_str_eq(n.name, "c=1");
	cr_assert_str_eq(n.ns, "");
	plant("/run/runc/" ID "/state.json", "{}");
	plant("/run/crun/" ID "/status", "{\"pid\":1,\"bundle\":\"/bundles/x\"}");
	plant("/bundles/x/config.json", "{\"annotations\":{"
	      "\"io.kubernetes.cri.sandbox-name\":\"q\"}}");
	n = look();
	cr_assert_str_eq(n.pod, "q");
}

Test(ctnames, docker_name)
{
	struct ct_names n;

	plant("/var/lib/docker/containers/" ID "/config.v2.json",
	      "{\"ID\":\"" ID "\",\"Name\":\"/nginx\",\"Config\":{\"Labels\":{}}}");
	n = look();
	cr_assert_str_eq(n.name, "nginx");
	cr_assert_str_eq(n.pod, "");
}

/* podman 4.3's list as it writes it (the other container's name not taken) */
Test(ctnames, podman_storage_list)
{
	struct ct_names n;

	plant("/var/lib/containers/storage/overlay-containers/containers.json",
	      "[{\"id\":\"aaaa\",\"names\":[\"other\"]},"
	      "{\"id\":\"" ID "\",\"names\":[\"abc-web\"],\"image\":\"29d1\","
	      "\"layer\":\"8af8\",\"metadata\":\"{\\\"name\\\":\\\"abc-web\\\"}\","
	      "\"created\":\"2026-12-06T12:18:19.9Z\",\"flags\":{}}]");
	n = look();
	cr_assert_str_eq(n.name, "abc-web");
	cr_assert_str_eq(n.pod, "");
}

/* ctr's /NS/ID: a container only where containerd's bundle says that path */
Test(ctnames, containerd_place_known_from_its_state)
{
	struct ct_names n;
	char id[65];

	plant("/run/containerd/io.containerd.runtime.v2.task/shop/web/config.json",
	      "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"/shop/web\"}}");
	plant("/run/containerd/io.containerd.runtime.v2.task/shop/odd/config.json",
	      "{\"ociVersion\":\"1.0.2\",\"linux\":{\"cgroupsPath\":\"/elsewhere\"}}");
	cr_assert_eq(ct_by_state(scratch_path("root"), "/shop/web", id, &n), 0);
	cr_assert_str_eq(id, "shop/web");
	cr_assert_str_eq(n.ns, "shop");
	cr_assert_str_eq(n.name, "web");
	/* the state names another place; not at the root's level; no state */
	cr_assert_eq(ct_by_state(scratch_path("root"), "/shop/odd", id, &n), -ENOENT);
	cr_assert_eq(ct_by_state(scratch_path("root"), "/x/shop/web", id, &n), -ENOENT);
	cr_assert_eq(ct_by_state(scratch_path("root"), "/shop/none", id, &n), -ENOENT);
	cr_assert_eq(ct_by_state(scratch_path("root"), "/shop/../web", id, &n), -ENOENT);
	cr_assert_eq(ct_by_state(scratch_path("root"), "", id, &n), -ENOENT);
	cr_assert_eq(ct_by_state(scratch_path("root"), "/", id, &n), -ENOENT);
}

/* nothing there, a file that is not JSON, an id that is a path: no names */
Test(ctnames, nothing_found_is_enoent)
{
	struct ct_names n;

	cr_assert_eq(ct_names_lookup(scratch_path("root"), ID, &n), -ENOENT);
	plant("/var/lib/docker/containers/" ID "/config.v2.json", "{not json");
	cr_assert_eq(ct_names_lookup(scratch_path("root"), ID, &n), -ENOENT);
	cr_assert_eq(ct_names_lookup(scratch_path("root"), "../../etc", &n),
		     -ENOENT);
	cr_assert(!ct_names_any(&n));
}

/* a table's container named: text's label by name, the id label kept */
Test(ctnames, names_make_the_text_label)
{
	struct cgnames *t = cgnames_table();
	struct ct_names cn = { .name = "nginx" };
	struct cgname c;

	cr_assert_eq(cgnames_set(t, 7, "/system.slice/docker-" ID ".scope"), 0);
	cr_assert_str_eq(cgnames_label(t, 7), "docker:3f4e5a6b7c8d");
	cr_assert_eq(cgnames_set_ct_names(t, ID, &cn), 0);
	cr_assert_str_eq(cgnames_label(t, 7), "docker:nginx");
	cr_assert(cgnames_get(t, 7, &c));
	cr_assert_str_eq(c.label, "docker:3f4e5a6b7c8d");
	cr_assert_str_eq(c.names->name, "nginx");
	cgnames_free(t);
}
