// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* cgroup path -> container, pod, QoS, systemd unit, and the table label. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>
#include "event/container.h"

/* real-looking container ids (64 hex) and pod UIDs */
#define ID1 "b68e6db57fad67a6581e006e41c4fd10a11960b19929776ef3972f4c7783c69d"
#define ID2 "630820483b731eaf55982894b06b45d4038b6d08844008a281f1e1995c100e89"
#define ID3 "e40038429317c6ba2bc577c691b28c4909c10a8a623d523aff11102b6361b689"
#define POD "cd47c704-97d7-4e6e-8ae0-6c4e96b25b92"
#define POD_ "cd47c704_97d7_4e6e_8ae0_6c4e96b25b92"
#define POD2 "32878835-ca84-4e65-a158-913601d053aa"
#define POD2_ "32878835_ca84_4e65_a158_913601d053aa"
#define STATIC_POD "7ea0f67a8043fd35c4a48ed3a0bd04af"

struct want {
	int ret;
	enum ct_runtime rt;
	const char *id, *pod;
	enum ct_qos qos;
	const char *unit, *label;
};

static void expect(const char *path, struct want w)
{
	struct ct_info c;
	char label[160];
	int ret = ct_from_path(path, &c);

	ct_label(&c, path, label, sizeof(label));
	cr_assert_eq(ret, w.ret, "%s: returned %d", path, ret);
	cr_assert_eq(c.runtime, w.rt, "%s: runtime %s, want %s", path,
		     ct_runtime_name(c.runtime), ct_runtime_name(w.rt));
	cr_assert_str_eq(c.id, w.id ? w.id : "", "%s", path);
	cr_assert_str_eq(c.pod_uid, w.pod ? w.pod : "", "%s", path);
	cr_assert_eq(c.qos, w.qos, "%s: qos %s, want %s", path,
		     ct_qos_name(c.qos), ct_qos_name(w.qos));
	cr_assert_str_eq(c.unit, w.unit ? w.unit : "", "%s", path);
	cr_assert_str_eq(label, w.label, "%s", path);
}

Test(container, docker_systemd_driver)
{
	expect("/system.slice/docker-" ID1 ".scope",
	       (struct want){ 1, CT_DOCKER, ID1, NULL, QOS_NONE,
			      "docker-" ID1 ".scope", "docker:b68e6db57fad" });
}

Test(container, docker_cgroupfs_driver)
{
	expect("/docker/" ID2,
	       (struct want){ 1, CT_DOCKER, ID2, NULL, QOS_NONE, NULL,
			      "docker:630820483b73" });
}

Test(container, containerd_k8s_systemd_burstable)
{
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_
	       ".slice/cri-containerd-" ID1 ".scope",
	       (struct want){ 1, CT_CONTAINERD, ID1, POD, QOS_BURSTABLE,
			      "cri-containerd-" ID1 ".scope",
			      "k8s:" POD "/b68e6db57fad" });
}

Test(container, containerd_k8s_systemd_guaranteed)
{
	expect("/kubepods.slice/kubepods-pod" POD2_ ".slice/cri-containerd-" ID3 ".scope",
	       (struct want){ 1, CT_CONTAINERD, ID3, POD2, QOS_GUARANTEED,
			      "cri-containerd-" ID3 ".scope",
			      "k8s:" POD2 "/e40038429317" });
}

Test(container, containerd_k8s_systemd_besteffort)
{
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_
	       ".slice/cri-containerd-" ID2 ".scope",
	       (struct want){ 1, CT_CONTAINERD, ID2, POD, QOS_BESTEFFORT,
			      "cri-containerd-" ID2 ".scope",
			      "k8s:" POD "/630820483b73" });
}

