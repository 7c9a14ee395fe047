// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "event/cgnames.h"
#include "event/cgroup.h"
#include "event/ctnames.h"

struct cg_entry {
	uint64_t id; /* 0: empty slot */
	char *path;
	struct ct_info ct;
	bool is_ct;
	bool used; /* cgnames_first_use() saw it */
	char label[128];
	/* a container's names (the runtime's state), NULL: none known */
	struct ct_names *names;
	char *name_label; /* "k8s:NS/POD/NAME", "docker:NAME"; with names */
};

struct cgnames {
	struct cgroup_map *live; /* NULL: table only */
	struct cg_entry *e;
	size_t cap, n; /* cap: a power of two */
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

static struct cgnames *alloc_names(void)
{
	struct cgnames *n = calloc(1, sizeof(*n));

	if (!n)
		return NULL;
	n->cap = 256;
	n->e = calloc(n->cap, sizeof(*n->e));
	if (!n->e) {
		free(n);
		return NULL;
	}
	return n;
}

struct cgnames *cgnames_table(void)
{
	return alloc_names();
}

struct cgnames *cgnames_live(char *err, size_t errlen)
{
	struct cgnames *n = alloc_names();

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

void cgnames_free(struct cgnames *n)
{
	if (!n)
		return;
	for (size_t i = 0; i < n->cap; i++)
		drop_names(&n->e[i]), free(n->e[i].path);
	free(n->e);
	if (n->live)
		cgroup_map_free(n->live);
	free(n);
}

/* The slot an id hashes to, before probing. */
static size_t home_of(const struct cgnames *n, uint64_t id)
{
	return (size_t)(id * 0x9e3779b97f4a7c15ULL) & (n->cap - 1);
}

static size_t slot_of(const struct cgnames *n, uint64_t id)
{
	size_t i = home_of(n, id);

	while (n->e[i].id && n->e[i].id != id)
		i = (i + 1) & (n->cap - 1);
	return i;
}

static int grow(struct cgnames *n)
{
	struct cg_entry *old = n->e;
	size_t ocap = n->cap;

	n->e = calloc(ocap * 2, sizeof(*n->e));
	if (!n->e) {
		n->e = old;
		return -ENOMEM;
	}
	n->cap = ocap * 2;
	for (size_t i = 0; i < ocap; i++)
		if (old[i].id)
			n->e[slot_of(n, old[i].id)] = old[i];
	free(old);
	return 0;
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
	ct_label(&e->ct, e->path, e->label, sizeof(e->label));
	drop_names(e);
	if (e->is_ct && n->ct_lookup && e->ct.id[0] &&
	    !ct_names_lookup(NULL, e->ct.id, &cn))
		name_entry(e, &cn);
}

int cgnames_set_ct_names(struct cgnames *n, const char *id,
			 const struct ct_names *cn)
{
	for (size_t i = 0; i < n->cap; i++)
		if (n->e[i].id && n->e[i].is_ct && !strcmp(n->e[i].ct.id, id) &&
		    name_entry(&n->e[i], cn))
			return -ENOMEM;
	return 0;
}

int cgnames_each_ct_names(const struct cgnames *n,
			  int (*fn)(void *ctx, const char *id,
				    const struct ct_names *cn), void *ctx)
{
	int r;

	for (size_t i = 0; i < n->cap; i++)
		if (n->e[i].id && n->e[i].names &&
		    (r = fn(ctx, n->e[i].ct.id, n->e[i].names)))
			return r;
	return 0;
}

int cgnames_set(struct cgnames *n, uint64_t id, const char *path)
{
	struct cg_entry *e;
	char *p;

	if (!id)
		return -EINVAL;
	e = &n->e[slot_of(n, id)];
	if (e->id && !strcmp(e->path, path))
		return 0; /* as it was, names and all */
	if ((n->n + 1) * 4 > n->cap * 3 && grow(n))
		return -ENOMEM;
	p = strdup(path);
	if (!p)
		return -ENOMEM;
	e = &n->e[slot_of(n, id)];
	if (!e->id)
		n->n++;
	free(e->path);
	e->id = id;
	e->path = p;
	describe(n, e);
	return 0;
}

void cgnames_forget(struct cgnames *n, uint64_t id)
{
	size_t i, j, k;

	if (!id)
		return;
	i = slot_of(n, id);
	if (!n->e[i].id)
		return;
	free(n->e[i].path);
	drop_names(&n->e[i]);
	memset(&n->e[i], 0, sizeof(n->e[i]));
	n->n--;
	/* linear probing: move back what the hole would hide */
	for (j = (i + 1) & (n->cap - 1); n->e[j].id; j = (j + 1) & (n->cap - 1)) {
		k = home_of(n, n->e[j].id);
		/* j stays when its home k lies cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		n->e[i] = n->e[j];
		memset(&n->e[j], 0, sizeof(n->e[j]));
		i = j;
	}
}

size_t cgnames_count(const struct cgnames *n)
{
	return n->n;
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
	const struct cg_entry *e = id ? &n->e[slot_of(n, id)] : NULL;

	return e && e->id ? e->path : NULL;
}

/* The entry for id, looked up live on a miss; NULL if unknown. */
static struct cg_entry *find(struct cgnames *n, uint64_t id)
{
	struct cg_entry *e;
	const char *path;

	if (!id)
		return NULL;
	e = &n->e[slot_of(n, id)];
	if (e->id)
		return e;
	if (!n->live || !(path = cgroup_map_path(n->live, id)))
		return NULL;
	if (cgnames_set(n, id, path))
		return NULL;
	return &n->e[slot_of(n, id)];
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
