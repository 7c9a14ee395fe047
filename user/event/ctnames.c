// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Container names from the runtimes' state on the host (see ctnames.h).
 * Every file is JSON the runtime wrote; one of more than 4 MiB, or one
 * that is not JSON, names nothing.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "event/ctnames.h"

#define STATE_MAX (4u << 20)

/* root + path, "" and "/" being the host's root */
static void at_root(char *buf, size_t len, const char *root, const char *path)
{
	if (!root || !*root || !strcmp(root, "/"))
		root = "";
	/* too long for a path: nothing is there */
	if (snprintf(buf, len, "%s%s", root, path) >= (int)len)
		snprintf(buf, len, "/nonexistent");
}

/* A regular file of at most STATE_MAX bytes, parsed; NULL otherwise. */
static json_t *load(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	struct stat st;
	json_t *j = NULL;

	if (fd < 0)
		return NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && st.st_size <= STATE_MAX)
		j = json_loadfd(fd, JSON_DISABLE_EOF_CHECK, NULL);
	close(fd);
	return j;
}

static void put(char *dst, size_t len, json_t *v)
{
	const char *s = json_string_value(v);

	if (s && *s && !dst[0])
		snprintf(dst, len, "%s", s);
}

/* pod, namespace, container: containerd's CRI plugin's; CRI-O's (and the
   kubelet's labels under dockershim) */
static const char *const KEYS[][3] = {
	{ "io.kubernetes.cri.sandbox-name", "io.kubernetes.cri.sandbox-namespace",
	  "io.kubernetes.cri.container-name" },
	{ "io.kubernetes.pod.name", "io.kubernetes.pod.namespace",
	  "io.kubernetes.container.name" },
};

bool ct_names_from_annotations(json_t *ann, struct ct_names *out)
{
	if (!json_is_object(ann))
		return false;
	for (size_t i = 0; i < sizeof(KEYS) / sizeof(KEYS[0]); i++) {
		put(out->pod, sizeof(out->pod), json_object_get(ann, KEYS[i][0]));
		put(out->ns, sizeof(out->ns), json_object_get(ann, KEYS[i][1]));
		put(out->name, sizeof(out->name), json_object_get(ann, KEYS[i][2]));
	}
	return ct_names_any(out);
}

/* An OCI bundle's config.json: its annotations. */
static bool from_bundle(const char *config, struct ct_names *out)
{
	json_t *j = load(config);
	bool ok = j && ct_names_from_annotations(json_object_get(j,
							 "annotations"), out);

	json_decref(j);
	return ok;
}

/* runc's state.json: the annotations are its config's "key=value" labels. */
static bool from_runc_state(const char *state, struct ct_names *out)
{
	json_t *j = load(state), *labels, *ann = json_object(), *v;
	size_t i;
	bool ok;

	labels = json_object_get(json_object_get(j, "config"), "labels");
	json_array_foreach(labels, i, v) {
		const char *s = json_string_value(v), *eq = s ? strchr(s, '=') : NULL;
		char key[256];

		if (!eq || (size_t)(eq - s) >= sizeof(key))
			continue;
		snprintf(key, sizeof(key), "%.*s", (int)(eq - s), s);
		json_object_set_new(ann, key, json_string(eq + 1));
	}
	ok = ct_names_from_annotations(ann, out);
	json_decref(ann);
	json_decref(j);
	return ok;
}

/* crun's status: the bundle, whose config.json has the annotations. */
static bool from_crun_status(const char *root, const char *status,
			     struct ct_names *out)
{
	json_t *j = load(status);
	const char *bundle = json_string_value(json_object_get(j, "bundle"));
	char path[PATH_MAX], rel[PATH_MAX];
	bool ok = false;

	if (bundle && *bundle == '/' &&
	    snprintf(rel, sizeof(rel), "%s/config.json", bundle) <
	    (int)sizeof(rel)) {
		at_root(path, sizeof(path), root, rel);
		ok = from_bundle(path, out);
	}
	json_decref(j);
	return ok;
}

/* Docker's config.v2.json: "Name" ("/nginx"), and kubelet labels. */
static bool from_docker(const char *config, struct ct_names *out)
{
	json_t *j = load(config);
	const char *name = json_string_value(json_object_get(j, "Name"));

	if (j)
		ct_names_from_annotations(json_object_get(json_object_get(j,
						"Config"), "Labels"), out);
	if (name && !out->name[0]) {
		while (*name == '/')
			name++;
		snprintf(out->name, sizeof(out->name), "%s", name);
	}
	json_decref(j);
	return ct_names_any(out);
}

/*
 * Podman's (containers/storage's) list of containers: [{"id", "names"}],
 * the first name the container's.
 */
static bool from_storage_list(const char *list, const char *id,
			      struct ct_names *out)
{
	json_t *j = load(list), *c;
	size_t i;

	json_array_foreach(j, i, c) {
		const char *cid = json_string_value(json_object_get(c, "id"));

		if (cid && !strcmp(cid, id)) {
			put(out->name, sizeof(out->name),
			    json_array_get(json_object_get(c, "names"), 0));
			break;
		}
	}
	json_decref(j);
	return ct_names_any(out);
}

