// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Container runtimes name their cgroups after the container id (64 lowercase
 * hex); the kubelet names pods' cgroups after the pod UID and QoS class.
 * Shapes, systemd cgroup driver / cgroupfs driver:
 *   docker        /system.slice/docker-<id>.scope       /docker/<id>
 *   containerd    .../cri-containerd-<id>.scope          .../pod<uid>/<id>
 *                 (nerdctl) /system.slice/nerdctl-<id>.scope
 *   cri-o         .../crio-<id>.scope                    .../pod<uid>/crio-<id>
 *   podman        /machine.slice/libpod-<id>.scope       /libpod_parent/libpod-<id>
 *   pods          /kubepods.slice/kubepods-<qos>.slice/kubepods-<qos>-pod<uid_>.slice
 *                 /kubepods/<qos>/pod<uid>
 * (guaranteed pods sit directly under kubepods; kubelet --cgroup-root adds a
 * prefix: kubelet-kubepods-...). A slice's UID has '_' for '-'.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include "event/container.h"

#define CT_ID_LEN 64
#define MAX_COMPS 128

static bool is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static bool ends_with(const char *s, size_t n, const char *suffix)
{
	size_t k = strlen(suffix);

	return n >= k && !memcmp(s + n - k, suffix, k);
}

/* c is exactly prefix, 64 lowercase hex, suffix: the hex into id */
static bool wrapped_id(const char *c, const char *prefix, const char *suffix,
		       char id[CT_ID_LEN + 1])
{
	size_t n = strlen(c), p = strlen(prefix), s = strlen(suffix);

	if (n != p + CT_ID_LEN + s || strncmp(c, prefix, p) ||
	    strcmp(c + p + CT_ID_LEN, suffix) || !is_hex(c + p, CT_ID_LEN))
		return false;
	memcpy(id, c + p, CT_ID_LEN);
	id[CT_ID_LEN] = 0;
	return true;
}

/*
 * A pod UID: 8-4-4-4-12 lowercase hex separated by sep, or 32 hex (static
 * pods: a hash of the manifest). Into out with dashes.
 */
static bool pod_uid(const char *s, size_t n, char sep, char out[37])
{
	size_t i;

	if (n == 32 && is_hex(s, 32)) {
		memcpy(out, s, 32);
		out[32] = 0;
		return true;
	}
	if (n != 36)
		return false;
	for (i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != sep : !is_hex(s + i, 1))
			return false;
		out[i] = dash ? '-' : s[i];
	}
	out[36] = 0;
	return true;
}

/* A slice name's body ("kubepods-burstable", "kubelet-kubepods"): its QoS, or -1. */
static int slice_qos(const char *s, size_t n)
{
	static const struct {
		const char *tail;
		enum ct_qos qos;
	} tails[] = {
		{ "kubepods", QOS_GUARANTEED },
		{ "kubepods-burstable", QOS_BURSTABLE },
		{ "kubepods-besteffort", QOS_BESTEFFORT },
	};
	size_t i;

	for (i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		size_t k = strlen(tails[i].tail);

		if (n >= k && !memcmp(s + n - k, tails[i].tail, k) &&
		    (n == k || s[n - k - 1] == '-'))
			return tails[i].qos;
	}
	return -1;
}

/* comps[i] names a pod (systemd slice or cgroupfs directory): fill uid, qos. */
static bool match_pod(char **comps, int i, char uid[37], enum ct_qos *qos)
{
	const char *c = comps[i], *pod;
	size_t n = strlen(c);
	int q;

	if (ends_with(c, n, ".slice")) {
		n -= 6;
		/* <body>-pod<uid_>.slice */
		for (pod = c + n; pod > c && strncmp(pod, "-pod", 4); pod--)
			;
		if (pod == c)
			return false;
		q = slice_qos(c, pod - c);
		if (q < 0 || !pod_uid(pod + 4, c + n - pod - 4, '_', uid))
			return false;
		*qos = q;
		return true;
	}
	if (strncmp(c, "pod", 3) || !pod_uid(c + 3, n - 3, '-', uid) || i < 1)
		return false;
	if (!strcmp(comps[i - 1], "kubepods")) {
		*qos = QOS_GUARANTEED;
		return true;
	}
	if (i < 2 || strcmp(comps[i - 2], "kubepods"))
		return false;
	if (!strcmp(comps[i - 1], "burstable"))
		*qos = QOS_BURSTABLE;
	else if (!strcmp(comps[i - 1], "besteffort"))
		*qos = QOS_BESTEFFORT;
	else
		return false;
	return true;
}

/* comps[i] names a container: its runtime (id filled), else CT_NONE. */
static enum ct_runtime match_container(char **comps, int i, bool under_pod,
				       char id[CT_ID_LEN + 1])
{
	static const struct {
		const char *prefix, *suffix;
		enum ct_runtime rt;
	} shapes[] = {
		{ "docker-", ".scope", CT_DOCKER },
		{ "cri-containerd-", ".scope", CT_CONTAINERD },
		{ "nerdctl-", ".scope", CT_CONTAINERD },
		{ "crio-", ".scope", CT_CRIO },
		{ "crio-", "", CT_CRIO },
		{ "libpod-", ".scope", CT_PODMAN },
		{ "libpod-", "", CT_PODMAN },
	};
	size_t k;

	/* "crio-conmon-<id>.scope", "libpod-conmon-<id>.scope": monitors, no hex after the prefix */
	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		if (wrapped_id(comps[i], shapes[k].prefix, shapes[k].suffix, id))
			return shapes[k].rt;
	if (!wrapped_id(comps[i], "", "", id))
		return CT_NONE;
	if (i >= 1 && !strcmp(comps[i - 1], "docker"))
		return CT_DOCKER;
	return under_pod ? CT_CONTAINERD : CT_NONE;
}

