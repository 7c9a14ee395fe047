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
#include <stdlib.h>
#include <string.h>
#include "event/container.h"

#define CT_ID_LEN 64

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

/* A container's or pod's label, without where it is. */
static void ct_core_label(const struct ct_info *c, char *buf, size_t len)
{
	if (c->id[0] && c->pod_uid[0])
		snprintf(buf, len, "k8s:%s/%.12s", c->pod_uid, c->id);
	else if (c->id[0] && strchr(c->id, '/')) /* containerd's "NS/ID" */
		snprintf(buf, len, "%s:%s", ct_runtime_name(c->runtime), c->id);
	else if (c->id[0])
		snprintf(buf, len, "%s:%.12s", ct_runtime_name(c->runtime), c->id);
	else
		snprintf(buf, len, "k8s:%s", c->pod_uid);
}

/*
 * Where a runtime puts what it makes. Only root (a runtime inside a
 * container, or a user's own systemd) can make a cgroup at these places, so
 * a name of a runtime's shape anywhere else is a plain cgroup: a user with a
 * delegated subtree cannot pose as a container, a pod or a system unit. The
 * places are relative to an anchor: the root, the inside of a container
 * found above (docker in docker, a kind node), or a user's systemd
 * (user.slice/user-N.slice/user@N.service), whose containers are rootless.
 * What is found below another anchor than the root is labelled with where
 * it is ("user@1000/podman:630820483b73", "docker:b68e6db57fad/k8s:..."), so
 * it never takes the label of anything the host's runtimes made.
 */
struct walk {
	char **comps;
	int anchor;       /* where the runtimes' layouts start */
	bool user;        /* the anchor is a user's systemd */
	int slices;       /* comps[anchor..anchor+slices) are all slices */
	int pod;          /* the pod's component, -1 if none */
	bool frozen;      /* a place's name did not fit: nothing deeper counts */
	char ctx[CT_WITHIN_LEN];      /* where the anchor is, "" the root */
	char ct_ctx[CT_WITHIN_LEN];   /* ctx of the pod or container found */
	char unit_ctx[CT_WITHIN_LEN]; /* ctx of the unit found */
};

/* comps[w->anchor..i) are slices: a chain systemd made */
static bool in_slices(const struct walk *w, int i)
{
	return i - w->anchor <= w->slices;
}

/* comps[i] names a pod (systemd slice or cgroupfs directory): fill uid, qos. */
static bool match_pod(const struct walk *w, int i, char uid[37],
		      enum ct_qos *qos)
{
	const char *c = w->comps[i], *pod;
	size_t n = strlen(c);
	int q, a = w->anchor;

	if (ends_with(c, n, ".slice")) {
		n -= 6;
		/* <body>-pod<uid_>.slice */
		for (pod = c + n; pod > c && strncmp(pod, "-pod", 4); pod--)
			;
		if (pod == c || !in_slices(w, i))
			return false;
		q = slice_qos(c, pod - c);
		if (q < 0 || !pod_uid(pod + 4, c + n - pod - 4, '_', uid))
			return false;
		*qos = q;
		return true;
	}
	if (strncmp(c, "pod", 3) || !pod_uid(c + 3, n - 3, '-', uid) || i < 1)
		return false;
	if (i - 1 == a && !strcmp(w->comps[i - 1], "kubepods")) {
		*qos = QOS_GUARANTEED;
		return true;
	}
	if (i - 2 != a || strcmp(w->comps[i - 2], "kubepods"))
		return false;
	if (!strcmp(w->comps[i - 1], "burstable"))
		*qos = QOS_BURSTABLE;
	else if (!strcmp(w->comps[i - 1], "besteffort"))
		*qos = QOS_BESTEFFORT;
	else
		return false;
	return true;
}

