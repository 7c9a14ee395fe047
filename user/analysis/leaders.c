// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
#include <errno.h>
#include <stdio.h>
#include "analysis/leaders.h"

int leaders_find(struct leaders *l, const struct analysis *a)
{
	l->a = a;
	l->by_tgid = (struct hashtab)HASHTAB_INIT;
	for (size_t i = 0; i < a->ntasks; i++) {
		const struct task *t = &a->tasks[i];
		uint64_t *at = t->tgid > 0 ? hashtab_get(&l->by_tgid,
							 (uint64_t)t->tgid) : NULL;
		const struct task *had = at ? &a->tasks[*at] : NULL;

		if (t->tgid <= 0 || !t->comm[0])
			continue;
		/* the first named thread, until the named leader */
		if ((!had || (t->pid == t->tgid && had->pid != had->tgid)) &&
		    hashtab_put(&l->by_tgid, (uint64_t)t->tgid, i) < 0)
			return -ENOMEM;
	}
	return 0;
}

const struct task *leaders_of(const struct leaders *l, int32_t tgid)
{
	uint64_t *i = tgid > 0 ? hashtab_get(&l->by_tgid, (uint64_t)tgid) : NULL;

	return i ? &l->a->tasks[*i] : NULL;
}

void leaders_name(const struct leaders *l, const struct task *t, char *out,
		  size_t len)
{
	const struct task *lead = leaders_of(l, t->tgid);

	snprintf(out, len, "%.*s:%d", ABICAP_COMM_LEN,
		 task_comm(lead ? lead : t), t->tgid);
}

void leaders_free(struct leaders *l)
{
	hashtab_free(&l->by_tgid);
}
