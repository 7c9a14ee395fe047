// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * Tracepoint prototypes compared under the append-only rule (what `diff`
 * reports): the known changes exactly, and on random prototypes the
 * properties every finding must have (an argument is never retyped to its
 * own type, each old and each new argument is named exactly once).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>
#include "abi/layout.h"

#define MAXF 16

struct seen {
	struct lfinding f[2 * MAXF];
	char old_type[2 * MAXF][TYPE_STR_MAX];
	char new_type[2 * MAXF][TYPE_STR_MAX];
	char old_shape[2 * MAXF][TYPE_STR_MAX];
	char new_shape[2 * MAXF][TYPE_STR_MAX];
	int n;
};

static void on_f(void *ctx, const struct lfinding *f)
{
	struct seen *s = ctx;

	cr_assert_lt(s->n, 2 * MAXF);
	s->f[s->n] = *f;
	snprintf(s->old_type[s->n], TYPE_STR_MAX, "%s", f->old_type ? f->old_type : "");
	snprintf(s->new_type[s->n], TYPE_STR_MAX, "%s", f->new_type ? f->new_type : "");
	snprintf(s->old_shape[s->n], TYPE_STR_MAX, "%s", f->old_shape ? f->old_shape : "");
	snprintf(s->new_shape[s->n], TYPE_STR_MAX, "%s", f->new_shape ? f->new_shape : "");
	s->n++;
}

static int protos(struct lfield *v, const char *const *types)
{
	int n = 0;

	for (; types[n]; n++) {
		snprintf(v[n].name, sizeof(v[n].name), "arg%d", n + 1);
		snprintf(v[n].type, sizeof(v[n].type), "%s", types[n]);
		v[n].shape[0] = '\0';
	}
	return n;
}

/* The findings that are not "unchanged", as "kind old->new" lines. */
static char *changes(const char *const *o, const char *const *n)
{
	struct lfield old[MAXF], new[MAXF];
	int no = protos(old, o), nn = protos(new, n);
	static char out[1024];
	struct seen s = { 0 };

	proto_compare(old, no, new, nn, on_f, &s);
	out[0] = 0;
	for (int i = 0; i < s.n; i++) {
		if (s.f[i].kind == LC_SAME)
			continue;
		snprintf(out + strlen(out), sizeof(out) - strlen(out),
			 "%s %d->%d %s->%s\n", lchange_str(s.f[i].kind),
			 s.f[i].old_idx + 1, s.f[i].new_idx + 1,
			 s.old_type[i], s.new_type[i]);
	}
	return out;
}

Test(layout, prev_state_inserted_then_appended)
{
	const char *const v3[] = { "bool", "struct task_struct *",
				   "struct task_struct *", NULL };
	const char *const rc1[] = { "bool", "unsigned int", "struct task_struct *",
				    "struct task_struct *", NULL };
	const char *const rc7[] = { "bool", "struct task_struct *",
				    "struct task_struct *", "unsigned int", NULL };

	cr_assert_str_eq(changes(v3, rc1),
			 "inserted before the end 0->2 ->unsigned int\n"
			 "moved 2->3 struct task_struct *->struct task_struct *\n"
			 "moved 3->4 struct task_struct *->struct task_struct *\n");
	cr_assert_str_eq(changes(v3, rc7), "appended 0->4 ->unsigned int\n");
}

/*
 * Debian 6.1 -> 6.18 amd_pstate_perf-like: an argument inserted among
 * arguments of one type. The old comparison paired the middles by position
 * and called u64 -> u64 "retyped" (issue 22).
 */
Test(layout, same_type_in_the_middle_is_never_retyped)
{
	const char *const o[] = { "unsigned long", "u64", "u64", "u64", "u64",
				  "u64", "int", "bool", NULL };
	const char *const n[] = { "unsigned long", "u8", "u64", "u64", "u64",
				  "u64", "u64", "u32", "bool", NULL };

	cr_assert_str_eq(changes(o, n),
			 "inserted before the end 0->2 ->u8\n"
			 "moved 2->3 u64->u64\n"
			 "moved 3->4 u64->u64\n"
			 "moved 4->5 u64->u64\n"
			 "moved 5->6 u64->u64\n"
			 "moved 6->7 u64->u64\n"
			 "retyped 7->8 int->u32\n"
			 "moved 8->9 bool->bool\n");
}