Test(container, kubelet_cgroup_root_prefix)
{
	/* kind: kubelet --cgroup-root=/kubelet prefixes every slice */
	expect("/kubelet.slice/kubelet-kubepods.slice/kubelet-kubepods-burstable.slice/"
	       "kubelet-kubepods-burstable-pod" POD_ ".slice/cri-containerd-" ID1 ".scope",
	       (struct want){ 1, CT_CONTAINERD, ID1, POD, QOS_BURSTABLE,
			      "cri-containerd-" ID1 ".scope",
			      "k8s:" POD "/b68e6db57fad" });
}

Test(container, k8s_cgroupfs_driver)
{
	expect("/kubepods/burstable/pod" POD "/" ID1,
	       (struct want){ 1, CT_CONTAINERD, ID1, POD, QOS_BURSTABLE, NULL,
			      "k8s:" POD "/b68e6db57fad" });
	expect("/kubepods/pod" POD2 "/" ID2,
	       (struct want){ 1, CT_CONTAINERD, ID2, POD2, QOS_GUARANTEED, NULL,
			      "k8s:" POD2 "/630820483b73" });
	expect("/kubepods/besteffort/pod" POD "/crio-" ID3,
	       (struct want){ 1, CT_CRIO, ID3, POD, QOS_BESTEFFORT, NULL,
			      "k8s:" POD "/e40038429317" });
}

Test(container, static_pod_uid_is_a_hash)
{
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" STATIC_POD
	       ".slice/cri-containerd-" ID1 ".scope",
	       (struct want){ 1, CT_CONTAINERD, ID1, STATIC_POD, QOS_BURSTABLE,
			      "cri-containerd-" ID1 ".scope",
			      "k8s:" STATIC_POD "/b68e6db57fad" });
	expect("/kubepods/burstable/pod" STATIC_POD "/" ID2,
	       (struct want){ 1, CT_CONTAINERD, ID2, STATIC_POD, QOS_BURSTABLE, NULL,
			      "k8s:" STATIC_POD "/630820483b73" });
}

Test(container, crio_and_its_monitor)
{
	const char *pod = "/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" POD_ ".slice";
	char path[512];

	snprintf(path, sizeof(path), "%s/crio-%s.scope", pod, ID1);
	expect(path, (struct want){ 1, CT_CRIO, ID1, POD, QOS_BURSTABLE,
				    "crio-" ID1 ".scope", "k8s:" POD "/b68e6db57fad" });
	/* conmon watches the container from outside: pod overhead, not the container */
	snprintf(path, sizeof(path), "%s/crio-conmon-%s.scope", pod, ID1);
	expect(path, (struct want){ 0, CT_SYSTEMD, NULL, POD, QOS_BURSTABLE,
				    "crio-conmon-" ID1 ".scope", "k8s:" POD });
	/* the pod's own cgroup */
	expect(pod, (struct want){ 0, CT_SYSTEMD, NULL, POD, QOS_BURSTABLE,
				   "kubepods-burstable-pod" POD_ ".slice", "k8s:" POD });
}

Test(container, podman)
{
	expect("/machine.slice/libpod-" ID1 ".scope",
	       (struct want){ 1, CT_PODMAN, ID1, NULL, QOS_NONE,
			      "libpod-" ID1 ".scope", "podman:b68e6db57fad" });
	expect("/machine.slice/libpod-conmon-" ID1 ".scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
			      "libpod-conmon-" ID1 ".scope",
			      "systemd:libpod-conmon-" ID1 ".scope" });
	/* rootless: labelled with its user, never as the host's */
	expect("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID2 ".scope",
	       (struct want){ 1, CT_PODMAN, ID2, NULL, QOS_NONE,
			      "libpod-" ID2 ".scope", "user@1000/podman:630820483b73" });
	/* podman --cgroups=split / systemd inside: the payload is in .../container */
	expect("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" ID2
	       ".scope/container",
	       (struct want){ 1, CT_PODMAN, ID2, NULL, QOS_NONE,
			      "libpod-" ID2 ".scope", "user@1000/podman:630820483b73" });
	expect("/libpod_parent/libpod-" ID3,
	       (struct want){ 1, CT_PODMAN, ID3, NULL, QOS_NONE, NULL,
			      "podman:e40038429317" });
}