/* comps[i] is a container's shape: its runtime (id filled), else CT_NONE. */
static enum ct_runtime container_shape(const char *c, char id[CT_ID_LEN + 1],
				       const char **where)
{
	static const struct {
		const char *prefix, *suffix;
		enum ct_runtime rt;
		const char *where; /* the parent it must have; "*" a slice chain */
	} shapes[] = {
		{ "docker-", ".scope", CT_DOCKER, "system.slice" },
		{ "cri-containerd-", ".scope", CT_CONTAINERD, NULL },
		{ "nerdctl-", ".scope", CT_CONTAINERD, "system.slice" },
		{ "crio-", ".scope", CT_CRIO, NULL },
		{ "crio-", "", CT_CRIO, NULL },
		{ "libpod-", ".scope", CT_PODMAN, "*" },
		{ "libpod-", "", CT_PODMAN, "libpod_parent" },
		{ "", "", CT_NONE, "docker" },
	};
	size_t k;

	/* "crio-conmon-<id>.scope", "libpod-conmon-<id>.scope": monitors, no hex after the prefix */
	for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++)
		if (wrapped_id(c, shapes[k].prefix, shapes[k].suffix, id)) {
			*where = shapes[k].where;
			return shapes[k].rt == CT_NONE ? CT_DOCKER : shapes[k].rt;
		}
	return CT_NONE;
}