Test(layout, a_retype_in_place_and_a_deletion)
{
	const char *const o[] = { "u64", "u32", "u32", "int", NULL };
	const char *const n[] = { "u64", "u64", "int", NULL };

	cr_assert_str_eq(changes(o, n), "retyped 2->2 u32->u64\n"
					"deleted 3->0 u32->\n"
					"moved 4->3 int->int\n");
}

/*
 * Random prototypes over a small alphabet: the properties of any answer.
 * Plain char is "s8 *" or "u8 *" by its sign, "char *" by its shape; a
 * signed char is "s8 *" by both.
 */
Test(layout, random_prototypes_keep_the_properties)
{
	static const char *const alpha[][2] = {
		{ "u64", "" }, { "u32", "" }, { "bool", "" }, { "int", "" },
		{ "s8 *", "char *" }, { "u8 *", "char *" }, { "s8 *", "s8 *" } };
	unsigned int seed = 22;

	for (int round = 0; round < 20000; round++) {
		struct lfield old[MAXF] = { 0 }, new[MAXF] = { 0 };
		int no = rand_r(&seed) % 8, nn = rand_r(&seed) % 8;
		int oseen[MAXF] = { 0 }, nseen[MAXF] = { 0 };
		int na = round % 2 ? 7 : 4; /* every other round with chars */
		struct seen s = { 0 };

		for (int i = 0; i < no; i++) {
			int a = rand_r(&seed) % na;

			snprintf(old[i].type, TYPE_STR_MAX, "%s", alpha[a][0]);
			snprintf(old[i].shape, TYPE_STR_MAX, "%s", alpha[a][1]);
		}
		for (int i = 0; i < nn; i++) {
			int a = rand_r(&seed) % na;

			snprintf(new[i].type, TYPE_STR_MAX, "%s", alpha[a][0]);
			snprintf(new[i].shape, TYPE_STR_MAX, "%s", alpha[a][1]);
		}
		proto_compare(old, no, new, nn, on_f, &s);
		for (int i = 0; i < s.n; i++) {
			const struct lfinding *f = &s.f[i];
			bool same = !strcmp(s.old_type[i], s.new_type[i]);
			bool shaped = !strcmp(s.old_shape[i], s.new_shape[i]);

			if (f->old_idx >= 0)
				oseen[f->old_idx]++;
			if (f->new_idx >= 0)
				nseen[f->new_idx]++;
			switch (f->kind) {
			case LC_RETYPED:
				cr_assert(!shaped, "round %d: retyped to its own type %s",
					  round, s.old_shape[i]);
				break;
			case LC_SAME:
				cr_assert(same && shaped && f->old_idx == f->new_idx,
					  "round %d", round);
				break;
			case LC_CHAR_SIGN:
				cr_assert(!same && shaped && f->old_idx == f->new_idx &&
					  !strcmp(s.old_shape[i], "char *"),
					  "round %d", round);
				break;
			case LC_MOVED:
				cr_assert(shaped && f->old_idx != f->new_idx, "round %d",
					  round);
				break;
			case LC_DELETED:
				cr_assert(f->new_idx < 0, "round %d", round);
				break;
			case LC_APPENDED:
				cr_assert(f->old_idx < 0 && f->new_idx >= no, "round %d", round);
				break;
			case LC_INSERTED:
				cr_assert(f->old_idx < 0, "round %d", round);
				break;
			}
		}
		for (int i = 0; i < no; i++)
			cr_assert_eq(oseen[i], 1, "round %d: old arg %d named %d times",
				     round, i + 1, oseen[i]);
		for (int i = 0; i < nn; i++)
			cr_assert_eq(nseen[i], 1, "round %d: new arg %d named %d times",
				     round, i + 1, nseen[i]);
	}
}