Test(container, docker_on_a_k8s_node)
{
	expect("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" POD_
	       ".slice/docker-" ID3 ".scope",
	       (struct want){ 1, CT_DOCKER, ID3, POD, QOS_BESTEFFORT,
			      "docker-" ID3 ".scope", "k8s:" POD "/e40038429317" });
}

Test(container, nerdctl)
{
	expect("/system.slice/nerdctl-" ID1 ".scope",
	       (struct want){ 1, CT_CONTAINERD, ID1, NULL, QOS_NONE,
			      "nerdctl-" ID1 ".scope", "containerd:b68e6db57fad" });
}

Test(container, sub_cgroups_belong_to_the_container)
{
	/* systemd running inside a docker container */
	expect("/system.slice/docker-" ID1 ".scope/init.scope",
	       (struct want){ 1, CT_DOCKER, ID1, NULL, QOS_NONE, "init.scope",
			      "docker:b68e6db57fad" });
	expect("/system.slice/docker-" ID1 ".scope/system.slice/nginx.service",
	       (struct want){ 1, CT_DOCKER, ID1, NULL, QOS_NONE, "nginx.service",
			      "docker:b68e6db57fad" });
	expect("/docker/" ID2 "/system.slice/cron.service",
	       (struct want){ 1, CT_DOCKER, ID2, NULL, QOS_NONE, "cron.service",
			      "docker:630820483b73" });
}

Test(container, innermost_wins)
{
	/* docker in docker: the inner container, labelled with the outer */
	expect("/docker/" ID1 "/docker/" ID2,
	       (struct want){ 1, CT_DOCKER, ID2, NULL, QOS_NONE, NULL,
			      "docker:b68e6db57fad/docker:630820483b73" });
	/* a kind node (a docker container) running a pod's container */
	expect("/system.slice/docker-" ID1 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	       "kubelet-kubepods-pod" POD_ ".slice/cri-containerd-" ID3 ".scope",
	       (struct want){ 1, CT_CONTAINERD, ID3, POD, QOS_GUARANTEED,
			      "cri-containerd-" ID3 ".scope",
			      "docker:b68e6db57fad/k8s:" POD "/e40038429317" });
	/* the pod's own cgroup inside the node: the pod, not the node's container */
	expect("/system.slice/docker-" ID1 ".scope/kubelet.slice/kubelet-kubepods.slice/"
	       "kubelet-kubepods-pod" POD_ ".slice",
	       (struct want){ 0, CT_SYSTEMD, NULL, POD, QOS_GUARANTEED,
			      "kubelet-kubepods-pod" POD_ ".slice",
			      "docker:b68e6db57fad/k8s:" POD });
}

Test(container, systemd_services_and_sessions)
{
	expect("/system.slice/nginx.service",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "nginx.service",
			      "systemd:nginx.service" });
	expect("/user.slice/user-1000.slice/session-3.scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "session-3.scope",
			      "systemd:session-3.scope" });
	expect("/user.slice/user-1000.slice/user@1000.service/app.slice/"
	       "app-gnome-firefox-2411.scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
			      "app-gnome-firefox-2411.scope",
			      "user@1000/systemd:app-gnome-firefox-2411.scope" });
	expect("/user.slice/user-1000.slice/user@1000.service",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
			      "user@1000.service", "systemd:user@1000.service" });
	/* a service's own sub-cgroups (delegation) are the service */
	expect("/system.slice/nginx.service/workers",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "nginx.service",
			      "systemd:nginx.service" });
	/* a slice only groups: a cgroup made by hand under it is itself */
	expect("/system.slice/mygroup",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "system.slice",
			      "mygroup" });
	expect("/system.slice",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "system.slice",
			      "systemd:system.slice" });
	expect("/init.scope", (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
					     "init.scope", "systemd:init.scope" });
	/* a QoS slice with no pod under it yet */
	expect("/kubepods.slice/kubepods-burstable.slice",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_BURSTABLE,
			      "kubepods-burstable.slice",
			      "systemd:kubepods-burstable.slice" });
}

