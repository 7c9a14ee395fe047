/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A container's names (Kubernetes pod, namespace, container; Docker's
 * container name) read from the container runtime's own state on the
 * host, by the container id its cgroup is named after:
 *   containerd  /run/containerd/io.containerd.runtime.v2.task/NS/ID/config.json
 *               (the OCI bundle: annotations io.kubernetes.cri.sandbox-name,
 *               sandbox-namespace, container-name)
 *   CRI-O       /run/containers/storage/overlay-containers/ID/userdata/config.json
 *               (io.kubernetes.pod.name, pod.namespace, container.name)
 *   runc        /run/runc/ID/state.json, /run/containerd/runc/NS/ID/state.json,
 *               /run/docker/runtime-runc/moby/ID/state.json (the bundle's
 *               annotations as "key=value" labels)
 *   crun        /run/crun/ID/status ("bundle"), then BUNDLE/config.json
 *   Docker      /var/lib/docker/containers/ID/config.v2.json ("Name";
 *               Config.Labels io.kubernetes.* under dockershim)
 *   Podman      /var/lib/containers/storage/<driver>-containers/containers.json
 *               (containers/storage's list: the entry of ID, its first name)
 * Nothing found leaves the names empty: users fall back to the ids.
 */
#ifndef ABICAP_CTNAMES_H
#define ABICAP_CTNAMES_H

#include <jansson.h>
#include <stdbool.h>

struct ct_names {
	char pod[254];       /* pod name ("" if none) */
	char ns[254];        /* pod namespace */
	char name[254];      /* container name */
};

static inline bool ct_names_any(const struct ct_names *n)
{
	return n->pod[0] || n->ns[0] || n->name[0];
}

/*
 * The names of container id (64 lowercase hex) from the runtimes' state
 * under root ("" or "/": the host; a directory: a copy of one, for
 * tests). 0 if a runtime named it, -ENOENT if none did (out emptied).
 */
int ct_names_lookup(const char *root, const char *id, struct ct_names *out);
/*
 * The names in an object of annotations or labels (string values), as
 * the OCI bundle's config.json carries them; false if it names none.
 */
bool ct_names_from_annotations(json_t *ann, struct ct_names *out);
/*
 * A container whose cgroup is where containerd puts it by default,
 * "/NS/ID" (ctr run; a name, not a hex id, so no path shape tells), known
 * only from containerd's state: its bundle under root (as for
 * ct_names_lookup) exists and its linux.cgroupsPath is that path. 0 with
 * id "NS/ID" and the names (namespace NS, container ID, or the bundle's
 * annotations'), else -ENOENT. A path not at the root's level, or one of
 * 65 bytes or more, is none.
 */
int ct_by_state(const char *root, const char *path, char id[65],
		struct ct_names *out);
/* The names as JSON: {"pod_name", "namespace", "container_name"}. */
json_t *ct_names_json(const struct ct_names *n);
/* Back from ct_names_json(): false if it is not such an object. */
bool ct_names_from_json(json_t *o, struct ct_names *out);

#endif