/* comps[i] names a container where its runtime puts it: its runtime, id. */
static enum ct_runtime match_container(const struct walk *w, int i,
				       char id[CT_ID_LEN + 1])
{
	const char *where = NULL, *parent = i > 0 ? w->comps[i - 1] : "";
	enum ct_runtime rt = container_shape(w->comps[i], id, &where);

	if (!rt)
		return CT_NONE;
	/* directly under a pod: any runtime's (a bare id: containerd's) */
	if (w->pod >= 0 && i == w->pod + 1)
		return where && !strcmp(where, "docker") ? CT_CONTAINERD : rt;
	if (!where || w->pod >= 0)
		return CT_NONE;
	if (!strcmp(where, "*")) /* podman: machine.slice/..., rootless user.slice/... */
		return in_slices(w, i) && i > w->anchor &&
		       !strcmp(w->comps[w->anchor], w->user ? "user.slice" :
			       "machine.slice") ? rt : CT_NONE;
	if (i - 1 != w->anchor)
		return CT_NONE;
	/* rootless docker and nerdctl: the user's user.slice */
	if (w->user && !strcmp(where, "system.slice"))
		where = "user.slice";
	return !strcmp(parent, where) ? rt : CT_NONE;
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

/* buf's components, in place (comps has room for one per two bytes) */
static int split(char *buf, char **comps)
{
	char *p = buf;
	int n = 0;

	while (*p) {
		while (*p == '/')
			*p++ = 0;
		if (!*p)
			break;
		comps[n++] = p;
		p += strcspn(p, "/");
	}
	return n;
}

/* comps[i - 2..i] are user.slice/user-N.slice/user@N.service at the anchor: N */
static const char *user_manager(const struct walk *w, int i)
{
	const char *s, *m;
	size_t k;

	if (i - 2 != w->anchor || strcmp(w->comps[i - 2], "user.slice"))
		return NULL;
	s = w->comps[i - 1];
	m = w->comps[i];
	k = strspn(s + 5, "0123456789");
	if (strncmp(s, "user-", 5) || !k || strcmp(s + 5 + k, ".slice") ||
	    strncmp(m, "user@", 5) || strncmp(m + 5, s + 5, k) ||
	    strcmp(m + 5 + k, ".service"))
		return NULL;
	return s + 5;
}

/*
 * Below comps[i] is a new anchor named what (a container's label, a
 * user's "user@N"). false if the place's name would not fit: then what is
 * deeper stays part of what was found here.
 */
static bool enter(struct walk *w, int i, const char *what, size_t len, bool user)
{
	size_t have = strlen(w->ctx);

	if (have + !!have + len >= sizeof(w->ctx))
		return false;
	snprintf(w->ctx + have, sizeof(w->ctx) - have, "%s%.*s",
		 have ? "/" : "", (int)len, what);
	w->anchor = i + 1;
	w->user = user;
	w->slices = 0;
	w->pod = -1;
	return true;
}

/* The QoS class a slice or cgroupfs directory in a chain names, or -1. */
static int qos_of(const struct walk *w, int i)
{
	const char *c = w->comps[i];
	size_t n = strlen(c);
	int q;

	if (ends_with(c, n, ".slice") && in_slices(w, i) &&
	    (q = slice_qos(c, n - 6)) > QOS_GUARANTEED)
		return q;
	if (i - 1 == w->anchor && !strcmp(w->comps[i - 1], "kubepods")) {
		if (!strcmp(c, "burstable"))
			return QOS_BURSTABLE;
		if (!strcmp(c, "besteffort"))
			return QOS_BESTEFFORT;
	}
	return -1;
}

/* One component: a pod, a container, a QoS class, a unit, a user's systemd. */
static void step(struct walk *w, int i, bool last, struct ct_info *out)
{
	char id[CT_ID_LEN + 1], uid[37], label[CT_WITHIN_LEN];
	const char *c = w->comps[i];
	enum ct_runtime rt = CT_NONE;
	enum ct_qos qos;
	int q;

	if (w->frozen)
		return;
	if (match_pod(w, i, uid, &qos)) {
		/* a pod inside a container (a kind node): the pod is innermost */
		out->runtime = CT_NONE;
		out->id[0] = 0;
		memcpy(out->pod_uid, uid, sizeof(uid));
		out->qos = qos;
		w->pod = i;
		memcpy(w->ct_ctx, w->ctx, sizeof(w->ctx));
	} else if ((rt = match_container(w, i, id))) {
		out->runtime = rt;
		memcpy(out->id, id, sizeof(id));
		memcpy(w->ct_ctx, w->ctx, sizeof(w->ctx));
	} else if (!out->pod_uid[0] && (q = qos_of(w, i)) > 0) {
		out->qos = q;
	}
	if (is_unit(c) && in_slices(w, i)) {
		snprintf(out->unit, sizeof(out->unit), "%s", c);
		memcpy(w->unit_ctx, w->ctx, sizeof(w->ctx));
	}
	if (in_slices(w, i) && ends_with(c, strlen(c), ".slice"))
		w->slices++;
	if (last)
		return;
	if (rt) {
		/* what is inside is the container's: labelled below it */
		ct_core_label(out, label, sizeof(label));
		w->frozen = !enter(w, i, label, strlen(label), false);
	} else if (i >= 2 && user_manager(w, i)) {
		w->frozen = !enter(w, i, c, strcspn(c, "."), true);
	}
}

int ct_from_path(const char *path, struct ct_info *out)
{
	struct walk w = { .pod = -1 };
	char *buf;
	int n, i;

	memset(out, 0, sizeof(*out));
	if (!path)
		return 0;
	/* at most one component per two bytes */
	buf = strdup(path);
	w.comps = calloc(strlen(path) / 2 + 1, sizeof(*w.comps));
	n = buf && w.comps ? split(buf, w.comps) : 0;
	/* top down: what is deeper is inside what is above, and wins */
	for (i = 0; i < n; i++)
		step(&w, i, i == n - 1, out);
	free(w.comps);
	free(buf);
	if (out->id[0] || out->pod_uid[0])
		memcpy(out->within, w.ct_ctx, sizeof(w.ct_ctx));
	else
		memcpy(out->within, w.unit_ctx, sizeof(w.unit_ctx));
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
	int k;

	k = snprintf(buf, len, "%s%s", c->within, c->within[0] ? "/" : "");
	if (k < 0 || (size_t)k >= len)
		return;
	buf += k;
	len -= k;
	if (c->id[0] || c->pod_uid[0]) {
		ct_core_label(c, buf, len);
		return;
	}
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