Test(container, root_and_plain_paths)
{
	expect("/", (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, "/" });
	expect("/mygroup/worker",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, "worker" });
	expect("/mygroup/worker/",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, "worker" });
	expect("", (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, "?" });
}

Test(container, malformed_ids_are_not_containers)
{
	/* 63 hex, uppercase, trailing junk, junk inside, wrong suffix */
	expect("/system.slice/docker-" "b68e6db57fad67a6581e006e41c4fd10a11960b19929776ef3972f4c7783c69"
	       ".scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
			      "docker-b68e6db57fad67a6581e006e41c4fd10a11960b19929776ef3972f4c7783c69.scope",
			      "systemd:docker-b68e6db57fad67a6581e006e41c4fd10a11960b19929776ef3972f4c7783c69.scope" });
	expect("/docker/B68E6DB57FAD67A6581E006E41C4FD10A11960B19929776EF3972F4C7783C69D",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL,
			      "B68E6DB57FAD67A6581E006E41C4FD10A11960B19929776EF3972F4C7783C69D" });
	expect("/system.slice/docker-" ID1 ".scopex",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "system.slice",
			      "docker-" ID1 ".scopex" });
	expect("/system.slice/docker-" ID1 "0.scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
			      "docker-" ID1 "0.scope", "systemd:docker-" ID1 "0.scope" });
	expect("/docker/" ID1 "-old",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, ID1 "-old" });
	expect("/system.slice/docker-" ID1 ".service",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
			      "docker-" ID1 ".service", "systemd:docker-" ID1 ".service" });
	/* a bare 64-hex name where no runtime puts one */
	expect("/mygroup/" ID1,
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, ID1 });
}

Test(container, malformed_pods_are_not_pods)
{
	/* uppercase UID, dashes in a slice, wrong QoS word, no kubepods above */
	expect("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-podCD47C704_97D7_4E6E_8AE0_6C4E96B25B92.slice",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_BURSTABLE,
			      "kubepods-burstable-podCD47C704_97D7_4E6E_8AE0_6C4E96B25B92.slice",
			      "systemd:kubepods-burstable-podCD47C704_97D7_4E6E_8AE0_6C4E96B25B92.slice" });
	expect("/kubepods.slice/kubepods-pod" POD ".slice",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE,
			      "kubepods-pod" POD ".slice", "systemd:kubepods-pod" POD ".slice" });
	expect("/kubepods/fast/pod" POD "/" ID1,
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, ID1 });
	expect("/other/pod" POD,
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, "pod" POD });
	expect("/kubepods/burstable/pod" POD "x/" ID1,
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_BURSTABLE, NULL, ID1 });
}

/*
 * A tenant with a delegated subtree names cgroups after the host's
 * containers, pods and units: none of them is one (issue 32, item 5).
 */
