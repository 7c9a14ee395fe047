// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event/cgnames.h"
#include "event/cgroup.h"
#include "event/ctnames.h"
#include "lib/hashtab.h"

struct cg_entry {
	uint64_t id;
	char *path;
	struct ct_info ct;
	bool is_ct;
	bool used; /* cgnames_first_use() saw it */
	char label[128];
	/* a container's names (the runtime's state), NULL: none known */
	struct ct_names *names;
	char *name_label; /* "k8s:NS/POD/NAME", "docker:NAME"; with names */
};

/* id -> its entry (allocated alone: the strings given out stay put) */
struct cgnames {
	struct cgroup_map *live; /* NULL: table only */
	struct hashtab by_id;
	char unknown[32];
	bool ct_lookup; /* live: names looked up in the runtimes' state */
	bool unknown_shown; /* cgnames_label() gave an unknown's "cgroup#ID" */
};

static void drop_names(struct cg_entry *e)
{
	free(e->names);
	free(e->name_label);
	e->names = NULL;
	e->name_label = NULL;
}

struct cgnames *cgnames_table(void)
{
	return calloc(1, sizeof(struct cgnames));
}

struct cgnames *cgnames_live(char *err, size_t errlen)
{
	struct cgnames *n = cgnames_table();

	if (!n) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	n->live = cgroup_map_new(NULL, err, errlen);
	if (!n->live) {
		cgnames_free(n);
		return NULL;
	}
	n->ct_lookup = true;
	return n;
}

static struct cg_entry *entry_of(uint64_t v)
{
	return (struct cg_entry *)(uintptr_t)v;
}

static void free_entry(struct cg_entry *e)
{
	drop_names(e);
	free(e->path);
	free(e);
}

void cgnames_free(struct cgnames *n)
{
	size_t pos = 0;
	uint64_t v;

	if (!n)
		return;
	while (hashtab_next(&n->by_id, &pos, NULL, &v))
		free_entry(entry_of(v));
	hashtab_free(&n->by_id);
	if (n->live)
		cgroup_map_free(n->live);
	free(n);
}

static struct cg_entry *held(const struct cgnames *n, uint64_t id)
{
	uint64_t *v = id ? hashtab_get(&n->by_id, id) : NULL;

	return v ? entry_of(*v) : NULL;
}

/* Give the entry a container's names (copied), and its readable label. */
static int name_entry(struct cg_entry *e, const struct ct_names *cn)
{
	char buf[800];

	drop_names(e);
	if (!ct_names_any(cn))
		return 0;
	e->names = malloc(sizeof(*e->names));
	if (!e->names)
		return -ENOMEM;
	*e->names = *cn;
	if (cn->pod[0])
		snprintf(buf, sizeof(buf), "k8s:%s%s%s%s%s", cn->ns,
			 cn->ns[0] ? "/" : "", cn->pod, cn->name[0] ? "/" : "",
			 cn->name);
	else if (cn->ns[0]) /* containerd's namespace */
		snprintf(buf, sizeof(buf), "%s:%s/%s",
			 ct_runtime_name(e->ct.runtime), cn->ns, cn->name);
	else
		snprintf(buf, sizeof(buf), "%s:%s", ct_runtime_name(e->ct.runtime),
			 cn->name);
	e->name_label = strdup(buf);
	if (!e->name_label) {
		drop_names(e);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Fill the entry's container and label from its path; live, a container's
 * names from the runtime's state (once: they are cached with the path).
 */
static void describe(struct cgnames *n, struct cg_entry *e)
{
	struct ct_names cn;

	e->is_ct = ct_from_path(e->path, &e->ct) == 1;
	drop_names(e);
	/* containerd's own place, known from its state only */
	if (!e->is_ct && n->ct_lookup && !e->ct.within[0] &&
	    !ct_by_state(NULL, e->path, e->ct.id, &cn)) {
		e->is_ct = true;
		e->ct.runtime = CT_CONTAINERD;
		ct_label(&e->ct, e->path, e->label, sizeof(e->label));
		name_entry(e, &cn);
		return;
	}
	ct_label(&e->ct, e->path, e->label, sizeof(e->label));
	/*
	 * The host's runtimes name the host's containers only: a rootless
	 * or nested one may carry any id, a host container's too.
	 */
	if (e->is_ct && n->ct_lookup && e->ct.id[0] && !e->ct.within[0] &&
	    !ct_names_lookup(NULL, e->ct.id, &cn))
		name_entry(e, &cn);
}

int cgnames_set_ct_names(struct cgnames *n, const char *id,
			 const struct ct_names *cn)
{
	size_t pos = 0;
	uint64_t v;

	while (hashtab_next(&n->by_id, &pos, NULL, &v)) {
		struct cg_entry *e = entry_of(v);

		/* containerd's "NS/ID" at /NS/ID: record found it in its state */
		if (!e->is_ct && strchr(id, '/') && e->path[0] == '/' &&
		    !strcmp(e->path + 1, id) && strlen(id) < sizeof(e->ct.id)) {
			e->is_ct = true;
			e->ct.runtime = CT_CONTAINERD;
			snprintf(e->ct.id, sizeof(e->ct.id), "%s", id);
			ct_label(&e->ct, e->path, e->label, sizeof(e->label));
		}
		if (e->is_ct && !e->ct.within[0] && !strcmp(e->ct.id, id) &&
		    name_entry(e, cn))
			return -ENOMEM;
	}
	return 0;
}

int cgnames_each_ct_names(const struct cgnames *n,
			  int (*fn)(void *ctx, const char *id,
				    const struct ct_names *cn), void *ctx)
{
	size_t pos = 0;
	uint64_t v;
	int r;

	while (hashtab_next(&n->by_id, &pos, NULL, &v)) {
		const struct cg_entry *e = entry_of(v);

		if (e->names && (r = fn(ctx, e->ct.id, e->names)))
			return r;
	}
	return 0;
}

int cgnames_set(struct cgnames *n, uint64_t id, const char *path)
{
	struct cg_entry *e;
	char *p;

	if (!id)
		return -EINVAL;
	e = held(n, id);
	if (e && !strcmp(e->path, path))
		return 0; /* as it was, names and all */
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e || hashtab_put(&n->by_id, id, (uintptr_t)e) < 0) {
			free(e);
			free(p);
			return -ENOMEM;
		}
	}
	free(e->path);
	e->id = id;
	e->path = p;
	describe(n, e);
	return 0;
}

