/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/* cgroup path -> container, Kubernetes pod and QoS class, systemd unit. */
#ifndef ABICAP_CONTAINER_H
#define ABICAP_CONTAINER_H

#include <stddef.h>

enum ct_runtime { CT_NONE, CT_DOCKER, CT_CONTAINERD, CT_CRIO, CT_PODMAN, CT_SYSTEMD };
enum ct_qos { QOS_NONE, QOS_GUARANTEED, QOS_BURSTABLE, QOS_BESTEFFORT };

struct ct_info {
	enum ct_runtime runtime;
	char id[65];      /* container id (full hex), "" if none */
	char pod_uid[37]; /* Kubernetes pod UID with dashes (static pods: 32 hex), "" if none */
	enum ct_qos qos;
	char unit[128];   /* deepest systemd unit/scope/slice, e.g. "nginx.service" */
};

/*
 * Parse a cgroup v2 path ("/system.slice/docker-<64 hex>.scope"...).
 * 1 if a container was found (runtime neither CT_NONE nor CT_SYSTEMD), else 0
 * with the rest still filled: systemd unit (runtime CT_SYSTEMD), pod, QoS.
 * Sub-cgroups of a container (".../docker-<id>.scope/init.scope") belong to
 * it; a container inside a container is the inner one. Monitors (conmon)
 * are not containers. Bare 64-hex directories count only where a runtime
 * puts them (/docker/<id>, a pod's directory); under a pod their runtime is
 * taken to be containerd (cgroupfs driver paths do not say which).
 */
int ct_from_path(const char *path, struct ct_info *out);
const char *ct_runtime_name(enum ct_runtime r); /* "docker", "containerd", "cri-o", "podman", "systemd", "" */
const char *ct_qos_name(enum ct_qos q);         /* "guaranteed", "burstable", "besteffort", "" */
/*
 * A short label for tables: "docker:3f4e5a6b7c8d" (12 hex), "k8s:<pod-uid>/<12 hex>"
 * (any runtime under a pod), "k8s:<pod-uid>" (a pod's own cgroup, its
 * monitors), "podman:...", "systemd:nginx.service", else the path's last
 * component ("/" for the root).
 */
void ct_label(const struct ct_info *c, const char *path, char *buf, size_t len);

#endif