Test(container, look_alikes_in_a_users_subtree_are_plain_cgroups)
{
	expect("/tenant/docker-" ID1 ".scope",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL,
			      "docker-" ID1 ".scope" });
	expect("/tenant/system.slice/docker-" ID1 ".scope",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL,
			      "docker-" ID1 ".scope" });
	expect("/tenant/docker/" ID1,
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, ID1 });
	expect("/tenant/kubepods/pod" POD "/" ID1,
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL, ID1 });
	expect("/tenant/kubepods.slice/kubepods-pod" POD_ ".slice/cri-containerd-" ID1 ".scope",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL,
			      "cri-containerd-" ID1 ".scope" });
	expect("/tenant/machine.slice/libpod-" ID1 ".scope",
	       (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL,
			      "libpod-" ID1 ".scope" });
	/* below a service that delegates: the service's, not a container */
	expect("/system.slice/build.service/docker-" ID1 ".scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "build.service",
			      "systemd:build.service" });
	expect("/system.slice/build.service/nginx.service",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "build.service",
			      "systemd:build.service" });
	/* a user's systemd: its user's, whatever it is named */
	expect("/user.slice/user-1001.slice/user@1001.service/system.slice/docker-" ID1 ".scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "docker-" ID1 ".scope",
			      "user@1001/systemd:docker-" ID1 ".scope" });
	expect("/user.slice/user-1001.slice/user@1001.service/user.slice/docker-" ID1 ".scope",
	       (struct want){ 1, CT_DOCKER, ID1, NULL, QOS_NONE, "docker-" ID1 ".scope",
			      "user@1001/docker:b68e6db57fad" });
	expect("/user.slice/user-1001.slice/user@1001.service/app.slice/nginx.service",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "nginx.service",
			      "user@1001/systemd:nginx.service" });
	/* a user@ that is not the user's own slice's */
	expect("/user.slice/user-1001.slice/user@1000.service/user.slice/libpod-" ID1 ".scope",
	       (struct want){ 0, CT_SYSTEMD, NULL, NULL, QOS_NONE, "user@1000.service",
			      "systemd:user@1000.service" });
	/* inside a rootless container: still the user's */
	expect("/user.slice/user-1001.slice/user@1001.service/user.slice/libpod-" ID2
	       ".scope/system.slice/docker-" ID1 ".scope",
	       (struct want){ 1, CT_DOCKER, ID1, NULL, QOS_NONE, "docker-" ID1 ".scope",
			      "user@1001/podman:630820483b73/docker:b68e6db57fad" });
}

/* No length or depth hides a container (issue 32, item 4). */
Test(container, any_length_and_depth)
{
	static char path[20000];
	size_t k = 0;
	int i;

	k += snprintf(path + k, sizeof(path) - k, "/system.slice/docker-" ID1 ".scope");
	for (i = 0; i < 60; i++)
		k += snprintf(path + k, sizeof(path) - k, "/%0250d", i);
	cr_assert_gt(k, 15000);
	expect(path, (struct want){ 1, CT_DOCKER, ID1, NULL, QOS_NONE,
				    "docker-" ID1 ".scope", "docker:b68e6db57fad" });
	k = 0;
	for (i = 0; i < 3000; i++)
		k += snprintf(path + k, sizeof(path) - k, "/a");
	k += snprintf(path + k, sizeof(path) - k, "/docker-" ID1 ".scope");
	expect(path, (struct want){ 0, CT_NONE, NULL, NULL, QOS_NONE, NULL,
				    "docker-" ID1 ".scope" });
}

Test(container, names)
{
	cr_assert_str_eq(ct_runtime_name(CT_DOCKER), "docker");
	cr_assert_str_eq(ct_runtime_name(CT_CONTAINERD), "containerd");
	cr_assert_str_eq(ct_runtime_name(CT_CRIO), "cri-o");
	cr_assert_str_eq(ct_runtime_name(CT_PODMAN), "podman");
	cr_assert_str_eq(ct_runtime_name(CT_SYSTEMD), "systemd");
	cr_assert_str_eq(ct_runtime_name(CT_NONE), "");
	cr_assert_str_eq(ct_qos_name(QOS_GUARANTEED), "guaranteed");
	cr_assert_str_eq(ct_qos_name(QOS_BURSTABLE), "burstable");
	cr_assert_str_eq(ct_qos_name(QOS_BESTEFFORT), "besteffort");
	cr_assert_str_eq(ct_qos_name(QOS_NONE), "");
}

Test(container, label_fits_a_small_buffer)
{
	struct ct_info c;
	char buf[10];

	ct_from_path("/system.slice/docker-" ID1 ".scope", &c);
	ct_label(&c, NULL, buf, sizeof(buf));
	cr_assert_str_eq(buf, "docker:b6");
}