void cgnames_forget(struct cgnames *n, uint64_t id)
{
	struct cg_entry *e = held(n, id);

	if (!e)
		return;
	hashtab_del(&n->by_id, id);
	free_entry(e);
}

size_t cgnames_count(const struct cgnames *n)
{
	return hashtab_count(&n->by_id);
}

int cgnames_rescan(struct cgnames *n)
{
	return n->live ? cgroup_map_rescan(n->live) : -EINVAL;
}

bool cgnames_walked(const struct cgnames *n, uint64_t id)
{
	return n->live && cgroup_map_walked(n->live, id);
}

const char *cgnames_cached(const struct cgnames *n, uint64_t id)
{
	const struct cg_entry *e = held(n, id);

	return e ? e->path : NULL;
}

/* The entry for id, looked up live on a miss; NULL if unknown. */
static struct cg_entry *find(struct cgnames *n, uint64_t id)
{
	struct cg_entry *e;
	const char *path;

	if (!id)
		return NULL;
	e = held(n, id);
	if (e)
		return e;
	if (!n->live || !(path = cgroup_map_path(n->live, id)))
		return NULL;
	if (cgnames_set(n, id, path))
		return NULL;
	return held(n, id);
}

bool cgnames_get(struct cgnames *n, uint64_t id, struct cgname *out)
{
	struct cg_entry *e = find(n, id);

	if (!e)
		return false;
	out->path = e->path;
	out->ct = e->is_ct ? &e->ct : NULL;
	out->label = e->label;
	out->names = e->is_ct ? e->names : NULL;
	out->name_label = e->is_ct && e->name_label ? e->name_label : out->label;
	return true;
}

const char *cgnames_path(struct cgnames *n, uint64_t id)
{
	struct cg_entry *e = find(n, id);

	return e ? e->path : NULL;
}

const char *cgnames_label(struct cgnames *n, uint64_t id)
{
	struct cg_entry *e = find(n, id);

	if (e)
		return e->is_ct ? e->name_label ?: e->label : e->path;
	snprintf(n->unknown, sizeof(n->unknown), "cgroup#%" PRIu64, id);
	n->unknown_shown = true;
	return n->unknown;
}

bool cgnames_unknown_shown(const struct cgnames *n)
{
	return n->unknown_shown;
}

bool cgnames_first_use(struct cgnames *n, uint64_t id)
{
	struct cg_entry *e = find(n, id);

	if (!e || e->used)
		return false;
	e->used = true;
	return true;
}