static bool is_unit(const char *c)
{
	static const char *const kinds[] = { ".service", ".scope", ".slice",
					     ".socket", ".mount", ".swap" };
	size_t n = strlen(c), k;

	for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++)
		if (n > strlen(kinds[k]) && ends_with(c, n, kinds[k]))
			return true;
	return false;
}

/* path's components, in place in buf */
static int split(const char *path, char *buf, size_t len, char **comps)
{
	char *p = buf;
	int n = 0;

	snprintf(buf, len, "%s", path);
	while (*p && n < MAX_COMPS) {
		while (*p == '/')
			*p++ = 0;
		if (!*p)
			break;
		comps[n++] = p;
		p += strcspn(p, "/");
	}
	return n;
}

int ct_from_path(const char *path, struct ct_info *out)
{
	char buf[4096], *comps[MAX_COMPS];
	int n, i;

	memset(out, 0, sizeof(*out));
	if (!path)
		return 0;
	n = split(path, buf, sizeof(buf), comps);
	/* top down: what is deeper is inside what is above, and wins */
	for (i = 0; i < n; i++) {
		char id[CT_ID_LEN + 1], uid[37];
		enum ct_runtime rt;
		enum ct_qos qos;
		int q;

		if (match_pod(comps, i, uid, &qos)) {
			/* a pod inside a container (a kind node): the pod is innermost */
			out->runtime = CT_NONE;
			out->id[0] = 0;
			memcpy(out->pod_uid, uid, sizeof(uid));
			out->qos = qos;
		} else if ((rt = match_container(comps, i, out->pod_uid[0], id))) {
			out->runtime = rt;
			memcpy(out->id, id, sizeof(id));
		} else if (!out->pod_uid[0] && ends_with(comps[i], strlen(comps[i]), ".slice") &&
			   (q = slice_qos(comps[i], strlen(comps[i]) - 6)) > QOS_GUARANTEED) {
			out->qos = q;
		} else if (!out->pod_uid[0] && i >= 1 && !strcmp(comps[i - 1], "kubepods")) {
			if (!strcmp(comps[i], "burstable"))
				out->qos = QOS_BURSTABLE;
			else if (!strcmp(comps[i], "besteffort"))
				out->qos = QOS_BESTEFFORT;
		}
		if (is_unit(comps[i]))
			snprintf(out->unit, sizeof(out->unit), "%s", comps[i]);
	}
	if (out->id[0])
		return 1;
	out->runtime = out->unit[0] ? CT_SYSTEMD : CT_NONE;
	return 0;
}

const char *ct_runtime_name(enum ct_runtime r)
{
	switch (r) {
	case CT_DOCKER:
		return "docker";
	case CT_CONTAINERD:
		return "containerd";
	case CT_CRIO:
		return "cri-o";
	case CT_PODMAN:
		return "podman";
	case CT_SYSTEMD:
		return "systemd";
	default:
		return "";
	}
}

const char *ct_qos_name(enum ct_qos q)
{
	switch (q) {
	case QOS_GUARANTEED:
		return "guaranteed";
	case QOS_BURSTABLE:
		return "burstable";
	case QOS_BESTEFFORT:
		return "besteffort";
	default:
		return "";
	}
}

void ct_label(const struct ct_info *c, const char *path, char *buf, size_t len)
{
	const char *last, *end;
	size_t ulen;

	if (c->id[0] && c->pod_uid[0]) {
		snprintf(buf, len, "k8s:%s/%.12s", c->pod_uid, c->id);
	} else if (c->id[0]) {
		snprintf(buf, len, "%s:%.12s", ct_runtime_name(c->runtime), c->id);
	} else if (c->pod_uid[0]) {
		snprintf(buf, len, "k8s:%s", c->pod_uid);
	} else {
		/* the last component, trailing slashes left out */
		path = path ? path : "";
		end = path + strlen(path);
		while (end > path && end[-1] == '/')
			end--;
		for (last = end; last > path && last[-1] != '/'; last--)
			;
		ulen = strlen(c->unit);
		/*
		 * A service or scope owns the cgroups below it (delegation);
		 * a slice only groups: "/system.slice/foo" is "foo".
		 */
		if (ulen && (!ends_with(c->unit, ulen, ".slice") ||
			     ((size_t)(end - last) == ulen && !memcmp(last, c->unit, ulen))))
			snprintf(buf, len, "systemd:%s", c->unit);
		else if (end == last)
			snprintf(buf, len, "%s", *path ? "/" : "?");
		else
			snprintf(buf, len, "%.*s", (int)(end - last), last);
	}
}