/* fn on DIR/NS/ID/LEAF for every NS under dir (containerd's namespaces). */
static bool each_ns(const char *root, const char *dir, const char *id,
		    const char *leaf, bool (*fn)(const char *, struct ct_names *),
		    struct ct_names *out)
{
	char base[PATH_MAX], path[PATH_MAX];
	struct dirent *e;
	bool ok = false;
	DIR *d;

	at_root(base, sizeof(base), root, dir);
	d = opendir(base);
	if (!d)
		return false;
	while (!ok && (e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		if (snprintf(path, sizeof(path), "%s/%s/%s/%s", base, e->d_name,
			     id, leaf) < (int)sizeof(path))
			ok = fn(path, out);
	}
	closedir(d);
	return ok;
}

/* The runtimes' files named by the container id (%s), in the order tried. */
static const struct {
	const char *fmt;
	bool (*fn)(const char *path, struct ct_names *out);
} BY_ID[] = {
	{ "/run/containers/storage/overlay-containers/%s/userdata/config.json",
	  from_bundle },
	{ "/run/runc/%s/state.json", from_runc_state },
	{ "/run/docker/runtime-runc/moby/%s/state.json", from_runc_state },
	{ "/var/lib/docker/containers/%s/config.v2.json", from_docker },
};

/* containers/storage's lists of containers, by storage driver (podman) */
static const char *const STORAGE[] = {
	"/var/lib/containers/storage/overlay-containers/containers.json",
	"/var/lib/containers/storage/vfs-containers/containers.json",
	"/var/lib/containers/storage/btrfs-containers/containers.json",
};

int ct_names_lookup(const char *root, const char *id, struct ct_names *out)
{
	char path[PATH_MAX], rel[PATH_MAX];

	memset(out, 0, sizeof(*out));
	/* an id is hex: never a path of its own */
	if (!id || !*id || strspn(id, "0123456789abcdef") != strlen(id) ||
	    strlen(id) > 128)
		return -ENOENT;
	if (each_ns(root, "/run/containerd/io.containerd.runtime.v2.task", id,
		    "config.json", from_bundle, out) ||
	    each_ns(root, "/run/containerd/runc", id, "state.json",
		    from_runc_state, out))
		return 0;
	for (size_t i = 0; i < sizeof(BY_ID) / sizeof(BY_ID[0]); i++) {
		snprintf(rel, sizeof(rel), BY_ID[i].fmt, id);
		at_root(path, sizeof(path), root, rel);
		if (BY_ID[i].fn(path, out))
			return 0;
	}
	snprintf(rel, sizeof(rel), "/run/crun/%s/status", id);
	at_root(path, sizeof(path), root, rel);
	if (from_crun_status(root, path, out))
		return 0;
	for (size_t i = 0; i < sizeof(STORAGE) / sizeof(STORAGE[0]); i++) {
		at_root(path, sizeof(path), root, STORAGE[i]);
		if (from_storage_list(path, id, out))
			return 0;
	}
	memset(out, 0, sizeof(*out));
	return -ENOENT;
}

int ct_by_state(const char *root, const char *path, char id[65],
		struct ct_names *out)
{
	const char *ns = path + 1, *slash, *name;
	char rel[PATH_MAX], file[PATH_MAX];
	json_t *j;
	bool ok;

	memset(out, 0, sizeof(*out));
	if (path[0] != '/')
		return -ENOENT;
	slash = strchr(ns, '/');
	/* "/NS/ID": containerd's default place (ctr, nerdctl with cgroupfs) */
	if (!slash || slash == ns || strchr(slash + 1, '/') ||
	    !slash[1] || ns[0] == '.' || slash[1] == '.' ||
	    strlen(ns) >= 65)
		return -ENOENT;
	name = slash + 1;
	snprintf(rel, sizeof(rel), "/run/containerd/io.containerd.runtime.v2.task"
		 "%s/config.json", path);
	at_root(file, sizeof(file), root, rel);
	j = load(file);
	ok = j && json_is_string(json_object_get(json_object_get(j, "linux"),
						 "cgroupsPath")) &&
	     !strcmp(json_string_value(json_object_get(json_object_get(j,
				"linux"), "cgroupsPath")), path);
	if (ok) {
		ct_names_from_annotations(json_object_get(j, "annotations"), out);
		snprintf(out->ns, sizeof(out->ns), "%.*s", (int)(slash - ns), ns);
		if (!out->name[0])
			snprintf(out->name, sizeof(out->name), "%s", name);
		snprintf(id, 65, "%s", ns);
	}
	json_decref(j);
	return ok ? 0 : -ENOENT;
}

json_t *ct_names_json(const struct ct_names *n)
{
	return json_pack("{s:s, s:s, s:s}", "pod_name", n->pod, "namespace",
			 n->ns, "container_name", n->name);
}

bool ct_names_from_json(json_t *o, struct ct_names *out)
{
	memset(out, 0, sizeof(*out));
	if (!json_is_object(o))
		return false;
	put(out->pod, sizeof(out->pod), json_object_get(o, "pod_name"));
	put(out->ns, sizeof(out->ns), json_object_get(o, "namespace"));
	put(out->name, sizeof(out->name), json_object_get(o, "container_name"));
	return ct_names_any(out);
}
