// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include "abi/btf_util.h"
#include "abi/layout.h"

static int find(const struct lfield *v, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return i;
	return -1;
}

void layout_compare(const struct lfield *old, int nold,
		    const struct lfield *new, int nnew, lfinding_cb cb,
		    void *ctx)
{
	for (int i = 0; i < nold; i++) {
		int j = find(new, nnew, old[i].name);
		struct lfinding f = { .name = old[i].name,
				      .old_type = old[i].type, .old_idx = i,
				      .new_idx = j };

		if (j < 0)
			f.kind = LC_DELETED;
		else if (strcmp(old[i].type, new[j].type))
			f.kind = LC_RETYPED;
		else if (i != j)
			f.kind = LC_MOVED;
		else
			f.kind = LC_SAME;
		if (j >= 0)
			f.new_type = new[j].type;
		cb(ctx, &f);
	}
	for (int j = 0; j < nnew; j++) {
		struct lfinding f = { .name = new[j].name,
				      .new_type = new[j].type, .old_idx = -1,
				      .new_idx = j };
		bool later_old = false;

		if (find(old, nold, new[j].name) >= 0)
			continue;
		/* appended: past every old position, with no old field after it */
		for (int k = j + 1; k < nnew; k++)
			later_old |= find(old, nold, new[k].name) >= 0;
		f.kind = later_old || j < nold ? LC_INSERTED : LC_APPENDED;
		cb(ctx, &f);
	}
}

static void finding(lfinding_cb cb, void *ctx, enum lchange kind,
		    const struct lfield *old, int i, const struct lfield *new,
		    int j)
{
	struct lfinding f = { .kind = kind, .old_idx = i, .new_idx = j };

	f.name = i >= 0 ? old[i].name : new[j].name;
	f.old_type = i >= 0 ? old[i].type : NULL;
	f.new_type = j >= 0 ? new[j].type : NULL;
	cb(ctx, &f);
}

void proto_compare(const struct lfield *old, int nold,
		   const struct lfield *new, int nnew, lfinding_cb cb,
		   void *ctx)
{
	int lo = nold < nnew ? nold : nnew, p = 0, s = 0, mo, mn;

	while (p < lo && !strcmp(old[p].type, new[p].type))
		p++;
	while (s < lo - p && !strcmp(old[nold - 1 - s].type,
				     new[nnew - 1 - s].type))
		s++;
	mo = nold - s - p; /* the middles: old[p, p + mo), new[p, p + mn) */
	mn = nnew - s - p;
	for (int i = 0; i < p; i++)
		finding(cb, ctx, LC_SAME, old, i, new, i);
	for (int i = 0; i < mo && i < mn; i++)
		finding(cb, ctx, LC_RETYPED, old, p + i, new, p + i);
	for (int i = mn; i < mo; i++)
		finding(cb, ctx, LC_DELETED, old, p + i, new, -1);
	for (int i = mo; i < mn; i++)
		finding(cb, ctx, s ? LC_INSERTED : LC_APPENDED, old, -1, new,
			p + i);
	for (int i = 0; i < s; i++) {
		int oi = nold - s + i, ni = nnew - s + i;

		finding(cb, ctx, oi == ni ? LC_SAME : LC_MOVED, old, oi, new, ni);
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
	}
	return "?";
}

int record_layout(const struct btf *btf, const char *name, struct lfield **out)
{
	__u32 sid = btf_find_struct(btf, name);
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
		n++;
	}
	return n;
}

int proto_layout(const struct btf *btf, const char *tp, struct lfield **out)
{
	const struct btf_type *proto = btf_trace_proto(btf, tp);
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
	}
	return n;
}
