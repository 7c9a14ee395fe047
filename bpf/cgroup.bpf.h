/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * A task's cgroup v2: task_struct.cgroups -> css_set.dfl_cgrp -> cgroup.kn
 * -> kernfs_node.id, and the walk up its ancestors for --cgroup. The loader
 * uses these only where the contract's cgroup items hold (kernfs_node.id is
 * a u64 since Linux 5.5; cgroup.level and cgroup.self.parent for the walk).
 */
#ifndef ABICAP_CGROUP_BPF_H
#define ABICAP_CGROUP_BPF_H

#include <bpf/bpf_core_read.h>
#include "abicap.h"

/*
 * The task's cgroup v2 id: the kernfs node id of its default-hierarchy
 * cgroup, what bpf_get_current_cgroup_id() returns for current and the
 * inode number of the cgroup's directory. 0 where the kernel has no
 * cgroups (CONFIG_CGROUPS off: the contract calls that degraded).
 */
static __always_inline __u64 task_cgroup_id(struct task_struct *t,
					    const bool direct)
{
	if (!bpf_core_field_exists(t->cgroups))
		return 0;
	if (direct)
		return t->cgroups->dfl_cgrp->kn->id;
	return BPF_CORE_READ(t, cgroups, dfl_cgrp, kn, id);
}

/*
 * The task's cgroup is `id` (at depth `level`) or below it: walk up from
 * its cgroup to that depth through each cgroup's own css parent.
 */
static __always_inline bool task_in_cgroup(struct task_struct *t, __u64 id,
					   int level)
{
	struct cgroup *cg;
	int at;

	if (!bpf_core_field_exists(t->cgroups))
		return false;
	cg = BPF_CORE_READ(t, cgroups, dfl_cgrp);
	if (!cg)
		return false;
	at = BPF_CORE_READ(cg, level);
	if (at < level || at - level >= ABICAP_CGROUP_MAX_DEPTH)
		return false;
	for (int i = 0; i < ABICAP_CGROUP_MAX_DEPTH && at > level; i++, at--) {
		struct cgroup_subsys_state *css = BPF_CORE_READ(cg, self.parent);

		if (!css)
			return false;
		/* cgroup.self is the cgroup's own css: step back to the cgroup */
		cg = (void *)css - bpf_core_field_offset(struct cgroup, self);
	}
	return BPF_CORE_READ(cg, kn, id) == id;
}

#endif /* ABICAP_CGROUP_BPF_H */
