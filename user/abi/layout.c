// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_util.h"
#include "abi/layout.h"
#include "lib/util.h"

/* Field indexes sorted by name, then position: each lookup a binary search. */
struct byname {
	const struct lfield *v;
	int *ix;
	int n;
};

static const struct lfield *sort_base;

static int by_name(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	int c = strcmp(sort_base[x].name, sort_base[y].name);

	return c ? c : (x > y) - (x < y);
}

static int byname_init(struct byname *b, const struct lfield *v, int n)
{
	b->v = v;
	b->n = n;
	b->ix = malloc((n + 1) * sizeof(*b->ix));
	if (!b->ix)
		return -1;
	for (int i = 0; i < n; i++)
		b->ix[i] = i;
	sort_base = v;
	qsort(b->ix, n, sizeof(*b->ix), by_name);
	return 0;
}

/* The first position of a field named name, or -1. */
static int find(const struct byname *b, const char *name)
{
	int lo = 0, hi = b->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if (strcmp(b->v[b->ix[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < b->n && !strcmp(b->v[b->ix[lo]].name, name) ? b->ix[lo] : -1;
}

static const char *shape(const struct lfield *f)
{
	return f->shape[0] ? f->shape : f->type;
}

/*
 * Do a and b have one shape? Where one has none (a contract's field: its
 * canonical type only), their canonical types must be equal.
 */
static bool same_shape(const struct lfield *a, const struct lfield *b)
{
	if (!a->shape[0] || !b->shape[0])
		return !strcmp(a->type, b->type);
	return !strcmp(a->shape, b->shape);
}

/* old[i] found again as new[j]: unchanged, moved or a char's sign changed */
static enum lchange kept(const struct lfield *old, int i,
			 const struct lfield *new, int j)
{
	if (i != j)
		return LC_MOVED;
	return strcmp(old[i].type, new[j].type) ? LC_CHAR_SIGN : LC_SAME;
}

void layout_compare(const struct lfield *old, int nold,
		    const struct lfield *new, int nnew, lfinding_cb cb,
		    void *ctx)
{
	struct byname bo, bn;
	bool *later_old = calloc(nnew + 1, sizeof(*later_old));

	if (!later_old || byname_init(&bo, old, nold) ||
	    byname_init(&bn, new, nnew)) {
		ab_error("out of memory");
		exit(EXIT_RUNTIME);
	}
	for (int i = 0; i < nold; i++) {
		int j = find(&bn, old[i].name);
		struct lfinding f = { .name = old[i].name,
				      .old_type = old[i].type, .old_idx = i,
				      .new_idx = j };

		f.old_shape = shape(&old[i]);
		if (j < 0)
			f.kind = LC_DELETED;
		else if (!same_shape(&old[i], &new[j]))
			f.kind = LC_RETYPED;
		else
			f.kind = kept(old, i, new, j);
		if (j >= 0) {
			f.new_type = new[j].type;
			f.new_shape = shape(&new[j]);
		}
		cb(ctx, &f);
	}
	/* later_old[j]: an old field is among new[j + 1 ..] */
	for (int j = nnew - 2; j >= 0; j--)
		later_old[j] = later_old[j + 1] || find(&bo, new[j + 1].name) >= 0;
	for (int j = 0; j < nnew; j++) {
		struct lfinding f = { .name = new[j].name,
				      .new_type = new[j].type,
				      .new_shape = shape(&new[j]), .old_idx = -1,
				      .new_idx = j };

		if (find(&bo, new[j].name) >= 0)
			continue;
		/* appended: past every old position, with no old field after it */
		f.kind = later_old[j] || j < nold ? LC_INSERTED : LC_APPENDED;
		cb(ctx, &f);
	}
	free(bo.ix);
	free(bn.ix);
	free(later_old);
}

static void finding(lfinding_cb cb, void *ctx, enum lchange kind,
		    const struct lfield *old, int i, const struct lfield *new,
		    int j)
{
	struct lfinding f = { .kind = kind, .old_idx = i, .new_idx = j };

	f.name = i >= 0 ? old[i].name : new[j].name;
	f.old_type = i >= 0 ? old[i].type : NULL;
	f.new_type = j >= 0 ? new[j].type : NULL;
	f.old_shape = i >= 0 ? shape(&old[i]) : NULL;
	f.new_shape = j >= 0 ? shape(&new[j]) : NULL;
	cb(ctx, &f);
}

/*
 * The middles old[p, p + mo) and new[p, p + mn) aligned by shape (a longest
 * common subsequence). An argument whose type is found again is unchanged
 * (same position) or moved; between two such anchors the leftovers pair up
 * as retyped, and what remains of them was deleted or inserted (appended
 * only past every old position with no old argument after it). An
 * argument is never called retyped to its own type.
 */
static void middle_compare(const struct lfield *old, int nold, int p, int mo,
			   const struct lfield *new, int mn, bool tail_old,
			   lfinding_cb cb, void *ctx)
{
	/* lcs[i][j]: the longest alignment of old[p+i..] and new[p+j..] */
	int w = mn + 1, *lcs = calloc((size_t)(mo + 1) * w, sizeof(*lcs));
	int i = 0, j = 0;

	if (!lcs) {
		ab_error("out of memory");
		exit(EXIT_RUNTIME);
	}
	for (int a = mo - 1; a >= 0; a--)
		for (int b = mn - 1; b >= 0; b--) {
			int skip = lcs[(a + 1) * w + b] > lcs[a * w + b + 1] ?
					   lcs[(a + 1) * w + b] :
					   lcs[a * w + b + 1];

			if (same_shape(&old[p + a], &new[p + b]) &&
			    lcs[(a + 1) * w + b + 1] + 1 >= skip)
				skip = lcs[(a + 1) * w + b + 1] + 1;
			lcs[a * w + b] = skip;
		}
	while (i < mo || j < mn) {
		int ni = i, nj = j;

		/* the next anchor: a match on the longest alignment */
		while (ni < mo && nj < mn &&
		       !(same_shape(&old[p + ni], &new[p + nj]) &&
			 lcs[ni * w + nj] == lcs[(ni + 1) * w + nj + 1] + 1)) {
			if (lcs[(ni + 1) * w + nj] >= lcs[ni * w + nj + 1])
				ni++;
			else
				nj++;
		}
		if (ni == mo || nj == mn) /* no anchor left */
			ni = mo, nj = mn;
		for (; i < ni && j < nj; i++, j++)
			finding(cb, ctx, LC_RETYPED, old, p + i, new, p + j);
		for (; i < ni; i++)
			finding(cb, ctx, LC_DELETED, old, p + i, new, -1);
		for (; j < nj; j++)
			finding(cb, ctx, tail_old || ni < mo || p + j < nold ?
				LC_INSERTED : LC_APPENDED, old, -1, new, p + j);
		if (i < mo && j < mn) {
			finding(cb, ctx, kept(old, p + i, new, p + j), old,
				p + i, new, p + j);
			i++;
			j++;
		}
	}
	free(lcs);
}

void proto_compare(const struct lfield *old, int nold,
		   const struct lfield *new, int nnew, lfinding_cb cb,
		   void *ctx)
{
	int lo = nold < nnew ? nold : nnew, p = 0, s = 0;

	while (p < lo && same_shape(&old[p], &new[p]))
		p++;
	while (s < lo - p && same_shape(&old[nold - 1 - s], &new[nnew - 1 - s]))
		s++;
	for (int i = 0; i < p; i++)
		finding(cb, ctx, kept(old, i, new, i), old, i, new, i);
	middle_compare(old, nold, p, nold - s - p, new, nnew - s - p, s > 0, cb,
		       ctx);
	for (int i = 0; i < s; i++) {
		int oi = nold - s + i, ni = nnew - s + i;

		finding(cb, ctx, kept(old, oi, new, ni), old, oi, new, ni);
	}
}

const char *lchange_str(enum lchange k)
{
	switch (k) {
	case LC_SAME:
		return "unchanged";
	case LC_APPENDED:
		return "appended";
	case LC_DELETED:
		return "deleted";
	case LC_RETYPED:
		return "retyped";
	case LC_MOVED:
		return "moved";
	case LC_INSERTED:
		return "inserted before the end";
	case LC_CHAR_SIGN:
		return "char signedness";
	}
	return "?";
}

int record_layout(const struct btf *btf, const char *name, struct lfield **out)
{
	return record_layout_of(btf, btf_find_struct(btf, name), out);
}

int record_layout_of(const struct btf *btf, __u32 sid, struct lfield **out)
{
	const struct btf_type *t = btf__type_by_id(btf, sid);
	const struct btf_member *m;
	int n = 0;

	*out = NULL;
	if (!sid || !t)
		return -1;
	*out = calloc(btf_vlen(t) + 1, sizeof(**out));
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *mn = btf__name_by_offset(btf, m->name_off);

		/* the common header and the dynamic-data marker are not fields */
		if (i == 0 && !strcmp(mn, "ent"))
			continue;
		if (i == btf_vlen(t) - 1 && !strcmp(mn, "__data"))
			continue;
		snprintf((*out)[n].name, sizeof((*out)[n].name), "%s", mn);
		btf_type_str(btf, m->type, (*out)[n].type, TYPE_STR_MAX, NULL, 0);
		btf_type_shape(btf, m->type, (*out)[n].shape, TYPE_STR_MAX);
		n++;
	}
	return n;
}

int proto_layout(const struct btf *btf, const char *tp, struct lfield **out)
{
	return proto_layout_of(btf, btf_trace_proto(btf, tp), out);
}

int proto_layout_of(const struct btf *btf, const struct btf_type *proto,
		    struct lfield **out)
{
	const struct btf_param *p;
	int n;

	*out = NULL;
	if (!proto)
		return -1;
	n = btf_vlen(proto) - 1; /* without void *__data */
	if (n < 0)
		n = 0;
	*out = calloc(n + 1, sizeof(**out));
	p = btf_params(proto) + 1;
	for (int i = 0; i < n; i++, p++) {
		snprintf((*out)[i].name, sizeof((*out)[i].name), "arg%d", i + 1);
		btf_type_str(btf, p->type, (*out)[i].type, TYPE_STR_MAX, NULL, 0);
		btf_type_shape(btf, p->type, (*out)[i].shape, TYPE_STR_MAX);
	}
	return n;
}
