/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* cgroup path -> container, Kubernetes pod and QoS class, systemd unit. */
#ifndef ABICAP_CONTAINER_H
#define ABICAP_CONTAINER_H

#include <stddef.h>

enum ct_runtime { CT_NONE, CT_DOCKER, CT_CONTAINERD, CT_CRIO, CT_PODMAN, CT_SYSTEMD };
enum ct_qos { QOS_NONE, QOS_GUARANTEED, QOS_BURSTABLE, QOS_BESTEFFORT };

#define CT_WITHIN_LEN 192

struct ct_info {
	enum ct_runtime runtime;
	char id[65];      /* container id (full hex; containerd's "NS/ID"), "" if none */
	char pod_uid[37]; /* Kubernetes pod UID with dashes (static pods: 32 hex), "" if none */
	enum ct_qos qos;
	char unit[128];   /* deepest systemd unit/scope/slice, e.g. "nginx.service" */
	/*
	 * Where the container, pod or unit is, "" on the host: "user@1000"
	 * (a user's systemd: rootless), "docker:b68e6db57fad" (inside that
	 * container), or both, joined by '/'.
	 */
	char within[CT_WITHIN_LEN];
};

/*
 * Parse a cgroup v2 path ("/system.slice/docker-<64 hex>.scope"...).
 * 1 if a container was found (runtime neither CT_NONE nor CT_SYSTEMD), else 0
 * with the rest still filled: systemd unit (runtime CT_SYSTEMD), pod, QoS.
 * A container, pod or unit counts only where its runtime (or systemd) puts
 * it: docker-<id>.scope and nerdctl-<id>.scope directly in system.slice,
 * /docker/<id>, libpod-<id>.scope in machine.slice's slices, /libpod_parent/
 * libpod-<id>, pods in kubepods' slices or /kubepods/[qos/], any runtime's
 * container directly in a pod, units in a chain of slices. The same name
 * elsewhere (a user's delegated subtree) is a plain cgroup. Below a
 * container the places start again (docker in docker, a kind node), as
 * they do below a user's systemd (user.slice/user-N.slice/user@N.service:
 * rootless podman and docker in its user.slice); what is found there has
 * its place in within. Sub-cgroups of a container
 * (".../docker-<id>.scope/init.scope") belong to it; a container inside a
 * container is the inner one. Monitors (conmon) are not containers. Under
 * a pod a bare id's runtime is taken to be containerd (cgroupfs driver
 * paths do not say which). Any length and depth.
 */
int ct_from_path(const char *path, struct ct_info *out);
const char *ct_runtime_name(enum ct_runtime r); /* "docker", "containerd", "cri-o", "podman", "systemd", "" */
const char *ct_qos_name(enum ct_qos q);         /* "guaranteed", "burstable", "besteffort", "" */
/*
 * A short label for tables: "docker:3f4e5a6b7c8d" (12 hex), "k8s:<pod-uid>/<12 hex>"
 * (any runtime under a pod), "k8s:<pod-uid>" (a pod's own cgroup, its
 * monitors), "podman:...", "systemd:nginx.service", else the path's last
 * component ("/" for the root); after "<within>/" where within is set
 * ("user@1000/podman:630820483b73").
 */
void ct_label(const struct ct_info *c, const char *path, char *buf, size_t len);

#endif
